"""The datapoints of a whole-evaluation config into the run folder: a ``datapoints.jsonl``
given, or items a teacher model writes (:mod:`assay.pipeline.generate.teacher`). A table
sampled over target attributes is :mod:`assay.datapoints`' (a layer beside this one: the
command line calls it)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.atomic import write_text
from assay.errors import ConfigError, InputError

if TYPE_CHECKING:
    from assay.judge.config import AssayConfig
    from assay.llm import Progress

DATAPOINTS_FILE = "datapoints.jsonl"


@dataclass(frozen=True)
class BuiltDatapoints:
    """What :func:`build_datapoints` wrote, in lines to print."""

    count: int
    lines: list[str] = field(default_factory=list)
    failed: int = 0
    """Teacher prompts whose reply could not be used (counted failures)."""
    planned: int = 0
    """Teacher prompts planned (one per stratum; 0 without a teacher)."""
    stored: int = 0
    """Of those, the ones stored (good or failed): fewer than ``planned`` is an unfinished phase."""


def read_datapoints(path: Path) -> list[dict[str, Any]]:
    """The records of a ``datapoints.jsonl`` (or a run folder's), checked: each needs an
    ``id`` (unique) and a non-empty ``prompt``; errors name the file, line and field."""
    from assay.data.runfolder import read_part

    path = Path(path)
    records = read_part(path.parent, path.stem) if path.name == DATAPOINTS_FILE else None
    if records is None:
        from assay.data.lines import json_lines

        if not path.is_file():
            raise InputError(str(path), "no such file")
        records = []
        for row, obj, why in json_lines(path):
            if why is not None or not isinstance(obj, dict):
                raise InputError(str(path), why or "expected a JSON object", row=row)
            records.append((str(path), row, obj))
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for file, row, rec in records:
        for name in ("id", "prompt"):
            if rec.get(name) is None or not str(rec[name]).strip():
                raise InputError(file, "required field is missing", row=row, column=name)
        if str(rec["id"]) in seen:
            raise InputError(file, f"duplicate id {rec['id']!r}", row=row, column="id")
        seen.add(str(rec["id"]))
        out.append({**rec, "id": str(rec["id"]), "task": rec.get("task") or "default",
                    "cluster": rec.get("cluster") or str(rec["id"])})
    if not out:
        raise InputError(str(path), "no datapoints in this file")
    return out


def build_datapoints(config: AssayConfig, run: Path, *, cache: str | None = None,
                     progress: Callable[[Progress], None] | None = None) -> BuiltDatapoints:
    """Write the config's datapoints as ``RUN/datapoints.jsonl`` (and ``attribute_space.json``).

    A teacher is resumable (its replies are stored), so a rerun writes the same file
    without paying again.
    """
    section = config.datapoints
    if section is None:
        raise ConfigError("datapoints: the config declares no datapoints")
    run = Path(run)
    run.mkdir(parents=True, exist_ok=True)
    if section.kind == "file":
        source = config.path(section.path)
        points = read_datapoints(source)
        target = run / DATAPOINTS_FILE
        if source.resolve() != target.resolve():
            write_text(target, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in points))
            space = source.parent / "attribute_space.json"
            if space.is_file():
                shutil.copyfile(space, run / "attribute_space.json")
        return BuiltDatapoints(len(points), [f"read {len(points)} datapoints from {source}"])
    if section.kind == "table":  # sampled by assay.datapoints, which the cli calls
        raise ConfigError("datapoints: a table is sampled by assay datapoints (the cli), not here")
    from assay.pipeline.generate.teacher import teacher_datapoints

    outcome = teacher_datapoints(config, run, cache=cache, progress=progress)
    return BuiltDatapoints(len(outcome.datapoints), outcome.lines(run), failed=outcome.failed,
                           planned=outcome.strata, stored=outcome.stored)
