"""Judge pages: judge consistency (a :class:`~assay.analysis.judges._report.JudgeReport`), the judge
report and the score distribution (both read from the judgments table).

The consistency page lays the report's numbers out: the agreement per criterion and task, the
pair statistics as matrices (Spearman, Kendall, ICC, agreement rate), the drift of ICC over
item windows, the units the judges disagree on, and positional flip rates.

The judge report and the score distribution are built from a judgments table. There the
page *counts*: scores are tallied into bins per (judge, criterion, ...) with pandas and only
the counts reach the page (one bar per bin, never one point per judgment), and the mean and
standard deviation shown beside a histogram are computed from those same scores. That is
the only arithmetic a page does; every statistic with an interval or a test comes from an
analysis object (the flip rates from ``JudgeReport``, the agreement with reference scores
from ``CalibrationReport``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from assay.analysis.judges import JudgeReport
from assay.report.html._figures import ForestPoint, forest, lines_with_errors
from assay.report.html._model import (
    Column,
    Figure,
    Highlight,
    Page,
    Section,
    Table,
    Trace,
    ViewLink,
    is_missing,
    linked,
    view_query,
)
from assay.report.html._render import PALETTE

BINS = 10
"""Bins of a histogram of a range or interval scale, over its normalised [0, 1] span."""

PAIR_COLUMNS = (
    Column("criterion", "criterion"), Column("task", "task"), Column("judge_a", "judge A"),
    Column("judge_b", "judge B"), Column("n", "units", "int"),
    Column("spearman_rho", "Spearman rho", "fixed"), Column("kendall_tau_b", "Kendall tau-b", "fixed"),
    Column("icc", "ICC(2,1)", "fixed"), Column("agreement_rate", "agreement rate", "fixed"),
    Column("mad", "MAD", "fixed"), Column("cohen_kappa", "Cohen kappa", "fixed"),
)
AGREEMENT_COLUMNS = (
    Column("criterion", "criterion"), Column("task", "task"), Column("scale", "scale"),
    Column("num_raters", "judges", "int"), Column("n_units", "units", "int"),
    Column("n_complete_units", "complete units", "int"), Column("icc", "ICC(2,1)", "fixed"),
    Column("icc_lower", "ICC lower", "fixed"), Column("icc_upper", "ICC upper", "fixed"),
    Column("krippendorff_alpha_interval", "alpha (interval)", "fixed"),
    Column("krippendorff_alpha_ordinal", "alpha (ordinal)", "fixed"),
    Column("fleiss_kappa", "Fleiss kappa", "fixed"),
)
POSITION_COLUMNS = (
    Column("judge", "judge"), Column("criterion", "criterion"), Column("n", "trial pairs", "int"),
    Column("n_flips", "flips", "int"), Column("flip_rate", "flip rate", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("reversal_rate", "reversal rate", "fixed"),
    Column("first_shown_preference", "first-shown preference", "fixed"),
    Column("flip_rate_after", "flip rate after swap-and-average", "fixed"),
    Column("method", "method"),
)
MATRICES = (("spearman_rho", "Spearman rho"), ("kendall_tau_b", "Kendall tau-b"),
            ("icc", "ICC(2,1)"), ("agreement_rate", "agreement rate"))


def heatmap(z: Sequence[Sequence[Any]], x: Sequence[str], y: Sequence[str], *, title: str,
            caption: str = "", zmin: float | None = None, zmax: float | None = None,
            text: Sequence[Sequence[str]] | None = None,
            colorscale: str | list[list[Any]] = "RdBu",
            digits: int = 3) -> Figure:
    """A heatmap of values z[row][column], rows ``y`` and columns ``x``, values written in."""
    trace: Trace = {
        "type": "heatmap", "z": [[None if is_missing(v) else float(v) for v in row] for row in z],
        "x": list(x), "y": list(y), "colorscale": colorscale, "reversescale": colorscale == "RdBu",
        "colorbar": {"title": {"text": title}},
        "hovertemplate": f"%{{y}} / %{{x}}<br>{title} %{{z:.{digits}f}}<extra></extra>",
        "texttemplate": f"%{{z:.{digits}f}}" if text is None else "%{text}",
    }
    if text is not None:
        trace["text"] = [list(r) for r in text]
    if zmin is not None:
        trace["zmin"] = zmin
    if zmax is not None:
        trace["zmax"] = zmax
    layout = {"height": int(min(700, 140 + 40 * len(y))),
              "xaxis": {"type": "category", "automargin": True},
              "yaxis": {"type": "category", "automargin": True, "autorange": "reversed"}}
    return Figure(data=(trace,), layout=layout, caption=caption, filter_table=None)


def _records(rows: Sequence[Any]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


def _matrix_figures(pairs: list[Any], criterion: str, task: str | None) -> list[Figure]:
    """One judge-pair matrix: a row per pair of judges, a column per statistic.

    Its height follows the number of pairs; with two judges it is one row, not four 2x2
    maps each holding one number.
    """
    shown = [(key, label) for key, label in MATRICES
             if not all(is_missing(getattr(p, key)) for p in pairs)]
    if not shown:
        return []
    z = [[getattr(p, key) for key, _ in shown] for p in pairs]
    rows = [f"{p.judge_a} / {p.judge_b}" for p in pairs]
    where = "all question sets" if task is None else f"question set {task}"
    return [heatmap(z, [label for _, label in shown], rows, title="value", zmin=-1.0, zmax=1.0,
                    caption=f"{criterion}, {where}: agreement of each pair of judges "
                            "(1 = perfect; the agreement rate runs from 0 to 1)")]


def judges_page(report: JudgeReport) -> Page:
    """The judge consistency page of a :class:`JudgeReport`."""
    pct = f"{report.conf * 100:g}%"
    sections: list[Section] = []
    agreement = Table.from_records(_records(report.agreement), AGREEMENT_COLUMNS,
                                   caption="Agreement of all judges per criterion and question "
                                   "set ('-' = all question sets)", name="judges-agreement")
    sections.append(Section(
        title="Agreement per criterion", tables=(agreement,) if report.agreement else (),
        intro=f"ICC(2,1) with its {pct} McGraw-Wong interval on the units every judge scored; "
              "Krippendorff's alpha on the units two or more judges scored.",
        missing=None if report.agreement else "No criterion was scored by two or more judges "
        "on shared units."))
    groups = list(dict.fromkeys((p.criterion, p.task) for p in report.pairs))
    for criterion, task in groups:
        mine = [p for p in report.pairs if (p.criterion, p.task) == (criterion, task)]
        table = Table.from_records(_records(mine), PAIR_COLUMNS,
                                   caption=f"{criterion}: pairs of judges", name=f"pairs-{criterion}")
        sections.append(Section(
            title=f"Judge pairs: {criterion}" + ("" if task is None else f", question set {task}"),
            figures=tuple(_matrix_figures(mine, criterion, task)), tables=(table,),
            intro="Spearman rho (rank correlation), Kendall tau-b, pairwise ICC(2,1) "
                  "(intraclass correlation: agreement of absolute scores) and the agreement "
                  "rate (share of identical scores) of each pair on the units both scored."))
    if not groups:
        sections.append(Section(title="Judge pairs", missing="No two judges scored a shared unit."))
    sections.append(_drift_section(report, pct))
    sections.append(_uncertain_section(report))
    sections.append(position_section(report.position, pct))
    if report.human:
        sections.append(_human_section(report, pct))
    sections.append(Section(title="Notes", notes=tuple(report.notes),
                            missing=None if report.notes else "The analysis left no notes."))
    facts = (("criteria", str(len({a.criterion for a in report.agreement}))),
             ("judge pairs", str(len(report.pairs))), ("drift window", f"{report.drift_window} items"),
             ("confidence", pct), ("invalid records kept aside", str(report.n_invalid)))
    highlight = Section(title="Judge ensemble agreement", tables=(Table.from_records(
        _records([a for a in report.agreement if a.task is None]),
        tuple(c for c in AGREEMENT_COLUMNS if c.key in ("criterion", "num_raters", "n_units", "icc",
                                                       "icc_lower", "icc_upper")),
        caption="ICC(2,1) of the judges per criterion", name="dashboard-agreement"),),
        missing=None if report.agreement else "No criterion has two judges.")
    return Page(slug="judges", title="Judge consistency", sections=tuple(sections), facts=facts,
                summary="Agreement between judges: rank correlation, ICC and agreement-rate matrices, drift, "
                        "uncertain items, positional flip rates.",
                highlights=(Highlight("agreement", highlight),))


def _drift_section(report: JudgeReport, pct: str) -> Section:
    if not report.drift:
        return Section(title="Drift", missing="No criterion had two judges over enough items "
                       "for a drift window.")
    criteria = list(dict.fromkeys(d.criterion for d in report.drift))
    series = [(c, [d.window for d in report.drift if d.criterion == c],
               [d.icc for d in report.drift if d.criterion == c],
               [d.icc_lower for d in report.drift if d.criterion == c],
               [d.icc_upper for d in report.drift if d.criterion == c]) for c in criteria]
    columns = (Column("criterion", "criterion"), Column("window", "window", "int"),
               Column("first_item", "first item"), Column("last_item", "last item"),
               Column("n_units", "units", "int"), Column("icc", "ICC(2,1)", "fixed"),
               Column("icc_lower", "lower", "fixed"), Column("icc_upper", "upper", "fixed"))
    return Section(title="Drift", figures=(lines_with_errors(
        series, x_title="window", y_title="ICC(2,1)",
        caption=f"ICC(2,1) over windows of {report.drift_window} items with {pct} intervals"),),
        tables=(Table.from_records(_records(report.drift), columns, caption="ICC per window",
                                   name="drift"),),
        intro="A falling line means the judges agree less as the items go on (rubric drift).")


def _human_section(report: JudgeReport, pct: str) -> Section:
    columns = (Column("criterion", "criterion"), Column("judge", "judge"), Column("n", "n", "int"),
               Column("n_clusters", "clusters", "int"), Column("accuracy", "accuracy", "fixed"),
               Column("accuracy_lower", "lower", "fixed"),
               Column("accuracy_upper", "upper", "fixed"), Column("kappa", "kappa", "fixed"),
               Column("bias", "bias", "fixed"), Column("bias_lower", "bias lower", "fixed"),
               Column("bias_upper", "bias upper", "fixed"))
    return Section(title="Judges against human labels", tables=(Table.from_records(
        _records(report.human), columns, caption="Each judge against the human labels",
        name="judges-human"),), intro=f"Accuracy (exact agreement) and bias (mean judge minus "
        f"human; positive = more generous) with {pct} cluster-robust intervals, and Cohen's "
        "kappa, on the units the judge and a human both scored.")


def _uncertain_section(report: JudgeReport) -> Section:
    if not report.uncertain_items:
        return Section(title="High-uncertainty items", missing="No unit's inter-judge standard "
                       "deviation passes the threshold.")
    columns = (Column("criterion", "criterion"), Column("task", "task"), Column("item", "item"),
               Column("arm", "arm"), Column("opponent", "opponent"), Column("run", "run", "int"),
               Column("n_judges", "judges", "int"), Column("mean", "mean", "fixed"),
               Column("sd", "sd", "fixed"), Column("threshold", "threshold", "fixed"),
               Column("basis", "basis"))
    records = _records(report.uncertain_items)
    table = Table.from_records(records, columns, caption="Units the judges disagree on",
                               name="uncertain-items")
    return Section(title="High-uncertainty items",
                   tables=(linked(table, records, {"n_judges": _unit_link}),),
                   intro="Units whose inter-judge standard deviation exceeds the threshold, "
                   "largest first as the analysis ordered them. Each count of judges links to "
                   "their judgments in the viewer (assay view RUN --reports FOLDER).")


def _unit_link(record: Mapping[str, Any]) -> str:
    """The viewer's query of the scored judgments of one unit (its item, arm, opponent, run,
    criterion and task): one per judge counted."""
    return view_query(record, ("criterion", "task", "item", "arm", "opponent", "run"),
                      verdict="scored")


def _flips_link(record: Mapping[str, Any]) -> ViewLink | None:
    """The viewer's query of the judgments of a judge's flipped trial pairs on a criterion:
    two judgments per pair counted, which the link says."""
    if not record.get("n_flips"):
        return None
    return ViewLink(view_query(record, ("judge", "criterion"), flipped="yes"),
                    rows=2 * int(record["n_flips"]), unit="trial pairs")


def position_section(position: Sequence[Any], pct: str) -> Section:
    """Positional flip rates with their intervals (forest plot and table)."""
    if not position:
        return Section(title="Positional bias", missing="No pairwise judgments with both orders "
                       "shown (no position column or no trial pairs).")
    points = [ForestPoint(label=p.judge, group=p.criterion, estimate=p.flip_rate, lower=p.lower,
                          upper=p.upper, key=p.judge, detail=f"{p.n} trial pairs, {p.method}")
              for p in position]
    records = _records(position)
    table = linked(Table.from_records(records, POSITION_COLUMNS, caption="Flip rates",
                                      name="position"), records,
                   {"n_flips": _flips_link})
    return Section(title="Positional bias", figures=(forest(
        points, x_title="positional flip rate", caption=f"Flip rate per judge with {pct} "
        "intervals"),), tables=(table,),
        intro="Share of comparisons whose verdict changes when the answers' order is swapped. "
        "Each count of flips links to the judgments of those trial pairs (both orders of "
        "each: twice as many judgments as pairs) in the viewer (assay view RUN --reports FOLDER).")


# ---------------------------------------------------------------------------------------------
# Pages read from the judgments table: they count, and say so.

def _binned(judgments: Any) -> pd.DataFrame:
    """Scored rows with a bin label and the bin's position per criterion (the page counts)."""
    frame = judgments.frame
    keep = frame["reportable"].astype(bool).to_numpy() & frame["score"].notna().to_numpy()
    norm = judgments.normalised_scores()[keep]
    columns = [c for c in ("judge", "criterion", "arm", "task", "teacher") if c in frame]
    rows = frame.loc[keep, columns].astype(str).reset_index(drop=True)
    rows["norm"] = norm
    rows["raw"] = frame.loc[keep, "score"].to_numpy(dtype=np.float64)
    rows["bin"], rows["order"] = "", 0.0
    for criterion in pd.unique(rows["criterion"]):
        scale = judgments.scale(str(criterion))
        mask = (rows["criterion"] == criterion).to_numpy()
        if scale.kind in ("ordinal", "nominal", "binary") and getattr(scale, "levels", None):
            levels = list(scale.levels)
            codes = rows.loc[mask, "raw"].astype(int).to_numpy()
            rows.loc[mask, "bin"] = [levels[c] if 0 <= c < len(levels) else str(c) for c in codes]
            rows.loc[mask, "order"] = codes.astype(float)
        elif scale.kind == "binary":
            rows.loc[mask, "bin"] = np.where(rows.loc[mask, "raw"] > 0.5, "1", "0")
            rows.loc[mask, "order"] = rows.loc[mask, "raw"].to_numpy()
        else:
            lo, hi = _raw_span(scale, rows.loc[mask, "raw"].to_numpy())
            width = (hi - lo) / BINS
            k = np.clip(np.floor((rows.loc[mask, "raw"].to_numpy() - lo) / width), 0, BINS - 1)
            if scale.kind == "interval":  # not normalised: the spread is on the raw scale
                rows.loc[mask, "norm"] = rows.loc[mask, "raw"].to_numpy()
            rows.loc[mask, "bin"] = [f"{lo + i * width:g}-{lo + (i + 1) * width:g}" for i in k]
            rows.loc[mask, "order"] = k
    return rows


