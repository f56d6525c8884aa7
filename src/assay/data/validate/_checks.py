"""The vectorised column checks of :func:`assay.data.validate.build_table`: one
:class:`~assay.errors.Problem` per offending row (at most :data:`MAX_PROBLEMS_PER_CHECK`
per check), and the duplicate judgment keys of a table."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable

import numpy as np
import pandas as pd

from assay.data._limits import MAX_PROBLEMS_PER_CHECK
from assay.data.schema import (
    KEY_COLUMNS,
    Scale,
    inferred_scale,
)
from assay.data.validate._values import _FALSE, _TRUE, _as_text, _code_scores, _show, _to_float
from assay.errors import Problem, quote


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
        self.notes: list[str] = []
        """How the table was read where nothing declared it (each note is printed)."""
        self.inferred: dict[str, str] = {}
        """Criterion -> the note of its scale, read from its scores (none declared)."""

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
            except (ValueError, RecursionError):  # not JSON; an integer of over 4,300
                return "bad"  # digits (ValueError); nesting past the stack (RecursionError)
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
                scale = self._inferred(str(criterion), chunk, numeric[given])
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

    def _inferred(self, criterion: str, raw: pd.Series, numeric: pd.Series) -> Scale:
        """The scale read from a criterion's scores (binary for booleans or only 0 and 1,
        else its own scale), with the note that says so (:func:`inferred_scale`)."""
        finite = numeric[np.isfinite(numeric.to_numpy())]
        scale, note = inferred_scale(
            criterion, boolean=pd.api.types.is_bool_dtype(raw.dtype),
            zero_one=len(finite) > 0 and bool(finite.isin([0.0, 1.0]).all()),
            low=float(finite.min()) if len(finite) else None,
            high=float(finite.max()) if len(finite) else None)
        self.notes.append(note)
        self.inferred[criterion] = note
        return scale

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
            top = max(present)
            if len(present) != top or min(present) < 1:  # not exactly 1..top
                # the first missing numbers, found without building 1..top (a run number of
                # 2**31 would make that set billions of entries long)
                gaps = list(itertools.islice(
                    (n for n in range(1, top + 1) if n not in present), 10))
                self.problems.append(Problem(
                    self.path, None, "run",
                    f"run numbers of arm {quote(arm)} (judge {quote(judge)}, criterion "
                    f"{quote(criterion)}) "
                    f"must be 1..R with none missing; missing: {', '.join(map(str, gaps))}"))


