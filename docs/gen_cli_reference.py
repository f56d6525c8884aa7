"""Write ``docs/cli.md``, the command-line reference, from the typer app itself.

Run from the repository root after changing a command or an option::

    python docs/gen_cli_reference.py

``tests/docs/test_docs.py`` fails while the committed page differs from what this prints,
so the reference cannot drift from the program.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

OUT = Path(__file__).resolve().parent / "cli.md"


def _cell(text: object) -> str:
    """Text for one cell of a markdown table: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _command(ctx: Any, name: str, command: Any) -> list[str]:
    """The section of one command (and of its sub-commands), as its ``--help`` gives it."""
    path = f"{ctx.command_path} {name}".strip()
    sub = command.context_class(command, info_name=name, parent=ctx)
    lines = [f"## `{path}`", ""]
    for paragraph in (command.help or "").split("\n\n"):
        if paragraph.lstrip().startswith("\b"):  # click's "keep these lines as they are"
            kept = paragraph.lstrip()[1:].strip("\n").splitlines()
            lines += ["```text", *(k.rstrip() for k in kept), "```", ""]
        elif paragraph.strip():
            lines += [" ".join(paragraph.split()), ""]
    usage = " ".join(command.collect_usage_pieces(sub))
    lines += ["```text", f"{path} {usage}".rstrip(), "```", ""]
    records = [p.get_help_record(sub) for p in command.params if not p.hidden]
    records = [r for r in records if r is not None]
    if records:
        lines += ["| argument or option | meaning |", "| --- | --- |"]
        lines += [f"| `{_cell(names)}` | {_cell(meaning)} |" for names, meaning in records]
        lines.append("")
    for sub_name, sub_command in getattr(command, "commands", {}).items():  # a group
        lines += _command(sub, sub_name, sub_command)
    return lines


def cli_reference() -> str:
    """The markdown of the command-line reference."""
    from assay.cli import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="assay")
    lines = ["# Command line", "",
             "Every `assay` command with its arguments and options, as `assay COMMAND --help` "
             "shows them. This page is generated from the program (`python "
             "docs/gen_cli_reference.py`); a test keeps it current.", ""]
    for name, command in root.commands.items():
        lines += _command(ctx, name, command)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    OUT.write_text(cli_reference(), encoding="utf-8")
    print(OUT, file=sys.stderr)
