"""The answer (``assay report``'s default) of a table in an engine: its numbers those of pandas.

:func:`assay.analysis.answer.answer` ranks the systems of each (judge, criterion) and
compares every pair on the questions both answered. Both rest on each system's question
means (runs averaged within a question, weighted where the table weights its rows), so the
engine reduces the rows to one row per (judge, criterion, system, cluster, question) and
Python makes the verdicts from them with the pandas path's own arithmetic
(:func:`~assay.analysis.answer._verdicts.verdict_from_items`). The question means, not sums
per cluster, cross over: a question's mean of 0/1 scores is exact in any engine, and summed
in the same order by the same code the estimates agree to the last bit, so a figure that
falls on a rounding boundary (0.7055) prints the same digits on both paths. The rows never
reach Python; a table of R runs sends 1/R of its rows' worth of numbers, through Arrow, with
the cluster and question labels as integer codes (the verdicts only match and group them)
and put in order by numpy.

The failures of each judge, the systems' dollars and the counts come from one grouped pass
over the table (:func:`_groups_sql`, a few groups), the distinct questions, clusters and
runs from another; which other reports the data support (:func:`engine_table_facts`) are
queries too. At 30 M rows the answer takes about 55 s of CPU and 1.1 GiB
(bench/results/scale.txt). What humans would say (PPI++ from the human labels) is the
pandas code on the engine's means per unit (:mod:`assay.analysis.pushdown._humans`).

Two parts of the pandas answer are not made here and each is named by one line instead
(``Answer.left_out``): the win rates of pairwise judgments (rows with an opponent) with
their position flips, and the agreement between judges of a criterion (or with human
labels).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.analysis.answer._facts import ASSERTION_CRITERIA, COST_COLUMNS, TableFacts
from assay.analysis.answer._result import Answer, Spend, TrustCheck, Verdict
from assay.analysis.pushdown._humans import engine_human_lines
from assay.analysis.pushdown._table import VIEW, EngineTable, text_sql

__all__ = ["engine_answer", "engine_table_facts"]

BATCH_ROWS = 1 << 20
"""Rows per Arrow batch of the question means."""
GROUPS = "answer_groups"
"""The table of the answer's counts per group of rows (:func:`_groups_sql`)."""

PAIRWISE_LEFT_OUT = ("the win rates and position flips of {n} pairwise judgments (rows with an "
                     "opponent): made by the pandas engine only (--engine pandas)")
AGREEMENT_LEFT_OUT = ("the agreement between the judges of {criteria} (and with human labels): "
                      "measured by the pandas engine only (--engine pandas)")


def engine_answer(table: EngineTable, *, conf: float = 0.95) -> Answer:
    """:func:`~assay.analysis.answer.answer` of an engine table, the same numbers.

    The pairwise judgments' win rates and the agreement between judges are left out, each
    named by a line of ``left_out`` (see the module docstring); a table without them gets the
    pandas answer, what humans would say included.
    The other reports the data support are not named here:
    ``assay.report.kinds._registry.with_available`` adds them from
    :func:`engine_table_facts`.
    """
    if not 0.0 < conf < 1.0:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    notes: list[str] = []
    left_out: list[str] = []
    table.engine.materialize(GROUPS, _groups_sql(table))
    ((held_back, pairwise),) = table.query(
        f"SELECT coalesce(sum(CASE WHEN NOT reportable THEN n END), 0), coalesce(sum(CASE WHEN "
        f"reportable AND opponent IS NOT NULL THEN n END), 0) FROM {GROUPS}")
    if held_back:
        notes.append(f"{held_back} rows of the dev or calibration split are left out.")
    verdicts, distinct = _pointwise_verdicts(table, conf=conf)
    if pairwise:
        left_out.append(PAIRWISE_LEFT_OUT.format(n=pairwise))
    shared = [str(c) for (c,) in table.query(
        f"SELECT criterion FROM {GROUPS} GROUP BY criterion HAVING count(DISTINCT judge) >= 2 "
        "ORDER BY criterion")]
    if shared:
        left_out.append(AGREEMENT_LEFT_OUT.format(criteria=", ".join(map(repr, shared))))
    humans, humans_note = engine_human_lines(table, conf=conf, judged_from=GROUPS)
    ((n, judges),) = table.query(
        f"SELECT coalesce(sum(n), 0), count(DISTINCT judge) FROM {GROUPS} WHERE reportable")
    if not pairwise and len(distinct) == 1:  # the reportable rows are one (judge, criterion)'s
        ((items, clusters, runs),) = distinct.values()
    else:
        ((items, clusters, runs),) = table.query(
            f"SELECT count(DISTINCT item), count(DISTINCT cluster), count(DISTINCT run) "
            f"FROM {VIEW} WHERE reportable")
    ((systems,),) = table.query(
        f"SELECT count(*) FROM (SELECT arm AS s FROM {GROUPS} WHERE reportable AND arm IS NOT "
        f"NULL UNION SELECT opponent AS s FROM {GROUPS} WHERE reportable AND opponent IS NOT "
        "NULL) AS u")
    trust, spend = _failure_checks(table), _spend(table)
    table.engine.release((GROUPS,))
    return Answer(
        verdicts=tuple(verdicts), trust=tuple(trust), spend=spend,
        n_judgments=int(n), n_systems=int(systems), n_items=int(items),
        n_clusters=int(clusters), n_runs=int(runs), n_judges=int(judges), conf=conf,
        read_notes=tuple(table.notes), notes=tuple(dict.fromkeys(notes)),
        left_out=tuple(left_out), humans=humans, humans_note=humans_note)


