"""The one rule for jinja2 templates: every environment is a sandbox, and a template that
tries to leave it is refused when it is read, before anything is rendered or sent.

A prompt folder is shared between colleagues like a config, so its templates are hostile
input: in a plain ``jinja2.Environment``, ``{{ cycler.__init__.__globals__.os.system("id") }}``
runs a command. :func:`sandbox` makes every environment of the package (the judges' prompts,
the HTML report pages) an ``ImmutableSandboxedEnvironment`` with ``StrictUndefined``:
attributes whose names start with ``_``, the internals of functions, frames and generators
(``mro``, ``gi_frame``, ...), the fields of ``str.format`` strings, and methods that change a
list or dict the judge passed are refused while rendering (``jinja2.sandbox.SecurityError``).

:func:`template_refusal` finds such attempts when a template is read, so ``assay describe``
and ``assay judge --dry-run`` refuse it too, naming the line. It checks the template's
syntax tree (below) and then renders it once in the sandbox with a stand-in for every
variable, which catches names built at render time (``x["__cl" ~ "ass__"]``); any other error
of that trial is left to the real render, which reports it with the judge's values. The
syntax tree is refused where it

- reads an attribute or a literal key that the sandbox refuses (``x.__class__``,
  ``x["__globals__"]``, ``{% set ns.__dict__ = 1 %}``, ``type.mro``);
- passes such a name as a literal to a filter or test (``x|attr("__class__")``,
  ``x|map("attr", "__init__")``, ``x|selectattr("__class__")``, ``x|sort(attribute="a.__b")``),
  or gives ``attr`` a name computed at render time;
- reads an attribute or key of jinja2's own objects (``cycler``, ``joiner``, ``lipsum``,
  ``namespace``, ``range``, ``dict``, ``self``);
- formats with ``str.format`` or ``format_map`` a string computed at render time, or a literal
  whose fields reach a refused name (``"{0.__class__}".format(x)``);
- calls a method that changes a value (``x.append(1)``, ``x.update(...)``).
"""

from __future__ import annotations

import functools
import re
import string
import traceback
from collections.abc import Iterator
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment, SecurityError

__all__ = ["sandbox", "template_line", "template_refusal"]

_INTERNAL = frozenset({
    "mro", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
    "ag_code", "ag_await", "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame",
    "tb_next", "func_globals", "func_code",
})
"""Attribute names without a leading ``_`` that still reach Python's internals."""
_JINJA_OBJECTS = frozenset({"cycler", "joiner", "lipsum", "namespace", "range", "dict", "self"})
"""Names of jinja2's own objects, whose attributes a template has no reason to read."""
_CHANGERS = frozenset({
    "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
    "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
    "sort", "reverse",
})
"""Methods that change a list, dict or set (the immutable sandbox refuses them)."""
_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


class _Sandbox(ImmutableSandboxedEnvironment):
    """jinja2's immutable sandbox, with the check for methods that change a value skipped for
    attributes that are not callable (reading a value cannot change it): the same refusals,
    and a prompt renders as fast as in a plain environment (226 -> 131 us for pairwise's
    user.md), where jinja2 tests every attribute read against four abstract classes."""

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if not callable(value):
            return SandboxedEnvironment.is_safe_attribute(self, obj, attr, value)
        return super().is_safe_attribute(obj, attr, value)


def sandbox(**options: Any) -> ImmutableSandboxedEnvironment:
    """A jinja2 environment for the package: sandboxed, and a missing variable is an error.

    ``options`` are jinja2's (``autoescape``, ``keep_trailing_newline``, ``loader``, ...);
    ``undefined`` is always ``StrictUndefined``.

    >>> sandbox().from_string("{{ x.__class__ }}").render(x=1)
    Traceback (most recent call last):
    ...
    jinja2.exceptions.SecurityError: access to attribute '__class__' of 'int' object is unsafe.
    """
    return _Sandbox(undefined=jinja2.StrictUndefined, **options)


def _unsafe(name: str) -> bool:
    """Whether the sandbox refuses an attribute of this name (``_x``, ``__class__``, ``mro``)."""
    return (name.startswith("_") and name.strip("_") != "") or name in _INTERNAL


def _unsafe_path(text: str) -> bool:
    """Whether a literal reads as a name or dotted path with a refused part (``a.__b``)."""
    return bool(_PATH.fullmatch(text)) and any(_unsafe(part) for part in text.split("."))


