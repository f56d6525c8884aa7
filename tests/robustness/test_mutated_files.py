"""Mutated files through every importer and every config reader: no internal error, no
traceback (issue 22, item 8).

Each mutant (:mod:`tests.robustness._mutants`: a seed's file with a byte flipped, cut,
nested 5,000 deep, a huge number, a value of the wrong type, another encoding, a NUL, a
lone surrogate, control characters, a 200 KB value...) runs through ``assay.cli.main``,
the entry of the ``assay`` command, in this process. It may be read (exit 0) or refused
(exit 2 with one ``error:`` line naming a file of the mutant's folder); an internal
error (exit 1), a traceback or an exception escaping ``main`` fails the test. (A config's
later checks, of its inputs and judges, name the key at fault, ``inputs.question_sets:``,
without the file: for configs the line need not name a file.)

The whole set (every seed, 24 mutations each, and inspect-ai's log: 672 files) is slow
(about 4 minutes on a busy machine: each file that imports builds and validates a table);
the default suite runs the mutations that were internal errors before (nesting,
surrogates, encodings, NULs, huge numbers), two of each seed.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest

from assay.cli import main
from tests.robustness._mutants import Mutant, mutants, seeds, take

PER_SEED = 24
FAST = ("nested", "surrogate", "encoding", "nul", "huge_number")


def outcome(mutant: Mutant) -> str | None:
    """What is wrong with how the command took ``mutant``, or None when it was read or
    refused in one line naming one of its files."""
    with tempfile.TemporaryDirectory() as folder:
        taken = take(mutant, Path(folder))
    return taken.why or None


def _check(cases: list[Mutant]) -> None:
    found = {m.name: outcome(m) for m in cases}
    bad = {name: why for name, why in found.items() if why is not None}
    assert not bad, f"{len(bad)} of {len(found)} mutated files: " + "\n".join(
        f"{name}: {why}" for name, why in bad.items())


def test_a_sample_of_mutated_files_is_read_or_refused_in_one_line(monkeypatch):
    """Two mutations of each seed, from those that were internal errors, in turn."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    names = [s.name for s in seeds() if not s.slow]
    sample = []
    for m in mutants(PER_SEED, slow=False):
        k = names.index(m.seed.name)
        if m.mutation in (FAST[k % len(FAST)], FAST[(k + 1) % len(FAST)]) and \
                sum(x.seed is m.seed for x in sample) < 2:
            sample.append(m)
    assert len(sample) == 2 * len(names)
    _check(sample)


@pytest.mark.slow
def test_every_seed_is_read(capsys, monkeypatch):
    """The seeds themselves import cleanly, so the mutants exercise the readers."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for seed in seeds():
        if seed.name == "inspect" and importlib.util.find_spec("inspect_ai") is None:
            continue  # its mutants are then refused as needing inspect-ai, which is fine
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            Mutant(seed, seed.name, "none", seed.files[seed.target]).write(root)
            with pytest.raises(SystemExit) as info:
                main(seed.argv(root))
            output = capsys.readouterr()
            assert info.value.code == 0, (seed.name, output.err[-500:])


@pytest.mark.slow
def test_600_mutated_files_give_no_internal_error(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cases = list(mutants(PER_SEED))
    assert len(cases) >= 600
    _check(cases)
