"""File names built from data (a task, an arm, a judge): safe, inside the folder, and unique.

Values in a judgments table are not file names. ``../../x``, ``/etc/x``, ``openai/gpt-4o``,
a NUL, a name of 300 characters or two arms that differ only in case would write outside
the output folder, crash after the work is paid for, or overwrite another output. Every
writer that names a file (or a spreadsheet sheet) after data goes through here:

* :func:`safe_name`: a value that is already a plain name (ASCII letters, digits, ``. _ -``,
  starting with a letter or digit, no ``..``, at most 100 characters, not a name Windows
  reserves) is kept as it is, so the usual
  names (``all_gpt-4o--gpt-4o-mini.csv``) do not change; any other value becomes a slug
  of its safe characters plus ``-`` and the first 8 hex digits of the SHA-256 of the
  original, so two different values never share a name.
* :class:`FileNames`: the names one writer has given out, compared case-insensitively (a
  file system may be); a name already given gets a tag and, if needed, the hash.
* :func:`sheet_name`: the same for an Excel sheet (31 characters, none of ``[]:*?/\\``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["FileNames", "safe_name", "sheet_name"]

MAX_LENGTH = 100
"""Longest name kept as it is (without its suffix); longer ones are cut and hashed."""
SHEET_LENGTH = 31
"""Excel's limit on a sheet name."""

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SHEET_UNSAFE = re.compile(r"[\[\]:*?/\\\x00-\x1f]+")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
             *(f"lpt{i}" for i in range(1, 10))}
"""Names Windows reserves, with any extension."""


def digest(text: str, n: int = 8) -> str:
    """The first ``n`` hex digits of the SHA-256 of ``text`` (UTF-8, errors escaped)."""
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:n]


def _is_plain(text: str) -> bool:
    return (bool(_PLAIN.fullmatch(text)) and len(text) <= MAX_LENGTH and ".." not in text
            and text.split(".")[0].lower() not in _RESERVED)


def safe_name(value: object) -> str:
    """``value`` as one safe component of a file name (no folder, no suffix).

    Examples
    --------
    >>> safe_name("gpt-4o-mini"), safe_name("openai/gpt-4o"), safe_name("../../ESCAPED")
    ('gpt-4o-mini', 'openai_gpt-4o-abb375db', 'ESCAPED-667db170')
    >>> safe_name("")
    'x-e3b0c442'
    """
    text = "" if value is None else str(value)
    if _is_plain(text):
        return text
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _UNSAFE.sub("_", ascii_text).strip("._-")[:MAX_LENGTH - 9] or "x"
    return f"{slug}-{digest(text)}"


def sheet_name(value: object, used: set[str] | None = None) -> str:
    """An Excel sheet name for ``value``: at most 31 characters, none of ``[]:*?/\\``, not
    starting or ending with ``'``, unique among ``used`` (compared case-insensitively, as
    Excel does); the name is added to ``used``.

    >>> used = set(); sheet_name("Scores", used), sheet_name("scores", used)
    ('Scores', 'scores-7f8ae23f')
    """
    text = "" if value is None else str(value)
    name = text
    if not text or _SHEET_UNSAFE.search(text) or len(text) > SHEET_LENGTH or text[0] == "'" \
            or text[-1] == "'" or text.lower() == "history":
        clean = _SHEET_UNSAFE.sub("_", text).strip("'") or "sheet"
        name = f"{clean[:SHEET_LENGTH - 9]}-{digest(text)}"
    if used is not None:
        if name.casefold() in {u.casefold() for u in used}:
            name = f"{name[:SHEET_LENGTH - 9]}-{digest(text + chr(31) + str(len(used)))}"
        used.add(name)
    return name


class FileNames:
    """The file names one writer gives out in one folder: each new, whatever the data.

    Examples
    --------
    >>> names = FileNames()
    >>> names.claim("all_A--B", ".csv"), names.claim("all_A--B", ".csv", tag="reference")
    ('all_A--B.csv', 'all_A--B.reference.csv')
    """

    def __init__(self, taken: set[str] | None = None) -> None:
        self._taken = {t.casefold() for t in (taken or set())}

    def claim(self, stem: str, suffix: str, *, tag: str | None = None) -> str:
        """A name ``stem + suffix`` (``stem`` already made of :func:`safe_name` parts) not
        given before; when it was, ``stem.tag + suffix``, then a hash of both."""
        candidates = [f"{stem}{suffix}"]
        if tag:
            candidates.append(f"{stem}.{safe_name(tag)}{suffix}")
        for n in range(1, 1000):
            candidates.append(f"{stem}-{digest(f'{stem}{chr(31)}{tag}{chr(31)}{n}')}{suffix}")
        for name in candidates:
            if name.casefold() not in self._taken:
                self._taken.add(name.casefold())
                return name
        raise RuntimeError(f"no free file name for {stem}{suffix}")  # pragma: no cover
