"""Read a run folder's ``judgments.sqlite`` without writing anything: :func:`load_store`.

The store is written by ``assay judge`` (:class:`assay.llm.RunStore`, which takes its
table layout from :data:`STORE_TABLES` here); reading it needs no write access:

* a store that was closed cleanly (no ``-wal`` file beside it) is opened with SQLite's
  ``mode=ro&immutable=1`` URI, which takes no lock and creates no ``-wal``/``-shm`` file, so
  a report works on a read-only mount or a 0444 store and leaves the folder as it was;
* a store with a ``-wal`` file (a run in progress, or one that was killed) is opened
  ``mode=ro``, sharing the writer's locks and seeing every committed judgment; when even
  that cannot open (a read-only folder without the ``-shm`` file), the store and its
  ``-wal`` are copied into a temporary folder and read there.

A file that is not an SQLite database, a truncated or corrupt one, or a database without
the store's tables is an :class:`~assay.errors.InputError` naming the file.
"""

from __future__ import annotations

import functools
import json
import shutil
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assay.data.schema import Scale
from assay.errors import InputError, StorageError

if TYPE_CHECKING:
    from assay.data.table import Judgments

STORE_FILENAME = "judgments.sqlite"
"""The run store's file name inside a run folder."""
SEQUENTIAL_RECORD = "sequential.json"
"""A sequential run's record (``assay judge --until``): its rule, order and looks."""

STORE_TABLES = """
CREATE TABLE IF NOT EXISTS info (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS configs (
    hash TEXT PRIMARY KEY, config TEXT NOT NULL, first_used TEXT NOT NULL, last_used TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judgments (
    key TEXT PRIMARY KEY,
    config_hash TEXT,
    failed INTEGER NOT NULL,
    failure_kind TEXT,
    error TEXT,
    rows TEXT NOT NULL,
    verdict TEXT,
    raw_response TEXT,
    model TEXT,
    prompt_hash TEXT,
    tokens_in INTEGER,
    tokens_out INTEGER,
    usd REAL,
    usd_provenance TEXT,
    latency_s REAL,
    attempts INTEGER,
    cached INTEGER,
    evaluated_at TEXT,
    tries INTEGER NOT NULL DEFAULT 1,
    top_logprobs TEXT);
CREATE TABLE IF NOT EXISTS plan (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS scales (criterion TEXT PRIMARY KEY, scale TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS prompts (key TEXT PRIMARY KEY, messages TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS shown (key TEXT PRIMARY KEY, shown TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    input_file_id TEXT PRIMARY KEY, batch_id TEXT, requests INTEGER NOT NULL, endpoint TEXT,
    created_at TEXT NOT NULL);
"""
"""The store's tables: ``info``, ``configs``, ``judgments`` (one record per LLM call, its
judgments-table rows as JSON), ``plan`` (the keys the current config asks for), ``scales``
and ``prompts`` (each judgment's rendered messages as a JSON list of ``{"role", "content"}``
objects; a store written before it existed gains the empty table when next opened for
writing, its judgments untouched, and shows their prompts as not recorded), ``shown`` (what
each judgment judged, as a JSON object: the question, the answers in the order the judge saw
them, the reference; what ``assay view`` shows first; gained empty like ``prompts``) and ``batches``
(the Batch API jobs submitted and not yet recorded, so a killed run polls them again
instead of paying twice)."""

RAW_MARKER = "$raw_response"
"""Marks a stored row whose raw_response is the judgment's (kept once, in its own column)."""


def store_failure(path: str | Path, exc: sqlite3.Error) -> StorageError:
    """What an SQLite error means for the store (or cache) at ``path``, as one line.

    >>> import sqlite3
    >>> str(store_failure("run/judgments.sqlite", sqlite3.DatabaseError("file is not a database")))
    'run/judgments.sqlite: is corrupt or truncated (file is not a database): move it away to start afresh'
    """
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("full" in text or "I/O" in text):
        cause = "disk full" if "full" in text else "disk I/O error (is the disk full?)"
        return StorageError(str(path), f"cannot be written: {cause}", disk_full=True)
    if isinstance(exc, sqlite3.OperationalError) and ("readonly" in text or "unable to open" in text):
        return StorageError(str(path), f"cannot be opened for writing ({text}): a read-only "
                            "file system, or permission denied")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StorageError(str(path), f"is corrupt or truncated ({text}): move it away to "
                            "start afresh")
    return StorageError(str(path), text)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def named_failures(method: _Method) -> _Method:
    """Decorate a method of an object with a ``path`` (the run store's writer, the response
    cache): an SQLite error in it becomes the :class:`StorageError` of :func:`store_failure`."""
    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise store_failure(self.path, exc) from None
    return wrapper  # type: ignore[return-value]


