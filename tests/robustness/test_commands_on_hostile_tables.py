"""Every command over tables the demo never produces: it succeeds or refuses in one line.

For each hostile table (``_tables.TABLES``) the user's path is walked as the README tells it:
``validate`` the CSV, ``import`` it to Parquet (scales kept), ``report`` every kind in every
format, ``compare`` the table with itself, ``register`` a contrast where the table has two
arms, and ``plan`` a difference and a width from it. Each command must exit 0 or 2, print no
traceback and no "internal error", write nothing outside its output folder, and, when it
succeeds, write every requested format or say in its output why a report was left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.cli import main
from tests.robustness._tables import TABLES, write_csv

pytestmark = pytest.mark.slow  # every command over every hostile table: about 60 s (.ci/run runs it)

FORMATS = ("text", "json", "html", "xlsx", "latex", "png")
KINDS = ("scores", "benchmark", "aggregate", "judges", "winrate")
"""Each kind on its own as well (``all`` is the default run above): a kind the data do not
support is refused in one line or skipped with its reason, never a crash."""
SUFFIX = {"json": ".json", "html": ".html", "xlsx": ".xlsx", "latex": ".tex", "png": ".png"}


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _check(name: str, args: list[str], code: int, output: str) -> None:
    where = f"{name}: assay {' '.join(args)}"
    assert code in (0, 2), f"{where} exited {code}:\n{output[-2000:]}"
    assert "Traceback" not in output, f"{where} printed a traceback:\n{output[-2000:]}"
    assert "internal error" not in output, f"{where}:\n{output[-2000:]}"
    if code == 2:  # a refusal is one clear line starting with "error:"
        assert re.search(r"^error: \S", output, re.MULTILINE), (
            f"{where} refused without saying why:\n{output}")


def _two_judges_share_units(records: list[dict]) -> bool:
    judges: dict[tuple, set] = {}
    for r in records:
        if r.get("score") is not None:
            unit = (r.get("item"), r.get("arm"), r.get("opponent"), r.get("run"), r.get("criterion"))
            judges.setdefault(unit, set()).add(r.get("judge"))
    return any(len(j) >= 2 for j in judges.values())


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_command_succeeds_or_refuses_clearly(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    records, scales = TABLES[name]()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    source = work / "table.csv"
    write_csv(records, source)
    scale_args = [a for s in scales for a in ("--scale", s)]
    before = _files(tmp_path)

    args = ["validate", str(source), *scale_args]
    code, output = _run(args, capsys)
    _check(name, args, code, output)

    table = work / "table.parquet"
    args = ["import", "table", str(source), *scale_args, "-o", str(table)]
    code, output = _run(args, capsys)
    _check(name, args, code, output)
    if code != 0:
        assert not table.exists(), f"{name}: a refused import left {table} behind"
        return
    assert table.is_file()

    out = work / "report"
    args = ["report", str(table), "--format", ",".join(FORMATS), "--out", str(out)]
    code, output = _run(args, capsys)
    _check(name, args, code, output)
    if code == 0:
        written = {p.suffix for p in _files(out)} if out.exists() else set()
        explained = re.search(r"skip|not available|left out|cannot|no report", output, re.IGNORECASE)
        for fmt in FORMATS[1:]:
            assert SUFFIX[fmt] in written or explained, (
                f"{name}: report exited 0 but wrote no {fmt} file and said nothing about it:\n"
                f"{output[-1500:]}")

    for kind in KINDS:
        kind_out = work / f"report-{kind}"
        args = ["report", str(table), "--kind", kind, "--format", "text,json", "--out", str(kind_out)]
        code, output = _run(args, capsys)
        _check(name, args, code, output)
        if kind == "judges" and _two_judges_share_units(records):
            assert (kind_out / "judges.json").is_file(), (
                f"{name}: two judges scored the same units but --kind judges wrote no judges.json:\n"
                f"{output[-1500:]}")

    compared = work / "compare"
    args = ["compare", str(table), str(table), "--format", "text,json,html", "--out", str(compared)]
    code, output = _run(args, capsys)
    _check(name, args, code, output)
    if code == 0:
        assert (compared / "comparison.json").is_file(), f"{name}: compare wrote no comparison.json"

    arms = list(dict.fromkeys(r["arm"] for r in records))
    if len(arms) >= 2:
        registration = work / "registration.json"
        args = ["register", str(table), "--contrast", f"{arms[0]}:{arms[1]}:0.05", "-o", str(registration)]
        code, output = _run(args, capsys)
        _check(name, args, code, output)

    first = records[0] if records else {}
    choice = [a for key in ("judge", "criterion") if first.get(key) is not None
              for a in (f"--{key}", str(first[key]))]
    for target in (["--difference", "0.1"], ["--width", "0.2", "--estimand", "mean"]):
        args = ["plan", str(table), *target, *choice, "--format", "text,json", "--out",
                str(work / "plan")]
        code, output = _run(args, capsys)
        _check(name, args, code, output)
        if code == 0:
            assert (work / "plan" / "plan.json").is_file(), f"{name}: plan wrote no plan.json"

    written = _files(tmp_path) - before
    outside = [p for p in written if work not in p.parents]
    assert not outside, f"{name}: files written outside the working folder: {outside}"
