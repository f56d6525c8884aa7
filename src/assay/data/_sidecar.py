"""Where a table file keeps assay's metadata (its criteria's scales), read without pandas.

A Parquet file holds it in its schema metadata under :data:`METADATA_KEY`; a CSV or JSONL
file in a JSON sidecar ``NAME.assay.json`` beside it. Both the pandas readers
(:mod:`assay.data._readers`) and the query engine (:mod:`assay.data.engine`) read it here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.data._limits import MAX_RECORD_BYTES
from assay.data.lines import json_file
from assay.errors import InputError, quote

METADATA_KEY = b"assay"


def sidecar_path(path: Path) -> Path:
    """Where the metadata of a CSV or JSONL table lives: ``NAME.assay.json`` beside it."""
    return path.with_name(path.name + ".assay.json")


def read_sidecar(p: Path) -> dict[str, Any]:
    side = sidecar_path(p)
    if not side.exists():
        return {}
    if side.stat().st_size > MAX_RECORD_BYTES:
        raise InputError(str(side), f"is larger than {MAX_RECORD_BYTES} bytes: not a sidecar of "
                         "scales")
    data = json_file(side)
    if not isinstance(data, dict):
        raise InputError(str(side), "expected a JSON object")
    return data


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return quote(text.splitlines()[0], 160) if text else type(exc).__name__
