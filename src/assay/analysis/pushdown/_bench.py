"""The benchmark report's reduction as engine queries: rows in, the dense (items, arms, runs) cube out.

The benchmark report (hr_report) needs each item's score on each arm and run: stability,
TARa, pass^k and the run-effect tests look at runs within an item, so its sufficient
statistic is the (items x arms x runs) cube, and every later sum (per cluster, arm and
run) is a vectorised reduction of it. The engine does what loading a table costs: it
reads the files, picks the judge and criterion, leaves out rows that are not reportable
or not labelled, numbers the clusters, items, arms and runs (sorted as
:func:`~assay.analysis.benchmark._data.prepare_bench` sorts them: clusters and items by
label, runs by value, arms by first appearance) and streams, in batches, each row's cell
and numbers, which are scattered into preallocated cubes. No string column reaches
Python but the labels, so memory is a few bytes per cell rather than a data frame of the
rows, and the numbers equal those of the pandas path.

TARa compares each run's scored output (outcome, else failure kind, else score) within
an item; the engine gives each a 64-bit hash of its kind and value instead of a code
(equal outputs, equal hashes; a collision among an item's runs has probability about
R^2 / 2^65).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.analysis._weights import weights_error
from assay.analysis.benchmark import BenchmarkReport, Registration, benchmark_report
from assay.analysis.benchmark._data import (
    SHOWN_CELLS,
    BenchData,
    CellNamer,
    all_binary,
    duplicated_cells_error,
    empty_cells_error,
    unlabelled_arms_error,
)
from assay.analysis.benchmark._errors import DevNotEvidenceError
from assay.analysis.benchmark._measure import MeasureAccumulator
from assay.analysis.benchmark._selection import choose_correctness, is_correctness
from assay.analysis.pushdown._table import VIEW, EngineTable
from assay.data.schema import EVIDENCE_SPLITS
from assay.errors import ConfigError, DesignError

BATCH_ROWS = 1 << 20
"""Rows per batch streamed from the engine into the cubes."""


def engine_benchmark_report(table: EngineTable, *, judge: str | None = None,
                            criterion: str | None = None,
                            contrasts: Sequence[tuple[str, str]] | None = None,
                            **options: Any) -> tuple[BenchmarkReport, str, str]:
    """The benchmark report of an engine table: (report, judge, criterion).

    ``options`` are those of :func:`~assay.analysis.benchmark.benchmark_report`. A
    registration is refused: its reference hash covers the answers of the rows, which the
    pandas path reads (``--engine pandas``).
    """
    if options.get("registration") is not None:
        raise ConfigError("a registered report reads the reference answers: use --engine pandas")
    registration: Registration | None = options.get("registration")
    confirmatory = options.get("confirmatory")
    evidence = bool(confirmatory) or registration is not None
    data, judge_name, criterion_name = engine_bench_data(table, judge=judge, criterion=criterion,
                                                         evidence=evidence)
    if callable(contrasts):
        contrasts = contrasts(list(data.arms))
    report = benchmark_report(data, contrasts=contrasts, **options)
    report = replace(report, judge=judge_name, criterion=criterion_name,
                     failures_exact=_failures_exact(table, judge_name, criterion_name))
    return report, judge_name, criterion_name


def _failures_exact(table: EngineTable, judge: str, criterion: str) -> bool:
    """Whether no reportable row of the judge and criterion with a failure kind was left out
    of the bench as pairwise, as the pandas path's ``failures_exact`` (rows not reportable
    are named by the viewer's ``reportable`` filter)."""
    if "failure_kind" not in table.columns:
        return True
    (left_out,) = table.query(
        f"SELECT count(*) FROM {VIEW} WHERE judge = {table.text(judge)} AND criterion = "
        f"{table.text(criterion)} AND failure_kind IS NOT NULL AND opponent IS NOT NULL "
        "AND reportable")[0]
    return int(left_out) == 0


def correctness_pair(table: EngineTable, judge: str | None,
                     criterion: str | None) -> tuple[str, str]:
    """The judge and criterion of the correctness scores, as ``benchmark_rows`` chooses them."""
    pairs = table.query(f"SELECT judge, criterion FROM {VIEW} WHERE opponent IS NULL "
                        f"GROUP BY judge, criterion ORDER BY {table.first_row}")
    return choose_correctness([(str(j), str(c)) for j, c in pairs
                               if is_correctness(table.scale(str(c)))], judge, criterion)


