"""Validate raw records into the judgments table, listing every problem at once.

:func:`build_table` takes records as read (any column names, raw values), applies a
column mapping, checks every value against the schema and the criteria's scales, and
returns the canonical table or every problem found, each naming file, row, column and
what was expected. Checks are vectorised with pandas so a million rows validate in
seconds. Nothing here changes the input file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assay.data._raw import ROW_COLUMN
from assay.data.options import DROP
from assay.data.schema import (
    COLUMN_BY_NAME,
    COLUMNS,
    DEFAULT_CRITERION,
    DEFAULT_JUDGE,
    NON_REPORTABLE_SPLITS,
    REQUIRED_COLUMNS,
    SPLITS,
    USD_PROVENANCES,
    FailureKind,
    Scale,
)
from assay.data.table import Judgments
from assay.data.validate._checks import MAX_PROBLEMS_PER_CHECK, _Checker, duplicate_problems
from assay.data.validate._repeats import (
    DUPLICATE_MODES,
    Duplicates,
    check_mode,
    repeat_problems,
    resolve_repeats,
    row_files,
)
from assay.data.validate._values import _convert_one
from assay.errors import Problem, ValidationError, did_you_mean

__all__ = ["DUPLICATE_MODES", "FILE_COLUMN", "MAX_PROBLEMS_PER_CHECK", "BuildResult",
           "Duplicates", "build_table", "check_mode", "duplicate_problems",
           "judgments_from_records", "repeat_problems", "resolve_repeats"]

FILE_COLUMN = "__file__"
"""Column of raw records naming each record's file (an importer reading several files)."""


@dataclass(frozen=True)
class BuildResult:
    frame: pd.DataFrame
    scales: dict[str, Scale]
    problems: list[Problem]
    read_notes: list[str] = field(default_factory=list)
    """How the table was read where nothing declared it: one note per criterion whose scale
    was read from its scores, and runs numbered from 0."""
    inferred_scales: dict[str, str] = field(default_factory=dict)
    """Criterion -> the note of its scale read from its scores."""


