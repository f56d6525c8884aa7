"""Where indexes are kept: the user's cache (:func:`cache_folder`), each index named after the
path it indexes and stamped with its size and modification time, so the next ``assay view``
of the same store or table opens at once and one that changed is indexed again
(:func:`store_index`, :func:`table_index`).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.data.run_store import STORE_FILENAME
from assay.view._build import Progress, _stamp
from assay.view._build_store import build_store_index
from assay.view._build_table import build_table_index


def cache_folder() -> Path:
    """Where store indexes are kept: ``$ASSAY_CACHE_DIR/view``, else ``~/.cache/assay/view``."""
    root = os.environ.get("ASSAY_CACHE_DIR")
    return (Path(root) if root else Path.home() / ".cache" / "assay") / "view"


def _cache() -> Path:
    """The cache folder of indexes, or a temporary folder when it cannot be written."""
    try:
        cache = cache_folder()
        cache.mkdir(parents=True, exist_ok=True)
        probe = cache / f".{os.getpid()}.probe"
        probe.touch()
        probe.unlink()
    except OSError:
        cache = Path(tempfile.mkdtemp(prefix="assay-view-"))
    return cache


def table_index(table: Path, load: Callable[[], Any], *, progress: Progress | None = None) -> Path:
    """The index of the judgments table file ``table``, from the cache when it is current
    (the file and its ``.assay.json`` sidecar unchanged), else built from ``load()`` (the
    validated :class:`~assay.data.table.Judgments`) and kept there, as a store's index is.

    The first open of a table reads and checks it (on the demo's 13,194 rows, about 2 s with
    the imports it needs); the next opens read the index only.
    """
    key = "table-" + hashlib.sha256(str(table.resolve()).encode("utf-8")).hexdigest()[:24]
    target = _cache() / f"{key}.sqlite"
    stamp = _stamp(table, ".assay.json")
    if target.exists() and _cached_stamp(target) == stamp:
        return target
    partial = target.with_name(target.name + f".{os.getpid()}.part")
    partial.unlink(missing_ok=True)
    table_read = load()
    build_table_index(table_read.frame, partial, progress=progress, stamp=stamp,
                      scales=table_read.scales)
    os.replace(partial, target)
    return target


def store_index(folder: Path, *, on_build: Callable[[str], None] | None = None,
                progress: Progress | None = None) -> Path:
    """The index of the run folder's store, from the cache when it is current, else built
    (``on_build`` is told first, with a sentence to show: indexing a large store takes a while;
    ``progress`` then how far each phase of the build is).

    A cache folder that cannot be written is replaced by a temporary one.
    """
    store = folder / STORE_FILENAME
    key = hashlib.sha256(str(store.resolve()).encode("utf-8")).hexdigest()[:24]
    cache = _cache()
    target = cache / f"{key}.sqlite"
    if target.exists() and _cached_stamp(target) == _stamp(store):
        return target
    if on_build is not None:
        on_build(f"indexing {store} once (the index is kept in {cache} for the next open)")
    build_store_index(store, target, progress=progress)
    return target


def _cached_stamp(target: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(str(target))}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM info WHERE name = 'stamp'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])
