"""The ``assay`` command line: one module per command, registered on one typer app.

Every error a user can cause prints one clear message and exits with status 2; no
traceback is shown (set ``ASSAY_DEBUG=1`` to see one for an internal error).
"""

from assay.cli import compare as _compare  # noqa: F401  (registers its command)
from assay.cli import judge as _judge  # noqa: F401
from assay.cli import report as _report  # noqa: F401
from assay.cli._app import app, main

__all__ = ["app", "main"]
