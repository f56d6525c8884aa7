"""Environment errors are user errors (issue item 23): a read-only folder, a full disk, a
corrupt store, an output path that is a file, a file that cannot be read. Each gives one
line naming the file and the cause and exit status 2, never "internal error".

A full disk is simulated with ``RLIMIT_FSIZE`` in the child (writes past the limit fail
with EFBIG, SIGXFSZ ignored); a read-only folder with chmod, plus ``chattr +i`` as root.
"""

from __future__ import annotations

import errno
import json
import resource
import signal
from pathlib import Path

import pytest

from assay.cli import main
from tests.cli._subprocess import one_error_line, read_only, run_assay

pytestmark = pytest.mark.slow  # a child process per environment fault: about 45 s (.ci/run runs it)

ROWS = 3000


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    table = folder / "t.csv"
    lines = ["item,arm,score,reasoning"]
    lines += [f"q{i // 2},{'ab'[i % 2]},{(i * 7) % 10},reason {i} " + "x" * 60 for i in range(ROWS)]
    table.write_text("\n".join(lines) + "\n")
    answers = folder / "answers.jsonl"
    answers.write_text("".join(json.dumps({
        "item": f"q{i}", "arm": arm, "question": f"what is {i}?", "answer": f"{i} {arm} " * 20,
        "reference": f"{i} " * 20}) + "\n" for i in range(400) for arm in ("a", "b")))
    config = folder / "judge.yaml"
    config.write_text("version: 1\ninputs:\n  jsonl: [answers.jsonl]\njudges:\n"
                      "  - kind: metric\n    metrics: [exact_match, token_f1]\n")
    return {"table": table, "config": config, "folder": folder}


def _outputs(inputs: dict[str, Path], out: Path) -> dict[str, list[str]]:
    table, config = str(inputs["table"]), str(inputs["config"])
    return {
        "import_parquet": ["import", "table", table, "-o", str(out / "t.parquet")],
        "import_csv": ["import", "table", table, "-o", str(out / "t.csv")],
        "report_json": ["report", table, "--kind", "scores", "--format", "json", "--out", str(out)],
        "report_html": ["report", table, "--kind", "scores", "--format", "html", "--out", str(out)],
        "report_xlsx": ["report", table, "--kind", "scores", "--format", "xlsx", "--out", str(out)],
        "report_latex": ["report", table, "--kind", "scores", "--format", "latex", "--out", str(out)],
        "register": ["register", table, "--contrast", "a:b:0.05", "-o", str(out / "r.json")],
        "judge": ["judge", config, "--out", str(out / "run"), "--display", "plain"],
    }


CASES = ["import_parquet", "import_csv", "report_json", "report_html", "report_xlsx",
         "report_latex", "register", "judge"]


def _check(result, *names: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout[-1000:], result.stderr[-2000:])
    line = one_error_line(result)
    assert any(name in line for name in names), line
    return line


@pytest.mark.parametrize("case", CASES)
def test_a_read_only_output_folder(inputs, tmp_path, case):
    out = tmp_path / "ro"
    out.mkdir()
    with read_only(out):
        result = run_assay(*_outputs(inputs, out / "sub" if case == "judge" else out)[case])
    line = _check(result, str(out))
    assert any(cause in line.lower() for cause in ("permission denied", "operation not permitted",
                                                   "read-only")), line


def _disk_of(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("case", CASES)
def test_a_full_disk(inputs, tmp_path, case):
    out = tmp_path / "out"
    result = run_assay(*_outputs(inputs, out)[case], preexec_fn=_disk_of(256))
    line = _check(result, str(out))
    assert "disk full" in line
    if case == "judge":
        assert "rerun the same command to resume" in line
    leftovers = [p.name for p in out.rglob("*.tmp")] if out.exists() else []
    assert not leftovers


@pytest.mark.parametrize("case", ["report_json", "judge", "register", "import_parquet"])
def test_an_output_path_under_a_file(inputs, tmp_path, case):
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder\n")
    result = run_assay(*_outputs(inputs, blocker / "out")[case])
    _check(result, str(blocker))


def test_report_out_that_is_a_file(inputs, tmp_path):
    blocker = tmp_path / "report.txt"
    blocker.write_text("x\n")
    result = run_assay("report", str(inputs["table"]), "--kind", "scores", "--format", "json",
                       "--out", str(blocker))
    _check(result, str(blocker))


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_judge_run_on_a_corrupt_store(inputs, tmp_path, damage):
    run = tmp_path / "run"
    first = run_assay("judge", str(inputs["config"]), "--out", str(run), "--display", "plain")
    assert first.returncode == 0, first.stderr
    store = run / "judgments.sqlite"
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"garbage" * 2000)
    again = run_assay("judge", str(inputs["config"]), "--out", str(run), "--display", "plain")
    line = _check(again, str(store))
    assert "corrupt" in line


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_an_input_that_cannot_be_read(inputs, tmp_path, monkeypatch, capsys, suffix):
    """Root reads any file, so the refusal is simulated where the file is opened."""
    path = tmp_path / f"t{suffix}"
    path.write_bytes(b"item,arm,score\nq1,a,1\n")
    denied = PermissionError(errno.EACCES, "Permission denied", str(path))

    def refuse(*args, **kwargs):
        raise denied

    monkeypatch.setattr("pyarrow.csv.read_csv", refuse)
    monkeypatch.setattr("pyarrow.parquet.read_schema", refuse)
    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(SystemExit) as info:
        main(["validate", str(path)])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.strip() == f"error: {path}: permission denied"
