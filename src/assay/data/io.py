"""Load judgments from a table file or a run folder: :func:`load`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from assay.data._readers import read_records
from assay.data.importers.bench import looks_like_bench
from assay.data.run_store import load_store, store_path
from assay.data.runfolder import PARTS, is_run_folder
from assay.data.schema import Scale, scales_from_metadata
from assay.data.table import INVALID_COLUMNS, Judgments, empty_invalid
from assay.data.validate import build_table, resolve_repeats
from assay.errors import ConfigError, InputError, Problem, ValidationError


def load(
    path: str | Path,
    *,
    mapping: Mapping[str, str] | None = None,
    constants: Mapping[str, object] | None = None,
    scales: Mapping[str, Scale] | None = None,
    missing: Mapping[str, Sequence[str]] | None = None,
    exclude_self_judging: bool = False,
    exclude_self_teaching: bool = False,
    duplicates: str = "error",
) -> Judgments:
    """Load and validate a judgments table.

    Parameters
    ----------
    path
        A Parquet, CSV, TSV, JSONL or JSON-list file in the judgments layout, a run
        folder of ``assay judge`` (``judgments.sqlite``), or a run folder of datapoints,
        responses and evaluations (``datapoints.jsonl``, ``responses.jsonl``,
        ``evaluations.jsonl``). A file
        with hr_report's ``correct`` column and no ``score`` (a benchmark data frame) is
        read as :func:`assay.data.importers.import_bench` reads it.
    mapping
        Source column name -> judgments column (``{"question_id": "item"}``); ``"-"``
        drops a column.
    constants
        Columns to fill with one value (``{"judge": "gpt-4o"}``).
    scales
        Criterion -> :class:`Scale`, overriding scales stored with the table.
    missing
        Column -> values that mean "no value" there (``{"score": ["-1"]}``, MT-Bench's
        unparsed verdict); a score so declared makes its row a failed judgment
        (failure_kind ``declared_missing``). Table files only.
    exclude_self_judging, exclude_self_teaching
        Leave out rows whose judge (or item generator) is the arm judged.
    duplicates
        How rows repeating another's judgment key are read in a table file: ``error``
        (refused), ``first``, ``last``, ``mean`` or ``keep``
        (:mod:`assay.data.validate._repeats`); the table's ``notes`` say what was done.

    Raises
    ------
    ValidationError
        Listing every problem found, each with file, row and column.
    InputError
        When the file cannot be read at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "j.csv").write_text("item,arm,score\\nq1,a,1\\nq1,b,0\\n")
    >>> load(folder / "j.csv").frame[["item", "arm", "run", "score"]].to_dict("records")
    [{'item': 'q1', 'arm': 'a', 'run': 1, 'score': 1.0}, {'item': 'q1', 'arm': 'b', 'run': 1, 'score': 0.0}]
    """
    p = Path(path)
    if missing and p.is_dir():
        raise ConfigError(f"--missing applies to table files, not to the run folder {p}")
    if p.is_dir() and store_path(p).is_file():
        return _excluding(load_store(p, scales=scales), exclude_self_judging, exclude_self_teaching)
    if is_results_folder(p):
        from assay.data.importers._detect import import_folder

        judgments = import_folder(p, scales=scales)
    elif p.is_dir():
        from assay.data.runfolder import load_run_folder

        judgments = load_run_folder(p, scales=scales)
    else:
        raw = read_records(p)
        if not mapping and not constants and not missing and looks_like_bench(raw):
            from assay.data.importers.bench import bench_from_records

            judgments = bench_from_records(raw, scales=scales, duplicates=duplicates)
            return _excluding(judgments, exclude_self_judging, exclude_self_teaching)
        stored = scales_from_metadata(raw.metadata, str(p))
        stored.update(scales or {})
        built = build_table(raw.frame, path=str(p), mapping=mapping, constants=constants,
                            scales=stored, missing=missing, prior_problems=raw.problems,
                            duplicates=duplicates)
        if built.problems:
            raise ValidationError(built.problems)
        judgments = Judgments(frame=built.frame, scales=built.scales,
                              invalid=_read_invalid(p), sources=(str(p),), notes=built.notes)
    return _excluding(judgments, exclude_self_judging, exclude_self_teaching)


def is_results_folder(path: str | Path) -> bool:
    """Whether `path` is a folder of result files of other tools (not a run folder of assay
    and not a folder of datapoints, responses and evaluations): each file is read by the
    importer of its format (:func:`assay.data.importers.folder_formats`)."""
    p = Path(path)
    return (p.is_dir() and not store_path(p).is_file() and not is_run_folder(p)
            and not _has_run_parts(p))


def _has_run_parts(folder: Path) -> bool:
    """Whether a folder holds part of a run folder (then it is read, and refused, as one)."""
    return any((folder / f"{part}.jsonl").exists() or (folder / part).is_dir() for part in PARTS)


def _excluding(judgments: Judgments, self_judging: bool, self_teaching: bool) -> Judgments:
    if self_judging or self_teaching:
        return judgments.excluding(self_judging=self_judging, self_teaching=self_teaching)
    return judgments


def load_many(paths: Sequence[str | Path], **options: object) -> Judgments:
    """Load several files and stack them into one table (scales must agree).

    Every file is read and checked before any error is raised, so the
    :class:`~assay.errors.ValidationError` lists the problems of every file at once.
    """
    if not paths:
        raise InputError("-", "no input files given")
    parts: list[Judgments] = []
    errors: list[InputError] = []
    for path in paths:
        try:
            parts.append(load(path, **options))  # type: ignore[arg-type]
        except InputError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        problems: list[Problem] = []
        for error in errors:
            problems += error.problems if isinstance(error, ValidationError) else [error.problem]
        raise ValidationError(problems)
    return stack(parts, duplicates=str(options.get("duplicates", "error")))


def stack(parts: Sequence[Judgments], *, duplicates: str = "error") -> Judgments:
    """Tables read from several files as one (scales must agree; a judgment in two files
    is read by ``duplicates`` as :func:`load` reads one file's repeats)."""
    if len(parts) == 1:
        return parts[0]
    scales: dict[str, Scale] = {}
    for part in parts:
        for name, scale in part.scales.items():
            if name in scales and scales[name] != scale:
                raise InputError(part.sources[0], f"criterion {name!r} has scale "
                                 f"{scale.spelling()} here but {scales[name].spelling()} in "
                                 "an earlier file", column="score")
            scales[name] = scale
    frame = pd.concat([p.frame for p in parts], ignore_index=True)
    if "weight" in frame:  # a table without the column weighs its rows 1
        frame["weight"] = frame["weight"].fillna(1.0)
    files = np.concatenate([[p.sources[0] if p.sources else "-"] * len(p.frame) for p in parts])
    rows = np.concatenate([np.arange(1, len(p.frame) + 1) for p in parts])
    resolved = resolve_repeats(frame, rows, files, mode=duplicates, scales=scales)
    if resolved.problems:
        raise ValidationError(resolved.problems)
    invalid = pd.concat([p.invalid for p in parts if len(p.invalid)] or [empty_invalid()],
                        ignore_index=True)
    notes = tuple(n for p in parts for n in p.notes) + ((resolved.note,) if resolved.note else ())
    return Judgments(frame=resolved.frame, scales=scales, invalid=invalid,
                     sources=tuple(s for p in parts for s in p.sources), notes=notes)


def _read_invalid(p: Path) -> pd.DataFrame:
    side = p.with_name(p.stem + ".invalid.jsonl")
    if not side.exists():
        return empty_invalid()
    try:
        frame = pd.read_json(side, lines=True, dtype=False)
    except ValueError as exc:
        raise InputError(str(side), f"is not valid JSONL: {exc}") from None
    for column in INVALID_COLUMNS:
        if column not in frame:
            frame[column] = None
    return frame[list(INVALID_COLUMNS)]
