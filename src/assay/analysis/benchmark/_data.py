"""Data preparation for the benchmark report: rows in, balanced cubes out.

:func:`prepare_bench` drops rows that are not reportable and rows with no label,
checks that the design is balanced (every arm has every run on every item), and lays
the scores out as a dense ``(items, arms, runs)`` cube with the items sorted by
cluster, so that every later step is a vectorised reduction over an axis or over the
contiguous items of a cluster. Nothing here loops over rows in Python.

Items are identified by the pair (cluster, item), so question ``q1`` of two documents
is two items. Clusters and items are sorted by label, runs by value, and arms keep
the order of their first appearance (the benchmark order); sorting makes the report
independent of the order of the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.analysis._weights import refuse_weights
from assay.analysis.benchmark._errors import DevNotEvidenceError
from assay.analysis.benchmark._measure import MeasureAccumulator, MeasureSums
from assay.data.schema import EVIDENCE_SPLITS, NON_REPORTABLE_SPLITS
from assay.errors import ConfigError, DesignError, InputError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

SOURCE = "<DataFrame>"
"""The 'path' an :class:`~assay.errors.InputError` names for an in-memory table."""

_USED_COLUMNS = ("cluster", "item", "arm", "run", "score", "correct", "reportable", "split",
                 "outcome", "failure_kind", "usd", "usd_provenance", "tokens_in", "tokens_out")

SHOWN_CELLS = 5
"""How many missing or duplicated cells an error message lists before the count."""


@dataclass(frozen=True)
class BenchData:
    """The reportable, labelled rows of a bench as dense cubes (items x arms x runs)."""

    arms: tuple[str, ...]
    """Arm names in benchmark order (first appearance)."""
    runs: tuple[object, ...]
    """Run labels, sorted."""
    cluster_labels: npt.NDArray[np.object_]
    """Cluster labels, sorted; shape (C,)."""
    item_labels: npt.NDArray[np.object_]
    """Item labels, sorted by (cluster, item); shape (I,)."""
    item_cluster: IntArray
    """Cluster index of each item; non-decreasing; shape (I,)."""
    cluster_starts: IntArray
    """Index of each cluster's first item; shape (C,)."""
    sizes: FloatArray
    """n_c, number of items of each cluster; shape (C,)."""
    scores: FloatArray
    """Correctness in [0, 1] (a failure counts 0); shape (I, A, R)."""
    binary: bool
    """Whether every score is 0 or 1."""
    agreement: IntArray | None
    """Codes of the scored output (outcome, else failure kind, else score) for TARa;
    None when the table has neither ``outcome`` nor ``failure_kind``."""
    failure: npt.NDArray[np.int32]
    """Index into ``failure_kinds`` of each run's failure, -1 for none; shape (I, A, R)."""
    failure_kinds: tuple[str, ...]
    """The failure kinds present, sorted."""
    usd: MeasureSums | None
    """Cluster sums of the dollars per run (what the cost section reads), or None without
    a ``usd`` column."""
    tokens: MeasureSums | None
    """Cluster sums of tokens_in + tokens_out per run, or None without either column."""
    usd_runs: FloatArray | None
    """Dollars per run (NaN where unknown), shape (I, A, R), for the registered cost test;
    None without a ``usd`` column and on the engine path, which holds only the sums."""
    n_rows_not_reportable: int
    """Rows left out because they are not reportable."""
    n_rows_unlabelled: int
    """Rows left out because they carry neither a score nor a failure kind."""
    n_items_unlabelled: int
    """Items left out because none of their rows carries a label."""
    evidence_checked: bool = False
    """Whether the rows were checked to be evidence (test or final split, all reportable)."""

    @property
    def n_items(self) -> int:
        return int(self.scores.shape[0])

    @property
    def n_arms(self) -> int:
        return int(self.scores.shape[1])

    @property
    def n_runs(self) -> int:
        return int(self.scores.shape[2])

    @property
    def n_clusters(self) -> int:
        return int(self.sizes.shape[0])

    def cluster_sums(self, values: npt.ArrayLike) -> FloatArray:
        """Sum per-item values (first axis of length I) within each cluster -> (C, ...)."""
        array = np.asarray(values, dtype=np.float64)
        return np.add.reduceat(array, self.cluster_starts, axis=0)