def _raw_span(scale: Any, raw: np.ndarray) -> tuple[float, float]:
    low, high = getattr(scale, "minimum", None), getattr(scale, "maximum", None)
    if low is None or high is None:
        low, high = float(np.nanmin(raw)), float(np.nanmax(raw))
    return float(low), float(high) if high > low else float(low) + 1.0


def _histogram(counts: pd.DataFrame, by: str, *, title: str, caption: str) -> Figure:
    """Grouped bars of counts per bin, one trace per value of ``by`` (legend click hides it)."""
    bins = counts.sort_values("order").drop_duplicates("bin")["bin"].tolist()
    traces: list[Trace] = []
    for g, (name, part) in enumerate(counts.groupby(by, sort=True)):
        per_bin = part.groupby("bin")["n"].sum().reindex(bins, fill_value=0)
        traces.append({"type": "bar", "name": str(name), "x": bins, "y": per_bin.tolist(),
                       "marker": {"color": PALETTE[g % len(PALETTE)]},
                       "customdata": [[str(name)] for _ in bins],
                       "hovertemplate": "<b>%{fullData.name}</b><br>score %{x}: %{y} "
                                        "judgments<extra></extra>"})
    layout = {"height": 340, "barmode": "group",
              "xaxis": {"type": "category", "title": {"text": title}, "automargin": True},
              "yaxis": {"title": {"text": "judgments"}, "gridcolor": "#eeeeee", "automargin": True}}
    return Figure(data=tuple(traces), layout=layout, caption=caption, filter_table=0)


