"""Reading a YAML config file within bounds: its size checked on the opened file, its
encoding (UTF-8 only, named otherwise), NULs, nesting, aliases that expand past a limit and
lone surrogates refused as one line naming the file and line, before any value is used."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from assay.errors import ConfigError

MAX_CONFIG_BYTES = 1024 * 1024
"""Bytes a config file may have."""
_BOMS = {b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16", b"\xff\xfe\x00\x00": "UTF-32",
         b"\x00\x00\xfe\xff": "UTF-32"}


def read_config_text(path: str | Path, what: str = "config") -> str:
    """The text of a YAML file, read within :data:`MAX_CONFIG_BYTES`.

    The size is checked on the opened file and at most one byte more than the limit is
    read, so a link to ``/dev/zero`` or a growing file costs nothing (a pipe is read as a
    file). A file too large, not UTF-8 (UTF-16 named as such), or holding a NUL is a
    :class:`ConfigError` naming the file and line.
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size  # 0 for a device or a pipe
            data = b"" if size > MAX_CONFIG_BYTES else handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the {what} ({exc.strerror})") from None
    if size > MAX_CONFIG_BYTES or len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: more than {MAX_CONFIG_BYTES} bytes: a {what} has at most "
                          f"{MAX_CONFIG_BYTES}")
    encoding = next((name for bom, name in sorted(_BOMS.items(), key=lambda b: -len(b[0]))
                     if data.startswith(bom)), None)
    if encoding is not None:
        raise ConfigError(f"{path}: the {what} is {encoding} text: save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}, line {line}: the {what} is not UTF-8 text: byte "
                          f"0x{data[exc.start]:02x} cannot be decoded (save it as UTF-8)") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise ConfigError(f"{path}, line {text.count(chr(10), 0, nul) + 1}: the {what} holds a "
                          "NUL character (not a text file)")
    return text
MAX_CONFIG_VALUES = 100_000
"""Values (scalars, lists, mappings) a config may hold once its aliases (``*name``) are
expanded: a few hundred is usual; an alias bomb holds billions."""


def safe_yaml(text: str, source: str) -> Any:
    """The YAML document in ``text``, read with PyYAML's safe loader after two checks that
    bound the work: its size, and the number of values it expands to (counted on the
    composed node graph, each shared node once, before anything is built).

    Raises
    ------
    ConfigError
        Not valid YAML, more than :data:`MAX_CONFIG_BYTES`, or more than
        :data:`MAX_CONFIG_VALUES` values once aliases are expanded.

    Examples
    --------
    >>> safe_yaml("a: &x [1, 2]\\nb: *x\\n", "c.yaml")
    {'a': [1, 2], 'b': [1, 2]}
    >>> bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\\n" + "".join(
    ...     f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\\n" for p, n in zip("abcdef", "bcdefg"))
    >>> safe_yaml(bomb, "c.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: c.yaml: the YAML expands to more than 100000 values ...
    """
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: {len(text)} characters: a config has at most "
                          f"{MAX_CONFIG_BYTES}")
    deep = _too_deep(text)
    if deep is not None:
        raise ConfigError(f"{source}, line {deep}: the YAML nests more than {MAX_CONFIG_DEPTH} "
                          "lists or mappings in one another: not a config")
    try:
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as exc:  # a character YAML does not allow
        raise ConfigError(f"{source}: not valid YAML ({str(exc).splitlines()[0]})") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_CONFIG_VALUES:
            raise ConfigError(f"{source}: the YAML expands to more than {MAX_CONFIG_VALUES} values "
                              "once its aliases (*name) are expanded: not a config")
        document = loader.construct_document(node)
        if "\\u" in text or "\\U" in text:  # an escape could make a lone surrogate
            where = _lone_surrogate(document)
            if where is not None:
                raise ConfigError(f"{source}: {where}: a lone surrogate is not a character "
                                  "(the text was cut or mis-encoded)")
        return document
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or str(exc).splitlines()[0]
        raise ConfigError(f"{source}{where}: not valid YAML ({problem})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise ConfigError(f"{source}: the YAML is nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise ConfigError(f"{source}: not a usable YAML value ({str(exc).split(';')[0]})") \
            from None
    finally:
        loader.dispose()


MAX_CONFIG_DEPTH = 64
"""Flow lists and mappings (``[...]``, ``{...}``) a config may nest: PyYAML's parser takes
seconds, then a RecursionError, on thousands."""
_BRACKETS = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> int | None:
    """The line where ``text`` first nests more than :data:`MAX_CONFIG_DEPTH` brackets, else
    None (brackets inside quotes are counted too: a config needs far fewer)."""
    if text.count("[") + text.count("{") <= MAX_CONFIG_DEPTH:
        return None
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth = depth + 1 if match.group() in "[{" else max(depth - 1, 0)
        if depth > MAX_CONFIG_DEPTH:
            return text.count("\n", 0, match.start()) + 1
    return None


def _lone_surrogate(document: Any) -> str | None:
    """Where the first string holding a lone surrogate (``"\\ud800"``) is in ``document``,
    else None; each list and mapping walked once (an alias may make one hold itself)."""
    stack: list[tuple[Any, str]] = [(document, "")]
    seen: set[int] = set()
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return where or "the document"
        elif isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, value in pairs:
                name = f"{where}[{key}]" if isinstance(item, list) else \
                    f"{where}.{key}" if where else str(key)
                stack += [(value, name), (key, name)]
    return None


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many values ``node`` stands for with every alias expanded (shared nodes counted
    once each time they are used, computed once each)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            size += _expanded_size(key, sizes) + _expanded_size(value, sizes)
            if size > MAX_CONFIG_VALUES:
                break
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            size += _expanded_size(item, sizes)
            if size > MAX_CONFIG_VALUES:
                break
    sizes[id(node)] = size
    return size
