"""The ``assay`` command line: one module per command, registered on one typer app.

Every error a user can cause prints one clear message and exits with status 2; no
traceback is shown (set ``ASSAY_DEBUG=1`` to see one for an internal error).
"""

# Each import registers its command; the order is the order of ``assay --help``.
from assay.cli import validate as _validate  # noqa: F401  isort: skip
from assay.cli import import_ as _import  # noqa: F401  isort: skip
from assay.cli import demo as _demo  # noqa: F401  isort: skip
from assay.cli import compare as _compare  # noqa: F401  isort: skip
from assay.cli import judge as _judge  # noqa: F401  isort: skip
from assay.cli import report as _report  # noqa: F401  isort: skip
from assay.cli import register as _register  # noqa: F401  isort: skip
from assay.cli import plan as _plan  # noqa: F401  isort: skip
from assay.cli import cache as _cache  # noqa: F401  isort: skip
from assay.cli.pipeline import describe as _describe  # noqa: F401  isort: skip
from assay.cli.pipeline import export as _export  # noqa: F401  isort: skip
from assay.cli.pipeline import native_scores as _native_scores  # noqa: F401  isort: skip
from assay.cli.pipeline import datapoints as _datapoints  # noqa: F401  isort: skip
from assay.cli.pipeline import generate as _generate  # noqa: F401  isort: skip
from assay.cli.pipeline import run as _run  # noqa: F401  isort: skip
from assay.cli.pipeline import baselines as _baselines  # noqa: F401  isort: skip
from assay.cli import view as _view  # noqa: F401  isort: skip
from assay.cli._app import app, main

__all__ = ["app", "main"]
