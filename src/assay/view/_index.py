"""The judgments a viewer shows, and the answers to its queries: :class:`JudgmentIndex`.

Opened on a run folder (``judgments.sqlite``, read-only) or on a judgments table (any file
:func:`assay.data.io.load` reads); see :mod:`assay.view._build` for the index it queries.
Filters and pages: :mod:`assay.view._pages`; one judgment: :mod:`assay.view._judgment`.
"""

from __future__ import annotations

import itertools
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.data.run_store import STORE_FILENAME
from assay.errors import InputError
from assay.view._build import FACETS, MAX_FACET_VALUES, Progress
from assay.view._build_store import store_uri
from assay.view._build_table import build_table_index
from assay.view._build_text import TEXT_SEARCH
from assay.view._cache import store_index, table_index
from assay.view._columns import FilterColumns
from assay.view._judgment import OneJudgment
from assay.view._pages import Pages
from assay.view._query import FLIPPED, REPORTABLE

if TYPE_CHECKING:
    from assay.data.table import Judgments


class JudgmentIndex(Pages, OneJudgment):
    """The judgments of a run folder or a judgments table, ready to query from any thread.

    Parameters
    ----------
    source
        A run folder of ``assay judge`` (holding ``judgments.sqlite``) or a judgments table
        file (CSV, TSV, JSONL, JSON, Parquet, or another run folder :func:`assay.data.io.load`
        reads).
    on_build
        Told, with a sentence to show, when a run store is about to be indexed (the first
        open of a store, or of one that changed since).
    progress
        Told how far each phase of building the index is (a store's first open, or any
        table's), as :class:`assay.view._build.BuildProgress`.
    table
        The judgments of ``source`` already loaded (a table read with ``--map``, ``--set`` or
        ``--scale``); ``source`` then only names them.
    loader
        Reads the judgments table ``source`` when its index must be built (default:
        :func:`assay.data.io.load`). The index of a table file (not a folder, and not given as
        ``table``) is kept in the cache folder as a store's is, and rebuilt when the file or
        its ``.assay.json`` changes, so the next open neither reads nor checks the table.

    Raises
    ------
    InputError
        When ``source`` does not exist or cannot be read as judgments.
    """

    def __init__(self, source: str | Path, *, on_build: Callable[[str], None] | None = None,
                 progress: Progress | None = None, table: Judgments | None = None,
                 loader: Callable[[], Judgments] | None = None) -> None:
        self.source = Path(source)
        self._temporary: Path | None = None
        if not self.source.exists():
            raise InputError(str(self.source), "no such file or folder")
        self.kind = "store" if table is None and (self.source / STORE_FILENAME).is_file() else "table"
        if self.kind == "store":
            path = store_index(self.source, on_build=on_build, progress=progress)
        elif table is None and self.source.is_file():
            path = table_index(self.source, loader or (lambda: _load(self.source)), progress=progress)
        else:
            if table is None:
                table = (loader or (lambda: _load(self.source)))()
            frame = table.frame
            self._temporary = Path(tempfile.mkdtemp(prefix="assay-view-"))
            path = self._temporary / "index.sqlite"
            build_table_index(frame, path, progress=progress, scales=table.scales)
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        if self.kind == "store":
            self._conn.execute("ATTACH DATABASE ? AS s", (store_uri(self.source / STORE_FILENAME),))
        self._lock = threading.Lock()
        self._prompts = self.kind == "store" and bool(self._all(
            "SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'prompts'"))
        """Whether the store keeps rendered prompts (one written before they were kept does not)."""
        self._shown = self.kind == "store" and bool(self._all(
            "SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'shown'"))
        """Whether the store keeps what each judgment judged (the question, the answers)."""
        self._positions: np.ndarray | None = None
        self.count = int(self._one("SELECT count(*) FROM rows")[0])
        found = self._all("SELECT value FROM info WHERE name = 'text'")
        self.text_search = str(found[0][0]) if found else "scan"
        """How the free-text filter finds text: a key of :data:`TEXT_SEARCH`."""
        self._fold: sqlite3.Connection | None = None
        self._masks: dict[int, np.ndarray | None] = {}
        self._tokens = itertools.count()
        self._conn.create_function("in_view", 2, self._in_view, deterministic=True)
        with self._lock:
            self._columns = FilterColumns.read(self._conn)
        self._facets: dict[str, list[list[Any]]] | None = None
        self._systems: dict[str, Any] | None = None

    def _one(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> tuple[Any, ...]:
        with self._lock:
            return tuple(self._conn.execute(sql, args).fetchone())

    def _all(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    # -- what the page offers
    def facets(self) -> dict[str, list[list[Any]]]:
        """Filter name -> its values with their row counts, most frequent first."""
        if self._facets is None:  # computed once: the rows do not change while the index is open
            self._facets = self._columns.facets(FACETS, most=MAX_FACET_VALUES)
        return self._facets

    def summary(self) -> dict[str, Any]:
        """What the page's header says: the source, its kind, how many rows it holds, and per
        system its rows, failures and mean score per criterion (``systems``)."""
        if self._systems is None:  # computed once, as the facets
            self._systems = self._columns.systems()
        return {"source": str(self.source), "kind": self.kind, "rows": self.count,
                "text_search": TEXT_SEARCH[self.text_search], "systems": self._systems}

    def systems_of(self, ids: list[int]) -> dict[str, Any]:
        """The header's per-system counts and means (:meth:`FilterColumns.systems`) over the
        rows ``ids`` only (an export's)."""
        within = np.zeros(self.count, dtype=bool)
        within[np.asarray(ids, dtype=np.int64) - 1] = True
        return self._columns.systems(within=within)

    def flipped(self, row_id: int) -> str | None:
        """``yes`` when the row is in a counterbalanced trial pair that flips, ``no`` in one
        that does not, None in none (the ``flipped`` filter)."""
        code = int(self._columns.flipped[row_id - 1])
        return next((word for word, c in FLIPPED.items() if c == code), None)

    def reportable(self, row_id: int) -> str:
        """``yes`` when a report reads the row, ``no`` when not (the ``reportable`` filter)."""
        code = int(self._columns.reportable[row_id - 1])
        return next(word for word, c in REPORTABLE.items() if c == code)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            if self._fold is not None:
                self._fold.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    def __enter__(self) -> JudgmentIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _load(source: Path) -> Judgments:
    from assay.data.io import load

    return load(source)
