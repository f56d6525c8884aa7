"""Load judgments from anything assay reads: a table file, a run folder or store, a folder of
other tools' result files (:func:`load`), or sources in a named format (:func:`run_importer`,
``assay import FORMAT``).

The format modules of :mod:`assay.data.importers` read one tool's files each; this module is
above them: a folder may hold table files and other tools' files side by side, and the
``table`` format reads tables and run folders, so both are read here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.data._readers import read_records
from assay.data.importers import (
    IMPORTERS,
    RECORD_FIELDS,
    RecordFields,
    folder_formats,
    import_alpaca_eval,
    import_arena_hard,
    import_bench,
    import_coeval,
    import_inspect,
    import_judgebench,
    import_lm_eval,
    import_mt_bench,
    import_promptfoo,
    import_qed,
    import_results_json,
)
from assay.data.importers.bench import looks_like_bench
from assay.data.run_store import load_store, store_path
from assay.data.runfolder import PARTS, is_run_folder
from assay.data.schema import Scale, inferred_scale, scales_from_metadata
from assay.data.table import INVALID_COLUMNS, Judgments, empty_invalid
from assay.data.validate import build_table, check_mode, resolve_repeats
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
                              invalid=_read_invalid(p), sources=(str(p),),
                              read_notes=tuple(built.read_notes),
                              inferred_scales=dict(built.inferred_scales),
                              benchmark_teachers=stored_benchmark_teachers(raw.metadata, str(p)))
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
    read: dict[str, bool] = {}  # criterion -> its scale was read from the scores of every file
    widened: set[str] = set()
    for part in parts:
        for name, scale in part.scales.items():
            mine = name in part.inferred_scales
            if name in scales and scales[name] != scale:
                kinds = {scales[name].kind: read[name], scale.kind: mine}
                # 0/1 read as binary in one file, other numbers in another: all are numbers
                if set(kinds) == {"binary", "interval"} and kinds["binary"]:
                    scale = Scale("interval")
                    widened.add(name)
                else:
                    raise InputError(part.sources[0], f"criterion {name!r} has scale "
                                     f"{scale.spelling()} here but {scales[name].spelling()} "
                                     "in an earlier file", column="score")
            scales[name] = scale
            read[name] = read.get(name, True) and mine
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
    inferred = {name: note for p in parts for name, note in p.inferred_scales.items()
                if read.get(name)}
    stale = {p.inferred_scales[name] for p in parts for name in widened
             if name in p.inferred_scales}
    for name in widened:
        if read[name]:  # every file's scores were read: say the reading of them all
            scores = frame.loc[frame["criterion"] == name, "score"].dropna()
            inferred[name] = inferred_scale(name, boolean=False, zero_one=False,
                                            low=float(scores.min()), high=float(scores.max()))[1]
        else:  # a declared interval scale holds the other file's 0/1 scores as they are
            inferred.pop(name, None)
    notes = [n for p in parts for n in p.read_notes if n not in stale]
    notes += [inferred[name] for name in widened if name in inferred]
    notes += [resolved.note] if resolved.note else []
    return Judgments(frame=resolved.frame, scales=scales, invalid=invalid,
                     sources=tuple(s for p in parts for s in p.sources),
                     read_notes=tuple(dict.fromkeys(notes)), inferred_scales=inferred,
                     benchmark_teachers=tuple(sorted({t for p in parts
                                                      for t in p.benchmark_teachers})))


def stored_benchmark_teachers(metadata: dict[str, Any], where: str) -> tuple[str, ...]:
    """The benchmark teachers a saved table's metadata lists (none when it lists none)."""
    listed = metadata.get("benchmark_teachers", [])
    if not isinstance(listed, list) or not all(isinstance(t, str) for t in listed):
        raise InputError(where, "its assay metadata is corrupt: benchmark_teachers is not a "
                         "list of names")
    return tuple(listed)


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


# -- foreign formats by name, and folders of mixed result files ----------------------------

def import_table(sources: Sequence[str | Path], *, mapping: Mapping[str, str] | None = None,
                 constants: Mapping[str, object] | None = None,
                 scales: Mapping[str, Scale] | None = None,
                 missing: Mapping[str, Sequence[str]] | None = None,
                 duplicates: str = "error") -> Judgments:
    """Any long table (CSV, TSV, JSONL, JSON, Parquet) or run folder, with a column mapping;
    ``duplicates`` says how rows repeating a judgment key are read."""
    return load_many(sources, mapping=mapping, constants=constants, scales=scales,
                     missing=missing, duplicates=duplicates)


Importer = Callable[..., Judgments]