def _spread(rows: pd.DataFrame, by: list[str]) -> list[dict[str, Any]]:
    grouped = rows.groupby(by, sort=True)["norm"]
    table = grouped.agg(n="size", mean="mean", sd="std", median="median",
                        q10=lambda s: s.quantile(0.1), q90=lambda s: s.quantile(0.9))
    return table.reset_index().to_dict("records")


SPREAD_COLUMNS = (Column("n", "judgments", "int"), Column("mean", "mean", "fixed"),
                  Column("sd", "sd", "fixed"), Column("median", "median", "fixed"),
                  Column("q10", "10th pct", "fixed"), Column("q90", "90th pct", "fixed"))


def judge_report_page(judgments: Any, *, judges: JudgeReport | None = None,
                      calibration: Any | None = None) -> Page:
    """The judge report: score distributions and spread per judge, positional bias, agreement
    with reference scores. Counts come from ``judgments`` (see the module docstring)."""
    rows = _binned(judgments)
    sections: list[Section] = []
    for criterion in pd.unique(rows["criterion"]):
        part = rows[rows["criterion"] == criterion]
        counts = part.groupby(["judge", "bin", "order"], sort=False).size().rename("n").reset_index()
        spread = Table.from_records(_spread(part, ["judge"]),
                                    (Column("judge", "judge"), *SPREAD_COLUMNS),
                                    caption=f"{criterion}: spread of normalised scores per judge",
                                    name=f"judge-spread-{criterion}")
        sections.append(Section(
            title=f"Score distribution: {criterion}", tables=(spread,),
            figures=(_histogram(counts, "judge", title=f"{criterion} score",
                                caption=f"{criterion}: judgments per score bin and judge"),),
            intro=f"Scale {judgments.scale(str(criterion)).kind}; counted from the table's scored "
                  "reportable rows. Mean, sd (ddof = 1) and percentiles are of the scores "
                  "normalised to [0, 1] (raw on an interval scale); a judge with a low sd "
                  "hardly discriminates."))
    if not sections:
        sections.append(Section(title="Score distribution", missing="The table has no scored "
                                "reportable rows."))
    pct = f"{judges.conf * 100:g}%" if judges is not None else "95%"
    sections.append(position_section(judges.position if judges is not None else [], pct))
    sections.append(_reference_section(judgments, calibration))
    return Page(slug="judge-report", title="Judge report", sections=tuple(sections),
                summary="How each judge scores: distributions, spread, positional bias, agreement "
                        "with reference scores.",
                facts=(("judges", str(rows["judge"].nunique())),
                       ("scored judgments", str(len(rows)))))