def build_table(
    raw: pd.DataFrame,
    *,
    path: str,
    mapping: Mapping[str, str] | None = None,
    constants: Mapping[str, object] | None = None,
    scales: Mapping[str, Scale] | None = None,
    missing: Mapping[str, Sequence[str]] | None = None,
    prior_problems: Sequence[Problem] = (),
    duplicates: str = "error",
    reading: str = "",
) -> BuildResult:
    """Check raw records and turn them into the canonical judgments table.

    Returns the table (canonical column order, typed values, scores coded on their
    scale) with every problem found, after ``prior_problems`` (those the reader found);
    the table is only meaningful when there are none.

    ``mapping`` sources may name a field inside a JSON object (``scores.quality``); the
    object's column is then dropped unless it is mapped itself. ``missing`` lists, per
    judgments column, values that mean "no value" (``{"score": ["-1"]}``); a score so
    declared makes its row a failed judgment (failure_kind ``declared_missing``). A blank
    score (empty or only spaces) is a missing score.
    """
    problems: list[Problem] = list(prior_problems)
    frame = raw.copy()
    rows = frame.pop(ROW_COLUMN).to_numpy() if ROW_COLUMN in frame else np.arange(1, len(frame) + 1)
    files = row_files(list(frame.pop(FILE_COLUMN)) if FILE_COLUMN in frame else None, path,
                      len(frame))
    mapping = dict(mapping or {})
    for source in mapping:
        if source not in frame.columns and not _nested(frame, source):
            problems.append(Problem(path, None, source,
                                    "named in the column mapping but not in the file"
                                    + did_you_mean(source, map(str, frame.columns))))
    parents = set()
    for source in mapping:
        if source not in frame.columns and (found := _nested(frame, source)) is not None:
            parent, values = found
            if values.isna().all():
                problems.append(Problem(path, None, source, "named in the column mapping but no "
                                        f"record has the field {source[len(parent) + 1:]!r} in "
                                        f"its {parent!r} object"))
            frame[source] = values
            parents.add(parent)
    frame = frame.drop(columns=[p for p in parents if p not in mapping])
    renames = {s: t for s, t in mapping.items() if t != DROP and s in frame.columns}
    frame = frame.drop(columns=[s for s, t in mapping.items() if t == DROP and s in frame.columns])
    targets = list(renames.values())
    clashes = {t for t in targets if targets.count(t) > 1 or (t in frame.columns and t not in renames)}
    for target in sorted(clashes):
        problems.append(Problem(path, None, target, "two columns would both become this column"))
    frame = frame.rename(columns=renames)
    for column, value in (constants or {}).items():
        if column in frame.columns:
            problems.append(Problem(path, None, column, "given a constant value but the file "
                                    "already has this column"))
        frame[column] = value
    unknown = [c for c in frame.columns if c not in COLUMN_BY_NAME]
    for column in unknown:
        problems.append(Problem(
            path, None, str(column),
            "unknown column: map it to a column of the judgments table with "
            f"--map {column}=COLUMN, or drop it with --map {column}=-"))
    absent = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    for column in absent:
        hint = ("; a 'question' column is read as the question's text: if it holds the ids, "
                "--map question=item" if column == "item" and "question" in frame.columns else "")
        problems.append(Problem(path, None, column, "required column is missing "
                                "(use --map SOURCE=" + column + " if it has another name" + hint + ")"))
    if unknown or absent or clashes:
        return BuildResult(frame, dict(scales or {}), problems)

    frame = _declare_missing(frame, missing or {})
    out = pd.DataFrame(index=frame.index)
    check = _Checker(path, rows, problems)
    for column in COLUMNS:
        if column.name == "score" or column.name not in frame.columns:
            continue
        values = frame[column.name]
        if column.kind == "str":
            out[column.name] = check.strings(values, column.name)
        elif column.kind == "int":
            out[column.name] = check.integers(values, column.name)
        elif column.kind == "float":
            out[column.name] = check.numbers(values, column.name)
        else:
            out[column.name] = check.booleans(values, column.name)

    for name in ("item", "arm"):
        check.flag(out[name].isna(), name, "required value is missing")
    if "cluster" not in out:
        out["cluster"] = out["item"]
    else:
        out["cluster"] = out["cluster"].where(out["cluster"].notna(), out["item"])
    if "run" not in out:
        out["run"] = 1
    else:
        check.flag(out["run"].isna(), "run", "required value is missing (a run number 1..R)")
        if _numbered_from_zero(out):  # runs 0..R-1 throughout: read as 1..R, said aloud
            out["run"] = out["run"] + 1
            check.notes.append("run: numbered from 0 in this file; read as 1..R (run 0 is "
                               "run 1)")
        check.flag(out["run"].notna() & (out["run"] < 1), "run", "expected a run number >= 1")
    out["judge"] = out["judge"].fillna(DEFAULT_JUDGE) if "judge" in out else DEFAULT_JUDGE
    out["criterion"] = (out["criterion"].fillna(DEFAULT_CRITERION)
                        if "criterion" in out else DEFAULT_CRITERION)
    if "position" in out:
        check.flag(out["position"].notna() & ~out["position"].isin([1, 2]), "position",
                   "expected 1 or 2 (where arm was shown to the judge)")
        if "opponent" in out:
            check.flag(out["position"].notna() & out["opponent"].isna(), "opponent",
                       "a pairwise row (with a position) needs the opponent arm")
    for name in ("usd", "tokens_in", "tokens_out", "latency_s", "answer_length", "opponent_length"):
        if name in out:
            check.flag(out[name].notna() & (out[name] < 0), name, "expected a number >= 0")
    if "weight" in out:
        check.flag(out["weight"].notna() & ~(out["weight"] > 0), "weight",
                   "expected a number > 0 (how many times the row counts in a mean)")
        out["weight"] = out["weight"].fillna(1.0)
    if "usd_provenance" in out:
        check.flag(out["usd_provenance"].notna() & ~out["usd_provenance"].isin(USD_PROVENANCES),
                   "usd_provenance", "expected 'reported' or 'estimated'")
    if "split" in out:
        check.flag(out["split"].notna() & ~out["split"].isin(SPLITS), "split",
                   f"expected one of {', '.join(SPLITS)}")
    if "reportable" not in out:
        split = out["split"] if "split" in out else pd.Series(None, index=out.index, dtype=object)
        out["reportable"] = ~split.isin(list(NON_REPORTABLE_SPLITS)).to_numpy()
    else:
        out["reportable"] = out["reportable"].fillna(True).astype(bool)
    if "attributes" in frame.columns:
        out["attributes"] = check.attributes(frame["attributes"])

    all_scales = dict(scales or {})
    out["score"] = check.scores(frame["score"], out["criterion"], all_scales)
    failure = out["failure_kind"] if "failure_kind" in out else pd.Series(None, index=out.index)
    check.flag(frame["score"].isna() & failure.isna(), "score",
               "missing score: a row without a score needs a failure_kind saying why")
    ordered = [c.name for c in COLUMNS if c.name in out.columns]
    out = out[ordered]
    # repeats are read from valid rows only; with other problems they are listed
    resolved = resolve_repeats(out.reset_index(drop=True), rows, files,
                               mode="error" if problems else duplicates, scales=all_scales,
                               reading=reading)
    problems += resolved.problems
    out = resolved.frame[[c.name for c in COLUMNS if c.name in resolved.frame.columns]]
    notes = [*check.notes, *((resolved.note,) if resolved.note else ())]
    inferred = check.inferred
    check = _Checker(path, resolved.rows, problems)
    check.run_numbers(out)
    out.index = pd.RangeIndex(len(out))
    problems.sort(key=lambda p: (p.row is not None, p.row or 0))
    return BuildResult(out, all_scales, problems, [*notes, *check.notes], inferred)


