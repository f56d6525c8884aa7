"""Pages of CoEval's remaining reports: the teacher report, calibration curves, Table 7's
sampling ablation, the ensemble weights with outlier judges, and the per-factor scores with
percentile bands and the rubric factor heatmap. Renderers format; they compute nothing.
"""

from __future__ import annotations

from dataclasses import asdict

from assay.analysis.coverage import SamplingAblation, TeacherReport
from assay.analysis.judges import CalibrationCurves, EnsembleReport
from assay.analysis.systems import FactorBreakdown
from assay.report.html._figures import ForestPoint, forest, lines_with_errors
from assay.report.html._judges import heatmap
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table, is_missing

SCORE_SCALE = [[0.0, "#f7fbff"], [1.0, "#08306b"]]
"""Light for low scores, dark for high ones."""
INTERVAL = (Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"))


def _notes(notes: list[str]) -> Section:
    return Section(title="Notes", notes=tuple(notes),
                   missing=None if notes else "The analysis left no notes.")


def teacher_page(report: TeacherReport) -> Page:
    """Coverage, diversity and item quality per teacher; synthetic vs benchmark."""
    pct = f"{report.conf * 100:g}%"
    rows = [asdict(r) for r in report.teachers]
    points = [ForestPoint(label=r.teacher, group=r.task, estimate=r.quality, lower=r.lower,
                          upper=r.upper, key=r.teacher, detail=f"{r.kind}, {r.n_items} items")
              for r in report.teachers]
    figures: tuple[Figure, ...] = ()
    if any(not is_missing(p.estimate) for p in points):
        figures = (forest(points, x_title="mean judge score of the answers (normalised)",
                          caption=f"Item quality per teacher with {pct} intervals"),)
    columns = (Column("task", "task"), Column("teacher", "teacher"), Column("kind", "kind"),
               Column("n_items", "items", "int"), Column("acr", "ACR", "fixed"),
               Column("diversity", "diversity (evenness)", "fixed"),
               Column("distinct_share", "values used", "fixed"),
               Column("quality", "item quality", "fixed"), *INTERVAL,
               Column("n_clusters", "clusters", "int"), Column("method", "method"))
    diversity = [asdict(r) for r in report.diversity]
    heat = []
    for task in dict.fromkeys(r.task for r in report.diversity):
        teachers = list(dict.fromkeys(r.teacher for r in report.diversity if r.task == task))
        attrs = list(dict.fromkeys(r.attribute for r in report.diversity if r.task == task))
        value = {(r.teacher, r.attribute): r.normalised_entropy for r in report.diversity
                 if r.task == task}
        heat.append(heatmap([[value.get((t, a)) for a in attrs] for t in teachers], attrs,
                            teachers, title="evenness", zmin=0.0, zmax=1.0, colorscale=SCORE_SCALE,
                            caption=f"Task {task}: evenness of each teacher over each attribute"))
    kinds = [{**asdict(k), "teachers": ", ".join(k.teachers)} for k in report.kinds]
    sections = (
        Section(title="Teachers", figures=figures, tables=(Table.from_records(
            rows, columns, caption="Per teacher and task", name="teachers"),),
            intro="ACR: strata of the target attributes the teacher's items cover. Diversity: "
                  "mean normalised entropy (Pielou's evenness, 1 = spread evenly) over the "
                  f"nuanced attributes. Item quality: mean judge score with its {pct} "
                  "cluster-robust interval.", missing=None if rows else "No items."),
        Section(title="Diversity across nuanced attributes", figures=tuple(heat),
                tables=(Table.from_records(diversity, (
                    Column("task", "task"), Column("teacher", "teacher"),
                    Column("attribute", "attribute"), Column("n_items", "items", "int"),
                    Column("n_levels", "values", "int"), Column("n_distinct", "used", "int"),
                    Column("normalised_entropy", "evenness", "fixed"),
                    Column("distinct_share", "share used", "fixed")),
                    caption="Per teacher and attribute", name="teacher-diversity"),),
                missing=None if diversity else "No label-valued attributes."),
        Section(title="Synthetic vs benchmark teachers", tables=(Table.from_records(kinds, (
            Column("task", "task"), Column("kind", "kind"), Column("teachers", "teachers"),
            Column("n_items", "items", "int"), Column("diversity", "diversity", "fixed"),
            Column("quality", "item quality", "fixed"), *INTERVAL,
            Column("method", "method")), caption="Per kind of teacher", name="teacher-kinds"),),
            missing=None if kinds else "No items."),
        _notes(report.notes))
    return Page(slug="teachers", title="Question writers: coverage, diversity, quality", sections=sections,
                summary="Coverage, diversity and item quality per teacher.",
                facts=(("confidence", pct),))


def curves_page(report: CalibrationCurves) -> Page:
    """Judge score against the native metric, binned, a line per judge."""
    pct = f"{report.conf * 100:g}%"
    judges = list(dict.fromkeys(b.judge for b in report.bins))
    series = [(j, [b.judge_mean for b in report.bins if b.judge == j],
               [b.reference_mean for b in report.bins if b.judge == j],
               [b.lower for b in report.bins if b.judge == j],
               [b.upper for b in report.bins if b.judge == j]) for j in judges]
    figure = lines_with_errors(series, x_title="judge score (bin mean)",
                               y_title="reference score (mean)", filter_table=None,
                               caption=f"Calibration curves: mean reference score per bin with "
                                       f"{pct} intervals; a calibrated judge lies on the diagonal")
    diagonal = {"type": "scatter", "mode": "lines", "name": "diagonal", "x": [0, 1],
                "y": [0, 1], "line": {"color": "#999999", "dash": "dot"}, "hoverinfo": "skip"}
    figure = Figure(data=(*figure.data, diagonal), layout=figure.layout,
                    caption=figure.caption, filter_table=None)
    columns = (Column("judge", "judge"), Column("bin", "bin", "int"),
               Column("judge_low", "judge from", "fixed"), Column("judge_high", "to", "fixed"),
               Column("judge_mean", "judge mean", "fixed"),
               Column("reference_mean", "reference mean", "fixed"), *INTERVAL,
               Column("n_units", "units", "int"), Column("n_items", "items", "int"),
               Column("n_clusters", "clusters", "int"), Column("method", "method"))
    return Page(slug="calibration-curves", title="Calibration curves", sections=(
        Section(title="Judge score against the native metric", figures=(figure,) if series else (),
                tables=(Table.from_records([asdict(b) for b in report.bins], columns,
                                           caption="Bins per judge", name="curves"),),
                intro=f"Units in up to {report.n_bins} equal-count bins of each judge's score "
                      "(ties kept in one bin).", missing=None if report.bins else "No bins."),
        _notes(report.notes)), summary="Judge score against the benchmark-native score, binned.",
        facts=(("bins", str(report.n_bins)), ("confidence", pct)))


def sampling_page(report: SamplingAblation) -> Page:
    """Table 7: ACR, RAR and ranking stability of three sampling designs."""
    rows = [asdict(d) for d in report.designs]
    columns = (Column("design", "design"), Column("sample_size", "items", "int"),
               Column("repeats", "repeats", "int"), Column("acr", "ACR", "fixed"),
               Column("acr_low", "ACR 2.5%", "fixed"), Column("acr_high", "ACR 97.5%", "fixed"),
               Column("rar", "RAR", "fixed"), Column("rar_low", "RAR 2.5%", "fixed"),
               Column("rar_high", "RAR 97.5%", "fixed"),
               Column("stability", "stability (mean tau)", "fixed"),
               Column("stability_min", "min tau", "fixed"),
               Column("tau_with_all_items", "tau with all items", "fixed"))
    table = Section(title="Random vs frequency-weighted vs stratified", tables=(
        Table.from_records(rows, columns, caption="Sampling designs compared", name="sampling"),),
        intro=f"Each design draws {rows[0]['sample_size'] if rows else 0} of the "
              f"{report.population} items {rows[0]['repeats'] if rows else 0} times (seed "
              f"{report.seed} upwards). ACR and RAR over {report.n_strata} strata "
              f"({report.n_rare} rare); stability is the mean Kendall tau-b between the "
              "repeats' rankings of the arms.", missing=None if rows else "No designs.")
    return Page(slug="sampling", title="Sampling designs compared",
                sections=(table, _notes(report.notes)),
                summary="Coverage and ranking stability of three sampling designs.",
                facts=(("items", str(report.population)), ("seed", str(report.seed))))


def ensemble_page(report: EnsembleReport) -> Page:
    """Robust ensemble weights, outlier judges and the weighted ranking."""
    judges = [asdict(j) for j in report.judges]
    outliers = ", ".join(report.outliers) if report.outliers else "none"
    judge_table = Section(title="Ensemble weights", tables=(Table.from_records(judges, (
        Column("judge", "judge"), Column("weight", "weight", "fixed"),
        Column("rest_correlation", "item-rest r", "fixed"),
        Column("mean_offset", "mean offset", "fixed"), Column("n_shared", "shared units", "int"),
        Column("outlier", "outlier", "bool"), Column("reason", "why")),
        caption="Weights and outliers", name="ensemble-judges"),),
        intro=f"Weight: item-rest correlation floored at 0, normalised. Outlier judges: "
              f"{outliers}.", missing=None if judges else "No judges.")
    arms = [asdict(a) for a in report.arms]
    arm_table = Section(title="Weighted ranking", tables=(Table.from_records(arms, (
        Column("rank", "rank", "int"), Column("arm", "arm"),
        Column("weighted_score", "weighted", "fixed"),
        Column("equal_weight_score", "equal weights", "fixed")),
        caption="Arms by weighted score", name="ensemble-arms"),),
        missing=None if arms else "No arms.")
    highlight = Section(title="Outlier judges", intro=f"Outlier judges: {outliers}.")
    return Page(slug="ensemble", title="Robust ensemble weights and outlier judges",
                sections=(judge_table, arm_table, _notes(report.notes)),
                summary=f"Judges weighted by agreement; outliers: {outliers}.",
                highlights=(Highlight("agreement", highlight, order=80),))


def factors_page(report: FactorBreakdown) -> Page:
    """The rubric factor heatmap, percentile bands and the per-(system, task, factor) table."""
    pct = f"{report.conf * 100:g}%"
    scope = "all" if any(c.task == "all" for c in report.cells) else \
        (report.cells[0].task if report.cells else "all")
    cells = [c for c in report.cells if c.task == scope]
    arms = list(dict.fromkeys(c.arm for c in cells))
    factors = list(dict.fromkeys(c.criterion for c in cells))
    value = {(c.arm, c.criterion): c.estimate for c in cells}
    figures: tuple[Figure, ...] = ()
    if cells:
        figures = (heatmap([[value.get((a, f)) for f in factors] for a in arms], factors, arms,
                           title="score", zmin=0.0, zmax=1.0, colorscale=SCORE_SCALE,
                           caption=f"Mean normalised score per system and rubric factor "
                                   f"(task {scope})"),)
    bands = [asdict(b) for b in report.bands]
    band_points = [ForestPoint(label=b.arm, group=f"{band}", estimate=b.p50, lower=low,
                               upper=high, key=b.arm, detail=f"{b.n_items} items")
                   for b in report.bands if b.task == scope
                   for band, low, high in (("10% to 90%", b.p10, b.p90),
                                           ("25% to 75%", b.p25, b.p75))]
    cell_columns = (Column("arm", "system"), Column("task", "task"),
                    Column("criterion", "factor"), Column("estimate", "score", "fixed"),
                    *INTERVAL, Column("n", "units", "int"), Column("n_items", "items", "int"),
                    Column("n_clusters", "clusters", "int"), Column("method", "method"))
    return Page(slug="factors", title="Scores per system, task and rubric factor",
                sections=(
        Section(title="Rubric factor heatmap", figures=figures,
                missing=None if cells else "No scores."),
        Section(title="Percentile bands", figures=(forest(
            band_points, x_title="item score (normalised)",
            caption=f"Median item score per system with its 10-90% and 25-75% bands "
                    f"(task {scope})"),) if band_points else (), tables=(Table.from_records(bands, (
                Column("arm", "system"), Column("task", "task"), Column("p10", "10%", "fixed"),
                Column("p25", "25%", "fixed"), Column("p50", "median", "fixed"),
                Column("p75", "75%", "fixed"), Column("p90", "90%", "fixed"),
                Column("n_items", "items", "int")), caption="Percentile bands",
                name="bands"),),
            intro="The spread of each system's item scores (an item's score is the mean of its "
                  "units); not an interval for the mean.", missing=None if bands else "None."),
        Section(title="Per system, task and factor", tables=(Table.from_records(
            [asdict(c) for c in report.cells], cell_columns,
            caption=f"Scores with {pct} intervals", name="factor-cells"),),
            missing=None if report.cells else "No scores."),
        _notes(report.notes)),
                summary="Rubric factor heatmap, percentile bands, per-factor scores.",
                facts=(("confidence", pct),))
