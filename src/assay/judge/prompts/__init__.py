"""Prompts as package data: ``assay/judge/prompts/<judge>/system.md`` and ``user.md``.

:func:`load_prompt` reads a judge's two templates (or a folder overriding them) and
returns a :class:`Prompt`; :meth:`Prompt.render` fills them with jinja2 (``StrictUndefined``:
a missing variable is an error, never an empty string; no autoescape: the text is not
HTML). The prompt's ``sha256`` enters the judgment keys and ``metric_version``, so
editing a prompt re-asks exactly the judgments it affects.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from assay.errors import ConfigError

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
_PARTS = ("system.md", "user.md")


@functools.lru_cache(maxsize=256)
def _template(text: str) -> jinja2.Template:
    """A prompt's compiled template; compiling costs milliseconds, so each text is compiled once."""
    return _ENV.from_string(text)


@functools.lru_cache(maxsize=256)
def _variables(text: str) -> tuple[str, ...]:
    """The variables a template reads, sorted (jinja2.meta on its syntax tree)."""
    from jinja2 import meta

    return tuple(sorted(meta.find_undeclared_variables(_ENV.parse(text))))


def _render(text: str, variables: dict[str, Any], memo: dict[str, str]) -> str:
    """Fill one template, reusing the text for variables already seen (a judge's system prompt
    reads only its criteria, the same for thousands of requests)."""
    values = [variables.get(name) for name in _variables(text)]
    if not _plain(values):  # a repr that may not tell two values apart: no memo
        return _template(text).render(**variables).strip()
    key = repr(values)
    done = memo.get(key)
    if done is None:
        done = _template(text).render(**variables).strip()
        if len(memo) < 1024:
            memo[key] = done
    return done


def _plain(value: Any) -> bool:
    """Whether ``repr`` of the value is its content (text, numbers, lists and dicts of them)."""
    if value is None or isinstance(value, (str, int, float)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt filled in: the two messages sent."""

    system: str
    user: str


@dataclass(frozen=True)
class Prompt:
    """A judge's prompt templates and their hash.

    Examples
    --------
    >>> p = Prompt(system="Judge {{ criterion }}.", user="Q: {{ question }}")
    >>> p.render(criterion="relevance", question="Why?")
    RenderedPrompt(system='Judge relevance.', user='Q: Why?')
    >>> len(p.sha256)
    64
    """

    system: str
    """The system message template."""
    user: str
    """The user message template."""
    sha256: str = field(default="")
    """SHA-256 (hex) of the two templates; computed when not given."""
    _memo: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.sha256:
            digest = hashlib.sha256(f"{self.system}\x00{self.user}".encode()).hexdigest()
            object.__setattr__(self, "sha256", digest)

    def render(self, **variables: Any) -> RenderedPrompt:
        """Fill both templates; a variable they use and ``variables`` lacks raises ``ConfigError``."""
        try:
            return RenderedPrompt(
                system=_render(self.system, variables, self._memo),
                user=_template(self.user).render(**variables).strip(),
            )
        except jinja2.TemplateError as exc:
            raise ConfigError(f"prompt template: {exc}") from None


def load_prompt(name: str, override: str | Path | None = None) -> Prompt:
    """Read a judge's prompt: the packaged ``prompts/<name>/``, or the folder ``override``.

    An override folder may hold one or both of ``system.md`` and ``user.md``; a file it
    lacks is taken from the package.

    Raises
    ------
    ConfigError
        No packaged prompt of that name, or an override folder that does not exist.

    Examples
    --------
    >>> p = load_prompt("pairwise")
    >>> "{{ question }}" in p.user, p.sha256 == load_prompt("pairwise").sha256
    (True, True)
    """
    package = resources.files("assay.judge") / "prompts" / name
    texts: dict[str, str] = {}
    for part in _PARTS:
        resource = package / part
        if resource.is_file():
            texts[part] = resource.read_text(encoding="utf-8")
    if override is not None:
        folder = Path(override)
        if not folder.is_dir():
            raise ConfigError(
                f"prompt: {folder} is not a folder (expected one with system.md and/or user.md)"
            )
        for part in _PARTS:
            if (folder / part).is_file():
                texts[part] = (folder / part).read_text(encoding="utf-8")
    missing = [p for p in _PARTS if p not in texts]
    if missing:
        raise ConfigError(
            f"prompt {name!r}: no {' or '.join(missing)} (packaged prompts are in assay/judge/prompts/)"
        )
    return Prompt(system=texts["system.md"], user=texts["user.md"])
