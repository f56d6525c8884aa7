"""What every reader of a table file shares, without pandas: each record's number
(:data:`ROW_COLUMN`), text cells as shared objects (:func:`text_objects`), and where a file
keeps assay's metadata (its criteria's scales).

A Parquet file holds the metadata in its schema under :data:`METADATA_KEY`; a CSV or JSONL
file in a JSON sidecar ``NAME.assay.json`` beside it. The pandas readers
(:mod:`assay.data._readers`, ``_csv``, ``_json``) and the query engine
(:mod:`assay.data.engine`) read it here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from assay.data._limits import MAX_RECORD_BYTES
from assay.data.lines import json_file
from assay.errors import InputError, quote

ROW_COLUMN = "__row__"
"""Column holding each record's number in its file (1-based; JSONL: the line number)."""

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


LONG_TEXT_BYTES = 512
"""Above this many bytes a cell on average, a column's values are taken one object each."""


def text_objects(column: Any) -> np.ndarray:
    """An Arrow array or chunked array as an object array, None where missing, that holds
    each distinct value once (its cells point to the same Python object).

    A cell is then a pointer (8 bytes) instead of its own ``str`` (50 bytes and more): ids,
    arms, judges and criteria repeat down a table.

    >>> import pyarrow as pa
    >>> cells = text_objects(pa.array(["a", None, "a"]))
    >>> cells.tolist(), cells[0] is cells[2]
    (['a', None, 'a'], True)
    """
    import numpy as np
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if len(column) and column.nbytes / len(column) > LONG_TEXT_BYTES:
        # long texts (reasoning, answers) rarely repeat: a dictionary would only copy them
        # twice more (its values and its hash table) before they become Python strings
        out = np.empty(len(column), dtype=object)
        out[:] = column.to_pylist()
        return out
    encoded = column.dictionary_encode()
    values = np.empty(len(encoded.dictionary) + 1, dtype=object)  # the last one: None
    values[:-1] = encoded.dictionary.to_pylist()
    codes = encoded.indices.fill_null(len(values) - 1).to_numpy(zero_copy_only=False)
    return values[codes]