def _format_fields(text: str) -> Iterator[str]:
    """The attribute and key names that the fields of a ``str.format`` string read."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return
    for _, field, spec, _ in parsed:
        for part in (field, spec):
            if part:
                yield from re.findall(r"[.\[]\s*([^.\[\]]+)", part)
                yield from _format_fields(part) if "{" in part else ()


def _literals(node: nodes.Filter | nodes.Test) -> Iterator[nodes.Const]:
    """The string literals given to a filter or test (positional, keyword, ``*``/``**``)."""
    parts = [*node.args, *(k.value for k in node.kwargs), node.dyn_args, node.dyn_kwargs]
    for part in parts:
        if part is None:
            continue
        if isinstance(part, nodes.Const):
            if isinstance(part.value, str):
                yield part
        else:
            yield from (c for c in part.find_all(nodes.Const) if isinstance(c.value, str))


def _static_refusal(tree: nodes.Template) -> tuple[int, str] | None:
    """The first construct of the syntax tree that reaches outside the sandbox: (line, reason)."""
    found: list[tuple[int, int, int, str]] = []
    for order, node in enumerate(tree.find_all((nodes.Getattr, nodes.Getitem, nodes.NSRef, nodes.Filter,
                                                nodes.Test, nodes.Call))):
        # the tree lists a chain a.b.c from its end: the last node found is the first written
        found.extend((line, rank, -order, reason) for line, rank, reason in _refusals(node))
    if not found:
        return None
    line, _, _, reason = min(found)  # the first line; on it, the most telling reason
    return line, reason


def _refusals(node: nodes.Node) -> Iterator[tuple[int, int, str]]:
    """(line, rank, reason) of each refused construct of ``node``; rank orders the reasons of one line."""
    line = node.lineno
    if isinstance(node, (nodes.Getattr, nodes.NSRef)) and _unsafe(node.attr):
        yield line, 0, f"the attribute {node.attr!r} is outside what a template may read"
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) \
            and isinstance(node.arg.value, str) and _unsafe(node.arg.value):
        yield line, 0, f"the key {node.arg.value!r} is outside what a template may read"
    if isinstance(node, (nodes.Getattr, nodes.Getitem)) and isinstance(node.node, nodes.Name) \
            and node.node.name in _JINJA_OBJECTS:
        yield line, 4, f"{node.node.name!r} is jinja2's own object: a template may not read into it"
    if isinstance(node, (nodes.Filter, nodes.Test)):
        for const in _literals(node):
            if _unsafe_path(const.value):
                yield line, 1, f"{const.value!r} given to {node.name!r} is outside what a template may read"
        if isinstance(node, nodes.Filter) and node.name == "attr" and (
                node.dyn_args is not None or not node.args or not isinstance(node.args[0], nodes.Const)):
            yield line, 2, "'attr' with a name computed while rendering: write the attribute's name"
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr):
        yield from _method_refusals(line, node.node.attr, node.node.node)


def _method_refusals(line: int, method: str, receiver: nodes.Expr) -> Iterator[tuple[int, int, str]]:
    """(line, rank, reason) of a call ``receiver.method(...)`` the sandbox refuses."""
    if method in ("format", "format_map"):
        if not (isinstance(receiver, nodes.Const) and isinstance(receiver.value, str)):
            yield line, 3, f"str.{method} on text computed while rendering: use the 'format' filter"
        else:
            for name in (n.strip() for n in _format_fields(receiver.value)):
                if _unsafe(name):
                    yield line, 1, f"the format field reading {name!r} is outside what a template may read"
    if method in _CHANGERS:
        yield line, 5, f"{method!r} would change a value the template was given"


class _StandIn:
    """A variable's stand-in in the trial render: any attribute, key, call or item is another."""

    def __getattr__(self, name: str) -> _StandIn:
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key: object) -> _StandIn:
        if isinstance(key, str) and _unsafe(key):
            raise KeyError(key)  # the sandbox then tries the attribute, and refuses it
        return self

    def __call__(self, *args: object, **kwargs: object) -> _StandIn:
        return self

    def __iter__(self) -> Iterator[_StandIn]:
        return iter((self,))

    def __len__(self) -> int:
        return 1

    def __str__(self) -> str:
        return "x"


def template_line(exc: BaseException) -> int | None:
    """The template line a jinja2 error was raised on (jinja2 rewrites the traceback so its
    last template frame is the template's line), or None."""
    line = getattr(exc, "lineno", None)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == "<template>":
            line = frame.lineno
    return line


@functools.lru_cache(maxsize=256)
def template_refusal(environment: jinja2.Environment, text: str) -> tuple[int | None, str] | None:
    """Why ``text`` may not be rendered in ``environment`` (a :func:`sandbox`): ``(line, reason)``,
    or None when the template stays inside the sandbox. A syntax error is left to the caller.

    >>> template_refusal(sandbox(), "Q: {{ question }}") is None
    True
    >>> template_refusal(sandbox(), "Q:\\n{{ cycler.__init__.__globals__.os }}")
    (2, "the attribute '__init__' is outside what a template may read")
    """
    try:
        tree = environment.parse(text)
    except jinja2.TemplateSyntaxError:
        return None
    static = _static_refusal(tree)
    if static is not None:
        return static
    from jinja2 import meta

    stand_ins = {name: _StandIn() for name in meta.find_undeclared_variables(tree)}
    try:
        environment.from_string(text).render(**stand_ins)
    except SecurityError as exc:
        return template_line(exc), f"{exc.message or exc}".rstrip(".")
    except Exception:  # only an escape is refused here; the real render reports any other error
        pass
    return None
