"""Prompts as package data: ``assay/judge/prompts/<judge>/system.md`` and ``user.md``.

:func:`load_prompt` reads a judge's two templates (or a folder overriding them) and
returns a :class:`Prompt`; :meth:`Prompt.render` fills them with jinja2 in a sandbox
(``assay._templates``: a template reads only the values the judge fills, and one that
reaches for anything else is refused when it is read; ``StrictUndefined``: a missing
variable is an error, never an empty string; no autoescape: the text is not HTML). The
prompt's ``sha256`` enters the judgment keys and ``metric_version``, so editing a prompt
re-asks exactly the judgments it affects.

Placeholders of other syntaxes are refused when a prompt is read
(:func:`check_placeholders`): a prompt written for BenchmarkQED (``string.Template``:
``$question``, ``${answer1}``) or for ``str.format`` (``{question}``) would otherwise be
sent with its placeholders as text, every judgment of a criterion would get the same
prompt and the response cache would answer them all with one reply. The error names
the file, the line and the placeholder, and the jinja2 variable to write instead when
the judge fills one of that name. Text meant literally goes in
``{% raw %}...{% endraw %}``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.sandbox import SecurityError

from assay._templates import sandbox, template_line, template_refusal
from assay.errors import ConfigError

_ENV = sandbox(autoescape=False, keep_trailing_newline=False)
_VERBATIM_ENV = sandbox(autoescape=False, keep_trailing_newline=True)
"""The environment of a message named in a folder's ``verbatim`` file: sent as rendered."""
_PARTS = ("system.md", "user.md")
_ROLES = ("system", "user")
_PLACEHOLDER = re.compile(r"\$\$|\$\{(\w+)\}|\$([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\}")


@functools.lru_cache(maxsize=256)
def _template(text: str) -> jinja2.Template:
    """A prompt's compiled template; compiling costs milliseconds, so each text is compiled once."""
    return _ENV.from_string(text)


@functools.lru_cache(maxsize=256)
def _verbatim_template(text: str) -> jinja2.Template:
    """A verbatim message's compiled template (its final newline kept)."""
    return _VERBATIM_ENV.from_string(text)


def render_message(text: str, variables: Mapping[str, Any], verbatim: bool) -> str:
    """One message: rendered and stripped, or (``verbatim``) exactly as rendered."""
    if verbatim:
        return _verbatim_template(text).render(**variables)
    return _template(text).render(**variables).strip()


def prompt_digest(system: str, user: str, verbatim: frozenset[str] = frozenset()) -> str:
    """SHA-256 (hex) of a prompt's two templates, and of its verbatim messages when any."""
    text = f"{system}\x00{user}"
    if verbatim:
        text += "\x00verbatim:" + ",".join(sorted(verbatim))
    return hashlib.sha256(text.encode()).hexdigest()


def read_verbatim(folder: str | Path | None) -> frozenset[str]:
    """The messages a prompt folder's ``verbatim`` file names (``system``, ``user``; lines,
    ``#`` comments): sent exactly as rendered, not stripped, the template's final newline
    kept. A converted BenchmarkQED prompt has one, as BenchmarkQED strips only some messages.

    Raises
    ------
    ConfigError
        A line that names neither message.
    """
    if folder is None or not (Path(folder) / "verbatim").is_file():
        return frozenset()
    path = Path(folder) / "verbatim"
    names = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    names = [n for n in names if n]
    bad = [n for n in names if n not in _ROLES]
    if bad:
        raise ConfigError(f"prompt {path}: {bad[0]!r} is not a message (system, user)")
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _variables(text: str) -> tuple[str, ...]:
    """The variables a template reads, sorted (jinja2.meta on its syntax tree)."""
    from jinja2 import meta

    return tuple(sorted(meta.find_undeclared_variables(_ENV.parse(text))))


_SLOT_TOKEN = secrets.token_hex(16)
_SLOT = re.compile(f"\x00{_SLOT_TOKEN}:([0-9]+)\x00")
_SLOT_STATEMENTS = (nodes.Output, nodes.If, nodes.For, nodes.Assign, nodes.Break, nodes.Continue)
"""The statements a template with slots may hold: none that captures, filters or escapes
what it prints (``{% filter %}``, ``{% set x %}...{% endset %}``, macros, ``{% autoescape %}``),
nor one that reads another template."""


@functools.lru_cache(maxsize=256)
def _slots(text: str) -> tuple[str, ...]:
    """The variables a template only prints as they are: every use is a ``{{ name }}`` of its
    own (no filter, attribute or test, never in a condition or a loop, never assigned), in a
    template of :data:`_SLOT_STATEMENTS` only. Their text goes into the output unchanged
    (``str`` of the value, no autoescape), so the rest of the output does not depend on them."""
    tree = _ENV.parse(text)
    if any(not isinstance(node, _SLOT_STATEMENTS) for node in tree.find_all(nodes.Stmt)):
        return ()
    printed = {id(child) for output in tree.find_all(nodes.Output) for child in output.nodes
               if isinstance(child, nodes.Name) and child.ctx == "load"}
    names = {node.name for node in tree.find_all(nodes.Name) if id(node) in printed}
    for node in tree.find_all(nodes.Name):
        if id(node) not in printed:
            names.discard(node.name)
    return tuple(sorted(names.intersection(_variables(text))))