def _numbered_from_zero(out: pd.DataFrame) -> bool:
    """Whether every run number is given and every arm's runs (per judge and criterion where
    the table has them) are exactly 0..R-1: a whole numbering from 0, read as 1..R. Anything
    else (a stray 0, a gap) is left as it is, for the checks to name."""
    runs = out["run"]
    if runs.isna().any() or not len(runs) or runs.min() != 0:
        return False
    keys = [c for c in ("judge", "criterion", "arm") if c in out]
    for _, group in runs.groupby([out[k].fillna("") for k in keys], sort=False):
        present = set(group.astype(int))
        if present != set(range(len(present))):
            return False
    return True


def _nested(frame: pd.DataFrame, source: str) -> tuple[str, pd.Series] | None:
    """The values of ``a.b.c`` read inside the JSON objects of column ``a`` (None when no
    column is a prefix of ``source``)."""
    parts = source.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        parent = ".".join(parts[:cut])
        if parent in frame.columns:
            path = parts[cut:]

            def get(value: object, path: list[str] = path) -> object:
                for key in path:
                    if not isinstance(value, dict):
                        return None
                    value = value.get(key)
                return value

            return parent, frame[parent].map(get).astype(object)
    return None


def _is_blank(value: object) -> bool:
    return type(value) is str and (not value or value.isspace())


def _declare_missing(frame: pd.DataFrame, missing: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Blank scores and the values declared missing become None; a score declared missing
    gets failure_kind ``declared_missing`` (unless its row gives one)."""
    frame = frame.copy()
    if frame["score"].dtype == object:
        frame["score"] = frame["score"].where(~frame["score"].map(_is_blank), None)
    for column, values in missing.items():
        if column not in frame.columns:
            continue
        texts = {v.strip() for v in values}
        numbers = {n for n in map(_convert_one, texts) if n == n}

        def declared(value: object, texts: set[str] = texts, numbers: set[float] = numbers) -> bool:
            if value is None or isinstance(value, (dict, list)):
                return False
            if isinstance(value, str):
                return value.strip() in texts or _convert_one(value) in numbers
            return _convert_one(value) in numbers

        mask = frame[column].map(declared).astype(bool)
        if not mask.any():
            continue
        frame[column] = frame[column].astype(object).where(~mask, None)
        if column == "score":
            failure = (frame["failure_kind"].astype(object) if "failure_kind" in frame.columns
                       else pd.Series(None, index=frame.index, dtype=object))
            frame["failure_kind"] = failure.where(~mask | failure.notna(),
                                                  FailureKind.DECLARED_MISSING.value)
    return frame


def judgments_from_records(
    records: list[dict[str, object]],
    row_numbers: Sequence[int],
    *,
    path: str,
    sources: Sequence[str],
    scales: Mapping[str, Scale] | None = None,
    invalid: pd.DataFrame | None = None,
    missing: Mapping[str, Sequence[str]] | None = None,
    files: Sequence[str] | None = None,
    duplicates: str = "error",
    reading: str = "",
) -> Judgments:
    """Validate records an importer built (judgments column names, raw values) into a table.

    ``row_numbers`` gives each record's place in its source file, ``files`` (when several)
    the file of each, for the error messages. ``duplicates`` and ``reading`` are as in
    :func:`build_table`. Raises :class:`~assay.errors.ValidationError` listing every problem.
    """
    raw = pd.DataFrame.from_records(records)
    raw = raw.astype(object).where(raw.notna(), None)
    raw[ROW_COLUMN] = list(row_numbers)
    if files is not None:
        raw[FILE_COLUMN] = list(files)
    built = build_table(raw, path=path, scales=scales, missing=missing, duplicates=duplicates,
                        reading=reading)
    if built.problems:
        raise ValidationError(built.problems)
    extra = {} if invalid is None else {"invalid": invalid}
    return Judgments(frame=built.frame, scales=built.scales, sources=tuple(sources),
                     read_notes=tuple(built.read_notes),
                     inferred_scales=dict(built.inferred_scales), **extra)

