"""Names of a package loaded on first use (PEP 562), so importing it stays cheap.

``import assay`` and the CLI's start-up would otherwise load every analysis and with them
scipy and pandas (about 1.5 s) before doing anything; a run answered from cache needs
neither.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence


def lazy_names(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], object],
                                                                  Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose ``names`` map a name to its module.

    A name is imported from its module the first time it is asked for, then kept in the
    package. When a submodule has the name of one of the package's lazy names (the
    function ``aggregate`` of ``assay.analysis.aggregate._report``), the name stays the function
    once the submodule is imported, as with an eager ``from .aggregate import aggregate``.

    Examples
    --------
    >>> import assay.analysis
    >>> callable(assay.analysis.aggregate), "aggregate" in dir(assay.analysis)
    (True, True)
    """
    module = sys.modules[package]

    class LazyPackage(types.ModuleType):
        def __setattr__(self, name: str, value: object) -> None:
            if (isinstance(value, types.ModuleType) and names.get(name) == value.__name__
                    and hasattr(value, name)):
                value = getattr(value, name)
            super().__setattr__(name, value)

    module.__class__ = LazyPackage

    def __getattr__(name: str) -> object:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(module), *names})

    return __getattr__, __dir__


def attach(package: str, exports: Mapping[str, Sequence[str]]
           ) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of ``package`` from one declaration.

    ``exports`` maps a module (``"._report"`` relative to ``package``, or an absolute
    name) to the public names it gives the package. Each name is declared once, here;
    ``__all__`` and ``__dir__`` derive from it and nothing is imported until asked for.

    Examples
    --------
    >>> import assay.analysis.benchmark as benchmark
    >>> "benchmark_report" in benchmark.__all__, callable(benchmark.benchmark_report)
    (True, True)
    """
    names: dict[str, str] = {}
    for module, members in exports.items():
        source = package + module if module.startswith(".") else module
        for name in members:
            if name in names:
                raise ValueError(f"{package}: {name!r} is declared twice")
            names[name] = source
    getattr_, dir_ = lazy_names(package, names)
    return getattr_, dir_, sorted(names)
