"""The progress display: a spinner naming each step on a terminal; nothing in CI or a pipe."""

from __future__ import annotations

import io

from rich.console import Console

from assay.cli import _terminal as _progress
from assay.report.kinds import KINDS, build_reports


def _terminal(monkeypatch) -> io.StringIO:
    buffer = io.StringIO()
    monkeypatch.setattr(_progress, "err_console", Console(file=buffer, force_terminal=True))
    return buffer


def test_a_terminal_shows_each_step_and_ci_shows_nothing(monkeypatch):
    buffer = _terminal(monkeypatch)
    monkeypatch.delenv("CI", raising=False)
    with _progress.status("reading t.csv") as show:
        show("making the scores report")
    assert "making the scores report" in buffer.getvalue()
    buffer = _terminal(monkeypatch)
    monkeypatch.setenv("CI", "true")
    with _progress.status("reading t.csv") as show:
        show("making the scores report")
    assert buffer.getvalue() == ""


def test_build_reports_names_each_report_before_making_it(tmp_path):
    from assay.data.io import load

    path = tmp_path / "t.csv"
    path.write_text("item,arm,score,usd\n" + "".join(f"q{i},a,{i % 3},0.01\n" for i in range(6)))
    seen = []
    build_reports(load(path), [KINDS["scores"], KINDS["cost"]], progress=lambda k: seen.append(k.name))
    assert seen == ["scores", "cost"]
