"""Judgments that repeat another's key (the same item, arm, opponent, position, run, judge and
criterion): refused, or read one of the ways a tool reads its own re-runs.

Tools append when they are run again: FastChat's ``gen_judgment.py`` opens its output in
append mode and ``show_result.py`` averages every record it finds; CoEval's loader counts
every evaluation record it reads. :func:`resolve_repeats` reads such repeats by one rule:

``error``
    refuse them: one problem per repeated judgment (a record's rows share it, so a record
    scored on six criteria is one line, not six), naming the file and lines;
``first`` / ``last``
    keep the first (last) record of each key;
``mean``
    one row per key whose score is the weighted mean of its scored repeats and whose
    ``weight`` is the sum of their weights: a weighted mean over the table then counts every
    scored record once, as a mean over the records does; failed repeats are dropped when the
    key has a scored one. Only for criteria on an ``interval`` or ``range`` scale;
``keep``
    keep every record, the k-th repeat of a key of run r as run r + (k - 1) R of its judge,
    criterion and arm (R their highest run), so each stays one judgment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd

from assay.data._limits import MAX_PROBLEMS_PER_CHECK
from assay.data.schema import KEY_COLUMNS, Scale
from assay.errors import Problem, quote

Duplicates = Literal["error", "first", "last", "mean", "keep"]
"""How repeated judgments are read (``--duplicates``)."""
DUPLICATE_MODES: tuple[str, ...] = get_args(Duplicates)
_MEAN_SCALES = ("interval", "range")


@dataclass(frozen=True)
class Resolved:
    """The table with its repeats read, the row numbers and files kept in step, and what
    happened (problems to raise, or one note to print)."""

    frame: pd.DataFrame
    rows: np.ndarray
    files: np.ndarray
    problems: list[Problem]
    note: str | None


def check_mode(mode: str) -> None:
    """Refuse a mode that is not one of :data:`DUPLICATE_MODES`."""
    if mode not in DUPLICATE_MODES:
        raise ValueError(f"--duplicates {mode!r}: expected one of {', '.join(DUPLICATE_MODES)}")


def resolve_repeats(frame: pd.DataFrame, rows: np.ndarray, files: np.ndarray, *,
                    mode: str, scales: Mapping[str, Scale], reading: str = "") -> Resolved:
    """Read the repeated judgment keys of `frame` by `mode` (see the module docstring).

    `rows` and `files` give each row's line and file, for the messages; `reading` says in
    the note whose reading the mode is (``"as FastChat's show_result.py averages them"``).
    """
    check_mode(mode)
    keys = [c for c in KEY_COLUMNS if c in frame.columns]
    filled = frame[keys].astype(object).where(frame[keys].notna(), "\0")
    repeated = filled.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return Resolved(frame, rows, files, [], None)
    group = filled.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    if mode == "error":
        return Resolved(frame, rows, files, _problems(frame, rows, files, keys, repeated), None)
    records = _records(frame, keys, repeated)
    judgments = len(np.unique(records[repeated]))
    lines = pd.Series(list(zip(files[repeated], rows[repeated], strict=True)))
    extra = len(pd.unique(lines)) - judgments  # records beyond the first of each judgment
    where = _where(rows, files, repeated)
    if mode == "mean":
        bad = sorted({str(c) for c in frame.loc[repeated, "criterion"]
                      if scales.get(str(c), Scale("interval")).kind not in _MEAN_SCALES})
        if bad:
            return Resolved(frame, rows, files, [Problem(
                str(files[np.flatnonzero(repeated)[0]]), None, "score",
                f"--duplicates mean averages scores on an interval or range scale; criterion "
                f"{', '.join(map(quote, bad))} is not one: use first, last or keep")], None)
        keep, frame = _means(frame, group, repeated)
        what = "one row per judgment with the mean of its scored repeats, weighted by their number"
    elif mode == "keep":
        frame = _renumber(frame, group)
        keep = np.ones(len(frame), dtype=bool)
        what = "each repeat kept as a further run of its judge, criterion and arm"
    else:
        keep = ~pd.Series(group).duplicated(keep=mode).to_numpy()  # type: ignore[call-overload]
        what = f"the {mode} record of each kept"
    out = frame[keep].reset_index(drop=True)
    note = (f"{judgments} judgment{'s' if judgments != 1 else ''} repeated ({extra} more "
            f"record{'s' if extra != 1 else ''}, {where}): {what}"
            f"{', ' + reading if reading else ''} (--duplicates {mode}; "
            f"choose error, first, last, mean or keep)")
    return Resolved(out, rows[keep], files[keep], [], note)


def _records(frame: pd.DataFrame, keys: list[str], repeated: np.ndarray) -> np.ndarray:
    """A number per judgment record: its key without the criterion (a record scores several)."""
    record_keys = [k for k in keys if k != "criterion"]
    filled = frame[record_keys].astype(object).where(frame[record_keys].notna(), "\0")
    return filled.groupby(record_keys, sort=False, dropna=False).ngroup().to_numpy()


def _where(rows: np.ndarray, files: np.ndarray, repeated: np.ndarray) -> str:
    names = pd.unique(pd.Series(files[repeated]).astype(str))
    if len(names) == 1:
        return f"in {names[0]}"
    return f"in {len(names)} files, e.g. {names[0]}"


def repeat_problems(frame: pd.DataFrame, rows: np.ndarray, files: np.ndarray) -> list[Problem]:
    """The problems of the rows of `frame` that repeat a judgment key, one per repeated
    record (its criteria together); `rows` and `files` place each row."""
    keys = [c for c in KEY_COLUMNS if c in frame.columns]
    filled = frame[keys].astype(object).where(frame[keys].notna(), "\0")
    repeated = filled.duplicated(keep=False).to_numpy()
    return _problems(frame, rows, files, keys, repeated) if repeated.any() else []


def _problems(frame: pd.DataFrame, rows: np.ndarray, files: np.ndarray, keys: list[str],
              repeated: np.ndarray) -> list[Problem]:
    """One problem per record (source line) that repeats judgments, its criteria together,
    naming the line(s) it repeats."""
    record_keys = [k for k in keys if k != "criterion"]
    sub = frame.loc[repeated, keys].assign(line_=rows[repeated], file_=files[repeated])
    filled = sub[keys].astype(object).where(sub[keys].notna(), "\0")
    by_key = sub.groupby([filled[k] for k in keys], sort=False, dropna=False)
    sub["occurrence"] = by_key.cumcount()
    sub["origin"] = [f"row {int(line)}" for line in by_key["line_"].transform("first")]
    origin_file = by_key["file_"].transform("first")
    sub["origin"] = [o if f == here else f"{o} of {f}"
                     for o, f, here in zip(sub["origin"], origin_file, sub["file_"], strict=True)]
    again = sub[sub["occurrence"] > 0]
    problems: list[Problem] = []
    total = 0
    for (file, line), part in again.groupby(["file_", "line_"], sort=False):
        total += 1
        if total > MAX_PROBLEMS_PER_CHECK:
            continue
        first = part.iloc[0]
        described = ", ".join(f"{k} {quote(_plain(first[k]))}" for k in record_keys
                              if k in ("item", "arm", "opponent", "run", "judge")
                              and pd.notna(first[k]))
        criteria = part["criterion"].nunique() if "criterion" in part else 1
        on = f" ({criteria} criteria)" if criteria > 1 else (
            f" (criterion {quote(_plain(first['criterion']))})" if "criterion" in part else "")
        origins = ", ".join(pd.unique(part["origin"]))
        problems.append(Problem(str(file), int(line), None,
                                f"duplicate judgment: same {described}{on} as {origins}; "
                                "read repeats with --duplicates first, last, mean or keep"))
    if total > MAX_PROBLEMS_PER_CHECK:
        problems.append(Problem(str(files[repeated][0]), None, None,
                                f"... and {total - MAX_PROBLEMS_PER_CHECK} more repeated judgments"))
    return problems


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (``1``, not ``np.int64(1)``)."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def _means(frame: pd.DataFrame, group: np.ndarray, repeated: np.ndarray
           ) -> tuple[np.ndarray, pd.DataFrame]:
    """Keep the first row of each key, carrying the weighted mean of its scored repeats."""
    frame = frame.copy()
    weight = (frame["weight"].fillna(1.0).to_numpy(dtype=float) if "weight" in frame
              else np.ones(len(frame)))
    failure = (frame["failure_kind"].notna().to_numpy() if "failure_kind" in frame
               else np.zeros(len(frame), dtype=bool))
    score = frame["score"].to_numpy(dtype=float)
    scored = ~failure & ~np.isnan(score)
    keep = np.ones(len(frame), dtype=bool)
    new_weight = weight.copy()
    new_score = score.copy()
    for g in np.unique(group[repeated]):
        members = np.flatnonzero(group == g)
        good = members[scored[members]]
        head = good[0] if len(good) else members[0]
        keep[members] = False
        keep[head] = True
        if len(good):
            w = weight[good]
            new_score[head] = float(np.sum(w * score[good]) / np.sum(w))
            new_weight[head] = float(np.sum(w))
    frame["score"] = new_score
    frame["weight"] = new_weight
    return keep, frame


def _renumber(frame: pd.DataFrame, group: np.ndarray) -> pd.DataFrame:
    """The k-th repeat of a key of run r becomes run r + (k - 1) R of its judge, criterion and
    arm (R their highest run): a repeated trial 2 of 3 becomes run 5."""
    frame = frame.copy()
    occurrence = pd.Series(group).groupby(group).cumcount().to_numpy()
    top = frame.groupby(["judge", "criterion", "arm"], sort=False)["run"].transform("max")
    later = occurrence > 0
    runs = frame["run"].to_numpy()
    frame.loc[later, "run"] = (runs[later] + occurrence[later] * top.to_numpy()[later]).astype(int)
    return frame


def row_files(files: Sequence[str] | None, path: str, n: int) -> np.ndarray:
    """Each row's file: as given, or `path` for every row (a read-only view of one cell, so
    a file of millions of rows costs no pointer per row)."""
    if files is not None:
        return np.asarray(files, dtype=object)
    return np.broadcast_to(np.array([path], dtype=object), (n,))
