"""Coverage on a real CoEval run whose datapoints sample a subset of their task's attributes.

Fixture ``tests/fixtures/coeval/medium-benchmark-summaries`` (see ``tests/fixtures/README.md``): 16 real
datapoints of CoEval's ``Runs/medium-benchmark`` (task text_summarization, 8 by each of two
teachers), each carrying 1 or 2 of the task's 5 target attributes, with one student's responses
and one judge's evaluations.

CoEval's own ``analyzer/paper_tables.py`` (``_compute_acr``, ``_compute_rar`` on
``analyzer.loader.load_ees``, run here on the fixture with CoEval at commit e6ad005, stdlib and
PyYAML only) prints ACR 1.0 and RAR 1.0: its loader takes the attribute values from the
datapoints themselves, and it counts (attribute, value) pairs. On today's main assay printed
"ACR 0.000 (0/576)" and "RAR 0.000" with no warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.analysis.coverage import coverage_report, read_attribute_space
from assay.data.importers import import_coeval

RUN = Path(__file__).parents[2] / "fixtures" / "coeval" / "medium-benchmark-summaries"
TARGET = RUN / "phase1_attributes" / "text_summarization.target_attrs.json"


def _pairs_by_hand() -> dict[str, set[tuple[str, str]]]:
    """Per teacher, the (attribute, value) pairs its datapoints carry, read from the files."""
    out: dict[str, set[tuple[str, str]]] = {}
    for file in sorted((RUN / "phase3_datapoints").glob("*.jsonl")):
        for line in file.read_text().splitlines():
            dp = json.loads(line)
            out.setdefault(dp["teacher_model_id"], set()).update(
                (k, str(v)) for k, v in dp["sampled_target_attributes"].items())
    return out


def test_inferred_space_reproduces_coevals_acr_and_rar():
    report = coverage_report(import_coeval([RUN]))
    (row,) = report.rows
    pairs = set().union(*_pairs_by_hand().values())
    assert (row.n_covered, row.n_strata) == (len(pairs), len(pairs)) == (15, 15)
    assert row.acr == pytest.approx(1.0) and row.rar == pytest.approx(1.0)  # CoEval: 1.0, 1.0
    assert row.n_items_unplaced == 0
    assert any("(attribute, value) pairs, as CoEval does" in n for n in report.notes)


def test_declared_space_counts_the_unsampled_values_as_gaps():
    declared = json.loads(TARGET.read_text())
    total = sum(len(v) for v in declared.values())
    by_hand = _pairs_by_hand()
    report = coverage_report(import_coeval([RUN]), attribute_space=read_attribute_space(TARGET))
    (row,) = report.rows
    covered = set().union(*by_hand.values())
    assert (row.n_covered, row.n_strata) == (len(covered), total) == (15, 18)
    assert row.acr == pytest.approx(15 / 18)
    for teacher, own in by_hand.items():  # per teacher: its own pairs over the space
        assert row.acr_by_teacher[teacher] == pytest.approx(len(own) / total)
    assert {next(iter(s.values.items())) for s in row.strata if s.count} == covered
    text = str(report)
    assert "ACR 0.833 (15/18)" in text and "0.000" not in text.split("Note")[0]


def test_an_item_in_no_stratum_is_a_warning_in_text_and_html(tmp_path):
    from assay.report.html import render_html

    space = {"attributes": {"complexity": ["simple", "moderate", "complex", "technical"]}}
    report = coverage_report(import_coeval([RUN]), attribute_space=space)
    (row,) = report.rows
    carrying = sum("complexity" in json.loads(line)["sampled_target_attributes"]
                   for f in (RUN / "phase3_datapoints").glob("*.jsonl")
                   for line in f.read_text().splitlines())
    assert row.n_items_unplaced == 16 - carrying > 0
    warning = f"{16 - carrying} of 16 items fit no stratum"
    assert warning in str(report)
    written = render_html([report], tmp_path / "html")
    html = "".join(p.read_text() for p in written if p.suffix == ".html")
    assert warning in html


def test_surface_bias_reads_the_prompts_of_a_coeval_import():
    """The prompts are in phase3_datapoints/ (main: "n/a (0 prompts)"). CoEval's own
    ``_surface_bias`` needs NLTK (not installed here) and differs in definition (unordered
    pairs, the first 200, NLTK's smoothing method1), so only the count is compared."""
    report = coverage_report(import_coeval([RUN]))
    (row,) = report.rows
    assert row.n_prompts == 16 and row.n_prompt_pairs == 16 * 15
    assert 0.0 < row.surface_bias < 1.0


def _cli(argv: list[str], capsys) -> str:
    from assay.cli import main

    capsys.readouterr()
    try:
        main(argv)
    except SystemExit as done:
        assert done.code in (0, None), capsys.readouterr()
    return capsys.readouterr().out


def test_surface_bias_survives_the_import_to_a_table_file(tmp_path, capsys):
    """``assay import coeval RUN -o c.parquet`` then ``assay report c.parquet --kind coverage``
    printed "surface bias n/a (0 prompts)" (the issue's complaint): the prompts stayed in the
    run folder. The import now keeps each datapoint's prompt as the item's question."""
    in_memory = coverage_report(import_coeval([RUN])).rows[0].surface_bias
    table = tmp_path / "c.parquet"
    _cli(["import", "coeval", str(RUN), "-o", str(table)], capsys)
    out = _cli(["report", str(table), "--kind", "coverage"], capsys)
    assert f"surface bias {in_memory:.3f} (16 prompts)" in out, out
    assert "No prompt texts" not in out
    from assay import load

    (row,) = coverage_report(load(table)).rows
    assert row.n_prompts == 16 and row.surface_bias == pytest.approx(in_memory, rel=1e-12)