def engine_bench_data(table: EngineTable, *, judge: str | None = None,
                      criterion: str | None = None,
                      evidence: bool = False) -> tuple[BenchData, str, str]:
    """Reduce the correctness rows of one judge to the benchmark cubes in the engine.

    Raises what :func:`~assay.analysis.benchmark._data.prepare_bench` raises, with its
    messages: DevNotEvidenceError, DesignError (no labelled rows, an arm with no label,
    duplicated or missing cells).
    """
    judge_name, criterion_name = correctness_pair(table, judge, criterion)
    engine = table.engine
    engine.view("bench_rows", f"SELECT * FROM {VIEW} WHERE judge = {table.text(judge_name)} "
                f"AND criterion = {table.text(criterion_name)} AND opponent IS NULL")
    if "weight" in table.columns:
        (weighted,) = table.query("SELECT count_if(weight <> 1.0) FROM bench_rows")[0]
        if weighted:
            raise weights_error(int(weighted), "benchmark reports")
    if "task" in table.columns and table.query(
            "SELECT count(DISTINCT task) FROM bench_rows")[0][0] > 1:
        raise ConfigError("the benchmark report's per-task breakdown reads the rows, and this "
                          "table has several tasks: use --engine pandas")
    if evidence:
        _check_evidence(table)
    has_failure = "failure_kind" in table.columns
    labelled = "(score IS NOT NULL OR failure_kind IS NOT NULL)"
    n_not_reportable, n_unlabelled = table.query(
        f"SELECT count_if(NOT reportable), count_if(reportable AND NOT {labelled}) "
        "FROM bench_rows")[0]
    n_items_all = None  # every reportable row labelled: the items are those of bench_items
    if n_unlabelled:
        _check_arms_labelled(table, labelled)
        (n_items_all,) = table.query(
            "SELECT count(*) FROM (SELECT DISTINCT cluster, item FROM bench_rows "
            "WHERE reportable) AS k")[0]
    engine.view("bench_labelled", f"SELECT * FROM bench_rows WHERE reportable AND {labelled}")
    engine.materialize("bench_items", "SELECT cluster, item, CAST(row_number() OVER (ORDER BY "
                       "cluster, item) - 1 AS BIGINT) AS i FROM "
                       "(SELECT DISTINCT cluster, item FROM bench_labelled)")
    engine.materialize("bench_arms", "SELECT arm, CAST(row_number() OVER (ORDER BY first) - 1 "
                       f"AS BIGINT) AS a FROM (SELECT arm, {table.first_row} AS first FROM "
                       "bench_labelled GROUP BY arm)")
    engine.materialize("bench_runs", "SELECT run, CAST(row_number() OVER (ORDER BY run) - 1 "
                       "AS BIGINT) AS r FROM (SELECT DISTINCT run FROM bench_labelled)")
    items = engine.numpy("SELECT cluster, item FROM bench_items ORDER BY i")
    if len(items["item"]) == 0:
        raise DesignError("no reportable, labelled rows: nothing to report")
    arms = [str(r[0]) for r in table.query("SELECT arm FROM bench_arms ORDER BY a")]
    runs = [r[0] for r in table.query("SELECT run FROM bench_runs ORDER BY r")]
    kinds = ([str(r[0]) for r in table.query(
        "SELECT DISTINCT failure_kind FROM bench_labelled WHERE failure_kind IS NOT NULL "
        "ORDER BY failure_kind")] if has_failure else [])
    n_items, n_arms, n_runs = len(items["item"]), len(arms), len(runs)
    shape = (n_items, n_arms, n_runs)
    item_labels = np.asarray(items["item"], dtype=object)
    cluster_of_item = np.asarray(items["cluster"], dtype=object)
    changes = np.flatnonzero(cluster_of_item[1:] != cluster_of_item[:-1]) + 1
    starts = np.concatenate(([0], changes)).astype(np.int64)
    sizes = np.diff(np.append(starts, n_items)).astype(np.float64)
    item_cluster = np.repeat(np.arange(starts.size, dtype=np.int64), sizes.astype(np.int64))
    cubes = _stream_cubes(table, shape, kinds, item_cluster)
    _check_cells(table, cubes.pop("seen"), cubes.pop("duplicated"), item_labels,
                 cluster_of_item, arms, runs)
    table.engine.release(("bench_items", "bench_arms", "bench_runs"))  # the arrays come next
    scores = cubes["score"]
    data = BenchData(
        arms=tuple(arms), runs=tuple(runs), cluster_labels=cluster_of_item[starts],
        item_labels=item_labels, item_cluster=item_cluster, cluster_starts=starts, sizes=sizes,
        scores=scores, binary=all_binary(scores),
        agreement=cubes.get("agreement"), failure=cubes["failure"],
        failure_kinds=tuple(kinds), usd=cubes.get("usd"), tokens=cubes.get("tokens"),
        usd_runs=None,
        n_rows_not_reportable=int(n_not_reportable), n_rows_unlabelled=int(n_unlabelled),
        n_items_unlabelled=0 if n_items_all is None else int(n_items_all - n_items),
        evidence_checked=evidence)
    return data, judge_name, criterion_name


