"""The judgments table: its columns, the scales of criteria, and the known failure kinds.

One long table, a row per score (DESIGN.md, "The spine"). This module says what the
columns are and how a criterion's scale maps its scores to [0, 1]; it does no I/O.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from assay.errors import InputError, quote

if TYPE_CHECKING:  # numpy loads when scores are normalised, not to judge
    import numpy as np
    import numpy.typing as npt

ColumnKind = Literal["str", "int", "float", "bool"]


@dataclass(frozen=True)
class Column:
    """One column of the judgments table."""

    name: str
    kind: ColumnKind
    required: bool = False
    doc: str = ""


COLUMNS: tuple[Column, ...] = (
    Column("item", "str", True, "the thing scored: a question, a prompt, a datapoint"),
    Column("cluster", "str", False, "sampling unit items come in; defaults to item"),
    Column("arm", "str", True, "the system evaluated (model, RAG method, prompt variant)"),
    Column("opponent", "str", False, "pairwise only: the arm it was compared with"),
    Column("position", "int", False, "pairwise only: 1 or 2, where arm was shown"),
    Column("run", "int", False, "repetition, 1..R; defaults to 1"),
    Column("judge", "str", False, "judge model, metric name or human:<id>"),
    Column("criterion", "str", False, "metric, criterion or rubric factor"),
    Column("score", "float", True, "value on the criterion's scale; pairwise 1/0.5/0"),
    Column("weight", "float", False, "how many times the row counts in a mean (> 0); default 1"),
    Column("split", "str", False, "dev, test, final, exploratory or calibration"),
    Column("reportable", "bool", False, "whether the row may enter a report"),
    Column("failure_kind", "str", False, "parse_error, refusal, timeout, api_error, reply_too_large, ..."),
    Column("outcome", "str", False, "the scored output or its hash"),
    Column("usd", "float", False, "cost of producing the scored answer"),
    Column("usd_provenance", "str", False, "reported or estimated"),
    Column("tokens_in", "float", False, "prompt tokens of the scored answer"),
    Column("tokens_out", "float", False, "completion tokens of the scored answer"),
    Column("latency_s", "float", False, "seconds to produce the scored answer"),
    Column("answer_length", "float", False, "characters of the scored answer"),
    Column("opponent_length", "float", False, "pairwise only: characters of the opponent's answer"),
    Column("difficulty", "float", False, "the item's difficulty (AlpacaEval's instruction_difficulty)"),
    Column("reference_score", "float", False, "benchmark-native score, for calibration"),
    Column("task", "str", False, "task the item belongs to"),
    Column("teacher", "str", False, "the model that generated the item"),
    Column("attributes", "str", False, "JSON object of attribute strata"),
    Column("reasoning", "str", False, "the judge's reasoning"),
    Column("raw_response", "str", False, "the judge's raw reply"),
    Column("evaluated_at", "str", False, "ISO 8601 time of the judgment"),
    Column("metric_version", "str", False, "version of the metric or prompt"),
    Column("question", "str", False, "the question's text (what the viewer shows first)"),
    Column("answer", "str", False, "the scored answer's text"),
    Column("opponent_answer", "str", False, "pairwise only: the opponent's answer's text"),
    Column("reference", "str", False, "the reference (gold) answer's text"),
)
"""Every column the table may have, in canonical order."""

COLUMN_BY_NAME: dict[str, Column] = {c.name: c for c in COLUMNS}
REQUIRED_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.required)

KEY_COLUMNS: tuple[str, ...] = ("item", "arm", "opponent", "position", "run", "judge", "criterion")
"""The columns that identify a judgment: no two rows may share them."""

DEFAULT_JUDGE = "unspecified"
DEFAULT_CRITERION = "score"

SPLITS: tuple[str, ...] = ("dev", "test", "final", "exploratory", "calibration")
EVIDENCE_SPLITS: frozenset[str] = frozenset({"test", "final"})
"""Splits a confirmatory report accepts as evidence."""
NON_REPORTABLE_SPLITS: frozenset[str] = frozenset({"dev", "calibration"})
"""Splits whose rows never enter a report (``reportable`` is false for them)."""
USD_PROVENANCES: tuple[str, ...] = ("reported", "estimated")


class FailureKind(str, Enum):
    """Failure kinds assay itself writes; a table may carry others."""

    PARSE_ERROR = "parse_error"
    REFUSAL = "refusal"
    TIMEOUT = "timeout"
    API_ERROR = "api_error"
    REPLY_TOO_LARGE = "reply_too_large"
    """The server's reply body passed ``llm.max_reply_bytes`` and was abandoned unread."""
    MISSING_RESPONSE = "missing_response"
    MISSING_JUDGMENT = "missing_judgment"
    DECLARED_MISSING = "declared_missing"
    """The score held a value the user declared missing (``--missing score=-1``)."""


