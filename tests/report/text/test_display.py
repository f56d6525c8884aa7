"""The seam between results and their text or files (``assay._display``): every result type
of the analyses has a renderer in ``report/text``, and analyses hold no text layout of their own."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import assay.analysis
import assay.report.files as files
import assay.report.text as text
from assay._display import Rendered, render_text, write_files

ANALYSIS = Path(assay.analysis.__file__).parent


def _resolve(target: str):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _class(path: str) -> type:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _analysis_modules():
    for info in pkgutil.walk_packages([str(ANALYSIS)], "assay.analysis."):
        yield importlib.import_module(info.name)


def test_every_registered_renderer_and_writer_exists():
    for kind, target in text.RENDERERS.items():
        assert issubclass(_class(kind), Rendered), kind
        assert callable(_resolve(text.__name__ + target)), target
    for (kind, layout), target in files.WRITERS.items():
        assert isinstance(_class(kind), type) and layout
        assert callable(_resolve(files.__name__ + target)), target


def test_every_result_type_of_the_analyses_has_a_renderer():
    rendered = {f"{c.__module__}.{c.__qualname__}" for m in _analysis_modules()
                for c in vars(m).values()
                if isinstance(c, type) and issubclass(c, Rendered) and c.__module__ == m.__name__}
    assert rendered and rendered == set(text.RENDERERS)


def test_analyses_lay_out_no_text_and_write_no_files():
    """Text and files are report/'s: no __str__, to_csv, open or write_text in analysis/."""
    offenders = []
    for path in ANALYSIS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "__str__":
                offenders.append(f"{path.name}: def __str__")
            if isinstance(node, ast.Attribute) and node.attr in ("to_csv", "write_text", "mkdir",
                                                                 "to_excel", "savefig"):
                offenders.append(f"{path.name}: .{node.attr}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("open", "print"):
                offenders.append(f"{path.name}: {node.func.id}()")
    assert not offenders


def test_print_goes_through_the_registered_renderer(capsys):
    from assay.analysis.judges import CalibrationReport

    report = CalibrationReport([], None, 200, 0, None, False, ["No reference scores."])
    print(report)
    expected = ("Calibration against reference scores (fit on a holdout of items; rho and MAE on "
                "the other items)\nNote: No reference scores.\n")
    assert capsys.readouterr().out == expected
    assert render_text(report) == str(report) == text.format_calibration(report)


def test_a_type_without_renderer_or_writer_is_a_clear_error(tmp_path):
    class Unknown(Rendered):
        pass

    with pytest.raises(TypeError, match=r"no text renderer for .*Unknown"):
        str(Unknown())
    with pytest.raises(TypeError, match=r"no 'default' file writer for .*Unknown"):
        write_files(Unknown(), tmp_path)
    assert list(tmp_path.iterdir()) == []