def _groups_sql(table: EngineTable) -> str:
    """The rows' counts per (judge, criterion, arm, opponent, reportable, whether the row has
    a cost): every count of the answer but the distinct questions, clusters and runs, and
    the systems' dollars where a row is an answer, in one pass over the table (a few groups)
    instead of one pass each."""
    costed = " OR ".join(f"{c} IS NOT NULL" for c in COST_COLUMNS)
    return (f"SELECT judge, criterion, arm, opponent, reportable, ({costed}) AS costed, "
            f"count(*) AS n, count(score) AS scored, "
            f"max(CASE WHEN score IS NOT NULL THEN run END) AS last_run, min(score) AS low, "
            f"max(score) AS high, count(position) AS positioned, sum(usd) AS usd, "
            f"count(usd) AS priced, {table.first_row} AS f FROM {VIEW} "
            f"GROUP BY judge, criterion, arm, opponent, reportable, ({costed})")


def _pointwise_verdicts(table: EngineTable, *, conf: float) -> tuple[
        list[Verdict], dict[tuple[Any, Any], list[Any]]]:
    """A verdict per (judge, criterion) of the pointwise reportable rows, from each system's
    question means (the order of first appearance kept at each level, as pandas groups),
    and each (judge, criterion)'s distinct questions, clusters and runs."""
    import pandas as pd

    from assay.analysis.answer._verdicts import ArmItems, _units, verdict_from_items

    where = f"FROM {VIEW} WHERE reportable AND opponent IS NULL"
    pointwise = f"FROM {GROUPS} WHERE reportable AND opponent IS NULL"
    arms = table.query(
        f"SELECT judge, criterion, arm, sum(n), sum(scored), max(last_run), "
        f"min(min(f)) OVER (PARTITION BY judge, criterion) AS g, min(f) AS f1 {pointwise} "
        f"GROUP BY judge, criterion, arm ORDER BY g, f1")
    counts = {(j, c): rest for j, c, *rest in table.query(
        f"SELECT judge, criterion, sum(n), min(low), max(high) {pointwise} "
        "GROUP BY judge, criterion")}
    distinct = {(j, c): rest for j, c, *rest in table.query(
        f"SELECT judge, criterion, count(DISTINCT item), count(DISTINCT cluster), "
        f"count(DISTINCT run) {where} GROUP BY judge, criterion")}
    bounds, cluster, item, m, w = _question_means(table, where)
    by_group: dict[tuple[Any, Any], list[ArmItems]] = {}
    for judge, criterion, arm, total, scored, last_run, _, _ in arms:
        lo, hi = bounds.get((judge, criterion, arm), (0, 0))
        index = pd.MultiIndex.from_arrays([cluster[lo:hi], item[lo:hi]],
                                          names=["cluster", "item"])
        by_group.setdefault((judge, criterion), []).append(ArmItems(
            str(arm), pd.Series(m[lo:hi], index=index), pd.Series(w[lo:hi], index=index),
            n=int(scored), n_failed=int(total - scored),
            runs=int(last_run) if last_run is not None else 0))
    out = []
    for (judge, criterion), systems in by_group.items():
        (n, low, high), (items, clusters, runs) = counts[(judge, criterion)], distinct[
            (judge, criterion)]
        scale = table.scale(str(criterion))
        out.append(verdict_from_items(
            str(judge), str(criterion), scale, _units(scale.kind), systems, conf=conf,
            low=None if low is None else float(low), high=None if high is None else float(high),
            n_judgments=int(n), n_items=int(items), n_clusters=int(clusters),
            n_runs=int(runs)))
    return out, distinct


