"""Read CSV and TSV table files with Arrow's reader, within the bounds of :mod:`._limits`.

The header is read first, from at most :data:`MAX_HEADER_BYTES`: its column count is
checked (:func:`check_columns`) before any record is parsed, so a file of 100,000 columns
is refused at once. Records are then parsed by ``pyarrow.csv``'s streaming reader in blocks
of :data:`MAX_RECORD_BYTES`, which bounds the memory a record may take (one that does not
fit is refused), with every value read as text, exactly as written (an empty field is
missing). Each block becomes Python objects as it is read, one object per distinct value
of a block (:func:`~assay.data._readers.text_objects`): a table's ids, judges and criteria
repeat, so its cells cost a pointer each instead of a string each (a valid 34 MB table
grew the process by 16x its size when every cell was its own string). A row with the
wrong number of fields is reported with its line, never padded or taken as an index column.
A file whose last row does not end with a newline is refused (:func:`check_complete`): every
tool writing CSV ends each row with one, and a file cut mid-row still parses, its cut value
read as if whole.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.data._limits import MAX_HEADER_BYTES, MAX_RECORD_BYTES, check_columns, mebibytes
from assay.data._raw import ROW_COLUMN, text_objects
from assay.errors import InputError, Problem, ValidationError, quote


def read_csv(p: Path, *, sep: str) -> pd.DataFrame:
    """The records of a CSV (``sep=","``) or TSV (``sep="\\t"``) file as raw text columns."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    kind = "CSV" if sep == "," else "TSV"
    names = _header(p, sep)
    if p.stat().st_size > MAX_RECORD_BYTES and _has_longer_line(p, MAX_RECORD_BYTES):
        raise InputError(str(p), f"has a line longer than {mebibytes(MAX_RECORD_BYTES)} (not a "
                         "table's record: a value too large for a table file)")
    check_complete(p)
    _check_utf8(p)  # before Arrow: it decodes a bad row's text for the handler, which then fails
    invalid: list[Problem] = []

    def bad_row(row: pacsv.InvalidRow) -> str:
        line = "" if row.number is None else f"line {row.number}: "
        invalid.append(Problem(str(p), None, None, f"{line}expected {row.expected_columns} "
                               f"fields, got {row.actual_columns}: {quote(row.text, 80)}"))
        return "skip"

    columns: list[list[np.ndarray]] = [[] for _ in names]
    # A block never needs to be larger than the file: Arrow's buffers for a block (and the
    # next one it reads ahead) then follow the file's size, not MAX_RECORD_BYTES.
    block = min(MAX_RECORD_BYTES, max(1 << 16, p.stat().st_size + 1))
    try:
        reader = pacsv.open_csv(
            p,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, use_threads=False,
                                           block_size=block),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True,
                                              invalid_row_handler=bad_row),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.string() for name in names}, null_values=[""],
                strings_can_be_null=True, quoted_strings_can_be_null=True))
        for batch in reader:  # one block of text at a time: the file is never whole in Arrow
            for parts, column in zip(columns, batch.columns, strict=True):
                parts.append(text_objects(_restored(column)))
    except pa.ArrowInvalid as exc:
        text = str(exc)
        if "UTF8" in text or "utf8" in text.lower():
            _check_utf8(p)
        if "straddling" in text or "block" in text:
            raise InputError(str(p), f"has a record longer than {mebibytes(MAX_RECORD_BYTES)} "
                             "(a quote that is never closed, or a value too large for a table "
                             "file)") from None
        raise InputError(str(p), f"is not a well-formed {kind} table: "
                         f"{quote(text.splitlines()[0], 160)}") from None
    if invalid:
        raise ValidationError(invalid)
    data: dict[str, np.ndarray] = {}
    for name, parts in zip(names, columns, strict=True):
        data[name] = np.concatenate(parts) if parts else np.empty(0, dtype=object)
        parts.clear()  # one column's blocks and its joined copy are in memory at a time
    pa.default_memory_pool().release_unused()  # the parser's blocks, kept by the allocator
    frame = pd.DataFrame(data, dtype=object)
    frame[ROW_COLUMN] = range(1, len(frame) + 1)
    return frame


