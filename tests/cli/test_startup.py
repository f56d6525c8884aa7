"""The command line starts fast without changing what it does (``assay.cli._startup``).

- ``assay --help`` imports no analysis stack, no pydantic, no rich and no report registry;
- the commands made on first use (``command()``) print the same help as typer's own
  conversion of every command;
- the plain coercion of option values gives typer's (pydantic's) value, or leaves the
  value to typer, whose error messages stay.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer import _click
from typer import _coercion as typer_coercion

from assay.cli import app
from assay.cli._app import command
from assay.cli._startup import _DEFER, _plain_value
from tests.cli._subprocess import assay_env

NOT_FOR_HELP = ("numpy", "pandas", "scipy", "pyarrow", "duckdb", "pydantic", "pydantic_core",
                "yaml", "rich", "openai", "httpx", "jinja2", "plotly", "assay.report.kinds",
                "assay.analysis", "assay.data.table", "assay.judge")


def _imported(*args: str) -> set[str]:
    """The modules ``python -X importtime -m assay ARGS`` imports (its stdout discarded)."""
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "assay", *args],
                         capture_output=True, text=True, env=assay_env(), timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    names = {line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    assert "assay.cli._app" in names  # the measure sees assay's own modules
    return names


def test_help_imports_no_analysis_stack_nor_pydantic_rich_or_the_report_registry():
    names = _imported("--help")
    loaded = sorted(n for n in names for heavy in NOT_FOR_HELP
                    if n == heavy or n.startswith(heavy + "."))
    assert loaded == [], loaded


def _help(group, path: list[str]) -> str:
    ctx = _click.Context(group, info_name="assay")
    command_ = group
    for name in path:
        command_ = command_.get_command(ctx, name)
        ctx = _click.Context(command_, info_name=name, parent=ctx)
    return command_.get_help(ctx)


def _paths(group) -> list[list[str]]:
    ctx = _click.Context(group, info_name="assay")
    paths: list[list[str]] = [[]]
    for name in group.list_commands(ctx):
        paths.append([name])
        sub = group.get_command(ctx, name)
        paths += [[name, s] for s in getattr(sub, "commands", {})]
    return paths


def test_the_commands_made_on_first_use_show_typers_help():
    typers = typer.main.get_command(app)
    paths = _paths(typers)
    assert ["cache", "export"] in paths and ["report"] in paths and len(paths) > 18
    for path in paths:
        assert _help(command(), path) == _help(typers, path), path
    lazy = command()
    assert _help(lazy, []) == _help(typers, [])
    assert not lazy.commands._made  # the command list was read without making a command
    assert "Reports and groups (--kind):\nanswer" in _help(lazy, ["report"]).replace("  ", "")


VALUES = ["", "0", "007", "-0", "+5", " 1", "1 ", "1_000", "1e3", "1.0", ".5", "5.", "nan",
          "inf", "-1", "-3", "0.95", "2000", "65536", "12345678901234567890123", "\udcff",
          "a\x00b", "out/dir", "x=y", "gpt-4o"]


def _outcome(runtime, value, param, ctx):
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # the error is what is compared
        return ("error", type(exc).__name__, str(exc))
    if isinstance(result, float) and math.isnan(result):
        return (float, "nan")
    return (type(result), repr(result))


def _parameters():
    """One parameter of the app's commands for each kind of parameter (its type, bounds,
    flags, and whether it takes several values)."""
    group = typer.main.get_command(app)
    kinds = set()
    for path in _paths(group)[1:]:
        ctx = _click.Context(group, info_name="assay")
        command_ = group
        for name in path:
            command_ = command_.get_command(ctx, name)
        for param in [] if getattr(command_, "commands", None) else command_.params:
            info = param.type_descriptor.parameter_info
            kind = (repr(param.type_descriptor.annotation), type(param), param.multiple,
                    param.nargs, info.min, info.max, info.clamp, info.parser, info.exists,
                    info.resolve_path, info.path_type, type(param.default))
            if kind not in kinds:
                kinds.add(kind)
                yield " ".join(path), command_, param


def test_plain_coercion_gives_typers_value_or_leaves_it_to_typer():
    plain_used = 0
    checked = 0
    for name, command_, param in _parameters():
        ctx = _click.Context(command_, info_name=name)
        descriptor = param.type_descriptor
        typers = typer_coercion.build_runtime_param(descriptor)
        ours = param.get_runtime_param()
        multiple = param.multiple or param.nargs == -1
        samples = [param.default, *([tuple(VALUES[i:i + 3]) for i in range(0, len(VALUES), 3)]
                                    if multiple else VALUES)]
        for value in samples:
            if isinstance(value, str) and multiple:
                continue
            assert _outcome(ours, value, param, ctx) == _outcome(typers, value, param, ctx), \
                (name, param.name, value)
            checked += 1
            if value is not None and _plain_value(descriptor.annotation,
                                                  descriptor.parameter_info, value) is not _DEFER:
                plain_used += 1
    assert checked > 300 and plain_used > 100, (checked, plain_used)


@pytest.mark.parametrize(("annotation", "text", "expected"), [
    (int, "20", 20), (int, "-3", -3), (float, "0.95", 0.95), (float, "2", 2.0),
    (str, "gpt-4o", "gpt-4o"), (Path, "out", Path("out")), (list[str], ("a", "b"), ["a", "b"]),
])
def test_the_common_values_take_the_plain_path(annotation, text, expected):
    info = typer.models.OptionInfo()
    value = _plain_value(annotation, info, text)
    assert value == expected and type(value) is type(expected)


def test_a_bad_number_keeps_typers_message(capsys):
    from assay.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["report", "x.csv", "--conf", "high"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--conf': Input should be a valid number, unable to parse " \
        "string as a number" in err, err
