r"""Paper tables (``--format latex``): CoEval's ``.tex`` (booktabs) and ``.csv`` pairs and ``SUMMARY.md``.

Each table is written twice with the same rows and columns: ``NAME.csv`` holds the report's
values at full precision (for re-analysis), ``NAME.tex`` a booktabs ``tabular`` with the same
values rounded to 3 decimals (4 for p-values, 6 for dollars). Names from the data (judges,
arms, tasks) are escaped for LaTeX. ``SUMMARY.md`` lists the tables that could be made and,
for each one that could not, what data or analysis it needs.

==============================  ==========================================  ====================
file                            contents                                    from
==============================  ==========================================  ====================
``table3_spearman``             Spearman rho of each judge (per task) and   ``CalibrationReport``
                                of all judges pooled with reference scores
``table4_coverage``             ACR, RAR, surface bias per task             ``CoverageReport``
``table5_student_scores``       composite score with interval, rank with    ``CompositeScores``,
                                rank interval                               ``RobustSummary``
``table5_kendall_tau``          Kendall tau of the ranking without each     ``RobustSummary``
                                judge against the full-ensemble ranking
``table6_ensemble_ablation``    Kendall tau by ensemble size                ``RobustSummary``
``table8_calibration``          OLS calibration: rho and MAE before/after   ``CalibrationReport``
``table9_positional_bias``      flip rates per (judge, criterion)           ``JudgeReport``
``benchmark_accuracy``          accuracy with interval and rank interval    ``BenchmarkReport``
``benchmark_contrasts``         paired differences with intervals           ``BenchmarkReport``
==============================  ==========================================  ====================

The renderer computes nothing: every number is a field of a report's ``to_dict()``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.analysis.benchmark import BenchmarkReport
from assay.analysis.composite import CompositeScores
from assay.analysis.coverage import CoverageReport, SamplingAblation
from assay.analysis.judges import CalibrationReport, JudgeReport, RobustSummary
from assay.data.cells import write_csv_rows
from assay.report._collect import reports_by_type

__all__ = ["PaperTable", "format_value", "latex_escape", "paper_tables", "write_paper_tables"]

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters ``\ & % $ # _ { } ~ ^`` in plain text.

    Examples
    --------
    >>> print(latex_escape("gpt_4o & co: 50% {a} $1 #2 ~x^y \\z"))
    gpt\_4o \& co: 50\% \{a\} \$1 \#2 \textasciitilde{}x\textasciicircum{}y \textbackslash{}z
    """
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def format_value(value: Any, column: str) -> str:
    """A cell as the ``.tex`` shows it: numbers rounded by column kind, missing as ``--``.

    Examples
    --------
    >>> format_value(0.12345, "estimate"), format_value(0.012345, "p_adjusted")
    ('0.123', '0.0123')
    >>> format_value(None, "estimate"), format_value(12, "n"), format_value(True, "on_frontier")
    ('--', '12', 'yes')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if column.startswith("p_") or column == "p_value":
            return f"{value:.4f}"
        if column.startswith("usd"):
            return f"{value:.6f}"
        if value.is_integer() and (column.startswith(("n_", "rank")) or column in {"n", "size"}):
            return str(int(value))
        return f"{value:.3f}"
    return latex_escape(str(value))


@dataclass(frozen=True)
class PaperTable:
    """One paper table: file stem, caption, columns (key, header) and rows of values."""

    name: str
    caption: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[Any, ...], ...]

    def csv_rows(self) -> list[list[str]]:
        """Header then rows, values at full precision (missing values empty)."""
        out = [[key for key, _ in self.columns]]
        for row in self.rows:
            out.append(["" if v is None or (isinstance(v, float) and math.isnan(v)) else
                        (repr(v) if isinstance(v, float) else str(v)) for v in row])
        return out

    def tex(self) -> str:
        """A booktabs ``table`` environment."""
        align = "".join("l" if all(isinstance(r[i], str) or r[i] is None for r in self.rows) else "r"
                        for i in range(len(self.columns)))
        lines = [r"\begin{table}[ht]", r"\centering",
                 rf"\caption{{{latex_escape(self.caption)}}}", rf"\label{{tab:{self.name}}}",
                 rf"\begin{{tabular}}{{{align}}}", r"\toprule",
                 " & ".join(latex_escape(h) for _, h in self.columns) + r" \\", r"\midrule"]
        for row in self.rows:
            lines.append(" & ".join(format_value(v, key) for v, (key, _) in zip(row, self.columns,
                                                                                strict=True)) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
        return "\n".join(lines)


def paper_tables(reports: Sequence[Any] | Mapping[str, Any]) -> tuple[list[PaperTable], dict[str, str]]:
    """The tables the reports allow, and for each other table what it needs.

    Returns
    -------
    tables : list of PaperTable
    missing : dict
        File stem -> what data or analysis the table needs.
    """
    found = _by_type(reports)
    tables: list[PaperTable] = []
    missing: dict[str, str] = {}
    calibration = found[CalibrationReport].to_dict() if CalibrationReport in found else None
    if calibration is not None:
        entries = _calibration_rows(calibration)
        tables.append(_table("table3_spearman", "Spearman rho with reference scores, per judge and "
                             "task and for all judges pooled (evaluation items)",
                             [("judge", "Judge"), ("task", "Task"), ("rho_raw", "Spearman rho"),
                              ("n_eval", "n")], entries))
        tables.append(_table("table8_calibration", "OLS calibration against reference scores: rho "
                             "and MAE before and after",
                             [("judge", "Judge"), ("task", "Task"), ("alpha", "alpha"), ("beta", "beta"),
                              ("rho_raw", "rho raw"), ("rho_calibrated", "rho cal."),
                              ("mae_raw", "MAE raw"), ("mae_calibrated", "MAE cal."),
                              ("n_fit", "n fit"), ("n_eval", "n eval")], entries))
    else:
        need = ("reference scores (a reference_score column) and the calibration analysis "
                "(`assay report --kind judges --calibrate`)")
        missing["table3_spearman"] = need
        missing["table8_calibration"] = need
    if CoverageReport in found:
        tables.append(_table("table4_coverage", "Attribute coverage per task: ACR, RAR (rare strata) "
                             "and surface bias",
                             [("task", "Task"), ("n_items", "Items"), ("n_strata", "Strata"),
                              ("acr", "ACR"), ("n_rare", "Rare strata"), ("rar", "RAR"),
                              ("surface_bias", "Surface bias")], found[CoverageReport].to_dict()["coverage"]))
    else:
        missing["table4_coverage"] = "task and attributes columns (the coverage report)"
    robust = found[RobustSummary].to_dict() if RobustSummary in found else None
    if CompositeScores in found or robust is not None:
        tables.append(_student_scores(found, robust))
    else:
        missing["table5_student_scores"] = "pointwise scores from one or more judges (the judges report)"
    if robust is not None and robust["leave_one_judge_out"]:
        tables.append(_table("table5_kendall_tau", "Kendall tau between the ranking without each judge "
                             "and the full-ensemble ranking",
                             [("judge", "Judge left out"), ("kendall_tau", "Kendall tau"),
                              ("changed", "Ranking changed")], robust["leave_one_judge_out"]))
    else:
        missing["table5_kendall_tau"] = "two or more judges scoring the same arms (the robust summary)"
    if robust is not None and robust["stability_by_size"]:
        tables.append(_table("table6_ensemble_ablation", "Ensemble-size ablation: Kendall tau of each "
                             "judge subset's ranking with the full ensemble's",
                             [("size", "Judges"), ("n_subsets", "Subsets"), ("mean_tau", "Mean tau"),
                              ("min_tau", "Min tau")], robust["stability_by_size"]))
    else:
        missing["table6_ensemble_ablation"] = "two or more judges scoring the same arms (the robust summary)"
    if SamplingAblation in found:
        tables.append(_table("table7_sampling_ablation", "Sampling ablation: random vs "
                             "frequency-weighted vs stratified samples (ACR, RAR and the "
                             "ranking's stability, mean Kendall tau between repeats)",
                             [("design", "Design"), ("sample_size", "Items"),
                              ("repeats", "Repeats"), ("acr", "ACR"), ("rar", "RAR"),
                              ("stability", "Stability"), ("tau_with_all_items", "Tau vs all")],
                             found[SamplingAblation].to_dict()["designs"]))
    else:
        missing["table7_sampling_ablation"] = "an attributes column (the sampling report, table7)"
    position = found[JudgeReport].to_dict()["position"] if JudgeReport in found else []
    if position:
        tables.append(_table("table9_positional_bias", "Positional flip rates: share of swapped pairs "
                             "whose verdict follows the position",
                             [("judge", "Judge"), ("criterion", "Criterion"), ("n", "Pairs"),
                              ("flip_rate", "Flip rate"), ("lower", "Lower"), ("upper", "Upper"),
                              ("first_shown_preference", "First shown wins")], position))
    else:
        missing["table9_positional_bias"] = ("pairwise judgments of the same pair in both positions "
                                             "(position 1 and 2) and the judges report")
    if BenchmarkReport in found:
        bench = found[BenchmarkReport].to_dict()
        intervals = any(r.get("lower") is not None for r in bench["accuracy"])
        tables.append(_table("benchmark_accuracy", "Accuracy per arm with cluster-robust interval and "
                             "rank interval" if intervals else "Accuracy per arm: point estimates "
                             "only (descriptive report below 5 runs; --method cluster_t gives "
                             "intervals)",
                             [("arm", "Arm"), ("estimate", "Accuracy"), ("lower", "Lower"),
                              ("upper", "Upper"), ("rank_lower", "Rank low"), ("rank_upper", "Rank high"),
                              ("method", "Method")], bench["accuracy"]))
        if bench["contrasts"]:
            tables.append(_table("benchmark_contrasts", "Paired differences in accuracy (arm1 - arm2)",
                                 [("arm1", "Arm 1"), ("arm2", "Arm 2"), ("estimate", "Difference"),
                                  ("lower", "Lower"), ("upper", "Upper"), ("method", "Method")],
                                 bench["contrasts"]))
        else:
            missing["benchmark_contrasts"] = "two or more arms scored on the same items"
    else:
        need = "a benchmark report: binary correctness scores from one judge and criterion"
        missing["benchmark_accuracy"] = need
        missing["benchmark_contrasts"] = need
    return tables, missing


def write_paper_tables(reports: Sequence[Any] | Mapping[str, Any], out_dir: str | Path) -> list[Path]:
    """Write ``NAME.tex`` and ``NAME.csv`` for every table the reports allow, and ``SUMMARY.md``.

    Parameters
    ----------
    reports : sequence or mapping of report objects
        ``CalibrationReport``, ``CoverageReport``, ``CompositeScores``, ``RobustSummary``,
        ``JudgeReport``, ``BenchmarkReport`` (others are ignored; ``(title, report)`` pairs are
        accepted).
    out_dir : str or Path
        Folder to write into; created when missing.

    Returns
    -------
    list of Path
        The files written, ``SUMMARY.md`` last.

    Examples
    --------
    >>> import tempfile
    >>> [p.name for p in write_paper_tables([], tempfile.mkdtemp())]
    ['SUMMARY.md']
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables, missing = paper_tables(reports)
    written = []
    for table in tables:
        csv_path = write_csv_rows(out / f"{table.name}.csv", table.csv_rows(), lineterminator="\r\n")
        tex_path = out / f"{table.name}.tex"
        tex_path.write_text(table.tex(), encoding="utf-8")
        written += [tex_path, csv_path]
    lines = ["# Paper tables", "", "| table | status | contents or what it needs |", "| --- | --- | --- |"]
    lines += [f"| `{t.name}` | made | {t.caption} ({len(t.rows)} rows) |" for t in tables]
    lines += [f"| `{name}` | missing | needs {need} |" for name, need in missing.items()]
    lines += ["", "Not given by any analysis, so not shown: the Spearman rho of the judge ensemble "
              "(mean of the judges' scores) with reference scores (table 3 shows all judges pooled), "
              "the fill rates of table 4, and rho with reference scores by ensemble size (table 6 "
              "shows Kendall tau with the full ensemble's ranking instead).",
              "", "Each `.tex` holds a booktabs table (`\\usepackage{booktabs}`); the `.csv` beside it "
              "holds the same rows at full precision.", ""]
    summary = out / "SUMMARY.md"
    summary.write_text("\n".join(lines), encoding="utf-8")
    return [*written, summary]