def _reference_section(judgments: Any, calibration: Any | None) -> Section:
    title = "Agreement with reference scores"
    if "reference_score" not in judgments.frame or judgments.frame["reference_score"].isna().all():
        return Section(title=title, missing="The table has no reference_score column.")
    if calibration is None or not getattr(calibration, "entries", None):
        return Section(title=title, missing="Reference scores exist; run the judges report with "
                       "--calibrate for Spearman rho against them.")
    columns = (Column("judge", "judge"), Column("task", "task"), Column("n_eval", "units", "int"),
               Column("rho_raw", "Spearman rho (raw)", "fixed"),
               Column("rho_calibrated", "Spearman rho (calibrated)", "fixed"),
               Column("alpha", "alpha", "fixed"), Column("beta", "beta", "fixed"),
               Column("mae_raw", "MAE raw", "fixed"), Column("mae_calibrated", "MAE calibrated",
                                                             "fixed"))
    records = [asdict(e) for e in calibration.entries]
    points = [ForestPoint(label=str(r["judge"]), group=str(r["task"] or "all question sets"),
                          estimate=r["rho_raw"], lower=r["rho_raw"], upper=r["rho_raw"],
                          key=str(r["judge"])) for r in records if not is_missing(r["rho_raw"])]
    figures = (forest(points, x_title="Spearman rho with reference scores",
                      caption="Spearman rho of raw judge scores with reference scores"),) \
        if points else ()
    return Section(title=title, figures=figures, tables=(Table.from_records(
        records, columns, caption="Calibration against reference scores", name="reference"),),
        intro="From the calibration report: Spearman rho on the held-out units, with the "
              "fitted alpha and beta.")


