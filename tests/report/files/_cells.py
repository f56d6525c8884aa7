"""What a spreadsheet would run as a formula (OWASP's list), written here, not taken from assay."""

from __future__ import annotations

import csv
from pathlib import Path

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def inert(cell: str) -> bool:
    """True when a spreadsheet reads ``cell`` as text or a number, not as a formula."""
    return not cell.startswith(FORMULA_START) or is_number(cell)


def csv_cells(path: Path) -> list[str]:
    return [c for row in csv.reader(path.read_text(encoding="utf-8").splitlines()) for c in row]
