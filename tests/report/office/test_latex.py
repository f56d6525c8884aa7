"""Paper tables: booktabs structure, escaped names, and the CSV beside each .tex holding its numbers."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest

from assay.analysis import BenchmarkReport, JudgeReport
from assay.report.office import format_value, latex_escape, write_paper_tables
from tests.report.office.conftest import FakeReport

NASTY = "a_b & c% $d #e {f} ~g ^h \\i"


def _unescaped_braces_balanced(tex: str) -> bool:
    depth = 0
    for token in re.sub(r"\\[{}]", "", tex):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


def _body_rows(tex: str) -> list[list[str]]:
    body = tex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [line.removesuffix(" \\\\").split(" & ") for line in body.strip().splitlines()]


def _check_pair(tex_path: Path) -> None:
    tex = tex_path.read_text(encoding="utf-8")
    assert _unescaped_braces_balanced(tex), tex_path.name
    for rule in ("\\toprule", "\\midrule", "\\bottomrule"):
        assert tex.count(rule) == 1, (tex_path.name, rule)
    assert tex.index("\\toprule") < tex.index("\\midrule") < tex.index("\\bottomrule")
    assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 1
    with tex_path.with_suffix(".csv").open(encoding="utf-8", newline="") as fh:
        header, *rows = list(csv.reader(fh))
    cells = _body_rows(tex)
    assert len(cells) == len(rows) and all(len(c) == len(header) for c in cells), tex_path.name
    ncols = len(re.search(r"\\begin\{tabular\}\{([lr]+)\}", tex).group(1))
    assert ncols == len(header)
    for tex_row, csv_row in zip(cells, rows, strict=True):
        for column, shown, raw in zip(header, tex_row, csv_row, strict=True):
            assert shown == _shown(raw, column), (tex_path.name, column, raw, shown)


def _shown(raw: str, column: str) -> str:
    """What the .tex must show for a CSV cell (the CSV is at full precision)."""
    if raw == "":
        return "--"
    if raw in {"True", "False"}:
        return "yes" if raw == "True" else "no"
    if re.fullmatch(r"-?\d+", raw):
        return raw
    try:
        value = float(raw)
    except ValueError:
        return latex_escape(raw)
    return format_value(value, column)


def test_escape_every_special_character() -> None:
    # each of the ten specials by hand, in the order of NASTY
    assert latex_escape(NASTY) == (r"a\_b \& c\% \$d \#e \{f\} \textasciitilde{}g "
                                   r"\textasciicircum{}h \textbackslash{}i")
    assert latex_escape("plain-name 7b") == "plain-name 7b"


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_demo_tables_structure_and_numbers(demo: tuple[Any, dict[str, Any]], tmp_path: Path) -> None:
    _, reports = demo
    written = write_paper_tables(reports, tmp_path)
    names = {p.name for p in written}
    for stem in ("table3_spearman", "table4_coverage", "table5_student_scores", "table6_ensemble_ablation",
                 "table8_calibration", "table9_positional_bias", "benchmark_accuracy", "benchmark_contrasts"):
        assert {f"{stem}.tex", f"{stem}.csv"} <= names
    for path in written:
        if path.suffix == ".tex":
            _check_pair(path)
    summary = (tmp_path / "SUMMARY.md").read_text(encoding="utf-8")
    assert "| `table7_sampling_ablation` | missing |" in summary
    assert "| `benchmark_accuracy` | made |" in summary


def test_csv_holds_report_values(demo: tuple[Any, dict[str, Any]], tmp_path: Path) -> None:
    _, reports = demo
    write_paper_tables(reports, tmp_path)
    with (tmp_path / "benchmark_contrasts.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    expected = reports["benchmark"].to_dict()["contrasts"]
    assert [(r["arm1"], r["arm2"]) for r in rows] == [(e["arm1"], e["arm2"]) for e in expected]
    for row, rec in zip(rows, expected, strict=True):
        assert float(row["estimate"]) == rec["estimate"] and float(row["lower"]) == rec["lower"]
    with (tmp_path / "table9_positional_bias.csv").open(encoding="utf-8") as fh:
        row = next(csv.DictReader(fh))
    position = reports["judges"].to_dict()["position"][0]
    assert float(row["flip_rate"]) == position["flip_rate"] and int(row["n"]) == position["n"]


def test_hand_made_tables_with_nasty_names(tmp_path: Path) -> None:
    bench = FakeReport.of(BenchmarkReport, {
        "accuracy": [{"arm": NASTY, "estimate": 0.12345, "lower": 0.1, "upper": 0.2, "rank_lower": 1,
                      "rank_upper": 2, "method": "logit_cluster_robust_t"},
                     {"arm": "plain", "estimate": 0.5, "lower": None, "upper": None, "rank_lower": None,
                      "rank_upper": None, "method": "descriptive"}],
        "contrasts": [{"arm1": NASTY, "arm2": "plain", "estimate": -0.0004999, "lower": -0.25,
                       "upper": 0.2495, "method": "cluster_robust_t"}]})
    judges = FakeReport.of(JudgeReport, {"position": [
        {"judge": "judge_{x}", "criterion": "pref%", "n": 40, "flip_rate": 0.25, "lower": 0.125,
         "upper": 0.4375, "first_shown_preference": 0.6}]})
    written = write_paper_tables([bench, judges], tmp_path)
    assert [p.name for p in written] == ["table9_positional_bias.tex", "table9_positional_bias.csv",
                                         "benchmark_accuracy.tex", "benchmark_accuracy.csv",
                                         "benchmark_contrasts.tex", "benchmark_contrasts.csv", "SUMMARY.md"]
    tex = (tmp_path / "benchmark_accuracy.tex").read_text(encoding="utf-8")
    escaped = latex_escape(NASTY)
    # hand-rounded: 0.12345 -> 0.123, ranks as integers, missing bounds as --, method escaped
    assert f"{escaped} & 0.123 & 0.100 & 0.200 & 1 & 2 & logit\\_cluster\\_robust\\_t \\\\" in tex
    assert "plain & 0.500 & -- & -- & -- & -- & descriptive \\\\" in tex
    contrast = (tmp_path / "benchmark_contrasts.tex").read_text(encoding="utf-8")
    assert f"{escaped} & plain & -0.000 & -0.250 & 0.249 & cluster\\_robust\\_t \\\\" in contrast
    position = (tmp_path / "table9_positional_bias.tex").read_text(encoding="utf-8")
    assert "judge\\_\\{x\\} & pref\\% & 40 & 0.250 & 0.125 & 0.438 & 0.600 \\\\" in position
    for path in written:
        if path.suffix == ".tex":
            _check_pair(path)
            assert NASTY not in path.read_text(encoding="utf-8")
    with (tmp_path / "benchmark_accuracy.csv").open(encoding="utf-8", newline="") as fh:
        assert list(csv.reader(fh))[1][0] == NASTY  # the CSV keeps the name as it is
    summary = (tmp_path / "SUMMARY.md").read_text(encoding="utf-8")
    for stem in ("table3_spearman", "table4_coverage", "table5_student_scores", "table6_ensemble_ablation",
                 "table8_calibration"):
        assert f"| `{stem}` | missing | needs " in summary


@pytest.mark.parametrize(("value", "column", "shown"), [
    (0.0004999, "estimate", "0.000"), (0.03125, "p_value", "0.0312"),
    (1.5e-05, "usd_per_item", "0.000015"), (3.0, "rank_lower", "3"), (float("nan"), "lower", "--"),
    (False, "changed", "no"), ("x_y", "arm", "x\\_y"),
])
def test_format_value_by_hand(value: Any, column: str, shown: str) -> None:
    assert format_value(value, column) == shown


def test_table7_from_the_sampling_ablation(tmp_path: Path) -> None:
    from assay.analysis.coverage import sampling_ablation
    from tests.analysis.coverage.test_sampling import _table

    report = sampling_ablation(_table(), sample_size=4, repeats=3, seed=3)
    written = write_paper_tables([report], tmp_path)
    assert tmp_path / "table7_sampling_ablation.tex" in written
    csv = (tmp_path / "table7_sampling_ablation.csv").read_text(encoding="utf-8")
    assert csv.splitlines()[0].startswith("design,") and "stratified" in csv
    assert "| `table7_sampling_ablation` | made |" in (tmp_path / "SUMMARY.md").read_text()
