"""Validate raw records into the judgments table, listing every problem at once.

:func:`build_table` takes records as read (any column names, raw values), applies a
column mapping, checks every value against the schema and the criteria's scales, and
returns the canonical table or every problem found, each naming file, row, column and
what was expected. Checks are vectorised with pandas so a million rows validate in
seconds. Nothing here changes the input file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assay.data._readers import ROW_COLUMN
from assay.data.options import DROP
from assay.data.schema import (
    COLUMN_BY_NAME,
    COLUMNS,
    DEFAULT_CRITERION,
    DEFAULT_JUDGE,
    KEY_COLUMNS,
    NON_REPORTABLE_SPLITS,
    REQUIRED_COLUMNS,
    SPLITS,
    USD_PROVENANCES,
    FailureKind,
    Scale,
)
from assay.data.table import Judgments
from assay.errors import Problem, ValidationError, did_you_mean, quote

MAX_PROBLEMS_PER_CHECK = 200
_TRUE = {"true", "t", "yes", "y", "1"}
_FALSE = {"false", "f", "no", "n", "0"}


@dataclass(frozen=True)
class BuildResult:
    frame: pd.DataFrame
    scales: dict[str, Scale]
    problems: list[Problem]


def build_table(
    raw: pd.DataFrame,
    *,
    path: str,
    mapping: Mapping[str, str] | None = None,
    constants: Mapping[str, object] | None = None,
    scales: Mapping[str, Scale] | None = None,
    missing: Mapping[str, Sequence[str]] | None = None,
    prior_problems: Sequence[Problem] = (),
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
        problems.append(Problem(path, None, column, "required column is missing "
                                "(use --map SOURCE=" + column + " if it has another name)"))
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
    for name in ("usd", "tokens_in", "tokens_out", "latency_s"):
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
    check.duplicates(out)
    check.run_numbers(out)
    out.index = pd.RangeIndex(len(out))
    problems.sort(key=lambda p: (p.row is not None, p.row or 0))
    return BuildResult(out, all_scales, problems)


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
) -> Judgments:
    """Validate records an importer built (judgments column names, raw values) into a table.

    ``row_numbers`` gives each record's place in its source file, for the error messages.
    Raises :class:`~assay.errors.ValidationError` listing every problem.
    """
    raw = pd.DataFrame.from_records(records)
    raw = raw.astype(object).where(raw.notna(), None)
    raw[ROW_COLUMN] = list(row_numbers)
    built = build_table(raw, path=path, scales=scales, missing=missing)
    if built.problems:
        raise ValidationError(built.problems)
    extra = {} if invalid is None else {"invalid": invalid}
    return Judgments(frame=built.frame, scales=built.scales, sources=tuple(sources), **extra)


def duplicate_problems(frame: pd.DataFrame, *, path: str) -> list[Problem]:
    """Rows of a (stacked) table that repeat another row's judgment key."""
    problems: list[Problem] = []
    _Checker(path, np.arange(1, len(frame) + 1), problems).duplicates(frame)
    return problems


