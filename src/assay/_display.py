"""The one seam between a result and its text or files: ``print(result)`` without analysis
knowing the report layer.

An analysis returns a result and never knows how it is printed or written; ``report/``
holds every text renderer (:mod:`assay.report.text`) and every file writer in another
tool's layout (:mod:`assay.report.files`). Users still call ``print(result)``,
``result.to_text()`` or ``result.write_csvs(folder)``: those methods come here, and this
module dispatches on the result's type through two registries (type -> renderer, and
(type, layout) -> writer). The registries are filled by the report packages themselves
when they are first imported, which happens here on first use; that import is the only
one that points up (``SEAMS`` in ``tests/test_layers.py``).

Types and renderers are named by their import path (``"assay.analysis.scores.ScoreSummary"``,
``"assay.report.text.scores:format_score_summary"``) so that registering them imports
nothing: printing one result loads its own renderer module only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["Rendered", "register_files", "register_text", "render_text", "write_files"]

DEFAULT_LAYOUT = "default"
"""The layout ``write_files`` uses when none is named."""

_TEXT: dict[str, str] = {}
"""Type path -> ``module:function`` of its text renderer."""
_FILES: dict[tuple[str, str], str] = {}
"""(type path, layout) -> ``module:function`` of its file writer."""


def register_text(renderers: Mapping[str, str]) -> None:
    """Register text renderers: type path -> ``"module:function"`` taking (result, **options)."""
    _TEXT.update(renderers)


def register_files(writers: Mapping[tuple[str, str], str]) -> None:
    """Register file writers: (type path, layout) -> ``"module:function"`` taking
    (result, out_dir, **options) and returning the paths written."""
    _FILES.update(writers)


def _type_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _resolve(target: str) -> Callable[..., Any]:
    module, _, name = target.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def _find(registry: Mapping[Any, str], result: object, layout: str | None) -> str | None:
    for cls in type(result).__mro__:
        key: Any = _type_path(cls) if layout is None else (_type_path(cls), layout)
        if key in registry:
            return registry[key]
    return None


def render_text(result: object, **options: Any) -> str:
    """``result`` as text, by the renderer registered for its type (or a base type).

    Raises
    ------
    TypeError
        No renderer is registered for the type.

    Examples
    --------
    >>> from assay.analysis.judges import CalibrationReport
    >>> text = render_text(CalibrationReport([], None, 200, 0, None, False, ["nothing to fit"]))
    >>> text.splitlines()[-1]
    'Note: nothing to fit'
    """
    import assay.report.text  # noqa: F401  (registers the renderers on first import: the seam)
    target = _find(_TEXT, result, None)
    if target is None:
        raise TypeError(f"no text renderer for {_type_path(type(result))}")
    text: str = _resolve(target)(result, **options)
    return text


def write_files(result: object, out_dir: str | Path, *, layout: str = DEFAULT_LAYOUT,
                **options: Any) -> list[Path]:
    """Write ``result`` into ``out_dir`` in the registered ``layout``; return the paths written.

    Raises
    ------
    TypeError
        No writer is registered for the type and layout.
    """
    import assay.report.files  # noqa: F401  (registers the writers on first import: the seam)
    target = _find(_FILES, result, layout)
    if target is None:
        raise TypeError(f"no {layout!r} file writer for {_type_path(type(result))}")
    paths: list[Path] = _resolve(target)(result, Path(out_dir), **options)
    return paths


class Rendered:
    """Mixin of the result types: ``str(result)`` is its registered text rendering."""

    __slots__ = ()

    def __str__(self) -> str:
        return render_text(self)