def _question_means(table: EngineTable, where: str) -> tuple[
        dict[tuple[Any, ...], tuple[int, int]], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each system's question means: (judge, criterion, arm) -> its rows (lo, hi) of the
    codes of the clusters, of the items, the means and the weights, in order of first
    appearance within each system.

    The labels come through Arrow and are coded there (one integer per distinct label, the
    same for every system), not as a Python string per question: the verdicts only match
    questions and group clusters, which codes do as the labels would, and at 30 M rows the
    3 M questions' five string columns held about 1 GB of Python objects. The rows are put
    in order by numpy (system, then first (file, row): file names compared as the engine
    compares text, by code point), not by the engine's sort of the strings, a third of the
    query's time.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    weight = "sum(weight)" if "weight" in table.columns else "avg(weight)"
    batches = [b for b in table.engine.batches(
        f"SELECT judge AS g1, criterion AS g2, arm AS g3, cluster, item, "
        f"sum(weight * score) / sum(weight) AS m, {weight} AS w, {table.first_row} AS f "
        f"{where} AND score IS NOT NULL GROUP BY judge, criterion, arm, cluster, item",
        BATCH_ROWS) if b.num_rows]
    if not batches:
        empty = np.zeros(0, dtype=np.int64)
        return {}, empty, empty, empty.astype(np.float64), empty.astype(np.float64)
    data = pa.Table.from_batches(batches)
    del batches

    def coded(values: Any) -> tuple[np.ndarray, list[Any]]:
        encoded = pc.dictionary_encode(values, null_encoding="encode")
        return (np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64),
                encoded.dictionary.to_pylist())

    def column(name: str) -> Any:
        return data.column(name).combine_chunks()

    (judge, judges), (criterion, criteria), (arm, arms) = (
        coded(column(g)) for g in ("g1", "g2", "g3"))
    group = (judge * len(criteria) + criterion) * len(arms) + arm  # one code per system
    first = column("f")
    if pa.types.is_struct(first.type):  # (file, row); a table in a database: its row alone
        files, names = coded(first.field(0))
        rank = np.empty(len(names), dtype=np.int64)
        rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
        order = np.lexsort((first.field(1).to_numpy(), rank[files], group))
    else:
        order = np.lexsort((first.to_numpy(), group))
    del first
    group, judge, criterion, arm = group[order], judge[order], criterion[order], arm[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(group)) + 1])
    ends = np.append(starts[1:], len(group))
    bounds = {(judges[judge[lo]], criteria[criterion[lo]], arms[arm[lo]]): (int(lo), int(hi))
              for lo, hi in zip(starts, ends, strict=True)}
    cluster, item = (coded(column(c))[0][order] for c in ("cluster", "item"))
    m, w = (np.asarray(column(c).to_numpy(zero_copy_only=False), dtype=np.float64)[order]
            for c in ("m", "w"))
    return bounds, cluster, item, m, w


def _failure_checks(table: EngineTable) -> list[TrustCheck]:
    """Per judge (humans apart), in order of first appearance: judgments without a score."""
    from assay.analysis.judges._human import is_human

    out = []
    for judge, n, scored in table.query(
            f"SELECT judge, sum(n), sum(scored) FROM {GROUPS} WHERE reportable "
            f"GROUP BY judge ORDER BY min(f)"):
        if is_human(judge):
            continue
        failed = int(n - scored)
        out.append(TrustCheck(check="failures", judge=str(judge), criterion=None,
                              statistic="failure rate", estimate=failed / int(n),
                              lower=float("nan"), upper=float("nan"), count=failed, n=int(n)))
    return out


