"""The aggregation page: an :class:`~assay.analysis.aggregate.AggregateReport` (the results aggregator).

Each system is shown on its own (``report.per_arm``, ``report.per_quiz_arm``); the figures over
all systems together are the files' (aggregated.json, summary.txt). Per criterion: the
per-run mean scores of each judge and system (a line over runs), and one table with
both intervals side by side and named apart: the results aggregator's percentile bootstrap over the *run
means* (how much a repeat of the judging moves the mean) and the cluster-robust t interval
over *items* (the evidence about the questions). Then the judges' reliability (ICC(2,1) with
its interval, MAD, Spearman rho, the results aggregator's bands, Spearman and MAD matrices), flags, notes.
"""

from __future__ import annotations

from typing import Any

from assay.analysis.aggregate import AggregateReport, RunAggregation
from assay.report.html._figures import ForestPoint, forest
from assay.report.html._judges import heatmap
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table
from assay.report.html._render import PALETTE
from assay.report.text.aggregate import scale_words as _scale_words

RUN_COLUMNS = (
    Column("judge", "judge"), Column("system", "system"), Column("num_runs", "runs", "int"),
    Column("mean", "mean of run means", "fixed"),
    Column("median", "median", "fixed", optional=True),
    Column("std_dev", "sd of run means", "fixed"),
    Column("minimum", "min", "fixed", optional=True), Column("maximum", "max", "fixed", optional=True),
    Column("ci_lower", "run-bootstrap lower", "fixed"), Column("ci_upper", "run-bootstrap upper", "fixed"),
    Column("items_estimate", "mean over items", "fixed"),
    Column("items_lower", "items-interval lower", "fixed"),
    Column("items_upper", "items-interval upper", "fixed"),
    Column("n_items", "questions", "int"), Column("n_clusters", "topics", "int"),
    Column("items_method", "items-interval method"), Column("n_scores", "scores", "int"),
    Column("n_missing", "failed (left out)", "int"),
)
RELIABILITY_COLUMNS = (
    Column("criterion", "criterion"), Column("scale", "scale"), Column("judges", "judges"),
    Column("num_units", "units", "int"), Column("icc", "ICC(2,1)", "fixed"),
    Column("icc_lower", "ICC lower", "fixed"), Column("icc_upper", "ICC upper", "fixed"),
    Column("icc_band", "ICC band"), Column("mad", "MAD", "fixed"), Column("mad_band", "MAD band"),
    Column("rho", "mean Spearman rho", "fixed"), Column("rho_band", "rho band"),
)


def _record(a: RunAggregation) -> dict[str, Any]:
    i = a.items_interval
    return {**{k: getattr(a, k) for k in ("judge", "num_runs", "mean", "median", "std_dev",
                                          "minimum", "maximum", "ci_lower", "ci_upper",
                                          "n_scores", "n_missing")},
            "system": ", ".join(a.arms),
            "items_estimate": i.estimate, "items_lower": i.lower, "items_upper": i.upper,
            "n_items": i.n_items, "n_clusters": i.n_clusters, "items_method": i.method}


def _runs_figure(rows: list[RunAggregation], criterion: str) -> Figure:
    traces = [{"type": "scatter", "mode": "lines+markers", "name": _label(a), "x": list(a.runs),
               "y": list(a.per_run_scores), "line": {"color": PALETTE[g % len(PALETTE)]},
               "customdata": [[a.judge] for _ in a.runs],
               "hovertemplate": "<b>%{fullData.name}</b><br>run %{x}<br>mean %{y:.3f}<extra></extra>"}
              for g, a in enumerate(rows)]
    layout = {"height": 320, "xaxis": {"title": {"text": "run"}, "dtick": 1, "automargin": True},
              "yaxis": {"title": {"text": "mean score of the run"}, "gridcolor": "#eeeeee",
                        "automargin": True}}
    return Figure(data=tuple(traces), layout=layout, filter_table=0,
                  caption=f"{criterion}: per-run mean scores of each judge and system")


def _label(a: RunAggregation) -> str:
    return f"{', '.join(a.arms)} ({a.judge})"


def _criterion_section(criterion: str, rows: list[RunAggregation], pct: str) -> Section:
    points = []
    for a in rows:
        i = a.items_interval
        points.append(ForestPoint(label=_label(a), group="bootstrap over run means",
                                  estimate=a.mean, lower=a.ci_lower, upper=a.ci_upper, key=a.judge,
                                  detail=f"{a.num_runs} runs, percentile bootstrap"))
        points.append(ForestPoint(label=_label(a), group="cluster-robust t over questions",
                                  estimate=i.estimate, lower=i.lower, upper=i.upper, key=a.judge,
                                  detail=f"{i.n_items} questions in {i.n_clusters} topics, "
                                         f"{i.method}"))
    figures = (_runs_figure(rows, criterion),
               forest(points, x_title="mean score (the criterion's own scale; ordinal on [0, 1])",
                      caption=f"{criterion}: the two {pct} intervals, named apart"))
    table = Table.from_records([_record(a) for a in rows], RUN_COLUMNS,
                               caption=f"{criterion}: each system's run means and the two "
                                       "intervals (failures left out)",
                               name=f"aggregate-{criterion}")
    return Section(
        title=criterion, figures=figures, tables=(table,),
        intro=f"Scale {rows[0].scale}: {_scale_words(rows[0].scale)}; each system on its own, "
              f"failures left out. Run-bootstrap interval: "
              f"the run-level {pct} percentile bootstrap over the run means (how far a repeat of the "
              f"judging moves the mean; with few runs it rests on few numbers). Items interval: "
              f"{pct} cluster-robust t over items (runs averaged within an item, CR2, "
              "Bell-McCaffrey df), the evidence about the questions.")