class ValidityClass(str, Enum):
    """Why a record of a run folder is invalid (CoEval, "Validity classification")."""

    MISSING_RESPONSE = "MISSING_RESPONSE"
    MISSING_DATAPOINT = "MISSING_DATAPOINT"
    INCOMPLETE_SCORES = "INCOMPLETE_SCORES"
    INVALID_SCORE_VALUE = "INVALID_SCORE_VALUE"


ScaleKind = Literal["interval", "binary", "nominal", "ordinal", "range"]


@dataclass(frozen=True)
class Scale:
    """The declared scale of a criterion, and how its scores map to [0, 1].

    * ``interval``: any finite number; not normalised (``normalise`` returns NaN).
    * ``binary``: 0 or 1; normalised as is.
    * ``range:MIN,MAX``: a number in [MIN, MAX]; normalised (x - MIN) / (MAX - MIN).
    * ``ordinal:L1,L2,...``: labels from lowest to highest, stored as their index
      0..k-1; normalised index / (k - 1), so ``ordinal:Low,Medium,High`` gives 0, 0.5, 1.
    * ``nominal:L1,L2,...``: unordered labels, stored as their index; no normalisation.

    Examples
    --------
    >>> s = Scale.parse("ordinal:Low,Medium,High")
    >>> s.code("High"), s.normalise([0.0, 1.0, 2.0]).tolist()
    (2.0, [0.0, 0.5, 1.0])
    >>> Scale.parse("range:0,100").normalise([25.0]).tolist()
    [0.25]
    """

    kind: ScaleKind = "interval"
    levels: tuple[str, ...] = field(default_factory=tuple)
    minimum: float | None = None
    maximum: float | None = None

    @classmethod
    def parse(cls, text: str) -> Scale:
        """Read a scale from its spelling (``binary``, ``range:0,100``, ``ordinal:L,M,H``)."""
        spec = text.strip()
        head, _, rest = spec.partition(":")
        head = head.strip().lower()
        if head in ("interval", "binary") and not rest:
            return cls(kind=head)  # type: ignore[arg-type]
        if head == "range":
            parts = [p.strip() for p in rest.split(",")]
            if len(parts) != 2:
                raise ValueError(f"scale {text!r}: range takes MIN,MAX, e.g. range:0,100")
            try:
                low, high = float(parts[0]), float(parts[1])
            except ValueError:
                raise ValueError(f"scale {text!r}: MIN and MAX must be numbers") from None
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"scale {text!r}: need finite MIN < MAX")
            return cls(kind="range", minimum=low, maximum=high)
        if head in ("ordinal", "nominal"):
            levels = tuple(p.strip() for p in rest.split(",") if p.strip())
            if len(levels) < 2 or len(set(levels)) != len(levels):
                raise ValueError(f"scale {text!r}: {head} takes two or more distinct labels")
            return cls(kind=head, levels=levels)  # type: ignore[arg-type]
        raise ValueError(
            f"scale {text!r} is not one of interval, binary, range:MIN,MAX, "
            "ordinal:L1,L2,..., nominal:L1,L2,..."
        )

    def spelling(self) -> str:
        """The text :meth:`parse` reads back to this scale."""
        if self.kind == "range":
            return f"range:{_num(self.minimum)},{_num(self.maximum)}"
        if self.kind in ("ordinal", "nominal"):
            return f"{self.kind}:{','.join(self.levels)}"
        return self.kind

    @property
    def is_categorical(self) -> bool:
        return self.kind in ("ordinal", "nominal", "binary")

    def code(self, value: object) -> float:
        """The stored score of a raw value; raises ValueError saying what was expected."""
        if self.kind in ("ordinal", "nominal"):
            if isinstance(value, str):
                label = value.strip()
                for index, level in enumerate(self.levels):
                    if label == level or label.lower() == level.lower():
                        return float(index)
            try:
                number = _as_number(value)
            except ValueError:
                number = -1.0
            if number.is_integer() and 0 <= number < len(self.levels):
                return number
            raise ValueError(
                f"expected one of {', '.join(self.levels)} (or its index 0..{len(self.levels) - 1}),"
                f" got {quote(value)}"
            )
        number = _as_number(value)
        if self.kind == "binary" and number not in (0.0, 1.0):
            raise ValueError(f"expected 0 or 1 (binary scale), got {quote(value)}")
        if self.kind == "range":
            assert self.minimum is not None and self.maximum is not None
            if not self.minimum <= number <= self.maximum:
                raise ValueError(
                    f"expected a number in [{_num(self.minimum)}, {_num(self.maximum)}], "
                    f"got {quote(value)}"
                )
        return number

    def normalise(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Scores mapped to [0, 1]; NaN where the scale has no such map (interval, nominal)."""
        import numpy as np

        values = np.asarray(scores, dtype=np.float64)
        if self.kind == "binary":
            return values.copy()
        if self.kind == "range":
            assert self.minimum is not None and self.maximum is not None
            return (values - self.minimum) / (self.maximum - self.minimum)
        if self.kind == "ordinal":
            return values / (len(self.levels) - 1)
        return np.full_like(values, np.nan)

    def label(self, score: float) -> str | None:
        """The label of a stored categorical score, or None."""
        if self.kind in ("ordinal", "nominal") and math.isfinite(score):
            index = int(score)
            if 0 <= index < len(self.levels):
                return self.levels[index]
        return None


def _num(x: float | None) -> str:
    return "" if x is None else (str(int(x)) if float(x).is_integer() else repr(float(x)))


def _as_number(value: object) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, numbers.Real):  # int, float and numpy's scalars
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            number = math.inf
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise ValueError(f"expected a number, got {quote(value)}") from None
    else:
        raise ValueError(f"expected a number, got {type(value).__name__} {quote(value)}")
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {quote(value)}")
    return number


def parse_scale_option(text: str) -> tuple[str, Scale]:
    """Read a ``CRITERION=SCALE`` option, as ``--scale`` takes it."""
    name, sep, spec = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--scale {text!r}: expected CRITERION=SCALE, e.g. quality=range:0,100")
    return name.strip(), Scale.parse(spec)


def inferred_scale(criterion: str, *, boolean: bool, zero_one: bool, low: float | None,
                   high: float | None) -> tuple[Scale, str]:
    """The scale of a criterion no one declared, read from its scores, and the note that says so.

    A boolean column, or numbers that are all 0 or 1, is ``binary`` (1 = correct, the
    share of 1s is the accuracy); any other numbers stay on their own scale (``interval``:
    means and differences in the data's units, no map to [0, 1]). The pandas reader and the
    engines (DuckDB, Spark) both call this, so a table reads the same whichever reads it.

    Parameters
    ----------
    criterion : str
    boolean : bool
        The score column is of a boolean type (Parquet boolean, true/false).
    zero_one : bool
        Every score given is 0 or 1 (and there is at least one).
    low, high : float or None
        The smallest and largest score (None without scores).

    Examples
    --------
    >>> scale, note = inferred_scale("score", boolean=False, zero_one=True, low=0.0, high=1.0)
    >>> scale.kind
    'binary'
    >>> note
    'score: values 0 and 1 read as binary (1 = correct); override with --scale score=interval'
    >>> inferred_scale("quality", boolean=False, zero_one=False, low=1.0, high=10.0)[1]
    'quality: numbers from 1 to 10 read on their own scale; override with --scale quality=range:MIN,MAX'
    """
    name = criterion if criterion.isidentifier() else quote(criterion)
    if boolean:
        return (Scale("binary"), f"{name}: a true/false column read as binary (true = 1 = "
                f"correct); override with --scale {name}=interval")
    if zero_one:
        return (Scale("binary"), f"{name}: values 0 and 1 read as binary (1 = correct); "
                f"override with --scale {name}=interval")
    span = "" if low is None or high is None else f" from {_num(low)} to {_num(high)}"
    return (Scale("interval"), f"{name}: numbers{span} read on their own scale; override "
            f"with --scale {name}=range:MIN,MAX")


def reportable_from_split(split: object) -> bool:
    """Whether a row of this split may enter a report: all but dev and calibration rows.

    >>> reportable_from_split("dev"), reportable_from_split("test"), reportable_from_split(None)
    (False, True, True)
    """
    if split is None or (isinstance(split, float) and math.isnan(split)):
        return True
    return str(split) not in NON_REPORTABLE_SPLITS


def scales_from_metadata(metadata: Mapping[str, Any], path: str) -> dict[str, Scale]:
    """Read the ``scales`` of a table's stored metadata."""
    raw = metadata.get("scales", {})
    if not isinstance(raw, dict):
        raise InputError(path, "its stored scales are not a mapping of criterion to scale")
    scales: dict[str, Scale] = {}
    for name, spelling in raw.items():
        try:
            scales[str(name)] = Scale.parse(str(spelling))
        except ValueError as exc:
            raise InputError(path, f"stored scale of {name!r}: {exc}") from None
    return scales