def _spend(table: EngineTable) -> Spend | None:
    """The systems' dollars as :func:`~assay.analysis.cost.cost_summary` counts them: each
    answer (item, arm, run) once, with the cost of its first row; None without a dollar.

    An answer has several rows only where they differ in judge, criterion, opponent or
    position: the checks of :func:`~assay.analysis.pushdown.open_table` refuse two rows of
    one judgment key. So a table of one (judge, criterion) and no opponent or position
    (a benchmark export) has a row per answer and is summed as it is; numbering each
    answer's rows by a window over the whole table (the other tables) costs as much as the
    rest of the answer at 30 M rows."""
    ((kinds, paired),) = table.query(
        f"SELECT count(*), coalesce(sum(opponents + positioned), 0) FROM (SELECT judge, "
        f"criterion, count(opponent) AS opponents, sum(positioned) AS positioned FROM {GROUPS} "
        f"GROUP BY judge, criterion) AS k")
    if int(kinds) <= 1 and not paired:  # a row per answer: the groups' sums
        rows = table.query(f"SELECT arm, sum(usd), sum(priced) FROM {GROUPS} WHERE costed "
                           "GROUP BY arm ORDER BY min(f)")
    else:
        costed = " OR ".join(f"{c} IS NOT NULL" for c in COST_COLUMNS)
        rows = table.query(
            f"SELECT arm, sum(usd), count(usd) FROM (SELECT arm, usd, tokens_in, tokens_out, "
            f"__file, __row, row_number() OVER (PARTITION BY item, arm, run ORDER BY __file, "
            f"__row) AS k FROM {VIEW}) AS numbered WHERE k = 1 AND ({costed}) GROUP BY arm "
            f"ORDER BY {table.first_row}")
    systems = tuple((str(arm), float(usd), float(usd) / int(counted) if counted else None)
                    for arm, usd, counted in rows if usd is not None)
    if not systems:
        return None
    return Spend(judges_usd=None, judges_calls=None, systems=systems)


def engine_table_facts(table: EngineTable) -> TableFacts:
    """:func:`assay.analysis.answer._facts.table_facts` of an engine table: the facts the
    reports' support checks look at, by a few queries."""
    from assay.analysis.benchmark._selection import is_correctness

    assertions = ", ".join(table.text(c) for c in ASSERTION_CRITERIA)
    ((opponents, judges, assertion, cost),) = table.query(
        f"SELECT count(opponent), (SELECT max(k) FROM (SELECT count(DISTINCT judge) AS k "
        f"FROM {VIEW} GROUP BY criterion) AS j), count_if(criterion IN ({assertions})), "
        f"{' + '.join(f'count({c})' for c in COST_COLUMNS)} FROM {VIEW}")
    pointwise = [str(c) for (c,) in table.query(
        f"SELECT DISTINCT criterion FROM {VIEW} WHERE opponent IS NULL")]
    mapped = [c for (c,) in table.query(f"SELECT DISTINCT criterion FROM {VIEW}")
              if table.scale(str(c)).kind not in ("interval", "nominal")]
    criterion_judges: frozenset[tuple[str, str, bool]] = frozenset()
    if mapped:
        listed = ", ".join(table.text(str(c)) for c in mapped)
        criterion_judges = frozenset((str(c), str(j), bool(p)) for c, j, p in table.query(
            f"SELECT DISTINCT criterion, judge, opponent IS NOT NULL FROM {VIEW} WHERE "
            f"reportable AND score IS NOT NULL AND criterion IN ({listed})"))
    unit_judges = frozenset(j for _, j, pairwise in criterion_judges if not pairwise)  # as pandas
    reference = False
    if "reference_score" in table.raw_columns:
        value = text_sql("reference_score", table.engine.dialect)  # blank is missing, as in pandas
        ((count,),) = table.query(f"SELECT count({value}) FROM {table.scan}")
        reference = bool(count)
    teacher = False
    if "teacher" in table.raw_columns:
        value = text_sql("teacher", table.engine.dialect)  # blank is missing, as in pandas
        ((count,),) = table.query(f"SELECT count({value}) FROM {table.scan}")
        teacher = bool(count)
    return TableFacts(
        columns=frozenset(table.raw_columns), has_opponent=bool(opponents),
        multi_judge=bool(judges and judges >= 2),
        correctness=any(is_correctness(table.scale(c)) for c in pointwise),
        pointwise_judges=unit_judges, reference=reference, cost=bool(cost),
        assertions=bool(assertion), teacher=teacher, criterion_judges=criterion_judges)
