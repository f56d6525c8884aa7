"""``.env`` files: API keys for ``assay judge`` and the notebook functions, read without a dependency.

A ``.env`` holds ``NAME=value`` lines (``export NAME=value`` too, as a shell would source
it), ``#`` comments and blank lines. A value may be single-quoted (taken literally),
double-quoted (``\\n``, ``\\t``, ``\\"``, ``\\\\`` and ``\\$`` read as escapes; may span
lines) or bare (surrounding blanks and a `` #`` comment dropped). Nothing is expanded
(``$OTHER`` stays as written). :func:`load_dotenv` sets the variables not already set:
the environment always wins, and a value read is never printed, logged or stored (an
error names the file, the line and the variable, never the value).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, MutableMapping
from pathlib import Path

from assay.errors import ConfigError

DOTENV_NAME = ".env"
"""The file name read from the config's folder and the working folder."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def parse_dotenv(text: str, source: str = DOTENV_NAME) -> dict[str, str]:
    """The variables of a ``.env`` text, in order (a name given twice: the last value).

    Raises
    ------
    ConfigError
        A line that is not ``NAME=value``, a quote left open, or a value holding a NUL
        character; the message names ``source`` and the line, never a value.

    Examples
    --------
    >>> parse_dotenv('# keys\\nexport A=1\\nB = "two words" # note\\nC=\\'$HOME\\'\\nD=x # y\\nE=\\n')
    {'A': '1', 'B': 'two words', 'C': '$HOME', 'D': 'x', 'E': ''}
    >>> parse_dotenv('K="a\\\\nb"')
    {'K': 'a\\nb'}
    >>> parse_dotenv("just words")
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: .env, line 1: expected NAME=value
    """
    out: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        number, line = index + 1, lines[index].strip()
        index += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[len("export"):].lstrip()
        name, equals, rest = line.partition("=")
        name = name.strip()
        if not equals or not _NAME.fullmatch(name):
            raise ConfigError(f"{source}, line {number}: expected NAME=value")
        rest = rest.lstrip()
        if rest[:1] in ("'", '"'):
            quote, body = rest[0], rest[1:]
            while True:
                end = _closing(body, quote)
                if end >= 0 or index >= len(lines):
                    break
                body += "\n" + lines[index]
                index += 1
            if end < 0:
                raise ConfigError(f"{source}, line {number}: {name}: the value's {quote} quote is not closed")
            tail = body[end + 1:].strip()
            if tail and not tail.startswith("#"):
                raise ConfigError(f"{source}, line {number}: {name}: text after the closing quote")
            value = body[:end] if quote == "'" else _unescape(body[:end])
        else:
            value = re.split(r"\s+#", rest, maxsplit=1)[0].strip()
        if "\0" in value:  # no environment variable can hold one (os.environ refuses it)
            raise ConfigError(f"{source}, line {number}: {name}: the value holds a NUL character")
        out[name] = value
    return out


def _closing(body: str, quote: str) -> int:
    """Index of the quote closing ``body`` (a double quote may be escaped), or -1."""
    position = 0
    while position < len(body):
        char = body[position]
        if char == "\\" and quote == '"':
            position += 2
            continue
        if char == quote:
            return position
        position += 1
    return -1


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), body, flags=re.S)


def dotenv_paths(config: str | Path | None = None, cwd: str | Path | None = None) -> list[Path]:
    """The ``.env`` files to read, first wins: the config's folder, then the working folder."""
    folders = [] if config is None else [Path(config).resolve().parent]
    folders.append(Path.cwd() if cwd is None else Path(cwd).resolve())
    return list(dict.fromkeys(folder / DOTENV_NAME for folder in folders))


def load_dotenv(paths: Iterable[str | Path],
                environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Set the variables of the ``.env`` files that exist among ``paths`` (first wins), never
    replacing one already set; return the names set (never their values).

    Raises
    ------
    ConfigError
        A file that cannot be read or a line it cannot parse (file and line named).
    """
    env = os.environ if environ is None else environ
    added: list[str] = []
    for path in map(Path, paths):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise ConfigError(f"{path}: cannot read the .env file ({reason})") from None
        for name, value in parse_dotenv(text, str(path)).items():
            if name not in env:
                env[name] = value
                added.append(name)
    return added