def score_distribution_page(judgments: Any) -> Page:
    """Histograms of counts per criterion, by task, teacher, arm and judge (legend filters)."""
    rows = _binned(judgments)
    dims = [d for d in ("task", "teacher", "arm", "judge") if d in rows]
    sections: list[Section] = []
    for criterion in pd.unique(rows["criterion"]):
        part = rows[rows["criterion"] == criterion]
        counts = part.groupby([*dims, "bin", "order"], sort=False).size().rename("n").reset_index()
        figures = tuple(_histogram(counts, d, title=f"{criterion} score",
                                   caption=f"{criterion} by {d}: click a legend entry to hide or "
                                           "show it, double-click to show it alone")
                        for d in dims if counts[d].nunique() >= 1)
        table = Table.from_records(counts.sort_values([*dims, "order"]).to_dict("records"),
                                   (*(Column(d, d) for d in dims), Column("bin", "score"),
                                    Column("n", "judgments", "int")),
                                   caption=f"{criterion}: judgments per stratum and score",
                                   name=f"distribution-{criterion}")
        spread = Table.from_records(_spread(part, dims[-1:] if dims else ["criterion"]),
                                    (*(Column(d, d) for d in dims[-1:]), *SPREAD_COLUMNS),
                                    caption=f"{criterion}: spread per judge", name=f"spread-{criterion}")
        sections.append(Section(title=criterion, figures=figures, tables=(table, spread),
                                intro="Judgments counted per score bin from the table's scored "
                                      "reportable rows. Filter the table by any task, teacher, "
                                      "arm or judge name; click a bar to filter by its group."))
    if not sections:
        sections.append(Section(title="Scores", missing="The table has no scored reportable rows."))
    return Page(slug="score-distribution", title="Score distribution", sections=tuple(sections),
                summary="Histograms of judge scores by task, question writer, system and judge.",
                facts=(("scored judgments", str(len(rows))),))
