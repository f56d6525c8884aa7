"""The ``assay`` typer app, the options several commands share, and :func:`main`.

Each command lives in its own module of :mod:`assay.cli` and registers itself on
:data:`app`. Every error a user can cause prints one clear message and exits with status 2; no
traceback is shown (set ``ASSAY_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

import typer
from typer import core as _typer_core

from assay.cli._startup import Group, command_of, runtime_param
from assay.errors import AssayError, ConfigError, StorageError, did_you_mean, storage_error

if TYPE_CHECKING:
    from rich.console import Console

# Usage lines and help rows in the words of the command line's conventions: typer writes a
# required argument as ``{files}...`` and a type as ``<list[Path]>``; here they read as in most
# Unix tools (``assay validate [OPTIONS] FILES...``, ``--out PATH``, ``--kind TEXT``; an
# option's own metavar still wins). Display only, never parsing.
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


def _install_usage() -> None:
    """Make typer's usage lines and help rows read as described in the module docstring, and
    its coercion of option values skip pydantic for plain values
    (:func:`~assay.cli._startup.runtime_param`)."""
    _typer_core.TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign]
    _typer_core.TyperArgument._rich_display_name = _argument_name  # type: ignore[method-assign]
    _typer_core.TyperArgument.display_type_rich = _argument_row  # type: ignore[method-assign]
    _typer_core.TyperOption.display_type = _option_value  # type: ignore[method-assign]
    _typer_core._TyperParameter.get_runtime_param = runtime_param  # type: ignore[method-assign]


_install_usage()


app = typer.Typer(
    name="assay",
    help="Evaluate LLM systems with LLM judges and read the results with honest statistics.\n\n"
    "Every command has -h/--help with an example. Also: python -m assay.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=Group,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def command() -> Any:
    """The click group of :data:`app`, each command converted on first use
    (:func:`~assay.cli._startup.command_of`)."""
    return command_of(app)


def _print_version(value: bool) -> None:
    if value:
        from assay._version import __version__

        print(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", "-V", callback=_print_version, is_eager=True,
        help="Print assay's version and exit.")] = False,
) -> None:
    """Evaluate LLM systems with LLM judges and read the results with honest statistics.

    Every command has -h/--help with an example. Also: python -m assay.
    """


def _console_class() -> type[Console]:
    from rich.console import Console

    class _Console(Console):
        """A rich console that writes control characters from data as escapes: an arm, a judge
        or a model's text holding an ESC sequence or a NUL must not drive the user's terminal."""

        def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
            from assay.data.cells import visible

            super().print(*(visible(o) if isinstance(o, str) else o for o in objects), **kwargs)

    return _Console


class _LazyConsole:
    """A rich console (see ``_Console``) made when first used: importing rich's console
    takes some 40 ms that ``assay --help`` and the commands' imports need not pay. Every
    attribute, and ``with``, go to the console."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    @property
    def real(self) -> Console:
        """The rich console itself."""
        if self._console is None:
            self._console = _console_class()(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def __enter__(self) -> Console:
        return self.real.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.real.__exit__(*exc)


console: Console = _LazyConsole()  # type: ignore[assignment]
err_console: Console = _LazyConsole(stderr=True)  # type: ignore[assignment]

MapOption = Annotated[list[str] | None, typer.Option(
    "--map", help="Rename columns: SOURCE=COLUMN[,SOURCE=COLUMN...]; COLUMN '-' drops SOURCE; "
    "SOURCE may name a field inside a JSON object (scores.quality=score). For every importer "
    "but inspect: the records' fields (question_id=uid).")]
SetOption = Annotated[list[str] | None, typer.Option(
    "--set", help="Fill columns the file lacks with one value each: COLUMN=VALUE[,COLUMN=VALUE...] "
    "(e.g. judge=gpt-4o,criterion=quality). For the arena-hard, mt-bench, judgebench and "
    "lm-eval importers: fields the records lack (baseline=gpt-4-0314).")]
MissingOption = Annotated[list[str] | None, typer.Option(
    "--missing", help="Values that mean 'no value' in a column: COLUMN=VALUE[,VALUE...] (table "
    "files). A score declared missing (MT-Bench's -1: score=-1) makes its row a failed judgment "
    "(failure_kind declared_missing) instead of a score.")]
ScaleOption = Annotated[list[str] | None, typer.Option(
    "--scale", help="Declare a criterion's scale: CRITERION=interval|binary|range:MIN,MAX|"
    "ordinal:L1,L2,...|nominal:L1,L2,... (ordinal levels from lowest to highest). A criterion "
    "not declared is read from its scores, with a note: true/false or only 0 and 1 as binary, "
    "other numbers on their own scale.")]


def parse_formats(text: str, allowed: tuple[str, ...]) -> list[str]:
    """``--format a,b``: the formats asked for, in any case, each one of ``allowed``."""
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    for fmt in formats:
        if fmt not in allowed:
            raise ConfigError(f"--format {fmt!r}: expected a comma-separated list of "
                              f"{', '.join(allowed)}{did_you_mean(fmt, allowed)}")
    if not formats:
        raise ConfigError(f"--format {text!r}: expected a comma-separated list of "
                          f"{', '.join(allowed)}")
    return formats


def _scales(options: list[str] | None) -> dict:
    from assay.data.schema import parse_scale_option

    scales = {}
    for option in options or []:
        try:
            name, scale = parse_scale_option(option)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        scales[name] = scale
    return scales


def _mapping(options: list[str] | None, *, fields: bool = False) -> dict[str, str]:
    from assay.data.options import parse_mapping

    try:
        return parse_mapping(options, fields=fields)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _missing(options: list[str] | None) -> dict[str, tuple[str, ...]]:
    from assay.data.options import parse_missing

    try:
        return parse_missing(options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _sources(paths: list[Path]) -> list[Path]:
    """The input paths, refusing one that is an option's value gone astray (``--map a=b c=d``
    reads ``c=d`` as a file)."""
    for path in paths:
        if "=" in path.name and not path.exists():
            raise ConfigError(f"{path}: no such file; it looks like an option's value: write "
                              "several values after one option with commas and no space "
                              "(--map a=b,c=d) or repeat the option (--map a=b --map c=d)")
    return paths


def _check_scales_used(judgments: Any, scales: dict[str, Any]) -> None:
    """A ``--scale`` for a criterion the data lack is a mistake (a typo), not a no-op."""
    unused = sorted(set(scales) - {str(c) for c in judgments.criteria})
    if unused:
        criteria = [str(c) for c in judgments.criteria]
        raise ConfigError(f"--scale {unused[0]}=...: no criterion {unused[0]!r} in the data "
                          f"(criteria: {', '.join(criteria)}){did_you_mean(unused[0], criteria)}")


def load_inputs(files: list[Path], map_: list[str] | None, set_: list[str] | None,
                scale: list[str] | None, missing: list[str] | None) -> Any:
    """The judgments of the input files with the table options applied and checked."""
    from assay.data.io import load_many

    scales = _scales(scale)
    judgments = load_many(_sources(files), mapping=_mapping(map_), constants=_constants(set_),
                          scales=scales, missing=_missing(missing))
    _check_scales_used(judgments, scales)
    return judgments


def _constants(options: list[str] | None, *, fields: bool = False) -> dict[str, str]:
    from assay.data.options import parse_assignments

    try:
        return parse_assignments(options, fields=fields)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _out_argument(args: list[str]) -> str | None:
    """The value of ``--out``/``-o`` on the command line, if any."""
    for i, arg in enumerate(args):
        if arg in ("--out", "-o") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--out="):
            return arg.split("=", 1)[1]
    return None


RESUMES = ("judge",)
"""Commands that store what they did as they go: a rerun after a full disk resumes them."""


def check_out_file(out: Path) -> None:
    """Refuse an output file path that cannot be written before any work is done: a folder, a
    path under a file, or a folder that cannot be created or written."""
    from assay.data.table import file_format

    file_format(out)
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder; give a file name such as {out}/table.parquet")
    check_out_folder(out.parent, shown=out)


def check_out_folder(folder: Path, *, shown: Path | None = None) -> None:
    """Refuse an output folder that is a file, or that cannot be created or written to."""
    for parent in [folder, *folder.parents]:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"--out {shown or folder}: {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise StorageError(str(parent), "permission denied: cannot write into this folder")
            break


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` console script.

    Errors a user (or the machine) causes print one line and exit 2: every
    :class:`~assay.errors.AssayError`, and every ``OSError`` (permission denied, read-only
    file system, disk full, a folder where a file was expected...) named with its file.
    """
    args = sys.argv[1:] if argv is None else argv
    try:
        # standalone mode: typer prints usage errors itself and exits 2 (SystemExit passes)
        command()(args=argv, prog_name="assay")
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
    except Exception as exc:
        error = user_error(exc, args)
        if error is None:
            if os.environ.get("ASSAY_DEBUG"):
                raise
            err_console.print(f"internal error: {type(exc).__name__}: {exc} "
                              "(set ASSAY_DEBUG=1 for the traceback, and please report it)",
                              markup=False, highlight=False, soft_wrap=True)
            sys.exit(1)
        # a lone surrogate from a file is shown as its escape, never a UnicodeEncodeError here
        error = error.encode("utf-8", "backslashreplace").decode("utf-8")
        err_console.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)


def user_error(exc: BaseException, args: list[str]) -> str | None:
    """The one-line message of an error the user or the machine caused, or None for a bug.

    An :class:`~assay.errors.AssayError`; an ``OSError`` (permission denied, read-only file
    system, disk full...), also one a library wrapped in its own exception (xlsxwriter's
    FileCreateError), named with its file or else with the ``--out`` asked for. A full disk
    during a command that stores as it goes says that a rerun resumes.
    """
    if isinstance(exc, AssayError):
        error: AssayError = exc
    else:
        cause: BaseException | None = exc
        while cause is not None and not isinstance(cause, OSError):
            cause = cause.__cause__ or cause.__context__
        if not isinstance(cause, OSError):
            return None
        # an error while writing (a full disk) names no file: name the output asked for
        error = storage_error(cause, None if cause.filename is not None else _out_argument(args))
    message = str(error)
    if isinstance(error, StorageError) and error.disk_full and args[:1] and args[0] in RESUMES:
        message += ("; the judgments stored so far are kept: free some space and rerun the "
                    "same command to resume")
    return message
