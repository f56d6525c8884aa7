"""Usage lines and help rows in the words of the command line's own conventions.

typer writes a required argument as ``{files}...`` and a type as ``<list[Path]>``; this
module makes them read as in most Unix tools: ``assay validate [OPTIONS] FILES...``, an
argument's row named ``FILES...``, and an option's value as ``TEXT``, ``INTEGER``,
``NUMBER`` or ``PATH`` (an option's own ``metavar`` still wins). It changes the display
only, never the parsing, and is applied once when :mod:`assay.cli._app` is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args, get_origin

from typer import core

_WORDS = {str: "TEXT", int: "INTEGER", float: "NUMBER", bool: "BOOLEAN", Path: "PATH"}


def _word(annotation: Any) -> str:
    """The word for a parameter's type: ``TEXT``, ``INTEGER``, ``PATH``... (a list: its item)."""
    if get_origin(annotation) is list:
        return _word(get_args(annotation)[0])
    return _WORDS.get(annotation, "VALUE")


def _argument_name(self: Any) -> str:
    name = (self.metavar or self.name or "").upper()
    return name + ("..." if self.nargs != 1 and not name.endswith("...") else "")


def _usage_name(self: Any) -> str:
    name = _argument_name(self)
    return name if self.required else f"[{name}]"


def _argument_row(self: Any, ctx: Any) -> str | None:
    return None  # the row is the argument's name alone (FILES...), as on the usage line


def _option_value(self: Any, ctx: Any) -> str | None:
    if self.metavar is not None:
        return str(self.metavar)
    descriptor = self.type_descriptor
    if descriptor.is_choice:
        return "|".join(str(c) for c in descriptor.choices or ())
    return _word(descriptor.annotation)


def install() -> None:
    """Make typer's usage lines and help rows read as described in the module docstring."""
    core.TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign]
    core.TyperArgument._rich_display_name = _argument_name  # type: ignore[method-assign]
    core.TyperArgument.display_type_rich = _argument_row  # type: ignore[method-assign]
    core.TyperOption.display_type = _option_value  # type: ignore[method-assign]