class _Checker:
    """Vectorised column checks that add one Problem per offending row."""

    def __init__(self, path: str, rows: np.ndarray, problems: list[Problem]) -> None:
        self.path = path
        self.rows = rows
        self.problems = problems

    def flag(self, mask: pd.Series | np.ndarray, column: str,
             message: str | Callable[[int], str]) -> None:
        """One Problem per True in ``mask``; ``message`` is text, or a function of the row's
        position that is called only for the rows reported."""
        bad = np.flatnonzero(np.asarray(mask, dtype=bool))
        for position in bad[:MAX_PROBLEMS_PER_CHECK]:
            text = message if isinstance(message, str) else message(int(position))
            self.problems.append(Problem(self.path, int(self.rows[position]), column, text))
        if len(bad) > MAX_PROBLEMS_PER_CHECK:
            self.problems.append(Problem(self.path, None, column,
                                         f"... the same problem in {len(bad) - MAX_PROBLEMS_PER_CHECK}"
                                         " more rows"))

    def strings(self, values: pd.Series, column: str) -> pd.Series:
        if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
            text = values.astype(object)
            text = text.where(values.notna(), None)
            blank = text.notna() & (text.str.strip() == "").fillna(False).astype(bool)
            text[blank] = None
            return text
        nested = values.map(lambda v: isinstance(v, (dict, list)))
        self.flag(nested, column, "expected text, got a JSON object or list")
        text = values.map(_as_text).astype(object)
        text[nested] = None
        text[text.map(lambda v: not isinstance(v, str) or not v.strip())] = None
        return text

    def numbers(self, values: pd.Series, column: str) -> pd.Series:
        numeric, given = _to_float(values)
        self.flag(given & numeric.isna(), column,
                  lambda i: f"expected a number, got {_show(values.iloc[i])}")
        self.flag(given & numeric.notna() & ~np.isfinite(numeric.fillna(0)), column,
                  lambda i: f"expected a finite number, got {_show(values.iloc[i])}")
        return numeric.where(np.isfinite(numeric.fillna(np.nan)), np.nan)

    def integers(self, values: pd.Series, column: str) -> pd.Series:
        numeric = self.numbers(values, column)
        fractional = numeric.notna() & ((numeric % 1 != 0) | (numeric.abs() > 2**31))
        self.flag(fractional, column,
                  lambda i: f"expected a whole number, got {_show(values.iloc[i])}")
        return numeric.where(~fractional).astype("Int64")

    def booleans(self, values: pd.Series, column: str) -> pd.Series:
        def parse(v: object) -> object:
            if v is None:
                return None
            if isinstance(v, (bool, np.bool_)):
                return bool(v)
            text = str(v).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            return "bad"

        if pd.api.types.is_bool_dtype(values.dtype):
            return values.astype(object)
        parsed = values.map(parse).astype(object)
        bad = parsed.map(lambda v: v == "bad").astype(bool)
        self.flag(bad, column, lambda i: f"expected true or false, got {_show(values.iloc[i])}")
        parsed[bad] = None
        return parsed

    def attributes(self, values: pd.Series) -> pd.Series:
        def parse(v: object) -> object:
            if v is None:
                return None
            if isinstance(v, dict):
                return json.dumps(v, sort_keys=True, ensure_ascii=False)
            try:
                obj = json.loads(str(v))
            except json.JSONDecodeError:
                return "bad"
            return json.dumps(obj, sort_keys=True, ensure_ascii=False) if isinstance(obj, dict) else "bad"

        parsed = values.map(parse)
        self.flag(parsed == "bad", "attributes", "expected a JSON object of attribute strata")
        return parsed.where(parsed != "bad", None)

    def scores(self, values: pd.Series, criteria: pd.Series, scales: dict[str, Scale]) -> pd.Series:
        result = pd.Series(np.nan, index=values.index, dtype=np.float64)
        for criterion in pd.unique(criteria.dropna()):
            mask = (criteria == criterion).to_numpy()
            chunk = values[mask]
            scale = scales.get(str(criterion))
            if scale is None:
                numeric, given = _to_float(chunk)
                labels = given & numeric.isna()
                if labels.any():
                    sample = sorted({str(v) for v in chunk[labels]})[:4]
                    levels = (",".join(sample) if all(len(v) <= 40 and "," not in v for v in sample)
                              else "LOWEST,...,HIGHEST")
                    name = str(criterion) if len(str(criterion)) <= 40 else "CRITERION"
                    self.flag(pd.Series(mask, index=values.index) & labels.reindex(values.index,
                              fill_value=False), "score",
                              f"non numeric score for criterion {quote(criterion)} "
                              f"(e.g. {', '.join(quote(v, limit=60) for v in sample)}): declare its "
                              f"scale, e.g. --scale {name}=ordinal:{levels}")
                    continue
                scale = Scale("interval")
                scales.setdefault(str(criterion), scale)
            coded, errors = _code_scores(chunk, scale)
            result[mask] = coded.to_numpy()
            bad = errors.notna()
            if bad.any():
                full_mask = np.zeros(len(values), dtype=bool)
                positions = np.flatnonzero(mask)
                full_mask[positions[bad.to_numpy()]] = True
                by_position = dict(zip(positions, errors.to_numpy(), strict=True))
                self.flag(full_mask, "score",
                          lambda i, c=criterion, e=by_position: f"criterion {quote(c)}: {e[i]}")
        return result

    def duplicates(self, frame: pd.DataFrame) -> None:
        keys = [c for c in KEY_COLUMNS if c in frame.columns]
        filled = frame[keys].astype(object).where(frame[keys].notna(), "\0")
        dup = filled.duplicated(keep=False).to_numpy()
        if not dup.any():
            return
        positions = np.flatnonzero(dup)
        sub = filled.iloc[positions]
        first = sub.groupby(keys, sort=False, dropna=False).ngroup()
        seen: dict[int, int] = {}
        reported = 0
        for position, group in zip(positions, first.to_numpy(), strict=True):
            if group not in seen:
                seen[group] = int(self.rows[position])
                continue
            if reported < MAX_PROBLEMS_PER_CHECK:
                self.problems.append(Problem(
                    self.path, int(self.rows[position]), None,
                    f"duplicate judgment: same {', '.join(keys)} as row {seen[group]}"))
            reported += 1
        if reported > MAX_PROBLEMS_PER_CHECK:
            self.problems.append(Problem(self.path, None, None, f"... and {reported - MAX_PROBLEMS_PER_CHECK}"
                                         " more duplicate judgments"))

    def run_numbers(self, frame: pd.DataFrame) -> None:
        groups = frame.groupby(["judge", "criterion", "arm"], sort=False)["run"]
        for (judge, criterion, arm), runs in groups:
            present = set(int(r) for r in pd.unique(runs.dropna()))
            if not present:
                continue
            expected = set(range(1, max(present) + 1))
            if present != expected:
                gaps = sorted(expected - present)
                self.problems.append(Problem(
                    self.path, None, "run",
                    f"run numbers of arm {quote(arm)} (judge {quote(judge)}, criterion "
                    f"{quote(criterion)}) "
                    f"must be 1..R with none missing; missing: {', '.join(map(str, gaps[:10]))}"))


