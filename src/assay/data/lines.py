"""Read a JSONL file line by line: lines end at ``\\n`` only, and no line is held whole
beyond :data:`~assay.data._limits.MAX_RECORD_BYTES`.

``str.splitlines()`` also breaks at U+2028, U+2029, U+0085 and other characters that JSON
allows inside strings, which would cut a record in two; a file opened in binary mode and
read with ``readline`` ends lines at ``\\n`` alone. Every JSONL reader of assay (the
judgments table, run folders, the answers a judge reads) goes through :func:`json_lines`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.data._limits import MAX_RECORD_BYTES, mebibytes, too_many_containers
from assay.errors import InputError

_BOM = b"\xef\xbb\xbf"


def json_lines(path: str | Path) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, None)`` for each JSON line of ``path``, or ``(line number, None,
    why)`` for a line that is not JSON (or is too long); blank lines are skipped.

    Raises :class:`~assay.errors.InputError` at the first line that is not UTF-8.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = p.write_text('{"t": "a\\u2028b"}\\n\\n[1,\\n', encoding="utf-8")
    >>> for row in json_lines(p):
    ...     print(row)
    (1, {'t': 'a\\u2028b'}, None)
    (3, None, 'not valid JSON (Expecting value at character 4)')
    """
    p = Path(path)
    for number, data in _lines(p):
        if data is None:
            yield number, None, (f"the line is longer than {mebibytes(MAX_RECORD_BYTES)}: not "
                                 "a JSON record")
            continue
        if not data.strip():
            continue
        crowded = too_many_containers(data)
        if crowded is not None:
            yield number, None, f"the line {crowded}"
            continue
        value, why = _loads(_text(data, p, number))
        yield number, value, why


def _lines(p: Path) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line without its ``\\n``) of a file split on ``\\n`` only; None for a
    line longer than :data:`MAX_RECORD_BYTES` (skipped without being held)."""
    with p.open("rb") as handle:
        number = 0
        while True:
            line = handle.readline(MAX_RECORD_BYTES + 1)
            if not line:
                return
            number += 1
            if number == 1 and line.startswith(_BOM):
                line = line[len(_BOM):]
            if len(line) > MAX_RECORD_BYTES and not line.endswith(b"\n"):
                line = b"x"  # let the 16 MiB go before skipping the rest in 1 MiB steps
                while line and not line.endswith(b"\n"):  # skip the rest of the long line
                    line = handle.readline(1 << 20)
                yield number, None
                continue
            yield number, line.rstrip(b"\n")


def _text(data: bytes, p: Path, line: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            str(p), f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} "
            "cannot be decoded (save the file as UTF-8)") from None


def _loads(text: str) -> tuple[Any, str | None]:
    """The JSON value of ``text``, or None and why it is not one."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at character {exc.colno})"
    except RecursionError:
        return None, "JSON nested too deeply"
    except ValueError as exc:  # an integer of more than 4300 digits
        return None, f"not a usable JSON value ({str(exc).split(';')[0]})"


def json_object_file(path: str | Path, expected: str, *, hint: str = "") -> dict[str, Any]:
    """The JSON object in the file at `path`; InputError naming the file when it is not
    valid JSON (``hint`` appended) or not an object (``expected`` says what it should hold).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('[1]')
    >>> json_object_file(p, "expected an object")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    assay.errors.InputError: ...x.json: expected an object
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"is not valid JSON ({exc}){hint}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), expected)
    return data

