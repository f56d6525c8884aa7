"""The command line's start on typer, made fast without changing what it shows or does.

Typer, before running one command, converts every command of the app (reading each
function's signature and evaluating its annotations: 40-80 ms for assay's), and coerces
each option value of the command run through a pydantic ``TypeAdapter`` (importing
pydantic and building some 35 adapters for ``assay report``: 0.1-0.2 s). Here

- :func:`command_of` gives the app's click group with each command converted when first
  looked up; ``assay --help`` lists the commands from their declarations;
- :func:`runtime_param` coerces the plain values (text, paths, numbers) as pydantic does,
  and leaves every other value to typer, so that its messages stay.

``tests/cli/test_startup.py`` compares both with typer's own results.
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
import typer.main
from typer import _coercion as _typer_coercion
from typer import _param_types as _typer_param_types
from typer import core as _typer_core

_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_DEFER = object()


def _plain_value(annotation: Any, info: Any, value: Any, param: Any = None, ctx: Any = None) -> Any:
    """``value`` as typer's pydantic coercion makes it, for the plain cases; else ``_DEFER``.

    Plain: text to ``str`` (UTF-8 encodable), to ``Path`` (``Path(text)``, as pydantic), to
    ``int`` (``-?[0-9]+`` within the option's min and max) or to ``float``
    (``-?[0-9]+(.[0-9]+)?``); a default of the annotated type; a list of plain items. For
    each of these pydantic's value is the same (``tests/cli/test_startup.py`` compares them);
    anything else, and every value pydantic refuses, is left to typer, whose messages stay.
    """
    if get_origin(annotation) is list:
        if not isinstance(value, (list, tuple)):
            return _DEFER
        items = [_plain_value(get_args(annotation)[0], info, item, param, ctx) for item in value]
        return _DEFER if any(item is _DEFER for item in items) else items
    if info.parser is not None or info.clamp:
        return _DEFER
    if annotation is str and isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _DEFER
        return value
    if annotation is Path and info.path_type is None and isinstance(value, (str, Path)):
        try:  # the path's flags (exists...) are checked as typer checks them
            return _typer_param_types.coerce_cli_path(Path(value), info, path_type=Path,
                                                      param=param, ctx=ctx)
        except Exception:  # typer words it (a NUL byte: in pydantic's words)
            return _DEFER
    if annotation in (int, float) and type(value) is annotation:  # a default (not a bool)
        number = value
    elif annotation is int and isinstance(value, str) and _INTEGER.fullmatch(value):
        number = int(value)
    elif annotation is float and isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = float(value)
    else:
        return _DEFER
    inside = (info.min is None or number >= info.min) and (info.max is None or number <= info.max)
    return number if inside else _DEFER


@dataclass(frozen=True)
class _PlainCoercion(_typer_coercion.RuntimeParam):
    """Typer's coercion of a parameter's value, without building a pydantic adapter for the
    plain values of :func:`_plain_value`.

    Typer coerces every parameter of the command run through a pydantic ``TypeAdapter``:
    importing pydantic and building some 35 adapters for ``assay report`` takes 0.1-0.2 s,
    for values that are text, paths and numbers. Any other value goes to typer's own
    coercion, built when first needed, so its results and error messages are unchanged.
    """

    descriptor: Any = None

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        plain = _plain_value(self.annotation, self.parameter_info, value, param, ctx)
        if plain is not _DEFER:
            return plain
        typer_own = _typer_coercion.build_runtime_param(self.descriptor)
        return typer_own._coerce_value(value, param=param, ctx=ctx)


def runtime_param(self: Any) -> Any:
    """A typer parameter's coercion (``get_runtime_param``): :class:`_PlainCoercion`, or
    typer's own for a file parameter."""
    if self._runtime_param is None:
        descriptor = self.type_descriptor
        if descriptor.file_annotation is None:
            self._runtime_param = _PlainCoercion(
                parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                descriptor=descriptor)
        else:
            self._runtime_param = _typer_coercion.build_runtime_param(descriptor)
    return self._runtime_param


class Commands(MutableMapping[str, Any]):
    """The app's commands by name, each turned from its typer declaration into a click
    command when first looked up.

    Typer converts every command of an app before running one (reading each function's
    signature and evaluating its annotations: 40-80 ms for this app), although a run uses
    one command and ``assay --help`` only each command's name and first help sentence.
    Here a command is converted when looked up, into the same click command typer makes;
    :meth:`summary` gives what the command list of the help shows without converting.
    """

    def __init__(self, declared: dict[str, Any], convert: Any) -> None:
        self._declared = declared  # name -> typer CommandInfo or TyperInfo, in app order
        self._convert = convert
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._made:
            self._made[name] = self._convert(self._declared[name])  # KeyError: no such command
        return self._made[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._declared[name] = None
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        del self._declared[name]
        self._made.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)

    def summary(self, name: str) -> Any:
        """A click command with the name, help, short help, hidden and deprecated flags of
        command ``name`` (all its help listing reads), converted or not."""
        if name in self._made:
            return self._made[name]
        info = self._declared[name]
        if isinstance(info, typer.models.TyperInfo):
            info = typer.main.solve_typer_info_defaults(info)
            text = info.help
        else:
            text = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
        return _typer_core.TyperCommand(name=name, help=text, short_help=info.short_help,
                                        hidden=info.hidden, deprecated=info.deprecated)


class Group(_typer_core.TyperGroup):
    """The ``assay`` group: typer's, listing its commands from :meth:`Commands.summary`."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names only (typer's reads every command)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        if not isinstance(self.commands, Commands):
            return super().format_commands(ctx, formatter)
        commands = [(name, self.commands.summary(name)) for name in self.list_commands(ctx)]
        rows = [(name, command) for name, command in commands if not command.hidden]
        if rows:  # as typer's TyperGroup.format_commands
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit))
                                    for name, command in rows])
        return None


def command_of(app: Any) -> Any:
    """The click group of the typer ``app``, each command converted on first use (see
    :class:`Commands`); the same group and commands as ``typer.main.get_command(app)``."""
    options = {"pretty_exceptions_short": app.pretty_exceptions_short,
               "rich_markup_mode": app.rich_markup_mode}
    declared: dict[str, Any] = {}
    for info in app.registered_commands:
        declared[info.name or typer.main.get_command_name(info.callback.__name__)] = info
    for info in app.registered_groups:
        name = typer.main.solve_typer_info_defaults(info).name
        if not name:  # typer merges a nameless group's commands into the app's: made now
            return typer.main.get_command(app)
        declared[name] = info

    def convert(info: Any) -> Any:
        if isinstance(info, typer.models.TyperInfo):
            return typer.main.get_group_from_info(
                info, suggest_commands=app.suggest_commands, **options)
        return typer.main.get_command_from_info(info, **options)

    root = copy.copy(app)  # the app without its commands: its callback, options, completion
    root.registered_commands, root.registered_groups = [], []
    group = typer.main.get_command(root)
    group.commands = Commands(declared, convert)
    return group
