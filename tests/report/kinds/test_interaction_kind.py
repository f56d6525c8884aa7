"""The interaction matrix as a report of its own (``--kind interaction``) in every format, on a
real CoEval run (``tests/fixtures/coeval/medium-benchmark``: one teacher, five students; see
tests/fixtures/README.md). On today's main it was only an HTML page of the dashboard: ``--kind
interaction`` was refused and neither text nor JSON had it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.analysis.coverage import interaction_matrix
from assay.cli import main
from assay.data.importers import import_coeval
from assay.report.kinds import KINDS, kinds_help, resolve_kinds

RUN = Path(__file__).parents[2] / "fixtures" / "coeval" / "medium-benchmark"


def _cli(argv: list[str], capsys) -> str:
    capsys.readouterr()
    try:
        main(argv)
    except SystemExit as done:
        assert done.code in (0, None), capsys.readouterr()
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def expected():
    return interaction_matrix(import_coeval([RUN]))


def test_the_kind_is_listed_with_coevals_name_as_an_alias():
    assert "interaction" in KINDS
    assert [k.name for k in resolve_kinds("interaction-matrix")] == ["interaction"]
    assert any(line.split()[:1] == ["interaction"] for line in kinds_help().splitlines())


def test_text_json_and_html_lay_out_the_same_result(tmp_path, capsys, expected):
    table = tmp_path / "c.parquet"
    _cli(["import", "coeval", str(RUN), "-o", str(table)], capsys)
    text = _cli(["report", str(table), "--kind", "interaction"], capsys)
    header = next(line for line in text.splitlines() if line.split()[:1] == ["writer"])
    assert header.split()[1:] == expected.arms  # five students, one teacher
    (row,) = [line for line in text.splitlines() if line.split()[:1] == ["gpt-4o-mini"]][:1]
    cells = {c.arm: c for c in expected.cells}
    assert f"{cells['gpt-4o-mini'].estimate:.3f} *" in row  # self-teaching marked
    assert f"{cells['qwen2p5-0b5'].estimate:.3f}" in row
    c = cells["qwen2p5-0b5"]
    assert f"[{c.lower:.3f}, {c.upper:.3f}]" in text
    out = tmp_path / "out"
    _cli(["report", str(table), "--kind", "interaction", "--format", "json,html",
          "--out", str(out)], capsys)
    written = json.loads((out / "interaction.json").read_text())
    assert written == json.loads(expected.to_json())
    assert {c["arm"]: c["estimate"] for c in written["cells"]} == pytest.approx(
        {c.arm: c.estimate for c in expected.cells}, rel=1e-12)
    pages = [p for p in out.glob("*.html") if "interaction-cells" in p.read_text()]
    assert [p.name for p in pages] == ["interaction.html"]  # one page, not the table's twice
    assert f"{expected.grand_mean:.3f}" in pages[0].read_text()


def test_a_table_without_teachers_is_skipped_with_the_reason(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("item,arm,score\nq1,a,1\nq2,a,0\nq1,b,1\nq2,b,1\n")
    out = _cli(["report", str(table), "--kind", "interaction,scores"], capsys)
    assert "no teacher values" in out