def _render(text: str, variables: dict[str, Any], memo: dict[tuple[str, str], list[str | int]]) -> str:
    """Fill one template, reusing its text for the variables already seen: its output with
    each slot (:func:`_slots`: the question and answers of a judge's user prompt) left as a
    marker is kept per value of the other variables (the criteria, the same for thousands of
    requests), and the slots' text is put in. The result is the template's output exactly:
    only text values fill a slot, and a template or value the memo cannot tell apart (a value
    whose ``repr`` is not its content, a variable not given) is rendered whole."""
    slots = _slots(text)
    names = _variables(text)
    values = [variables.get(name) for name in slots]
    fixed = [variables.get(name) for name in names if name not in slots]
    if (any(type(v) is not str for v in values) or not _plain(fixed)
            or any(name not in variables for name in names)):
        return _template(text).render(**variables).strip()
    key = (text, repr(fixed))
    pieces = memo.get(key)
    if pieces is None:
        marked = {**variables, **{name: f"\x00{_SLOT_TOKEN}:{n}\x00" for n, name in enumerate(slots)}}
        parts: list[str | int] = _SLOT.split(_template(text).render(**marked))
        for n in range(1, len(parts), 2):
            parts[n] = int(parts[n])
        pieces = parts
        if len(memo) < 1024:
            memo[key] = pieces
    out = [values[p] if type(p) is int else p for p in pieces]
    return "".join(out).strip()  # type: ignore[arg-type]


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
    sources: tuple[str, str] = field(default=("system.md", "user.md"), repr=False, compare=False)
    """Where the two templates were read (named in errors)."""
    verbatim: frozenset[str] = field(default=frozenset(), repr=False)
    """The messages sent exactly as rendered (:func:`read_verbatim`); the others are stripped."""
    _memo: dict[tuple[str, str], list[str | int]] = field(default_factory=dict, init=False, repr=False,
                                                          compare=False)

    def __post_init__(self) -> None:
        check_sandboxed(self.system, self.sources[0])
        check_sandboxed(self.user, self.sources[1])
        if not self.sha256:
            object.__setattr__(self, "sha256", prompt_digest(self.system, self.user, self.verbatim))

    def render(self, **variables: Any) -> RenderedPrompt:
        """Fill both templates; a variable they use and ``variables`` lacks raises ``ConfigError``."""
        with render_errors(self.sources[0], variables):
            system = (render_message(self.system, variables, True) if "system" in self.verbatim
                      else _render(self.system, variables, self._memo))
        with render_errors(self.sources[1], variables):
            user = (render_message(self.user, variables, True) if "user" in self.verbatim
                    else _render(self.user, variables, self._memo))
        return RenderedPrompt(system=system, user=user)


@contextlib.contextmanager
def render_errors(source: str, variables: Mapping[str, Any]) -> Iterator[None]:
    """Turn a jinja2 error while filling the template read from ``source`` into a
    :class:`~assay.errors.ConfigError` naming the file and the variables the judge fills."""
    try:
        yield
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"prompt {source}: {exc.message}: this judge fills "
                          f"{', '.join(sorted(variables)) or 'no variables'}") from None
    except SecurityError as exc:
        raise ConfigError(f"prompt {source}, line {template_line(exc)}: {exc.message}") from None
    except jinja2.TemplateError as exc:
        raise ConfigError(f"prompt {source}: {exc}") from None