def prepare_bench(frame: pd.DataFrame, *, evidence: bool) -> BenchData:
    """Check a scored bench and reduce it to dense cubes.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``item``, ``arm``, ``run`` and ``score`` (or ``correct``); ``cluster``
        (defaults to ``item``); optional ``reportable``, ``split``, ``outcome``,
        ``failure_kind``, ``usd``, ``usd_provenance``, ``tokens_in``, ``tokens_out``.
    evidence : bool
        Whether the report is evidence (confirmatory or registered): then any row
        outside the test and final splits, or not reportable, is refused.

    Raises
    ------
    InputError
        A required column is missing, a key is null, or a score is outside [0, 1].
    DevNotEvidenceError
        ``evidence`` and a row that cannot be evidence.
    DesignError
        No labelled rows, a duplicated (item, arm, run), or missing cells.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"benchmark_report takes a pandas DataFrame, not {type(frame).__name__}")
    refuse_weights(frame, "benchmark reports")
    score_column = "score" if "score" in frame.columns else "correct"
    missing = [c for c in ("item", "arm", "run") if c not in frame.columns]
    if score_column not in frame.columns:
        missing.append("score (or correct)")
    if missing:
        raise InputError(SOURCE, f"missing required column(s): {', '.join(missing)}",
                         column=missing[0])

    frame = frame[[c for c in _USED_COLUMNS if c in frame.columns]]
    reportable = _reportable(frame)
    if evidence:
        _check_evidence(frame, reportable)
    n_not_reportable = int(np.count_nonzero(~reportable))
    rows = frame.loc[reportable] if n_not_reportable else frame
    positions = np.flatnonzero(reportable)

    has_failure = (rows["failure_kind"].notna().to_numpy() if "failure_kind" in rows.columns
                   else np.zeros(len(rows), dtype=bool))
    score = _scores(rows[score_column], positions, score_column)
    labelled = ~np.isnan(score) | has_failure
    score = np.where(has_failure, 0.0, score)

    cluster_col = "cluster" if "cluster" in rows.columns else "item"
    cluster_codes, cluster_labels = _factorize(rows[cluster_col], positions, sort=True)
    item_codes, item_names = _factorize(rows["item"], positions, sort=True)
    pair = cluster_codes * np.int64(len(item_names)) + item_codes
    n_items_all = np.unique(pair).size
    n_unlabelled = int(np.count_nonzero(~labelled))
    if n_unlabelled:
        _check_arms_labelled(rows["arm"], labelled)
        keep = labelled
        pair, score = pair[keep], score[keep]
        rows = rows.loc[keep]
        has_failure = has_failure[keep]
        positions = positions[keep]
    if pair.size == 0:
        raise DesignError("no reportable, labelled rows: nothing to report")

    unique_pairs, item_index = np.unique(pair, return_inverse=True)
    item_index = item_index.astype(np.int64).ravel()
    n_items = unique_pairs.size
    item_cluster_all = unique_pairs // np.int64(len(item_names))
    used_clusters, item_cluster = np.unique(item_cluster_all, return_inverse=True)
    item_cluster = item_cluster.astype(np.int64).ravel()
    arm_codes, arm_labels = _factorize(rows["arm"], positions, sort=False)
    run_codes, run_labels = _factorize(rows["run"], positions, sort=True)
    n_arms, n_runs = len(arm_labels), len(run_labels)

    flat = (item_index * n_arms + arm_codes) * n_runs + run_codes
    counts = np.bincount(flat, minlength=n_items * n_arms * n_runs)
    item_labels = item_names[unique_pairs % np.int64(len(item_names))]
    clusters = cluster_labels[used_clusters]
    describe = CellNamer(item_labels, clusters[item_cluster], arm_labels, run_labels)
    duplicated = np.flatnonzero(counts > 1)
    if duplicated.size:
        raise duplicated_cells_error(duplicated.size, describe(duplicated))
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise empty_cells_error(empty.size, describe(empty))

    shape = (n_items, n_arms, n_runs)
    scores = _cube(flat, score, shape)
    sizes = np.bincount(item_cluster, minlength=clusters.size).astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(sizes[:-1]))).astype(np.int64)

    failure_codes, failure_kinds = (
        _factorize(rows["failure_kind"], positions, sort=True, allow_null=True)
        if "failure_kind" in rows.columns else (np.full(flat.size, -1, np.int64), np.array([])))
    failure = np.full(flat.size, -1, dtype=np.int32)
    failure[flat] = failure_codes
    agreement = _agreement(rows, score, failure_codes, len(failure_kinds), flat, shape)

    cluster_of_row = item_cluster[item_index]
    usd_runs, usd = None, None
    if "usd" in rows.columns:
        dollars = _numeric(rows, "usd", positions)
        usd_runs = _cube(flat, dollars, shape)
        estimated = ((rows["usd_provenance"] == "estimated").to_numpy(dtype=bool)
                     if "usd_provenance" in rows.columns else None)
        usd = _sums(clusters.size, n_arms, cluster_of_row, arm_codes, dollars, score, estimated)
    token_counts = _tokens(rows, positions)
    tokens = (None if token_counts is None else
              _sums(clusters.size, n_arms, cluster_of_row, arm_codes, token_counts, score, None))

    return BenchData(
        arms=tuple(str(a) for a in arm_labels),
        runs=tuple(run_labels.tolist()),
        cluster_labels=clusters,
        item_labels=item_labels,
        item_cluster=item_cluster,
        cluster_starts=starts,
        sizes=sizes,
        scores=scores,
        binary=all_binary(scores),
        agreement=agreement,
        failure=failure.reshape(shape),
        failure_kinds=tuple(str(k) for k in failure_kinds),
        usd=usd,
        tokens=tokens,
        usd_runs=usd_runs,
        n_rows_not_reportable=n_not_reportable,
        n_rows_unlabelled=n_unlabelled,
        n_items_unlabelled=int(n_items_all - n_items),
        evidence_checked=evidence,
    )


def _check_arms_labelled(arms: pd.Series, labelled: npt.NDArray[np.bool_]) -> None:
    """Refuse an arm none of whose rows has a score or a failure kind.

    Unlabelled rows are left out, and an arm with nothing else would vanish from every
    table without a word (no accuracy, no contrast, no note).
    """
    scored = set(arms[labelled].dropna().unique())
    empty = [arm for arm in arms.dropna().unique() if arm not in scored]
    if empty:
        raise unlabelled_arms_error([(arm, int((arms == arm).sum())) for arm in empty])


def unlabelled_arms_error(arms: list[tuple[object, int]]) -> DesignError:
    """The error for arms none of whose rows has a label: (arm, number of rows) each."""
    counts = ", ".join(f"{arm!s} ({n} rows)" for arm, n in arms[:5])
    return DesignError(
        f"arm(s) with no score and no failure kind on any row: {counts}; score them, mark "
        "their failures in failure_kind, or leave the arm out of the table")


def all_binary(scores: npt.NDArray[np.float64]) -> bool:
    """Whether every score of an (items, arms, runs) cube is 0 or 1, checked an arm at a
    time (no cube-sized temporaries: 800 MB each at 100 M cells)."""
    return all(bool(np.all((arm == 0.0) | (arm == 1.0)))
               for arm in (scores[:, a, :] for a in range(scores.shape[1])))


def duplicated_cells_error(n: int, described: str) -> DesignError:
    """The error for ``n`` (item, arm, run) cells with more than one row."""
    return DesignError(
        f"{n} (item, arm, run) cell(s) have more than one row (filter the table to one judge "
        f"and criterion): {described}")


def empty_cells_error(n: int, described: str) -> DesignError:
    """The error for ``n`` (item, arm, run) cells with no scored row."""
    return DesignError(
        f"unbalanced design: every arm needs every run on every item, and an item is scored "
        f"on every run or on none; {n} cell(s) have no scored row: {described}")


class CellNamer:
    """Names the first few cells of a flat (item, arm, run) index list, then the count."""

    def __init__(self, items: npt.NDArray[np.object_], clusters: npt.NDArray[np.object_],
                 arms: npt.NDArray[np.object_], runs: npt.NDArray[np.object_]) -> None:
        self.items, self.clusters, self.arms, self.runs = items, clusters, arms, runs

    def __call__(self, cells: IntArray, total: int | None = None) -> str:
        """The first cells of ``cells``, then how many more of ``total`` (``cells.size``)."""
        n_arms, n_runs = len(self.arms), len(self.runs)
        shown = []
        for cell in cells[:SHOWN_CELLS]:
            item, rest = divmod(int(cell), n_arms * n_runs)
            arm, run = divmod(rest, n_runs)
            shown.append(f"item {self.items[item]} (cluster {self.clusters[item]}), "
                         f"arm {self.arms[arm]}, run {self.runs[run]}")
        more = (cells.size if total is None else total) - len(shown)
        return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _reportable(frame: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """``reportable`` where given; else derived from ``split`` (dev, calibration -> False)."""
    derived = (~frame["split"].isin(NON_REPORTABLE_SPLITS)).to_numpy(dtype=bool) \
        if "split" in frame.columns else np.ones(len(frame), dtype=bool)
    if "reportable" not in frame.columns:
        return derived
    column = frame["reportable"]
    if pd.api.types.is_bool_dtype(column.dtype) and not column.hasnans:
        return np.asarray(column.to_numpy(dtype=bool), dtype=bool)
    null = column.isna().to_numpy()
    true = column.isin([True]).to_numpy() & ~null
    false = column.isin([False]).to_numpy() & ~null
    bad = ~(true | false | null)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(SOURCE, f"reportable must be true or false, got {column.iloc[first]!r}",
                         row=first + 1, column="reportable")
    return np.asarray(true | (null & derived), dtype=bool)


def _check_evidence(frame: pd.DataFrame, reportable: npt.NDArray[np.bool_]) -> None:
    if "split" not in frame.columns:
        raise DevNotEvidenceError(
            "a confirmatory or registered report is evidence, and this bench has no split "
            "column to show its rows are from the test or final split")
    split = frame["split"]
    outside = ~split.isin(EVIDENCE_SPLITS).to_numpy(dtype=bool)
    if outside.any():
        counts = split[outside].astype(object).where(split[outside].notna(), "<none>")
        summary = ", ".join(f"{k}: {v}" for k, v in counts.value_counts(sort=False).items())
        raise DevNotEvidenceError(
            f"a confirmatory or registered report is evidence, and {int(outside.sum())} row(s) "
            f"are outside the test and final splits ({summary})")
    if not reportable.all():
        raise DevNotEvidenceError(
            f"a confirmatory or registered report is evidence, and "
            f"{int(np.count_nonzero(~reportable))} row(s) are marked not reportable")


def _scores(column: pd.Series, positions: IntArray, name: str) -> FloatArray:
    if pd.api.types.is_bool_dtype(column.dtype):
        return np.asarray(column.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    values = np.asarray(pd.to_numeric(column, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan), dtype=np.float64)
    bad = np.isnan(values) & column.notna().to_numpy()
    bad |= ~np.isnan(values) & ((values < 0.0) | (values > 1.0))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(SOURCE, f"{name} must be a number in [0, 1] (correctness or a share), "
                         f"got {column.iloc[first]!r}", row=int(positions[first]) + 1, column=name)
    return values


def _numeric(rows: pd.DataFrame, name: str, positions: IntArray) -> FloatArray:
    column = rows[name]
    values = np.asarray(pd.to_numeric(column, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan), dtype=np.float64)
    bad = (np.isnan(values) & column.notna().to_numpy()) | (values < 0.0) | np.isinf(values)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(SOURCE, f"{name} must be a non-negative number, got "
                         f"{column.iloc[first]!r}", row=int(positions[first]) + 1, column=name)
    return values


def _tokens(rows: pd.DataFrame, positions: IntArray) -> FloatArray | None:
    """tokens_in + tokens_out per row (NaN when both are unknown), or None without either."""
    parts = [_numeric(rows, c, positions) for c in ("tokens_in", "tokens_out") if c in rows.columns]
    if not parts:
        return None
    stacked = np.vstack(parts)
    known = ~np.isnan(stacked)
    return np.where(known.any(axis=0), np.nansum(np.where(known, stacked, 0.0), axis=0), np.nan)


def _sums(n_clusters: int, n_arms: int, cluster: IntArray, arm: IntArray, values: FloatArray,
          scores: FloatArray, estimated: npt.NDArray[np.bool_] | None) -> MeasureSums:
    accumulator = MeasureAccumulator(n_clusters, n_arms, estimated=estimated is not None)
    accumulator.add(cluster, arm, values, scores, estimated)
    return accumulator.result()


def _agreement(rows: pd.DataFrame, score: FloatArray, failure_codes: IntArray,
               n_failure_kinds: int, flat: IntArray,
               shape: tuple[int, int, int]) -> IntArray | None:
    """Codes of the scored output per run: outcome, else failure kind, else the score."""
    if "outcome" not in rows.columns and "failure_kind" not in rows.columns:
        return None
    if "outcome" in rows.columns:
        outcome_codes, outcomes = _factorize(rows["outcome"], None, sort=False,
                                             allow_null=True)
    else:
        outcome_codes, outcomes = np.full(flat.size, -1, np.int64), np.array([])
    score_codes = pd.factorize(score)[0].astype(np.int64)
    n_out = np.int64(len(outcomes))
    key = np.where(outcome_codes >= 0, outcome_codes,
                   np.where(failure_codes >= 0, n_out + failure_codes,
                            n_out + n_failure_kinds + score_codes))
    cube = np.empty(flat.size, dtype=np.int64)
    cube[flat] = key
    return cube.reshape(shape)


def _cube(flat: IntArray, values: FloatArray, shape: tuple[int, int, int]) -> FloatArray:
    cube = np.empty(flat.size, dtype=np.float64)
    cube[flat] = values
    return cube.reshape(shape)


def _factorize(column: pd.Series, positions: IntArray | None, *, sort: bool,
               allow_null: bool = False) -> tuple[IntArray, npt.NDArray[np.object_]]:
    """Integer codes and labels; sorted labels when they compare, else first appearance.

    Null values get code -1, which is refused (naming the first such row of the input,
    ``positions`` mapping rows back to it) unless ``allow_null``.
    """
    try:
        codes, labels = pd.factorize(column, sort=sort)
    except TypeError:
        codes, labels = pd.factorize(column, sort=False)
    codes = np.asarray(codes, dtype=np.int64)
    if not allow_null:
        null = codes < 0
        if null.any():
            first = int(np.flatnonzero(null)[0])
            row = int(positions[first]) + 1 if positions is not None else None
            raise InputError(SOURCE, f"{int(null.sum())} row(s) have no {column.name}",
                             row=row, column=str(column.name))
    return codes, np.asarray(labels, dtype=object)
