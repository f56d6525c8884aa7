"""Spreadsheet cells from data: one policy against formula injection for every CSV and xlsx.

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
read by Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)``,
``=cmd|' /C calc'!A0``). Names and the judges' reasoning come from models and users, so
every CSV and xlsx writer of assay passes its text cells and its header through
:func:`safe_cell`, which prefixes such text with ``'`` (OWASP, "CSV Injection"). Numbers
stay numbers: a float or int is never changed, nor is text that is a plain decimal number
(``-0.5``, ``+3``, ``1e-3``), which no spreadsheet reads as a formula. The HTML pages'
CSV export applies the same rule in the browser (``assay.js``).

References
----------
OWASP Foundation. CSV Injection. https://owasp.org/www-community/attacks/CSV_Injection
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads with the frame, not to write plain rows
    import pandas as pd

__all__ = ["FORMULA_START", "safe_cell", "safe_frame", "visible", "write_csv_frame", "write_csv_rows"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula."""
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
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
    >>> safe_cell(-1.5), safe_cell("-1.5"), safe_cell(None)
    (-1.5, '-1.5', None)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
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


def write_csv_frame(frame: pd.DataFrame, path: str | Path) -> Path:
    """``frame`` as CSV at ``path`` (no index), its cells made safe; return the path."""
    path = Path(path)
    safe_frame(frame).to_csv(path, index=False)
    return path


def write_csv_rows(path: str | Path, rows: Iterable[Sequence[Any]], *,
                   lineterminator: str = "\n") -> Path:
    """Rows (the first one the header) as CSV at ``path`` with the csv module (None as an
    empty cell, floats as ``repr``, ``lineterminator`` after each row), each cell made safe;
    return the path."""
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator=lineterminator)
        writer.writerows([safe_cell(v) for v in row] for row in rows)
    return path
