"""The comparison page: a :class:`~assay.analysis.compare.ComparisonReport` laid out.

One section per (judge, criterion): a forest plot of each arm's paired delta B - A with its
interval, and the table of both runs' scores, ranks and the delta; then coverage and notes.
"""

from __future__ import annotations

from assay.analysis.compare import ComparisonReport, RankChange, ScoreDelta
from assay.report.html._figures import ForestPoint, forest
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table, is_missing

RANK_COLUMNS = (
    Column("arm", "arm"), Column("score_a", "score A", "fixed"), Column("rank_a", "rank A", "int"),
    Column("score_b", "score B", "fixed"), Column("rank_b", "rank B", "int"),
    Column("rank_change", "rank change", "int"), Column("estimate", "delta B - A", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("n", "shared items", "int"), Column("n_clusters", "clusters", "int"),
    Column("n_only_a", "only A", "int"), Column("n_only_b", "only B", "int"),
    Column("method", "method"),
)
COVERAGE_COLUMNS = (
    Column("task", "task"), Column("items_a", "items A", "int"), Column("items_b", "items B", "int"),
    Column("items_shared", "shared", "int"), Column("clusters_a", "clusters A", "int"),
    Column("clusters_b", "clusters B", "int"), Column("acr_a", "ACR A", "fixed"),
    Column("acr_b", "ACR B", "fixed"), Column("acr_change", "ACR change", "fixed"),
)


def _record(rank: RankChange, delta: ScoreDelta | None) -> dict[str, object]:
    record: dict[str, object] = dict(vars(rank))
    if delta is not None:
        record.update({k: getattr(delta, k) for k in ("estimate", "lower", "upper", "n",
                                                     "n_clusters", "n_only_a", "n_only_b",
                                                     "method")})
    return record


def _section(report: ComparisonReport, judge: str, criterion: str, pct: str) -> Section:
    ranks = [r for r in report.rankings if (r.judge, r.criterion) == (judge, criterion)]
    deltas = {d.arm: d for d in report.deltas if (d.judge, d.criterion) == (judge, criterion)}
    records = [_record(r, deltas.get(r.arm)) for r in ranks]
    points = [ForestPoint(label=d.arm, group=judge, estimate=d.estimate, lower=d.lower,
                          upper=d.upper, key=d.arm,
                          detail=f"{d.n} shared items in {d.n_clusters} clusters, {d.method}")
              for d in deltas.values()]
    raw = any(r.scale == "raw" for r in ranks)
    figures: tuple[Figure, ...] = ()
    if any(not is_missing(p.estimate) for p in points):
        figures = (forest(points, x_title="delta B - A (raw score)" if raw
                          else "delta B - A (normalised score)", reference=0.0,
                          caption=f"{criterion} ({judge}): B - A per system with {pct} paired "
                                  "intervals"),)
    table = Table.from_records(records, RANK_COLUMNS, caption=f"{criterion} ({judge}): scores, "
                               "ranks and paired deltas", name=f"compare-{criterion}-{judge}")
    return Section(title=f"{criterion} (judge {judge})", figures=figures, tables=(table,),
                   intro=("Mean scores on the criterion's raw interval scale" if raw else
                          "Mean scores normalised to [0, 1]")
                         + "; rank 1 is best; the delta is over "
                         f"the items both runs scored, with its {pct} cluster-robust paired t "
                         "interval. Click a point to filter the table.")


def compare_page(report: ComparisonReport) -> Page:
    """The comparison page and its dashboard highlight."""
    pct = f"{report.conf * 100:g}%"
    keys = list(dict.fromkeys((r.judge, r.criterion) for r in report.rankings))
    sections = [_section(report, j, c, pct) for j, c in keys]
    if not sections:
        sections.append(Section(title="Scores", missing="The runs share no (judge, criterion) "
                                "scored pointwise."))
    coverage = Table.from_records(
        [{**vars(c), "task": c.task or "all tasks"} for c in report.coverage], COVERAGE_COLUMNS,
        caption="Items, clusters and attribute coverage (ACR) of each run", name="compare-coverage")
    sections.append(Section(title="Coverage", tables=(coverage,),
                            intro="ACR is shown when both runs carry attributes."))
    sections.append(Section(title="Notes", notes=report.notes,
                            missing=None if report.notes else "The comparison left no notes."))
    moved = [r for r in report.rankings if r.rank_change]
    highlight = Section(
        title="Rank changes between the runs",
        tables=(Table.from_records([vars(r) for r in moved], (
            Column("judge", "judge"), Column("criterion", "criterion"), Column("arm", "arm"),
            Column("rank_a", "rank A", "int"), Column("rank_b", "rank B", "int")),
            caption="Arms whose rank changed", name="compare-moved"),) if moved else (),
        missing=None if moved else "No arm changed rank.")
    facts = (("run A", report.label_a), ("run B", report.label_b), ("direction", "B - A"),
             ("confidence", pct))
    return Page(slug="compare", title="Run comparison", sections=tuple(sections),
                summary="Ranking differences, paired score deltas and coverage change of two runs.",
                facts=facts, highlights=(Highlight("rankings", highlight, order=80),))
