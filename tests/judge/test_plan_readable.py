"""The plan's check that a report can read every judgment it will store (issue 22, item 5),
on judges whose rows carry what no config of today's judges lets through: what the report's
reader refuses is refused by the plan, before any call."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from assay.data.schema import Scale
from assay.errors import ConfigError
from assay.judge import ChatRequest


@dataclass(frozen=True)
class RowsJudge:
    """A judge whose rows for a request are the request's meta with a failure."""

    name: str = "m/rows"
    declared: dict[str, Scale] = field(default_factory=lambda: {"c": Scale("binary")})

    def scales(self) -> dict[str, Scale]:
        return self.declared

    def rows(self, request: ChatRequest, reply: Any) -> list[dict[str, Any]]:
        assert not reply.ok  # the check builds the rows of a failed call
        return [{**request.meta, "score": None, "failure_kind": reply.failure_kind}]


def _plan(*metas: dict[str, Any], judge: RowsJudge | None = None):
    from assay.judge.plan import JudgePlan, Plan

    requests = [ChatRequest(key=f"k{n}", messages=(("user", "x"),),
                            meta={"item": f"q{n}", "arm": "a", "run": 1, "judge": "m/rows",
                                  "criterion": "c", **meta})
                for n, meta in enumerate(metas)]
    return Plan(judges=[JudgePlan(judge=judge or RowsJudge(), kind="rubric", requests=requests)],
                config=None)  # type: ignore[arg-type]


def _refusal(plan) -> str:
    from assay.judge.plan import check_readable

    with pytest.raises(ConfigError) as caught:
        check_readable(plan)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_readable_rows_pass():
    from assay.judge.plan import check_readable

    check_readable(_plan({}, {"usd": 0.5, "attributes": '{"domain": "x"}'}, {"arm": " b"}))


def test_two_rows_a_report_takes_as_one_are_refused():
    line = _refusal(_plan({"item": "q1"}, {"item": "q1"}))
    assert "duplicate" in line and "'q1'" in line


@pytest.mark.parametrize(("meta", "words"), [
    ({"usd": "a lot"}, ("column 'usd'", "expected a number")),
    ({"position": 3, "opponent": "b"}, ("column 'position'", "expected 1 or 2")),
    ({"run": -1}, ("column 'run'", "run number >= 1")),  # a whole numbering from 0 reads as 1..R
    ({"split": "holdout"}, ("column 'split'",)),
    ({"attributes": {"domain": "x"}}, ("column 'attributes'", "expected text")),
    ({"arm": None}, ("column 'arm'",)),
    ({"arm": "  "}, ("column 'arm'", "blank")),
    ({"judge": ""}, ("column 'judge'", "blank")),
    ({"opponent": "\t", "position": 1}, ("column 'opponent'", "blank")),
])
def test_a_value_the_report_refuses_is_refused(meta, words):
    line = _refusal(_plan({}, meta))
    for word in words:
        assert word in line, line


def test_a_scale_that_does_not_read_back_is_refused():
    judge = RowsJudge(declared={"c": Scale("ordinal", levels=("low, really", "high"))})
    line = _refusal(_plan({}, judge=judge))
    assert "criterion 'c'" in line and "read back" in line




