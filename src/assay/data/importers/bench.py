"""Import hr_report's benchmark data frame (``hr_report``'s ``bench``).

Columns ``cluster, item, arm, run, correct`` and optionally ``reportable, outcome,
failure_kind, usd, usd_provenance, tokens_in, tokens_out`` (and ``split``). ``correct``
is TRUE/FALSE, 1/0 or a share in [0, 1]; it becomes ``score`` of the criterion
``correct`` on the scale ``binary`` (or ``range:0,1`` when some value is a share).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from assay.data._readers import RawTable, read_records
from assay.data.importers._records import RecordFields
from assay.data.options import DROP
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import build_table
from assay.errors import Problem, ValidationError

CRITERION = "correct"
BENCH_COLUMNS = ("cluster", "item", "arm", "run", "correct")
OPTIONAL = ("reportable", "outcome", "failure_kind", "usd", "usd_provenance", "tokens_in",
            "tokens_out", "split", "latency_s", "task")
_LOGICAL = {"true": 1.0, "false": 0.0, "t": 1.0, "f": 0.0}


def import_bench(source: str | Path, *, judge: str = "unspecified",
                 scales: Mapping[str, Scale] | None = None,
                 duplicates: str = "error",
                 fields: RecordFields | None = None) -> Judgments:
    """Read a hr_report bench file (CSV, JSONL, JSON or Parquet); `fields` (``--map``,
    ``--set``) rename and fill its columns first."""
    raw = read_records(source)
    if fields is not None and (fields.mapping or fields.constants):
        frame = raw.frame.copy()
        absent = [c for c in fields.mapping if c not in frame.columns]
        if absent:
            raise ValidationError([Problem(raw.path, None, c, "named in --map but the file has "
                                           "no such column") for c in absent])
        frame = frame.drop(columns=[c for c, t in fields.mapping.items() if t == DROP])
        frame = frame.rename(columns={c: t for c, t in fields.mapping.items() if t != DROP})
        for name, value in fields.constants.items():
            if name not in frame.columns:
                frame[name] = value
        raw = replace(raw, frame=frame)
    return bench_from_records(raw, judge=judge, scales=scales, duplicates=duplicates)


def looks_like_bench(raw: RawTable) -> bool:
    """A table with hr_report's ``correct`` column and no ``score`` column."""
    return "correct" in raw.frame.columns and "score" not in raw.frame.columns


def bench_from_records(raw: RawTable, *, judge: str = "unspecified",
                       scales: Mapping[str, Scale] | None = None,
                       duplicates: str = "error") -> Judgments:
    """The judgments of a bench data frame already read from its file."""
    frame = raw.frame
    problems: list[Problem] = list(raw.problems)
    for column in BENCH_COLUMNS:
        if column not in frame.columns:
            problems.append(Problem(raw.path, None, column, "required column of the bench "
                                    "data frame is missing"))
    extra = [c for c in frame.columns if c not in (*BENCH_COLUMNS, *OPTIONAL, "__row__")]
    for column in extra:
        problems.append(Problem(raw.path, None, column, "not a column of the bench data frame "
                                f"(expected {', '.join(BENCH_COLUMNS + OPTIONAL)})"))
    if problems:
        raise ValidationError(problems)
    frame = frame.copy()
    frame["correct"] = frame["correct"].map(_logical)
    numeric = [_as_float(v) for v in frame["correct"]]
    shares = any(v is not None and 0.0 < v < 1.0 for v in numeric)
    scale = Scale.parse("range:0,1" if shares else "binary")
    frame = frame.rename(columns={"correct": "score"})
    frame["criterion"] = CRITERION
    frame["judge"] = judge
    built = build_table(frame, path=raw.path, scales={CRITERION: scale, **(scales or {})},
                        duplicates=duplicates)
    if built.problems:
        raise ValidationError(built.problems)
    return Judgments(frame=built.frame, scales=built.scales, sources=(raw.path,),
                     read_notes=tuple(built.read_notes), inferred_scales=dict(built.inferred_scales))


def _logical(value: object) -> object:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, str) and value.strip().lower() in _LOGICAL:
        return _LOGICAL[value.strip().lower()]
    return value


def _as_float(value: object) -> float | None:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