def check_placeholders(text: str, source: str, known: Iterable[str] = ()) -> None:
    """Refuse a template with placeholders jinja2 does not fill; check its jinja2 syntax and
    that it stays in the sandbox (:func:`check_sandboxed`).

    Looks in the template's literal text (outside ``{{ }}``, ``{% %}``, comments and
    ``{% raw %}`` blocks) for ``${name}`` and ``$name`` (``string.Template``, as BenchmarkQED
    writes them) and ``{name}`` (``str.format``); ``$$`` is left alone.

    Parameters
    ----------
    text
        The template.
    source
        Where it was read (named in the error).
    known
        The variables the judge fills (suggested in the error when one matches).

    Raises
    ------
    ConfigError
        Naming the file, the line and the placeholder.

    Examples
    --------
    >>> check_placeholders("Q: {{ question }}\\n{% raw %}$literal{% endraw %} costs $$5", "user.md")
    >>> try:
    ...     check_placeholders("Question:\\n${question}", "qed/user.md", known=["question"])
    ... except ConfigError as exc:
    ...     print(str(exc).replace(": ", ":\\n"))
    prompt qed/user.md, line 2:
    ${question} is not a jinja2 placeholder and would be sent as text:
    write {{ question }}
    """
    try:
        tokens = list(_ENV.lex(text))
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"prompt {source}, line {exc.lineno}: {exc.message}") from None
    known = set(known)
    raw = False
    for lineno, kind, value in tokens:
        if kind in ("raw_begin", "raw_end"):
            raw = kind == "raw_begin"
            continue
        if kind != "data" or raw:
            continue
        for match in _PLACEHOLDER.finditer(value):
            name = next((g for g in match.groups() if g), None)
            if name is None:  # $$
                continue
            line = lineno + value.count("\n", 0, match.start())
            hint = (f"write {{{{ {name} }}}}" if name in known else
                    "prompts are jinja2 templates: write {{ variable }} with a variable this judge fills"
                    + (f" ({', '.join(sorted(known))})" if known else ""))
            raise ConfigError(f"prompt {source}, line {line}: {match.group(0)} is not a jinja2 placeholder "
                              f"and would be sent as text: {hint}")
    try:
        _ENV.parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"prompt {source}, line {exc.lineno}: {exc.message}") from None
    check_sandboxed(text, source)


def check_sandboxed(text: str, source: str, environment: jinja2.Environment = _ENV) -> None:
    """Refuse a template that reaches outside the values it is given (``assay._templates``).

    Raises
    ------
    ConfigError
        Naming the file, the line and what the template reached for.

    Examples
    --------
    >>> try:
    ...     check_sandboxed("Q: {{ question }}\\n{{ cycler.__init__.__globals__ }}", "p/user.md")
    ... except ConfigError as exc:
    ...     print(str(exc).replace("; ", ";\\n"))
    prompt p/user.md, line 2: the attribute '__init__' is outside what a template may read;
    a prompt may read only the values the judge fills ({{ question }}, ...), so it is refused
    """
    refusal = template_refusal(environment, text)
    if refusal is not None:
        line, reason = refusal
        raise ConfigError(f"prompt {source}, line {line}: {reason}; a prompt may read only the values "
                          "the judge fills ({{ question }}, ...), so it is refused")


def template_variables(text: str) -> set[str]:
    """The variables a template reads (those a judge fills, for a packaged prompt)."""
    return set(_variables(text))


def prompt_texts(name: str, override: str | Path | None = None) -> tuple[tuple[str, str], tuple[str, str]]:
    """``((system, source), (user, source))``: the texts of a judge's prompt, each checked.

    The packaged ``prompts/<name>/``, with the files the folder ``override`` holds laid
    over it; every text is checked (:func:`check_placeholders`, with the packaged
    prompt's variables as the ones the judge fills).

    Raises
    ------
    ConfigError
        No packaged prompt of that name, an override folder that does not exist, or a
        template :func:`check_placeholders` refuses.
    """
    package = resources.files("assay.judge") / "prompts" / name
    texts: dict[str, tuple[str, str]] = {}
    for part in _PARTS:
        resource = package / part
        if resource.is_file():
            texts[part] = (resource.read_text(encoding="utf-8"), f"assay/judge/prompts/{name}/{part}")
    known = set().union(*(template_variables(text) for text, _ in texts.values()))
    if override is not None:
        folder = Path(override)
        if not folder.is_dir():
            raise ConfigError(
                f"prompt: {folder} is not a folder (expected one with system.md and/or user.md)"
            )
        for part in _PARTS:
            if (folder / part).is_file():
                try:
                    texts[part] = ((folder / part).read_text(encoding="utf-8"), str(folder / part))
                except (OSError, UnicodeDecodeError) as exc:
                    raise ConfigError(f"prompt {folder / part}: cannot read it ({exc})") from None
    missing = [p for p in _PARTS if p not in texts]
    if missing:
        raise ConfigError(
            f"prompt {name!r}: no {' or '.join(missing)} (packaged prompts are in assay/judge/prompts/)"
        )
    for text, source in texts.values():
        check_placeholders(text, source, known)
    return texts["system.md"], texts["user.md"]


def load_prompt(name: str, override: str | Path | None = None) -> Prompt:
    """Read a judge's prompt: the packaged ``prompts/<name>/``, or the folder ``override``.

    An override folder may hold one or both of ``system.md`` and ``user.md``; a file it
    lacks is taken from the package.

    Raises
    ------
    ConfigError
        No packaged prompt of that name, an override folder that does not exist, or a
        placeholder jinja2 would not fill (:func:`check_placeholders`).

    Examples
    --------
    >>> p = load_prompt("pairwise")
    >>> "{{ question }}" in p.user, p.sha256 == load_prompt("pairwise").sha256
    (True, True)
    """
    (system, system_source), (user, user_source) = prompt_texts(name, override)
    return Prompt(system=system, user=user, sources=(system_source, user_source),
                  verbatim=read_verbatim(override))