def _table(name: str, caption: str, columns: list[tuple[str, str]],
           records: Iterable[Mapping[str, Any]]) -> PaperTable:
    return PaperTable(name, caption, tuple(columns),
                      tuple(tuple(r.get(key) for key, _ in columns) for r in records))


def _calibration_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for judge, by_task in report["calibration"].items():
        if judge == "_overall":
            continue
        rows += [{"judge": judge, "task": task, **entry} for task, entry in by_task.items()]
    if "_overall" in report["calibration"]:
        rows.append({"judge": "all judges (pooled)", "task": "all", **report["calibration"]["_overall"]})
    return rows


def _student_scores(found: dict[type, Any], robust: Mapping[str, Any] | None) -> PaperTable:
    rows: dict[str, dict[str, Any]] = {}
    if CompositeScores in found:
        for r in found[CompositeScores].to_dict()["composite"]:
            if r.get("task") is None:
                rows[r["arm"]] = {"arm": r["arm"], "estimate": r["estimate"], "lower": r["lower"],
                                  "upper": r["upper"]}
    for r in (robust or {}).get("arms", []):
        rows.setdefault(r["arm"], {"arm": r["arm"]}).update(
            {"rank": r["rank"], "rank_lower": r["rank_lower"], "rank_upper": r["rank_upper"]})
    columns = [("arm", "Student")]
    if CompositeScores in found:
        columns += [("estimate", "Composite"), ("lower", "Lower"), ("upper", "Upper")]
    if robust is not None:
        columns += [("rank", "Rank"), ("rank_lower", "Rank low"), ("rank_upper", "Rank high")]
    return _table("table5_student_scores", "Student composite scores with intervals and rank intervals",
                  columns, rows.values())


_KNOWN = (BenchmarkReport, CalibrationReport, CompositeScores, CoverageReport, JudgeReport, RobustSummary,
          SamplingAblation)


def _by_type(reports: Sequence[Any] | Mapping[str, Any]) -> dict[type, Any]:
    return reports_by_type(reports, _KNOWN)