def _stream_cubes(table: EngineTable, shape: tuple[int, int, int], kinds: list[str],
                  item_cluster: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Stream (cell, numbers) from the engine into preallocated cubes, and the dollars
    and tokens into their cluster sums (``usd``, ``tokens``: no cube of them)."""
    columns = table.columns
    n_cells = shape[0] * shape[1] * shape[2]
    has_failure = "failure_kind" in columns
    select = [f"(b.i * {shape[1]} + a.a) * {shape[2]} + r.r AS cell",
              "CASE WHEN l.failure_kind IS NOT NULL THEN 0.0 ELSE l.score END AS score"]
    cubes: dict[str, Any] = {"score": np.empty(n_cells, dtype=np.float64)}
    # Without a failure_kind column no run failed: one -1 seen through the cube's shape
    # (read-only, no memory) instead of a cube of -1.
    cubes["failure"] = (np.full(n_cells, -1, dtype=np.int32) if has_failure
                        else np.broadcast_to(np.int32(-1), (n_cells,)))
    if has_failure:
        codes = " ".join(f"WHEN {table.text(k)} THEN {n}" for n, k in enumerate(kinds))
        select.append(f"CAST(CASE l.failure_kind {codes} ELSE -1 END AS INTEGER) AS failure"
                      if kinds else "CAST(-1 AS INTEGER) AS failure")
    if "outcome" in columns or has_failure:
        outcome = "l.outcome" if "outcome" in columns else "NULL"
        code = table.engine.dialect.output_code(outcome, "l.failure_kind", "l.score")
        select.append(f"{code} AS agreement")
        # 64 bits, unsigned in DuckDB and signed in Spark: kept as int64 (only equality counts).
        cubes["agreement"] = np.empty(n_cells, dtype=np.int64)
    sums: dict[str, MeasureAccumulator] = {}
    n_clusters = int(item_cluster[-1]) + 1
    if "usd" in columns:
        select.append("l.usd AS usd")
        estimated = "usd_provenance" in columns
        if estimated:
            select.append("coalesce(l.usd_provenance = 'estimated', false) AS estimated")
        sums["usd"] = MeasureAccumulator(n_clusters, shape[1], estimated=estimated)
    tokens = [c for c in ("tokens_in", "tokens_out") if c in columns]
    if tokens:
        known = " AND ".join(f"l.{c} IS NULL" for c in tokens)
        total = " + ".join(f"coalesce(l.{c}, 0)" for c in tokens)
        select.append(f"CASE WHEN {known} THEN NULL ELSE {total} END AS tokens")
        sums["tokens"] = MeasureAccumulator(n_clusters, shape[1], estimated=False)
    seen = np.zeros(n_cells, dtype=bool)
    n_rows = 0
    for batch in table.engine.batches(
            f"SELECT {', '.join(select)} FROM bench_labelled l "
            "JOIN bench_items b ON l.cluster = b.cluster AND l.item = b.item "
            "JOIN bench_arms a ON l.arm = a.arm JOIN bench_runs r ON l.run = r.run", BATCH_ROWS):
        cell = batch.column("cell").to_numpy()
        n_rows += cell.size
        seen[cell] = True
        for name, cube in cubes.items():
            if name == "failure" and not has_failure:
                continue
            values = batch.column(name).to_numpy(zero_copy_only=False)
            if name == "agreement":
                values = values.view(np.int64)
            elif name != "failure":
                values = values.astype(np.float64)
            cube[cell] = values
        if sums:
            _add_sums(sums, batch, cell, shape, item_cluster)
    out: dict[str, Any] = {name: (np.broadcast_to(np.int32(-1), shape) if name == "failure"
                                  and not has_failure else cube.reshape(shape))
                           for name, cube in cubes.items()}
    out.update({name: accumulator.result() for name, accumulator in sums.items()})
    # Two rows of one cell leave fewer cells seen than rows read: one count at the end
    # instead of sorting every batch.
    out["seen"], out["duplicated"] = seen, n_rows > int(np.count_nonzero(seen))
    return out


def _add_sums(sums: dict[str, MeasureAccumulator], batch: Any, cell: npt.NDArray[np.int64],
              shape: tuple[int, int, int], item_cluster: npt.NDArray[np.int64]) -> None:
    """Add one streamed batch to the dollars' and tokens' cluster sums."""
    item_arm = cell // shape[2]
    cluster, arm = item_cluster[item_arm // shape[1]], item_arm % shape[1]
    scores = batch.column("score").to_numpy(zero_copy_only=False).astype(np.float64)
    for name, accumulator in sums.items():
        values = batch.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
        estimated = (batch.column("estimated").to_numpy(zero_copy_only=False)
                     if name == "usd" and "estimated" in batch.schema.names else None)
        accumulator.add(cluster, arm, values, scores, estimated)


def _check_cells(table: EngineTable, seen: npt.NDArray[np.bool_], duplicated: bool,
                 items: npt.NDArray[np.object_], clusters: npt.NDArray[np.object_],
                 arms: list[str], runs: list[Any]) -> None:
    n_arms, n_runs = len(arms), len(runs)
    describe = CellNamer(items, clusters, np.asarray(arms, dtype=object),
                         np.asarray(runs, dtype=object))
    if duplicated:
        rows = table.query(
            f"SELECT cell, count(*) OVER () FROM (SELECT (b.i * {n_arms} + a.a) * {n_runs} + r.r "
            "AS cell FROM bench_labelled l JOIN bench_items b ON l.cluster = b.cluster AND "
            "l.item = b.item JOIN bench_arms a ON l.arm = a.arm JOIN bench_runs r ON "
            f"l.run = r.run) GROUP BY cell HAVING count(*) > 1 ORDER BY cell LIMIT {SHOWN_CELLS}")
        cells = np.array([r[0] for r in rows], dtype=np.int64)
        raise duplicated_cells_error(rows[0][1], describe(cells, rows[0][1]))
    empty = np.flatnonzero(~seen)
    if empty.size:
        raise empty_cells_error(int(empty.size), describe(empty))


def _check_arms_labelled(table: EngineTable, labelled: str) -> None:
    rows = table.query(f"SELECT arm, count(*), {table.first_row} AS first FROM bench_rows "
                       f"WHERE reportable AND arm IS NOT NULL GROUP BY arm "
                       f"HAVING count_if({labelled}) = 0 ORDER BY first")
    if rows:
        raise unlabelled_arms_error([(arm, int(n)) for arm, n, _ in rows])


def _check_evidence(table: EngineTable) -> None:
    if "split" not in table.columns:
        raise DevNotEvidenceError(
            "a confirmatory or registered report is evidence, and this bench has no split "
            "column to show its rows are from the test or final split")
    allowed = ", ".join(table.text(s) for s in sorted(EVIDENCE_SPLITS))
    outside = table.query(f"SELECT coalesce(split, '<none>'), count(*) FROM bench_rows WHERE "
                          f"split IS NULL OR split NOT IN ({allowed}) GROUP BY split "
                          f"ORDER BY {table.first_row}")
    if outside:
        summary = ", ".join(f"{k}: {v}" for k, v in outside)
        raise DevNotEvidenceError(
            f"a confirmatory or registered report is evidence, and "
            f"{sum(v for _, v in outside)} row(s) are outside the test and final splits "
            f"({summary})")
    (hidden,) = table.query("SELECT count_if(NOT reportable) FROM bench_rows")[0]
    if hidden:
        raise DevNotEvidenceError(
            f"a confirmatory or registered report is evidence, and {hidden} row(s) are marked "
            "not reportable")
