"""``python -m assay`` and the ``assay`` command: the command line.

A Ctrl-C while the command line loads (typer, rich, pydantic: half a second or more)
exits with status 130 and no traceback, as one during a command does
(:func:`assay.cli.main`). Python's own start-up, before any of assay runs, is outside
this: a SIGINT there is Python's to report.
"""

import contextlib
import os
import signal
import sys
from types import FrameType


def main() -> None:
    """Load the command line and run it; a Ctrl-C, while loading or later, exits 130 quietly.

    While the command line loads, SIGINT ends the process at once (nothing has been done
    yet): raised as KeyboardInterrupt there, it could surface as a traceback from any
    module being imported, or be swallowed ("Exception ignored") when it lands in one of
    importlib's weakref callbacks, and the command would then run on. Once loaded, Python's
    own handler is back, and the commands handle KeyboardInterrupt themselves.
    """
    signal.signal(signal.SIGINT, _exit_while_loading)
    from assay.cli import main as cli_main

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cli_main()
    except KeyboardInterrupt:
        _exit_interrupted()
    except SystemExit as exc:
        if exc.code == 130:
            _exit_interrupted()
        raise


def _exit_while_loading(signum: int, frame: FrameType | None) -> None:
    _exit_interrupted()


def _exit_interrupted() -> None:
    """Exit with status 130 now.

    A KeyboardInterrupt raised inside code that an extension module ran through
    ``PyRun_String`` (as some do while they are imported) marks the interpreter, which
    then ends the process with SIGINT (status -2) at exit, although assay caught it; the
    process is ended here instead, after flushing what was printed (nothing else is
    left to do: the run store commits as it goes).
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to show
            stream.flush()
    os._exit(130)


if __name__ == "__main__":
    main()