_READERS: dict[str, Importer] = {
    "mt-bench": import_mt_bench,
    "arena-hard": import_arena_hard,
    "qed": import_qed,
    "lm-eval": import_lm_eval,
    "judgebench": import_judgebench,
    "inspect": import_inspect,
    "promptfoo": import_promptfoo,
    "coeval": import_coeval,
}
"""Formats whose reader takes the sources and ``scales`` alone."""


def run_importer(fmt: str, sources: Sequence[str | Path], *,
                 mapping: Mapping[str, str] | None = None,
                 constants: Mapping[str, object] | None = None,
                 scales: Mapping[str, Scale] | None = None,
                 missing: Mapping[str, Sequence[str]] | None = None,
                 duplicates: str | None = None,
                 lc_difficulty: str | Path | None = None) -> Judgments:
    """Import ``sources`` in format ``fmt``; declared ``scales`` override the importer's.

    ``duplicates`` (``error``, ``first``, ``last``, ``mean``, ``keep``) says how records
    repeating a judgment are read; None reads them as the format's own tool does
    (:data:`DUPLICATES`). ``lc_difficulty``: alpaca-eval only, AlpacaEval's instruction
    difficulty file."""
    if fmt not in IMPORTERS:
        raise ConfigError(f"unknown import format {fmt!r}: expected one of {', '.join(IMPORTERS)}")
    if lc_difficulty is not None and fmt != "alpaca-eval":
        raise ConfigError(f"--lc-difficulty applies to the 'alpaca-eval' format, not {fmt!r}")
    if duplicates is not None:
        try:
            check_mode(duplicates)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if fmt != "table" and missing:
        raise ConfigError(f"--missing applies to the 'table' format, not {fmt!r}")
    if fmt not in ("table", *RECORD_FIELDS) and (mapping or constants):
        raise ConfigError(f"--map and --set apply to the 'table' format and to the records of "
                          f"{', '.join(RECORD_FIELDS)}, not to {fmt!r}: its logs are read "
                          f"through inspect-ai's own objects, not as records")
    repeats: dict[str, object] = {"duplicates": duplicates} if duplicates is not None else {}
    if fmt in RECORD_FIELDS:
        repeats["fields"] = RecordFields(mapping or {}, constants or {})
    if fmt == "table":
        return import_table(sources, mapping=mapping, constants=constants, scales=scales,
                            missing=missing, **repeats)
    if fmt == "results-json":
        return import_results_json(sources, scales=scales, **repeats)
    if fmt == "alpaca-eval":
        return import_alpaca_eval(sources, scales=scales, difficulty=lc_difficulty,
                                  **repeats)
    if fmt in _READERS:
        return _READERS[fmt](sources, scales=scales, **repeats)
    if len(sources) != 1:
        raise ConfigError("the bench format takes one file")
    return import_bench(sources[0], scales=scales, **repeats)


def import_folder(folder: str | Path, *,
                  scales: Mapping[str, Scale] | None = None) -> Judgments:
    """Every result file below `folder`, each read by the importer of its format, stacked."""
    formats = folder_formats(Path(folder))
    groups: dict[str, list[Path]] = {}
    for file, fmt in formats.items():
        groups.setdefault(fmt, []).append(file)
    parts = []
    for fmt, files in groups.items():
        if fmt == "table":  # table files keep their own scales and sidecars
            parts.extend(_load_partitioned(Path(folder), f, scales) for f in files)
        else:
            parts.append(run_importer(fmt, files, scales=scales))
    return stack(parts)


def _load_partitioned(folder: Path, file: Path,
                      scales: Mapping[str, Scale] | None) -> Judgments:
    """A table file of a hive dataset: a key naming a column the file lacks fills it, one
    naming a column it has must agree with it (as the engines read them); other keys are
    not read (:func:`unread_partition_keys`)."""
    from assay.data.engine import partition_agrees, partition_conflict, partition_keys_of
    from assay.data.schema import COLUMN_BY_NAME
    from assay.data.validate import MAX_PROBLEMS_PER_CHECK
    from assay.errors import Problem, ValidationError

    keys = {k: v for k, v in partition_keys_of(folder, file).items() if k in COLUMN_BY_NAME}
    if not keys:
        return load(file, scales=scales)
    frame = read_records(file).frame
    problems = [Problem(str(file), int(n) + 1, key, partition_conflict(key, value, row))
                for key, value in keys.items() if key in frame.columns
                for n, row in zip(range(len(frame)), frame[key].tolist(), strict=True)
                if not partition_agrees(value, row)]
    if problems:
        raise ValidationError(problems[:MAX_PROBLEMS_PER_CHECK])
    return load(file, scales=scales,
                constants={k: v for k, v in keys.items() if k not in frame.columns})