def store_path(folder: str | Path) -> Path:
    """Where a run folder keeps its store."""
    return Path(folder) / STORE_FILENAME


def selected_rows(conn: sqlite3.Connection, columns: str) -> list[tuple[Any, ...]]:
    """``columns`` of the planned judgments in plan order; every judgment in storing order
    when no plan was recorded.

    Plan order is the order the config asks for the judgments (its judges in config order,
    each judge's requests in the order it builds them: pairs, questions as the inputs list
    them, criteria, trials), recorded by ``set_plan``. It is never the order judgments were
    answered in: the judge answers requests concurrently, so that order changes from run
    to run, and every table and file written from the store would follow it.
    """
    if conn.execute("SELECT 1 FROM plan LIMIT 1").fetchone() is not None:
        return conn.execute(f"SELECT {columns} FROM judgments JOIN plan USING (key) "
                            "ORDER BY plan.rowid").fetchall()
    return conn.execute(f"SELECT {columns} FROM judgments ORDER BY rowid").fetchall()


def rows_of(selected: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The judgments-table rows of ``(rows, raw_response)`` records, raw replies put back."""
    out: list[dict[str, Any]] = []
    for rows, raw in selected:
        for row in json.loads(rows):
            if row.pop(RAW_MARKER, None):
                row["raw_response"] = raw
            out.append(row)
    return out


def stored_scales(conn: sqlite3.Connection) -> dict[str, Scale]:
    """The scales the store declares, criterion -> :class:`Scale`."""
    return {str(name): Scale.parse(str(spelling)) for name, spelling in
            conn.execute("SELECT criterion, scale FROM scales ORDER BY criterion")}


def _uri(path: Path, query: str) -> str:
    return "file:" + urllib.parse.quote(str(path.resolve())) + "?" + query


@contextmanager
def open_read_only(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the store at ``path`` that writes nothing beside it.

    Raises :class:`~assay.errors.InputError` naming the file when it cannot be opened.
    """
    path = Path(path)
    wal = path.with_name(path.name + "-wal")
    live = wal.exists() and wal.stat().st_size > 0
    copy: Path | None = None
    try:
        try:
            conn = sqlite3.connect(_uri(path, "mode=ro" if live else "mode=ro&immutable=1"),
                                   uri=True)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            if not live:
                raise
            copy = Path(tempfile.mkdtemp(prefix="assay-store-"))
            shutil.copyfile(path, copy / path.name)
            shutil.copyfile(wal, copy / wal.name)
            conn = sqlite3.connect(copy / path.name)
        try:
            yield conn
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(str(path), f"is not a readable run store ({exc}): it is corrupt, "
                         "truncated or not one assay wrote") from None
    finally:
        if copy is not None:
            shutil.rmtree(copy, ignore_errors=True)


def load_store(folder: str | Path, *, scales: Mapping[str, Scale] | None = None) -> Judgments:
    """Read a run folder's store as a validated judgments table, opening it read-only.

    The rows of the planned judgments in plan order (all, in storing order, when no plan
    was recorded: :func:`selected_rows`), with the scales the store declares, overridden by
    ``scales``. The same store gives the same table, whatever order its judgments were
    answered in. A row without a question gets its item's prompt from the datapoints
    beside the store (``datapoints.jsonl``, as ``assay run`` writes it), so a table saved
    from the run keeps the texts surface bias and the viewer read.

    Raises
    ------
    ValidationError
        Listing every bad row (row N is the N-th row exported).
    InputError
        When there is no store, it is empty, or it cannot be read (corrupt, truncated,
        not a store).

    Examples
    --------
    >>> import tempfile
    >>> load_store(tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    assay.errors.InputError: ...: no run store (judgments.sqlite) in this folder
    """
    from assay.data.validate import judgments_from_records

    path = store_path(folder)
    if not path.is_file():
        raise InputError(str(folder), f"no run store ({STORE_FILENAME}) in this folder")
    with open_read_only(path) as conn:
        try:
            records = rows_of(selected_rows(conn, "rows, raw_response"))
            declared = stored_scales(conn)
        except (json.JSONDecodeError, ValueError) as exc:
            raise InputError(str(path), f"holds a record that cannot be read ({exc})") from None
    if not records:
        raise InputError(str(path), "the run store holds no judgments yet")
    from assay.data.runfolder import native_scores_by_answer, prompts_by_item

    prompts = prompts_by_item(folder)  # the datapoints beside the store (``assay run``)
    for record in records if prompts else ():
        if record.get("question") is None and str(record.get("item")) in prompts:
            record["question"] = prompts[str(record.get("item"))]
    native = native_scores_by_answer(folder)
    if native:  # `assay native-scores` beside the store: each answer's score is its ground truth
        for record in records:
            found = native.get((str(record.get("item")), str(record.get("arm"))), "absent")
            if found != "absent":
                record["reference_score"] = found
    declared.update(scales or {})
    return judgments_from_records(records, range(1, len(records) + 1), path=str(path),
                                  sources=(str(path),), scales=declared)


JUDGE_CALL_COLUMNS = ("judge", "arm", "opponent", "criterion", "model", "share", "tokens_in",
                      "tokens_out", "usd", "cached", "failed")
"""The columns of :func:`judge_calls`."""


def judge_calls(store: str | Path) -> list[dict[str, Any]]:
    """What each planned LLM call of a run store cost, one record per judgments-table row it
    produced, read-only.

    ``store`` is a run folder or its ``judgments.sqlite``. Each record carries the row's
    ``judge``, ``arm``, ``opponent`` and ``criterion``, the call's ``model``, ``cached`` and
    ``failed`` flags, and the call's ``tokens_in``, ``tokens_out`` and ``usd`` (None when
    unknown) with ``share`` = 1 / (rows of the call): summing ``share * usd`` over the
    records gives the run's spend once, however many rows (criteria, positions) a call
    produced. A call that produced no row counts as one record with the call's model as
    its judge. Offline judges (metrics) appear with 0 tokens and no cost.

    Raises
    ------
    InputError
        No store, or one that cannot be read.
    """
    path = Path(store)
    path = path if path.name == STORE_FILENAME else store_path(path)
    if not path.is_file():
        raise InputError(str(store), f"no run store ({STORE_FILENAME}) in this folder")
    with open_read_only(path) as conn:
        try:
            selected = selected_rows(conn, "rows, model, tokens_in, tokens_out, usd, cached, failed")
            records: list[dict[str, Any]] = []
            for rows_json, model, tokens_in, tokens_out, usd, cached, failed in selected:
                rows = json.loads(rows_json) or [{"judge": model}]
                call = {"model": model, "share": 1.0 / len(rows), "tokens_in": tokens_in,
                        "tokens_out": tokens_out, "usd": usd, "cached": bool(cached),
                        "failed": bool(failed)}
                for row in rows:
                    records.append({"judge": row.get("judge", model), "arm": row.get("arm"),
                                    "opponent": row.get("opponent"),
                                    "criterion": row.get("criterion"), **call})
        except (json.JSONDecodeError, ValueError, TypeError) as exc:
            raise InputError(str(path), f"holds a record that cannot be read ({exc})") from None
    return records


def run_stores(sources: Iterable[str]) -> list[str]:
    """The run stores (``judgments.sqlite``) among a judgments table's ``sources``, in order."""
    return [s for s in sources if Path(s).name == STORE_FILENAME]


def sources_judge_calls(sources: Iterable[str]) -> list[dict[str, Any]]:
    """The :func:`judge_calls` of every run store among ``sources``, store after store (empty
    without one)."""
    return [call for store in run_stores(sources) for call in judge_calls(store)]


def sequential_note(folder: str | Path) -> str | None:
    """What a report of ``folder`` says when ``assay judge --until`` stopped it early (None
    otherwise, or when its ``sequential.json`` cannot be read): its intervals are fixed-n ones."""
    path = Path(folder) / SEQUENTIAL_RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        looks = record.get("looks") or []
        ended = str(record.get("ended", ""))
    except (OSError, ValueError, AttributeError):
        return None
    if not ended.startswith("stopped early") or not looks:
        return None
    method = record.get("method", "empirical_bernstein")
    return (f"{folder}: judged sequentially (--until {record.get('until')}, conf {record.get('conf')}, "
            f"{method} confidence sequence) and "
            f"stopped early after {looks[-1].get('clusters')} of {len(record.get('order') or [])} "
            "clusters: the intervals below are fixed-n intervals on the clusters judged, not the "
            f"anytime-valid ones of the run (in {SEQUENTIAL_RECORD})")