def _code_scores(values: pd.Series, scale: Scale) -> tuple[pd.Series, pd.Series]:
    """Code raw scores on a scale: (coded floats, error text or None per value)."""
    if scale.kind in ("interval", "binary", "range"):
        numeric, given = _to_float(values)
        errors = pd.Series(None, index=values.index, dtype=object)
        errors[given & numeric.isna()] = values[given & numeric.isna()].map(
            lambda v: f"expected a number, got {_show(v)}")
        finite = np.isfinite(numeric.fillna(0.0))
        errors[given & numeric.notna() & ~finite] = values[given & numeric.notna() & ~finite].map(
            lambda v: f"expected a finite number, got {_show(v)}")
        ok = given & numeric.notna() & finite
        if scale.kind == "binary":
            out = ok & ~numeric.isin([0.0, 1.0])
            errors[out] = values[out].map(lambda v: f"expected 0 or 1 (binary scale), got {_show(v)}")
        elif scale.kind == "range":
            out = ok & ((numeric < scale.minimum) | (numeric > scale.maximum))
            errors[out] = values[out].map(
                lambda v: f"outside its scale {scale.spelling()}, got {_show(v)}")
        coded = numeric.where(errors.isna() & ok)
        return coded, errors

    coded_list: list[float] = []
    error_list: list[str | None] = []
    for value in values:
        if value is None or (isinstance(value, float) and value != value):
            coded_list.append(np.nan)
            error_list.append(None)
            continue
        try:
            coded_list.append(scale.code(value))
            error_list.append(None)
        except ValueError as exc:
            coded_list.append(np.nan)
            error_list.append(str(exc))
    return (pd.Series(coded_list, index=values.index, dtype=np.float64),
            pd.Series(error_list, index=values.index, dtype=object))


MAX_NUMBER_CHARS = 400
"""Longer text is taken as not a number without parsing it (the longest float literal of
a table is far shorter; a longer one would be an integer past a float's range)."""


def _to_float(values: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Values as floats, and which were given (not missing, not blank).

    A value that is not a number gives NaN; a NaN or infinity given as a value gives
    +inf, so callers can tell "not a number" from "not finite". Vectorised: only values
    ``pd.to_numeric`` cannot read are looked at one by one.
    """
    if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        numeric = values.astype(np.float64)
        return numeric, values.notna()
    given = values.notna()
    # a value longer than any number written out is not parsed (float() copies its text)
    long = values.map(lambda v: isinstance(v, str) and len(v) > MAX_NUMBER_CHARS).astype(bool)
    if long.any():
        values = values.where(~long, "not a number")
    try:
        numeric = pd.to_numeric(values, errors="coerce").astype(np.float64)
    except (OverflowError, ValueError):  # an integer of hundreds of digits: one by one
        numeric = pd.Series([_convert_one(v) for v in values], index=values.index,
                            dtype=np.float64)
    odd = np.flatnonzero((given & (numeric.isna() | ~np.isfinite(numeric.fillna(0.0)))).to_numpy())
    if len(odd):
        numeric = numeric.copy()
        given = given.copy()
        for position in odd:
            value = values.iloc[position]
            if isinstance(value, str) and not value.strip():
                given.iloc[position] = False
                continue
            numeric.iloc[position] = _convert_one(value)
    return numeric, given


def _convert_one(v: object) -> float:
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        try:
            number = float(v)
        except OverflowError:
            return np.inf
        return np.inf if number != number else number
    if isinstance(v, str):
        text = v.strip()
        try:
            number = float(text)
        except ValueError:
            return np.nan
        return np.inf if number != number else number
    return np.nan


def _as_text(v: object) -> str | None:
    if v is None:
        return None
    if isinstance(v, float):
        if v != v:
            return None
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v)


def _show(v: object) -> str:
    return quote(v, limit=60)
