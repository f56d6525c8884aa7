"""Raw values to the table's types: scores coded on their scale, numbers read from text
(bounded: a value longer than any number is not parsed), booleans and text, and how a
value is quoted in a message."""

from __future__ import annotations

import numpy as np
import pandas as pd

from assay.data.schema import (
    Scale,
)
from assay.errors import quote

_TRUE = {"true", "t", "yes", "y", "1"}
_FALSE = {"false", "f", "no", "n", "0"}


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