def check_complete(p: Path) -> None:
    """Refuse a CSV or TSV file whose last row does not end with a newline, naming its line:
    such a file was most likely cut short (a copy or a download that stopped), and its last
    row would be read with a cut value (a score ``0.75`` read as ``0.7``, a question set
    ``data_local`` as ``data_lo``).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("item,arm,score\\nq1,a,1\\nq2,a,0.")
    >>> check_complete(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    assay.errors.InputError: ...t.csv: line 3, the last, does not end with a newline...
    """
    with p.open("rb") as handle:
        size = handle.seek(0, io.SEEK_END)
        if size == 0:
            return
        handle.seek(size - 1)
        if handle.read(1) in (b"\n", b"\r"):
            return
        handle.seek(0)
        lines = 1
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
    raise InputError(str(p), f"line {lines}, the last, does not end with a newline: the file "
                     "looks cut short (if nothing is missing, end it with a newline)")


def _restored(column: Any) -> Any:
    """``column`` with the quote prefix of :func:`assay.data.cells.safe_cell` undone (``'=x``
    is read ``=x``, ``''=x`` is read ``'=x``): a CSV assay wrote reads back as it was given."""
    import pyarrow.compute as pc

    from assay.data.cells import RESTORE_PATTERN

    prefixed = pc.match_substring_regex(column, RESTORE_PATTERN)
    if not pc.any(prefixed).as_py():
        return column
    return pc.if_else(prefixed, pc.utf8_slice_codeunits(column, 1), column)


def _has_longer_line(p: Path, limit: int) -> bool:
    """Whether a line of the file is longer than ``limit`` bytes, read in 1 MiB chunks (so a
    50 MB line is refused before the parser holds blocks of it)."""
    run = 0
    with p.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            first = chunk.find(b"\n")
            if first < 0:
                run += len(chunk)
            else:
                if run + first > limit:
                    return True
                run = len(chunk) - chunk.rfind(b"\n") - 1
            if run > limit:
                return True
    return False


def _header(p: Path, sep: str) -> list[str]:
    """The column names, read from the first line (at most :data:`MAX_HEADER_BYTES`)."""
    with p.open("rb") as handle:
        head = handle.read(MAX_HEADER_BYTES + 1)
    end = head.find(b"\n")
    if end < 0:
        if len(head) > MAX_HEADER_BYTES:
            raise InputError(str(p), f"the header line is longer than "
                             f"{mebibytes(MAX_HEADER_BYTES)}: not a table's header")
        end = len(head)
    line = head[:end]
    try:
        text = codecs.decode(line.removeprefix(codecs.BOM_UTF8), "utf-8").rstrip("\r")
    except UnicodeDecodeError as exc:
        raise InputError(str(p), f"is not UTF-8 text: byte 0x{line[exc.start]:02x} at line 1 "
                         "cannot be decoded (save the file as UTF-8)") from None
    if not text.strip():
        raise InputError(str(p), "the file is empty: expected a header line")
    try:
        names = next(csv.reader(io.StringIO(text), delimiter=sep))
    except csv.Error as exc:  # a lone \r: lines ended the old Mac way, or a broken file
        raise InputError(str(p), f"the header line is not {'CSV' if sep == ',' else 'TSV'}: "
                         f"{exc} (lines must end with \\n or \\r\\n)") from None
    check_columns(str(p), len(names))
    empty = [i for i, name in enumerate(names) if not name.strip()]
    if empty:
        raise InputError(str(p), "the header has an empty column name",
                         column=f"column {empty[0] + 1}")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(str(p), "the header names a column twice", column=name)
        seen.add(name)
    return names


def _check_utf8(p: Path) -> None:
    """Raise the InputError naming the line of the first byte that is not UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    with p.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                data = exc.object
                at = line + data[: exc.start].count(b"\n")
                raise InputError(
                    str(p), f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {at} "
                    "cannot be decoded (save the file as UTF-8)") from None
            line += chunk.count(b"\n")
