"""Spreadsheet cells from data: one policy against formula injection for every CSV and xlsx.

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
read by Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)``,
``=cmd|' /C calc'!A0``). Names and the judges' reasoning come from models and users, so
every CSV and xlsx writer of assay passes its text cells and its header through
:func:`safe_cell`, which prefixes such text with ``'`` (OWASP, "CSV Injection"). Numbers
stay numbers: a float or int is never changed, nor is text that is a plain decimal number
(``-0.5``, ``+3``, ``1e-3``), which no spreadsheet reads as a formula. The HTML pages'
CSV export applies the same rule in the browser (``assay.js``).

Every CSV and TSV assay writes goes through :func:`write_csv_frame`, :func:`write_csv_rows` or
:func:`csv_text`; this is the only module that calls pandas' ``to_csv`` or the ``csv``
module's writers (``tests/data/test_one_csv_writer.py`` checks every file of ``src/``).

The prefix is undone when assay reads a CSV back (:func:`restore_cell`, applied by the CSV
readers to every value), so a table imported to CSV and read again gives its values back: a
cell of ``'`` followed by more ``'`` and a formula's first character loses its first ``'``.
For that to be exact, :func:`safe_cell` also prefixes text that already starts with ``'``s
and a formula's first character (``'=x`` is written ``''=x``): the rule is then a bijection.
A foreign CSV's ``'=x`` is read as ``=x``, as a spreadsheet reads the text typed ``'=x``.

References
----------
OWASP Foundation. CSV Injection. https://owasp.org/www-community/attacks/CSV_Injection
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads with the frame, not to write plain rows
    import pandas as pd

__all__ = ["FORMULA_START", "RESTORE_PATTERN", "csv_text", "restore_cell", "safe_cell", "safe_frame",
           "visible", "write_csv_frame", "write_csv_rows"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula."""
_SUSPECT = frozenset((*FORMULA_START, "'"))
"""First characters of a cell :func:`safe_cell` may change (the rest it returns unread)."""
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
RESTORE_PATTERN = "^'+[=+\\-@\t\r]"
"""A cell :func:`safe_cell` prefixed: one or more ``'`` then a formula's first character
(a regular expression in the syntax of Python, RE2 and DuckDB)."""
_PREFIXED = re.compile(RESTORE_PATTERN)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    r"""``text`` with control characters written as escapes (``\x1b``), newlines and tabs kept.

    Names and model text reach terminals and figures: an ESC sequence from data would
    recolour or rewrite the user's terminal, a NUL would cut a line, and a font has no glyph
    for either. Every C0 control but newline and tab, DEL and the C1 controls are escaped.

    Examples
    --------
    >>> visible("judge\x1b[31mred\x00"), visible("two\nlines\tok")
    ('judge\\x1b[31mred\\x00', 'two\nlines\tok')
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def safe_cell(value: Any) -> Any:
    """``value``, with ``'`` before text a spreadsheet would read as a formula.

    Examples
    --------
    >>> safe_cell("=1+1"), safe_cell("@SUM(A1)"), safe_cell("-x"), safe_cell("a=b")
    ("'=1+1", "'@SUM(A1)", "'-x", 'a=b')
    >>> safe_cell(-1.5), safe_cell("-1.5"), safe_cell(None), safe_cell("'=x"), safe_cell("'x")
    (-1.5, '-1.5', None, "''=x", "'x")
    """
    if isinstance(value, str) and value[:1] in _SUSPECT and value.lstrip("'").startswith(FORMULA_START) \
            and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def restore_cell(value: Any) -> Any:
    """The value :func:`safe_cell` was given for the cell ``value`` (its inverse on text).

    Examples
    --------
    >>> restore_cell("'=1+1"), restore_cell("''=x"), restore_cell("'x"), restore_cell("-1.5")
    ('=1+1', "'=x", "'x", '-1.5')
    >>> all(restore_cell(safe_cell(v)) == v for v in ["=a", "'=a", "''@b", "-1", "'-1", "'", "x"])
    True
    """
    if isinstance(value, str) and _PREFIXED.match(value):
        return value[1:]
    return value


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with :func:`safe_cell` applied to its header and text cells
    (numeric and boolean columns are left as they are)."""
    import pandas as pd

    out = frame.rename(columns=lambda c: safe_cell(c) if isinstance(c, str) else c)
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            out.isetitem(i, column.astype(object).map(safe_cell))
    return out


def write_csv_frame(frame: pd.DataFrame, path: str | Path, *, sep: str = ",") -> Path:
    """``frame`` as CSV (``sep=","``) or TSV (``sep="\\t"``) at ``path`` (no index), its cells
    made safe; return the path."""
    path = Path(path)
    safe_frame(frame).to_csv(path, index=False, sep=sep)
    return path


def write_csv_rows(path: str | Path, rows: Iterable[Sequence[Any]], *,
                   lineterminator: str = "\n") -> Path:
    """Rows (the first one the header) as CSV at ``path`` with the csv module (None as an
    empty cell, floats as ``repr``, ``lineterminator`` after each row), each cell made safe;
    return the path."""
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        _write_rows(handle, rows, lineterminator)
    return path


def csv_text(rows: Iterable[Sequence[Any]], *, lineterminator: str = "\n") -> str:
    """Rows (the first one the header) as the text of a CSV file, as :func:`write_csv_rows`
    writes them (for a writer that puts the text in place itself, e.g. atomically)."""
    out = io.StringIO()
    _write_rows(out, rows, lineterminator)
    return out.getvalue()


def _write_rows(handle: Any, rows: Iterable[Sequence[Any]], lineterminator: str) -> None:
    writer = csv.writer(handle, lineterminator=lineterminator)
    writer.writerows([safe_cell(v) for v in row] for row in rows)
