"""The one seam between a result and its text or files: ``print(result)`` without analysis
knowing the report layer.

An analysis returns a result and never knows how it is printed or written; ``report/``
holds every text renderer (:mod:`assay.report.text`, its table ``RENDERERS``) and every file
writer in another tool's layout (:mod:`assay.report.files`, its table ``WRITERS``). Users
still call ``print(result)``, ``result.to_text()`` or ``result.write_csvs(folder)``: those
methods come here, and this module hands the result to the report package, imported on
first use. That import is the only one that points up (``SEAMS`` in
``tests/test_layers.py``); nothing in ``report/`` imports this module back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["Rendered", "render_text", "write_files"]


def render_text(result: object, **options: Any) -> str:
    """``result`` as text: :func:`assay.report.text.render_text` (the renderer for its type).

    Raises
    ------
    TypeError
        No renderer is named for the type.
    """
    from assay.report.text import render_text as render  # the seam

    text: str = render(result, **options)
    return text


def write_files(result: object, out_dir: str | Path, *, layout: str = "default",
                **options: Any) -> list[Path]:
    """Write ``result`` into ``out_dir`` in ``layout``: :func:`assay.report.files.write_files`.

    Raises
    ------
    TypeError
        No writer is named for the type and layout.
    """
    from assay.report.files import write_files as write  # the seam

    paths: list[Path] = write(result, out_dir, layout=layout, **options)
    return paths


class Rendered:
    """Mixin of the result types: ``str(result)`` is its text rendering."""

    __slots__ = ()

    def __str__(self) -> str:
        return render_text(self)
