"""The errors assay raises on purpose.

Every error a user can cause is an :class:`AssayError`; the CLI turns one into a
single clear message and exit status 2, never a traceback.

::

    AssayError
    ├── InputError        bad input data: names the file, row, column and what was expected
    │   └── ValidationError   several input problems found at once (a list of Problem)
    ├── ConfigError       a bad option or configuration value
    ├── DesignError       the data cannot support the requested analysis (e.g. unbalanced)
    ├── JudgeError        the LLM layer failed in a way that stops the run
    └── StorageError      the machine refused a file: permission denied, read-only file system,
                          disk full, a corrupt or truncated store or cache

:func:`storage_error` turns an ``OSError`` into a :class:`StorageError`, so an environment
problem reads as one line naming the file and the cause (the CLI does this centrally).
"""

from __future__ import annotations

import errno
from collections.abc import Iterable
from dataclasses import dataclass

QUOTE_LIMIT = 200
"""At most this many characters of a value are quoted in a message."""


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to about ``limit`` characters, saying how long the value was.

    A message never echoes a whole value from a file: a 50 MB cell stays 50 MB on disk,
    not on the terminal. The value is cut before ``repr`` so the work is bounded too.

    >>> quote("banana")
    "'banana'"
    >>> quote("x" * 10_000, limit=20)
    "'xxxxxxxxxxxxxxxxxx... (10000 characters)"
    """
    if isinstance(value, str) and len(value) > limit:
        return repr(value[: max(limit - 2, 1)])[:-1] + f"... ({len(value)} characters)"
    if isinstance(value, (bytes, bytearray)) and len(value) > limit:
        return repr(bytes(value[: max(limit - 3, 1)]))[:-1] + f"... ({len(value)} bytes)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    text = repr(value) if isinstance(value, (str, bytes, int, float, bool, type(None))) else \
        _bounded_repr(value, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'cluster'?"`` for the choice closest to a mistyped ``word``, else ``""``.

    The closest by difflib's ratio (at least 0.6, the default cut-off), compared without case.

    >>> did_you_mean("clutser", ["item", "cluster", "arm"])
    "; did you mean 'cluster'?"
    >>> did_you_mean("zzz", ["item", "cluster"])
    ''
    """
    import difflib

    names = {str(c).lower(): str(c) for c in choices}
    close = difflib.get_close_matches(str(word).lower(), list(names), n=1)
    return f"; did you mean {names[close[0]]!r}?" if close else ""


def _bounded_repr(value: object, limit: int) -> str:
    """A bounded ``repr`` of a container (``reprlib`` cuts long lists, dicts and strings)."""
    import reprlib

    short = reprlib.Repr()
    short.maxstring = short.maxother = limit
    short.maxlist = short.maxdict = short.maxtuple = short.maxset = 8
    return short.repr(value)


class AssayError(Exception):
    """Base class of every error assay raises for a user to read."""


@dataclass(frozen=True)
class Problem:
    """One problem found in an input: where it is and what was expected there."""

    path: str
    """The file (or folder) the problem is in."""
    row: int | None
    """1-based record number in the file (a data row, a JSON list element, a JSONL line);
    None when the problem concerns the whole file or a column."""
    column: str | None
    """The column or field at fault, when one is."""
    message: str
    """What is wrong and what was expected."""

    def __str__(self) -> str:
        where = self.path
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column '{self.column}'"
        return f"{where}: {self.message}"


class InputError(AssayError):
    """A single problem in input data, with its place."""

    def __init__(self, path: str, message: str, *, row: int | None = None,
                 column: str | None = None) -> None:
        self.problem = Problem(path=str(path), row=row, column=column, message=message)
        super().__init__(str(self.problem))


class ValidationError(InputError):
    """Every problem found in an input at once."""

    def __init__(self, problems: list[Problem], *, limit: int = 50) -> None:
        if not problems:
            raise ValueError("ValidationError needs at least one problem")
        self.problems = list(problems)
        self.problem = problems[0]
        shown = [str(p) for p in problems[:limit]]
        more = len(problems) - len(shown)
        head = f"{len(problems)} problem(s) found:" if len(problems) > 1 else "1 problem found:"
        lines = [head, *(f"  - {s}" for s in shown)]
        if more > 0:
            lines.append(f"  ... and {more} more")
        Exception.__init__(self, "\n".join(lines))


class ConfigError(AssayError):
    """An option or configuration value that cannot be used."""


class DesignError(AssayError):
    """The data do not support the analysis asked for (unbalanced design, too few runs...)."""


class JudgeError(AssayError):
    """The LLM layer failed in a way that stops a run."""


_CAUSES = {
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device (disk full)",
    errno.EDQUOT: "disk quota exceeded (disk full)",
    errno.EFBIG: "file too large for this file system or limit (disk full)",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.ENOENT: "no such file or folder",
    errno.EEXIST: "already exists",
    errno.ENAMETOOLONG: "file name too long",
    errno.EMFILE: "too many open files",
    errno.EIO: "input/output error",
}
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class StorageError(AssayError):
    """A file could not be read or written for a reason outside assay: permission denied,
    a read-only file system, a full disk, a corrupt or truncated store or cache."""

    def __init__(self, path: str, cause: str, *, disk_full: bool = False) -> None:
        self.path = str(path)
        self.cause = cause
        self.disk_full = disk_full
        super().__init__(f"{self.path}: {cause}")


def storage_error(exc: OSError, path: object = None) -> StorageError:
    """The :class:`StorageError` that says what ``exc`` means for ``path`` (default: the file
    the error names).

    >>> import errno
    >>> str(storage_error(PermissionError(errno.EACCES, "Permission denied", "/r/out.csv")))
    '/r/out.csv: permission denied'
    >>> storage_error(OSError(errno.ENOSPC, "No space left on device"), "/r/x").disk_full
    True
    """
    name = path if path is not None else exc.filename
    cause = _CAUSES.get(exc.errno or -1) or (exc.strerror or str(exc) or type(exc).__name__)
    if exc.filename2 is not None:
        cause += f" (with {exc.filename2})"
    return StorageError("?" if name is None else str(name), cause,
                        disk_full=exc.errno in DISK_FULL_ERRNOS)
