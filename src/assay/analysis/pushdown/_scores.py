"""The score summary's reduction as one engine query: rows in, sums per cluster out.

For each (criterion, judge, arm, opponent) the summary needs, per cluster, the sum of the
item means (runs averaged within the item), the number of items and the sum of squared
item means (:func:`assay.analysis.scores.row_from_sums`), plus the number of scores, of
failed rows and the highest run. The engine computes exactly these, so what reaches
Python is one row per group and cluster whatever the number of rows.

:func:`small_score_summary` is the same query on a small Parquet file, the start of
``assay report --kind scores``: it loads neither pandas nor scipy, so a 10,000-row table
is summarised in well under a second, and hands back None for the tables only the
pandas path summarises in full (several tasks, labelled scales, anything it would refuse).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from assay.analysis.pushdown._table import VIEW, EngineTable, open_table
from assay.analysis.scores import ScoreRow, ScoreSummary, fallback_notes, row_from_sums
from assay.data.schema import Scale
from assay.errors import AssayError

_GROUP = "criterion, judge, arm, coalesce(opponent, '')"


def engine_score_summary(table: EngineTable, *, conf: float = 0.95) -> ScoreSummary:
    """:func:`~assay.analysis.scores.score_summary` of an engine table, the same numbers.

    Run-folder records kept aside as invalid are not part of a table file: ``n_invalid``
    is 0.
    """
    if not 0 < conf < 1:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    notes: list[str] = []
    (held_back,) = table.query(f"SELECT count_if(NOT reportable) FROM {VIEW}")[0]
    if held_back:
        notes.append(f"{held_back} rows of the dev or calibration split are not reportable "
                     "and are left out.")
    if _tasks(table) > 1:
        notes.append("The per-task breakdown reads the rows and is left out here: rerun with "
                     "--engine pandas on a table that fits in memory to see it.")
    value = table.value_sql()
    # a weighted table counts each row by its weight (sum), an unweighted one each item once
    item_weight = "sum(weight)" if "weight" in table.columns else "avg(weight)"
    groups = table.query(
        f"SELECT {_GROUP}, count(*), count(score), max(CASE WHEN score IS NOT NULL THEN run END) "
        f"FROM {VIEW} WHERE reportable GROUP BY {_GROUP} ORDER BY {table.first_row}")
    clusters = table.engine.numpy(
        f"WITH items AS (SELECT {_GROUP} AS g4, cluster, item, "
        f"sum(weight * ({value})) / sum(weight) AS m, {item_weight} AS w FROM {VIEW} "
        f"WHERE reportable AND score IS NOT NULL GROUP BY {_GROUP}, cluster, item) "
        f"SELECT criterion AS g1, judge AS g2, arm AS g3, g4, sum(w * m) AS s, sum(w) AS n, "
        f"sum(w * m * m) AS ss, count(*) AS k FROM items GROUP BY g1, g2, g3, g4, cluster "
        f"ORDER BY g1, g2, g3, g4, cluster")
    keys = list(zip(*(np.asarray(clusters[g], dtype=object).tolist()
                      for g in ("g1", "g2", "g3", "g4")), strict=True))
    bounds: dict[tuple[object, ...], tuple[int, int]] = {}
    start = 0
    for position in range(1, len(keys) + 1):
        if position == len(keys) or keys[position] != keys[start]:
            bounds[keys[start]] = (start, position)
            start = position
    sums = np.asarray(clusters["s"], dtype=np.float64)
    sizes = np.asarray(clusters["n"], dtype=np.float64)
    sumsq = np.asarray(clusters["ss"], dtype=np.float64)
    counts = np.asarray(clusters["k"], dtype=np.int64)
    rows: list[ScoreRow] = []
    nan = float("nan")
    for criterion, judge, arm, opponent, total, n, runs in groups:
        scale = table.scale(str(criterion))
        base = dict(criterion=str(criterion), judge=str(judge), arm=str(arm),
                    opponent=str(opponent) or None, scale=scale.spelling(), n=int(n),
                    n_failed=int(total - n), conf=conf)
        if not n:
            rows.append(ScoreRow(**base, n_items=0, n_clusters=0, runs=0, estimate=nan,
                                 lower=nan, upper=nan, method="no_scores"))
            continue
        lo, hi = bounds[(criterion, judge, arm, opponent)]
        rows.append(row_from_sums(base, sums[lo:hi], sizes[lo:hi], sumsq[lo:hi],
                                  n_items=int(counts[lo:hi].sum()), runs=int(runs),
                                  conf=conf, binary=scale.kind == "binary",
                                  bounded=scale.kind != "interval"))
    notes += fallback_notes(rows)
    return ScoreSummary(rows=rows, conf=conf, n_invalid=0, invalid_by_class={}, notes=notes)


def _tasks(table: EngineTable) -> int:
    if "task" not in table.columns:
        return 0
    return int(table.query(f"SELECT count(DISTINCT task) FROM {VIEW} WHERE reportable")[0][0])


def small_score_summary(path: str | Path, *, scales: Mapping[str, Scale] | None = None,
                        conf: float = 0.95,
                        read_notes: list[str] | None = None) -> ScoreSummary | None:
    """:func:`~assay.analysis.scores.score_summary` of one Parquet file without pandas, or
    None when the pandas path must make it.

    ``read_notes``, when given, receives how the table was read (each undeclared scale,
    :attr:`~assay.data.table.Judgments.read_notes` of the pandas path), for the caller to
    print as the pandas path does.

    None for a table the engine cannot summarise as the pandas path does: one of several
    tasks (the per-task breakdown reads the rows), a labelled scale, or any table with a
    problem (the pandas path then reports it, worded as ever). The numbers are those of
    :func:`engine_score_summary`, equal to the pandas path's
    (``tests/analysis/pushdown/test_small.py``).
    """
    import duckdb

    try:
        table = open_table(path, scales=scales, threads=1, materialize=True)
        if _tasks(table) > 1:
            return None
        summary = engine_score_summary(table, conf=conf)
    except (AssayError, duckdb.Error):
        return None
    if read_notes is not None:  # how the table was read (each undeclared scale)
        read_notes.extend(table.notes)
    return summary