def test_a_plan_the_reader_accepted_is_not_read_again_until_the_reader_changes(tmp_path, monkeypatch):
    """A digest remembered in the cache file after a run spares the next run of the same row
    shapes the reader; a refusal gives none to remember, and a change to the reader's source
    reads again. Without a memo, or before the cache file exists, every plan is read."""
    import assay.data.validate as validate
    from assay.judge import _readable
    from assay.judge.plan import check_readable
    from assay.llm import ResponseCache

    calls = []
    real = validate.build_table
    monkeypatch.setattr(validate, "build_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    cache = tmp_path / "cache.sqlite"
    # a cost given as text: the reader accepts it, the plain test cannot say, so the reader reads
    digest = check_readable(_plan({}, {"usd": "0.5"}), memo=cache)  # no cache file yet: read
    assert digest is not None and len(calls) == 1 and not cache.exists()
    ResponseCache(cache).close()  # the run makes the cache file, then the CLI remembers
    _readable.remember_readable(cache, digest)
    assert check_readable(_plan({}, {"usd": "0.5"}), memo=cache) is None  # other items, same shapes
    assert len(calls) == 1
    assert check_readable(_plan({}, {"usd": "0.5"})) == digest  # no memo: read
    assert len(calls) == 2
    with pytest.raises(ConfigError):
        check_readable(_plan({"run": "first"}), memo=cache)  # refused: read, nothing to remember
    assert len(calls) == 3
    monkeypatch.setattr(_readable, "_READER_SOURCES", (*_readable._READER_SOURCES, "data/io.py"))
    assert check_readable(_plan({}, {"usd": "0.5"}), memo=cache) not in (None, digest)  # reader changed
    assert len(calls) == 4
    assert check_readable(_plan({}, {"usd": 0.5}), memo=cache) is None  # plain rows: not read at all
    assert len(calls) == 4
    with ResponseCache(cache) as opened:  # the memo's table leaves the replies alone
        assert len(opened) == 0


def test_the_memo_is_in_the_cache_file_and_none_without_a_cache(tmp_path):
    from assay.judge._readable import memo_path

    assert memo_path("run", tmp_path / "run" / "responses.sqlite") == tmp_path / "run" / "responses.sqlite"
    assert memo_path("my.sqlite", tmp_path / "my.sqlite") == tmp_path / "my.sqlite"
    assert memo_path("off", None) is None


# The plain test (plainly_readable) decides without pandas for the rows of today's judges; it
# must never accept rows the report's reader refuses. Rows are made from a readable one by
# changing or dropping a few values, each column's values drawn from readable and unreadable
# ones alike, and both are asked.
_VALUES: dict[str, tuple[Any, ...]] = {
    "item": ("q", " q2", {"odd": 1}),
    "cluster": ("c1", None, {"odd": 1}, 3),
    "arm": ("a", "b", " b", "", "  ", None, 5),
    "opponent": ("b", "a", "", "\t", None, 3),
    "position": (1, 2, 3, 0, None, True, 1.0, "1"),
    # (not 2**31: the reader accepts it, then spells out runs 1..2**31 to find the gaps)
    "run": (1, 2, 3, 0, -1, None, 1000, 2**31 + 1, True, 1.5, "1"),
    "judge": ("m/rows", "j2", "", " ", None, 7),
    "criterion": ("c", "d", "", None, "zzz", 4),
    "score": (None, 0, 1, 0.5, "x", ""),
    "failure_kind": ("api_error", "parse_error", "", " ", None, "weird", 2),
    "usd": (0.5, 0, -1, -0.0, float("nan"), float("inf"), "0.5", "a lot", True, 10**400, None),
    "tokens_in": (3, -3, 2.5, None, "3"),
    "latency_s": (0.2, -0.1, None),
    "weight": (1.0, 0, -1, None, 2, float("inf")),
    "difficulty": (-2.0, None, "hard"),
    "split": ("dev", "test", "holdout", "", None),
    "usd_provenance": ("reported", "estimated", "made up", None),
    "reportable": (True, False, None, "yes", 1),
    "attributes": ('{"domain": "x"}', "[1]", "not json", "", {"domain": "x"}, None),
    "task": ("health", "", None, 3, ["x"]),
    "metric_version": ("v1", None),
    "raw_response": (None, "text"),
    "colour": ("red",),
}


_BASES: tuple[dict[str, Any], ...] = (
    {"item": "q", "arm": "a", "run": 1, "judge": "m/rows", "criterion": "c", "score": None,
     "failure_kind": "api_error"},
    {"item": "q", "arm": "a", "opponent": "b", "position": 1, "run": 1, "judge": "m/rows",
     "criterion": "d", "score": None, "failure_kind": "api_error", "usd": 0.5, "attributes": '{"k": "v"}'},
)


def _single_changes() -> list[list[dict[str, Any]]]:
    """Each readable row with one value changed, or one column dropped: every value of every column."""
    cases = []
    for base in _BASES:
        for column, values in _VALUES.items():
            cases += [[{**base, column: value}] for value in values]
            cases.append([{k: v for k, v in base.items() if k != column}])
    return cases


def _generated_rows(rng) -> list[dict[str, Any]]:
    """One to four rows, each a readable one with a few values changed or dropped at random."""
    rows = []
    for _ in range(rng.integers(1, 5)):
        row = {**_BASES[rng.integers(len(_BASES))], "run": int(rng.integers(1, 3))}
        for _ in range(rng.integers(0, 3)):
            column = list(_VALUES)[rng.integers(len(_VALUES))]
            if rng.random() < 0.15:
                row.pop(column, None)
            else:
                values = _VALUES[column]
                row[column] = values[rng.integers(len(values))]
        rows.append(row)
    return rows


@pytest.mark.slow
def test_the_plain_test_accepts_nothing_the_reader_refuses():
    import numpy as np

    from assay.judge._readable import plainly_readable, reader_problems

    scales = {"c": Scale("binary"), "d": Scale("range", minimum=0.0, maximum=1.0)}
    rng = np.random.default_rng(27)
    plain = reader_only = refused = 0
    for rows in [*_single_changes(), *(_generated_rows(rng) for _ in range(150))]:
        problems = reader_problems(rows, scales)
        if plainly_readable(rows, scales):
            assert not problems, (rows, problems)
            plain += 1
        elif problems:
            refused += 1
        else:
            reader_only += 1
    # the rows are varied enough to mean something: each answer is given often
    assert plain >= 60 and refused >= 100 and reader_only >= 15, (plain, refused, reader_only)


def test_the_rows_of_a_plan_of_todays_judges_are_checked_without_pandas(tmp_path):
    """The example config's plan (pairwise and rubric judges) passes the plain test: building it
    imports no pandas (in a process of its own, as a run does)."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path\n"
        "from assay.judge.config import load_config\n"
        "from assay.judge.inputs import load_inputs\n"
        "from assay.judge.plan import build_plan\n"
        f"cfg = load_config(Path({str(tmp_path / 'assay.yaml')!r}))\n"
        "plan = build_plan(cfg, load_inputs(cfg))\n"
        "print(sorted({part.kind for part in plan.judges}), len(plan.keys), 'pandas' in sys.modules)\n"
    )
    from assay.judge.example import EXAMPLE_CONFIG, write_example_inputs

    write_example_inputs(tmp_path)
    (tmp_path / "assay.yaml").write_text(EXAMPLE_CONFIG, encoding="utf-8")
    import os

    import assay

    env = {**os.environ, "PYTHONPATH": str(Path(assay.__file__).resolve().parents[1])}  # this tree's
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env=env, check=False)
    assert done.returncode == 0, done.stderr
    kinds, rest = done.stdout.split("] ")
    keys, pandas = rest.split()
    assert "pairwise" in kinds and "rubric" in kinds and int(keys) > 0, done.stdout
    assert pandas == "False", done.stdout
