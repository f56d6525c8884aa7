"""The layers of the package point down only, read from the import statements in the source.

cli -> demo -> pipeline -> judge -> config -> llm, (report, view) -> analysis -> (data, stats);
the base modules (errors, the lazy
loader, the version, the display seam, the redaction of secrets that judge and data share, the
jinja2 sandbox that the prompts and the HTML pages share)
import nothing of assay but each other. Every import counts, also one
inside a function: a lazy import is still a dependency. The one seam that goes up on purpose
is named in ``SEAMS`` with its reason: ``assay._display``, through which ``print(result)`` and
``result.write_csvs(folder)`` reach the renderers and writers of ``report/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"

BASE = {"assay", "assay._lazy", "assay._version", "assay.errors", "assay._display",
        "assay._secrets", "assay._templates"}
ALLOWED = {
    "stats": {"stats"},
    "data": {"data", "stats"},
    "analysis": {"analysis", "data", "stats"},
    "report": {"report", "analysis", "data", "stats"},
    "llm": {"llm", "data", "stats"},
    "config": {"config", "llm", "data", "stats"},
    "judge": {"judge", "config", "llm", "analysis", "data", "stats"},
    "pipeline": {"pipeline", "judge", "config", "llm", "datapoints", "analysis", "data", "stats"},
    "notebook": {"notebook", "pipeline", "judge", "config", "llm", "analysis", "data", "stats"},
    "datapoints": {"datapoints", "data", "stats"},
    "view": {"view", "analysis", "data", "stats"},
    "demo": {"demo", "pipeline", "judge", "config", "llm", "report", "analysis", "data", "stats"},
    "cli": {"cli", "demo", "pipeline", "judge", "config", "llm", "datapoints", "report", "view", "analysis",
            "data", "stats"},
    "__main__": {"cli"},
}
"""Layer -> the layers it may import (besides the base modules)."""

SEAMS: dict[tuple[str, str], str] = {
    ("assay._display", "assay.report.text"): "print(result) of an analysis result: the text "
    "renderers live in report/, named by result type in report/_dispatch.py's table",
    ("assay._display", "assay.report.files"): "result.write_csvs(folder) of an analysis result: "
    "the writers of other tools' layouts live in report/, named the same way",
}
"""(importing module, imported module) -> why this one import goes against the layers."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "assay" or name.startswith("assay.")}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and module not in BASE else None


def _lazy_targets(path: Path) -> set[str]:
    """Modules a package's lazy map names (``_attach(__name__, {"._report": [...]})``)."""
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_attach"
                and len(node.args) == 2 and isinstance(node.args[1], ast.Dict)):
            for key in node.args[1].keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out.add(module + key.value if key.value.startswith(".") else key.value)
    return out


SOURCES = sorted(SRC.rglob("*.py"))


def test_the_source_tree_is_found():
    assert len(SOURCES) > 100


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_point_down(path: Path):
    module = _module_name(path)
    layer = _layer(module)
    if layer is None:  # a base module: only other base modules, or the lazy maps of assay/__init__
        bad = ({name for name in _imports(path) if name not in BASE and (module, name) not in SEAMS}
               if module != "assay" else set())
        assert not bad, f"{module} is a base module but imports {sorted(bad)}"
        return
    assert layer in ALLOWED, f"{module}: layer {layer!r} has no rule in ALLOWED"
    imported = _imports(path) | _lazy_targets(path)
    bad = sorted(name for name in imported
                 if name not in BASE and _layer(name) not in ALLOWED[layer]
                 and (module, name) not in SEAMS)
    assert not bad, f"{module} ({layer}) imports {bad} from a layer above or beside it"


def test_stats_use_no_pandas():
    offenders = [str(p.relative_to(SRC)) for p in (SRC / "stats").rglob("*.py")
                 if {"pandas"} & {n.split(".")[0] for n in _all_imports(p)}]
    assert not offenders


def _all_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_seams_are_still_needed():
    for (module, name), reason in SEAMS.items():
        path = SRC.parent.joinpath(*module.split("."))
        path = path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"
        assert name in _imports(path), f"seam {module} -> {name} ({reason}) no longer exists: remove it"


def test_package_sizes():
    """No package has more than 16 modules at its top level and no module passes 600 lines."""
    for folder in [SRC, *(p for p in SRC.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 16, f"{folder.relative_to(SRC.parent)} has {len(modules)} modules"
    for path in SOURCES:
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 600, f"{path.relative_to(SRC.parent)} has {lines} lines"


# -- no import circles ------------------------------------------------------------------------
MODULES = {_module_name(p): p for p in SOURCES}


def _runtime_edges(path: Path) -> set[str]:
    """The modules of assay that ``path`` imports when it runs: every import statement (also
    one inside a function) and its lazy map, not those under ``if TYPE_CHECKING:`` (read by
    type checkers only); ``from pkg import name`` counts ``pkg.name`` when that is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(node) for block in ast.walk(tree)
                   if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
                   for stmt in block.body for node in ast.walk(stmt)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    found |= _lazy_targets(path)
    return {name for name in found if name in MODULES and name != _module_name(path)}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative): each is a set of modules that import one another in a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other_in_a_circle():
    """Besides the named seams: ``print(result)`` of an analysis result reaches the report
    layer through ``assay._display`` (``SEAMS``), which is a circle by design (report imports
    the result types); no module of ``report/`` imports the seam back."""
    graph = {module: {name for name in _runtime_edges(path) if (module, name) not in SEAMS}
             for module, path in MODULES.items()}
    circles = _circles(graph)
    assert not circles, f"modules that import each other in a circle: {circles}"
