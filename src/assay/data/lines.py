"""Read a JSONL file line by line: lines end at ``\\n`` only, and no line is held whole
beyond :data:`~assay.data._limits.MAX_RECORD_BYTES`.

``str.splitlines()`` also breaks at U+2028, U+2029, U+0085 and other characters that JSON
allows inside strings, which would cut a record in two; a file opened in binary mode and
read with ``readline`` ends lines at ``\\n`` alone. Every JSONL reader of assay (the
judgments table, run folders, the answers a judge reads) goes through :func:`json_lines`,
and every reader of a whole JSON file through :func:`json_file`: both refuse, as one problem
naming the file, line and field, a value nested deeper than :data:`MAX_JSON_DEPTH` (Python's
parser would raise RecursionError, later code too) and a string holding a lone surrogate
(``"\\ud800"`` decodes to a code point that no UTF-8 writer or terminal can encode).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.data._limits import MAX_RECORD_BYTES, mebibytes, too_many_containers
from assay.errors import InputError

_BOM = b"\xef\xbb\xbf"
MAX_JSON_DEPTH = 64
"""Lists and objects a JSON value may nest (a record of a results file nests five or six)."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at character {exc.colno})"
    except RecursionError:
        return None, f"JSON nested too deeply (at most {MAX_JSON_DEPTH} levels)"
    except ValueError as exc:  # an integer of more than 4300 digits
        return None, f"not a usable JSON value ({str(exc).split(';')[0]})"
    return value, unusable_json(value, text)


def unusable_json(value: Any, text: str, start: int = 0, end: int | None = None) -> str | None:
    """Why the JSON ``value`` decoded from ``text[start:end]`` cannot be read on, or None:
    nested deeper than :data:`MAX_JSON_DEPTH`, or a string (or key) holding a lone
    surrogate. The value is walked only when its text could hold either (more than
    :data:`MAX_JSON_DEPTH` brackets, a ``\\uD800``-``\\uDFFF`` escape).

    >>> unusable_json(["a", {"b": "\\ud800"}], '["a", {"b": "\\\\ud800"}]')
    "field [1].b: a lone surrogate '\\\\ud800' is not a character (the text was cut or mis-encoded)"
    >>> text = "[" * 70 + "]" * 70
    >>> unusable_json(json.loads(text), text)
    'JSON nested more than 64 levels deep'
    """
    end = len(text) if end is None else end
    deep = text.count("[", start, end) + text.count("{", start, end) > MAX_JSON_DEPTH
    if not deep and _SURROGATE_ESCAPE.search(text, start, end) is None:
        return None
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, str):
            found = _LONE_SURROGATE.search(item)
            if found is not None:
                field = f"field {where}: " if where else ""
                code = f"\\u{ord(found.group()):04x}"
                return (f"{field}a lone surrogate '{code}' is not a character (the text was "
                        "cut or mis-encoded)")
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth >= MAX_JSON_DEPTH:
            return f"JSON nested more than {MAX_JSON_DEPTH} levels deep"
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, inner in pairs:
            if isinstance(key, str) and _LONE_SURROGATE.search(key):
                stack.append((key, depth, where or "name"))
            name = f"{where}[{key}]" if isinstance(key, int) else \
                f"{where}.{key}" if where else str(key)
            stack.append((inner, depth + 1, name[:120]))
    return None


def json_file(path: str | Path) -> Any:
    """The JSON value of a whole file (UTF-8, a BOM allowed), read within the bounds of a
    table file: InputError naming the file, line and column (or field) when it is a
    device, not UTF-8, not JSON, holds too many lists and objects, nests too deep, or
    holds a lone surrogate or an integer of thousands of digits."""
    path = Path(path)
    with path.open("rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/zero never ends
            raise InputError(str(path), "is a device, not a file")
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(str(path), f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line "
                         f"{line} cannot be decoded (save the file as UTF-8)") from None
    del data
    crowded = too_many_containers(text)
    if crowded is not None:
        raise InputError(str(path), f"the file {crowded}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (the file ends there: cut short?)" if exc.pos >= len(text.rstrip()) else ""
        raise InputError(str(path), f"not valid JSON: {exc.msg} at line {exc.lineno}, column "
                         f"{exc.colno}{cut}") from None
    except RecursionError:
        raise InputError(str(path), f"JSON nested too deeply (at most {MAX_JSON_DEPTH} "
                         "levels)") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(str(path), f"not a usable JSON value ({str(exc).split(';')[0]})") \
            from None
    why = unusable_json(value, text)
    if why is not None:
        raise InputError(str(path), why)
    return value


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
        data = json_file(path)
    except InputError as exc:
        raise InputError(str(path), f"{exc.problem.message}{hint}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), expected)
    return data

