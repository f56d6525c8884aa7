"""Write files atomically: to a temporary file beside the target, then rename it onto the target.

A reader (or a rerun) never sees half a file: a write that fails (a full disk, an
interrupted process, an error while formatting) leaves the target as it was and removes
the temporary file.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from assay.errors import storage_error


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path``: write it in the block; it replaces ``path`` when the
    block ends without an error and is removed when it raises.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "t.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    ...     target.exists()
    False
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('done', ['t.txt'])
    """
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as exc:  # name the file the user asked for, not the temporary one
        raise storage_error(exc, target) if exc.filename in (None, str(temporary)) else exc from None
    finally:
        temporary.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; return ``path``."""
    target = Path(path)
    with atomic_path(target) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return target