def _reliability_section(report: AggregateReport) -> Section:
    if not report.reliability:
        return Section(title="Inter-rater reliability", missing="No criterion was scored by two "
                       "or more judges.")
    records, figures = [], []
    for r in report.reliability:
        records.append({"criterion": r.criterion, "scale": r.scale, "judges": ", ".join(r.judges),
                        "num_units": r.num_units, "icc": r.icc.estimate if r.icc else None,
                        "icc_lower": r.icc.lower if r.icc else None,
                        "icc_upper": r.icc.upper if r.icc else None, "icc_band": r.icc_band,
                        "mad": r.mad.estimate if r.mad else None, "mad_band": r.mad_band,
                        "rho": r.spearman.estimate if r.spearman else None, "rho_band": r.rho_band})
        if r.spearman is not None:
            figures.append(heatmap(r.spearman.matrix.tolist(), r.judges, r.judges,
                                   title="Spearman rho", zmin=-1.0, zmax=1.0,
                                   caption=f"{r.criterion}: Spearman rho between judges"))
        if r.mad is not None:
            figures.append(heatmap(r.mad.matrix.tolist(), r.judges, r.judges, title="MAD",
                                   colorscale="Blues", caption=f"{r.criterion}: mean absolute "
                                   "difference between judges (score scale)"))
    return Section(title="Inter-rater reliability", figures=tuple(figures), tables=(
        Table.from_records(records, RELIABILITY_COLUMNS, caption="Reliability per criterion",
                           name="aggregate-reliability"),),
        intro="ICC(2,1) = ICC(A,1) with its McGraw-Wong interval, MAD and Spearman rho over the "
              "units every judge scored, with the usual interpretation bands.")


def aggregate_page(report: AggregateReport) -> Page:
    """The aggregation page and its dashboard highlight."""
    pct = f"{report.conf * 100:g}%"
    by_criterion: dict[str, list[RunAggregation]] = {}
    for a in report.per_arm:
        by_criterion.setdefault(a.criterion, []).append(a)
    sections = [_criterion_section(c, rows, pct) for c, rows in by_criterion.items()]
    if not sections:
        sections.append(Section(title="Run aggregation", missing="No criterion with a mean was "
                                "scored pointwise."))
    sections.append(_reliability_section(report))
    if report.per_quiz_arm:
        one = "task" if report.quiz_source == "task" else "topic"
        quiz_rows = [{"quiz": q.quiz, "criterion": q.criterion, "judge": q.judge,
                      "system": q.arm, "mean": q.mean, "ci_lower": q.ci_lower, "ci_upper": q.ci_upper,
                      "std_dev": q.std_dev, "num_runs": q.num_runs, "n_scores": q.n_scores}
                     for q in report.per_quiz_arm]
        sections.append(Section(title=f"Per-{one} breakdown", tables=(Table.from_records(
            quiz_rows, (Column("quiz", one), Column("criterion", "criterion"),
                        Column("judge", "judge"), Column("system", "system"),
                        Column("mean", "mean", "fixed"),
                        Column("ci_lower", "CI lower", "fixed"),
                        Column("ci_upper", "CI upper", "fixed"),
                        Column("std_dev", "std dev", "fixed"), Column("num_runs", "runs", "int"),
                        Column("n_scores", "scores", "int")),
            caption=f"Run-level statistics per {one} and system", name=f"per-{one}"),),
            intro=f"The same bootstrap over run means as above, within each {one}, each "
                  "system on its own; ordinal levels on [0, 1] as above."))
    flags = Table.from_records([vars(f) for f in report.flags], (
        Column("kind", "flag"), Column("criterion", "criterion"), Column("judge", "judge"),
        Column("message", "message")), caption="Warnings about the runs and the judges",
        name="aggregate-flags")
    sections.append(Section(title="Flags", tables=(flags,) if report.flags else (),
                            missing=None if report.flags else "No flag was raised."))
    sections.append(Section(title="Notes", notes=tuple(report.notes),
                            missing=None if report.notes else "The analysis left no notes."))
    facts = (("trials (runs)", str(report.total_runs)),
             ("tasks" if report.quiz_source == "task" else "topics", str(len(report.quiz_ids))),
             ("bootstrap", f"{report.n_resamples} resamples, seed {report.seed}"),
             ("confidence", pct), ("rows left out (not reportable)", str(report.n_not_reportable)),
             ("rows without a score", str(report.n_unscored)))
    quality = Section(title="Run-to-run spread", tables=(Table.from_records(
        [{"criterion": a.criterion, **_record(a)} for a in report.per_arm],
        (Column("criterion", "criterion"), *(c for c in RUN_COLUMNS if c.key in (
            "judge", "system", "num_runs", "mean", "std_dev", "ci_lower", "ci_upper"))),
        caption="Each system's per-run means: spread and run-bootstrap interval (failures left "
                "out)", name="dashboard-runs"),),
        missing=None if report.per_arm else "No run aggregation.")
    return Page(slug="aggregate", title="Aggregation across runs", sections=tuple(sections),
                facts=facts, highlights=(Highlight("quality", quality, order=40),),
                summary="Per-run scores with the run-bootstrap and items intervals; judges' "
                        "reliability.")
