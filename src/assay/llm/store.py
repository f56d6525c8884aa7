"""The run store: every judgment of a run folder in one SQLite file (WAL), resumable.

``RUN/judgments.sqlite`` holds

* ``configs``: each config the folder was run with (canonical JSON, as
  :func:`~assay._secrets.redact_config` gives it: no credential of a URL, no key) and its
  hash; the last one opened is the current config;
* ``judgments``: one record per judgment (one LLM call) under its unique deterministic
  key (:func:`judgment_key`), with the judgments-table rows it produced (JSON), the
  verdict, the raw reply, the judge's own cost (tokens, USD, provenance, latency) and a
  ``failed`` flag;
* ``plan``: the keys the current config asks for, so an export leaves out judgments a
  changed prompt or config made stale (they stay, so changing it back costs nothing);
* ``prompts``: the rendered messages each judgment sent (what ``assay view`` shows; the API
  key is never part of them: it travels in a header the store never sees);
* ``shown``: what each judgment judged (the question, the answers in the order shown, the
  reference), which ``assay view`` shows first;
* ``scales``: the declared scale of each criterion.

Writing is insert-or-ignore: a stored good judgment is never replaced, a stored failure
is replaced by the next answer (``--retry-failed``), and the key is the primary key, so
no judgment is ever stored twice. :meth:`RunStore.put` commits each judgment, or joins
a small batch the caller commits (the runner commits every 256 judgments or 0.1 s);
with WAL and ``synchronous=NORMAL`` a killed process (SIGKILL) loses nothing committed,
so a crash loses at most the requests in flight and the last uncommitted batch, whose
good replies the response cache holds. (An operating-system crash or power cut may
lose the last commits too; ``durable=True`` asks for ``synchronous=FULL``.)

The judge's own cost is kept apart from the judgments table: the table's ``usd``,
``tokens_*`` and ``latency_s`` describe the answers judged, and come from the rows the
judges build; :meth:`RunStore.judge_costs` gives what judging cost.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._secrets import redact_config
from assay.data.run_store import (
    RAW_MARKER,
    STORE_FILENAME,
    STORE_TABLES,
    named_failures,
    rows_of,
    selected_rows,
    stored_scales,
)
from assay.data.run_store import load_store as load_store  # re-exported: the reader lives in data
from assay.data.schema import COLUMNS, Scale
from assay.llm import _phases
from assay.llm._types import ChatRequest, Reply, _canonical, config_hash, utc_now
from assay.llm._types import judgment_key as judgment_key  # re-exported: the key names a request
from assay.llm.cache import logprobs_from_json, logprobs_to_json

if TYPE_CHECKING:  # pandas loads when a frame is asked for, not to judge
    import pandas as pd

STORE_FORMAT = "2"
"""2 added ``judgments.top_logprobs`` (a store of format 1 is migrated on opening: the column
is added, every row kept)."""

_PUT = """
INSERT INTO judgments (key, config_hash, failed, failure_kind, error, rows, verdict, raw_response,
    model, prompt_hash, tokens_in, tokens_out, usd, usd_provenance, latency_s, attempts, cached,
    evaluated_at, top_logprobs)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET
    config_hash = excluded.config_hash, failed = excluded.failed,
    failure_kind = excluded.failure_kind, error = excluded.error, rows = excluded.rows,
    verdict = excluded.verdict, raw_response = excluded.raw_response, model = excluded.model,
    prompt_hash = excluded.prompt_hash, tokens_in = excluded.tokens_in,
    tokens_out = excluded.tokens_out, usd = excluded.usd, usd_provenance = excluded.usd_provenance,
    latency_s = excluded.latency_s, attempts = excluded.attempts, cached = excluded.cached,
    evaluated_at = excluded.evaluated_at, top_logprobs = excluded.top_logprobs,
    tries = judgments.tries + 1
WHERE judgments.failed = 1
"""

_PUT_PROMPT = "INSERT OR REPLACE INTO prompts (key, messages) VALUES (?, ?)"
_PUT_SHOWN = "INSERT OR REPLACE INTO shown (key, shown) VALUES (?, ?)"

JUDGE_COST_COLUMNS: tuple[str, ...] = (
    "key", "model", "failed", "failure_kind", "tokens_in", "tokens_out", "usd", "usd_provenance",
    "latency_s", "attempts", "cached", "tries", "evaluated_at")
"""Columns of :meth:`RunStore.judge_costs`."""


_hash_config = config_hash


@dataclass(frozen=True)
class StoreCounts:
    """How many judgments a store holds."""

    stored: int
    """Judgment records, good or failed (stale ones included)."""
    failed: int
    """Records whose last answer was a failure."""
    planned: int
    """Keys the current config asks for (0 when no plan was recorded)."""


class RunStore:
    """A run folder's ``judgments.sqlite``; see the module docstring.

    Use from one thread (the event loop's, in the runner). Opening with a ``config``
    records it (and its hash) as the current config: redacted
    (:func:`~assay._secrets.redact_config`), whoever gives it, and hashed as recorded unless
    ``config_hash`` is given.

    Examples
    --------
    >>> import tempfile
    >>> from assay.llm._types import ChatRequest, Reply
    >>> folder = tempfile.mkdtemp()
    >>> with RunStore(folder, config={"judge": "m"}) as store:
    ...     req = ChatRequest(key="k1", messages=(("user", "hi"),))
    ...     row = {"item": "q1", "arm": "a", "criterion": "c", "score": 7.0}
    ...     first = store.put(req, Reply(key="k1", verdict=None, text="7"), [row])
    ...     again = store.put(req, Reply(key="k1", verdict=None, text="8"), [row])
    ...     first, again, store.counts().stored, store.to_frame()["score"].tolist()
    (True, False, 1, [7.0])
    """

    @named_failures
    def __init__(self, folder: str | Path, *, config: Mapping[str, Any] | None = None,
                 config_hash: str | None = None, durable: bool = False) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / STORE_FILENAME
        self._conn = sqlite3.connect(self.path, isolation_level=None)
        self._batch: list[tuple[tuple[Any, ...], str, str | None]] = []
        """Judgments put with ``commit=False`` and not yet written (:meth:`_write_batch`)."""
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._conn.execute("PRAGMA busy_timeout=10000")
        for statement in STORE_TABLES.split(";"):
            if statement.strip():
                self._conn.execute(statement)
        self._migrate()
        row = self._conn.execute("SELECT value FROM info WHERE name = 'config_hash'").fetchone()
        self._config_hash: str | None = None if row is None else str(row[0])
        if config is not None:
            config = redact_config(config)
            self._record_config(config, config_hash or _hash_config(config))

    def _migrate(self) -> None:
        """Bring a store of an older format to this one in place, keeping every row.

        Format 1 has no ``judgments.top_logprobs``: the column is added (NULL for the
        judgments stored before, which asked for no logprobs), in one transaction.
        """
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(judgments)")}
        row = self._conn.execute("SELECT value FROM info WHERE name = 'format'").fetchone()
        if "top_logprobs" in columns and row is not None and row[0] == STORE_FORMAT:
            return  # nothing to do: no write on opening a current store
        with self._transaction():
            if "top_logprobs" not in columns:
                self._conn.execute("ALTER TABLE judgments ADD COLUMN top_logprobs TEXT")
            self._conn.execute("INSERT OR REPLACE INTO info (name, value) VALUES ('format', ?)",
                               (STORE_FORMAT,))

    # -- configuration
    def _record_config(self, config: Mapping[str, Any], digest: str) -> None:
        now = utc_now()
        with self._transaction():
            self._conn.execute(
                "INSERT INTO configs (hash, config, first_used, last_used) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (hash) DO UPDATE SET last_used = excluded.last_used",
                (digest, _canonical(dict(config)), now, now))
            self._conn.execute("INSERT OR REPLACE INTO info (name, value) VALUES ('config_hash', ?)",
                               (digest,))
        self._config_hash = digest

    @property
    def config_hash(self) -> str | None:
        """Hash of the current config (None when none was recorded)."""
        return self._config_hash

    @property
    def config(self) -> dict[str, Any] | None:
        """The current config as recorded (frozen: canonical JSON read back)."""
        digest = self.config_hash
        if digest is None:
            return None
        row = self._conn.execute("SELECT config FROM configs WHERE hash = ?", (digest,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    @named_failures
    def set_plan(self, keys: Iterable[str]) -> None:
        """Record the keys the current config asks for (replacing any earlier plan)."""
        with self._transaction():
            self._conn.execute("DELETE FROM plan")
            self._conn.executemany("INSERT OR IGNORE INTO plan (key) VALUES (?)", ((k,) for k in keys))

    @named_failures
    def set_scales(self, scales: Mapping[str, Scale]) -> None:
        """Declare criteria's scales (kept with the judgments, read back by :func:`load_store`)."""
        with self._transaction():
            self._conn.executemany("INSERT OR REPLACE INTO scales (criterion, scale) VALUES (?, ?)",
                                   [(name, scale.spelling()) for name, scale in scales.items()])

    def scales(self) -> dict[str, Scale]:
        return stored_scales(self._conn)

    # -- judgments
    @named_failures
    def status(self) -> dict[str, bool]:
        """Stored key -> whether its judgment failed."""
        self._write_batch()
        return {str(k): bool(f) for k, f in self._conn.execute("SELECT key, failed FROM judgments")}

    @named_failures
    def put(self, request: ChatRequest, reply: Reply, rows: Sequence[Mapping[str, Any]], *,
            commit: bool = True) -> bool:
        """Store a judgment and its rows; return whether anything was written.

        A new key is inserted; a key stored as failed is replaced; a key stored as good is
        left alone (False). With ``commit=False`` the write joins a batch that :meth:`commit`
        writes and commits in one transaction (the runner commits small batches: a crash then
        loses at most the judgments since the last commit, whose good replies the response
        cache holds), and True is returned: whether it changes anything is known once it is
        written. The rows are encoded at once (a row that is not JSON raises here); every
        read of the store writes the batch first, so it sees every judgment put.

        Writing a batch at once rather than each judgment as its reply arrives costs about
        half the CPU: between replies the event loop sleeps and SQLite's code and pages go
        cold, so one insert at a time cost 0.2 ms of CPU a judgment at 32 requests in flight
        and 200 ms latency, against 0.1 for the same inserts in a row (bench/bench_engine.py).
        """
        started = time.process_time() if _phases.ON else 0.0
        verdict = reply.verdict_dict()
        kept = []
        for row in rows:  # the reply's text is stored once, in raw_response; records() puts it back
            row = dict(row)
            if "raw_response" in row and row["raw_response"] == reply.text:
                del row["raw_response"]
                row[RAW_MARKER] = 1
            kept.append(row)
        values = (
            request.key, self.config_hash, int(not reply.ok), reply.failure_kind, reply.error,
            _ROWS_JSON.encode(kept), None if verdict is None else _ROWS_JSON.encode(verdict),
            reply.text, reply.model, request.prompt_hash, reply.tokens_in, reply.tokens_out,
            reply.usd, reply.usd_provenance, reply.latency_s, reply.attempts, int(reply.cached),
            reply.evaluated_at or utc_now(), logprobs_to_json(reply.top_logprobs))
        prompt = _ROWS_JSON.encode([{"role": role, "content": content} for role, content in request.messages])
        shown = _ROWS_JSON.encode(dict(request.shown)) if request.shown else None
        self._batch.append((values, prompt, shown))
        if _phases.ON:
            _phases.add("store", started)
        if commit:
            return self._write_batch(commit=True)
        return True

    def _write_batch(self, *, commit: bool = False) -> bool:
        """Write the judgments put with ``commit=False`` (in the open transaction, begun if
        none is), and commit when asked; return whether the last of them changed the store."""
        if not self._batch and not (commit and self._conn.in_transaction):
            return False
        with _phases.timed("store"):
            written = False
            if self._batch:
                batch, self._batch = self._batch, []
                conn = self._conn
                if not conn.in_transaction:
                    conn.execute("BEGIN IMMEDIATE")
                for done, (values, prompt, shown) in enumerate(batch):
                    try:
                        written = conn.execute(_PUT, values).rowcount > 0
                        if written:
                            conn.execute(_PUT_PROMPT, (values[0], prompt))
                            if shown is not None:
                                conn.execute(_PUT_SHOWN, (values[0], shown))
                    except BaseException as exc:
                        # a write the database refused (I/O, locked, full) is kept for the next
                        # commit; a judgment it cannot take (a value SQLite cannot store) is
                        # dropped, raising once as its put did before batching, else every
                        # later read, commit and close would raise and lose the whole batch
                        refused = isinstance(exc, sqlite3.OperationalError) or not isinstance(exc, Exception)
                        self._batch = batch[done if refused else done + 1:] + self._batch
                        raise
            if commit and self._conn.in_transaction:
                self._conn.execute("COMMIT")
        return written

    @named_failures
    def commit(self) -> None:
        """Write and commit the judgments put with ``put(..., commit=False)``."""
        self._write_batch(commit=True)

    @named_failures
    def counts(self) -> StoreCounts:
        self._write_batch()
        stored, failed = self._conn.execute(
            "SELECT count(*), coalesce(sum(failed), 0) FROM judgments").fetchone()
        planned = self._conn.execute("SELECT count(*) FROM plan").fetchone()[0]
        return StoreCounts(int(stored), int(failed), int(planned))

    def _selected(self, columns: str, keys: Iterable[str] | None) -> list[tuple[Any, ...]]:
        self._write_batch()
        if keys is not None:
            wanted = list(dict.fromkeys(keys))
            self._conn.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (key TEXT PRIMARY KEY)")
            with self._transaction():
                self._conn.execute("DELETE FROM wanted")
                self._conn.executemany("INSERT OR IGNORE INTO wanted (key) VALUES (?)",
                                       ((k,) for k in wanted))
            return self._conn.execute(f"SELECT {columns} FROM judgments JOIN wanted USING (key) "
                                      "ORDER BY wanted.rowid").fetchall()
        return selected_rows(self._conn, columns)

    @named_failures
    def verdicts(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The good verdicts stored for ``keys``: key -> verdict (as JSON values); failed or
        verdict-less judgments are left out (a two-stage judge builds its second stage from them)."""
        self._write_batch()
        wanted = list(dict.fromkeys(keys))
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            query = ("SELECT key, verdict FROM judgments WHERE failed = 0 AND verdict IS NOT NULL "
                     f"AND key IN ({', '.join('?' * len(part))})")
            for key, verdict in self._conn.execute(query, part):
                out[str(key)] = json.loads(verdict)
        return out

    @named_failures
    def top_logprobs(self, keys: Iterable[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """The top-logprob tables stored for ``keys`` (key -> ``(token, logprob)`` pairs); keys
        whose judgment asked for none, or whose endpoint returned none, are left out."""
        self._write_batch()
        wanted = list(dict.fromkeys(keys))
        out: dict[str, tuple[tuple[str, float], ...]] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            query = ("SELECT key, top_logprobs FROM judgments WHERE top_logprobs IS NOT NULL "
                     f"AND key IN ({', '.join('?' * len(part))})")
            for key, table in self._conn.execute(query, part):
                out[str(key)] = logprobs_from_json(table) or ()
        return out

    @named_failures
    def prompt(self, key: str) -> tuple[tuple[str, str], ...] | None:
        """The rendered messages judgment ``key`` sent, ``(role, content)`` pairs; None when the
        store does not hold them (no such judgment, or one stored before prompts were kept)."""
        self._write_batch()
        row = self._conn.execute("SELECT messages FROM prompts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return tuple((str(m["role"]), str(m["content"])) for m in json.loads(row[0]))

    @named_failures
    def records(self, *, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The judgments-table rows of the planned judgments in plan order (or of ``keys``, in
        their order), never in the order they were answered in (see
        :func:`~assay.data.run_store.selected_rows`)."""
        return rows_of(self._selected("rows, raw_response", keys))

    def to_frame(self, *, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The rows as a DataFrame in the judgments-table column order (not validated:
        :func:`load_store` validates)."""
        import pandas as pd

        frame = pd.DataFrame.from_records(self.records(keys=keys))
        known = [c.name for c in COLUMNS if c.name in frame.columns]
        return frame[known + [c for c in frame.columns if c not in known]]

    @named_failures
    def judge_costs(self, *, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """What judging cost, one row per judgment (columns :data:`JUDGE_COST_COLUMNS`)."""
        rows = self._selected(", ".join(f"judgments.{c}" for c in JUDGE_COST_COLUMNS), keys)
        import pandas as pd

        frame = pd.DataFrame.from_records(rows, columns=list(JUDGE_COST_COLUMNS))
        frame["failed"] = frame["failed"].astype(bool)
        frame["cached"] = frame["cached"].astype(bool)
        return frame

    # -- Batch API jobs in flight (transport: batch)
    @named_failures
    def open_batches(self) -> list[dict[str, Any]]:
        """The batch jobs submitted and not yet recorded, oldest first: ``input_file_id``,
        ``batch_id`` (None when the run stopped between uploading and creating it),
        ``requests``, ``endpoint`` and ``created_at``."""
        names = ("input_file_id", "batch_id", "requests", "endpoint", "created_at")
        return [dict(zip(names, row, strict=True)) for row in self._conn.execute(
            f"SELECT {', '.join(names)} FROM batches ORDER BY rowid")]

    @named_failures
    def begin_batch(self, input_file_id: str, requests: int, endpoint: str) -> None:
        """Record an uploaded batch input, before the batch is created (committed at once)."""
        with self._transaction():
            self._conn.execute("INSERT OR REPLACE INTO batches (input_file_id, requests, endpoint, "
                               "created_at) VALUES (?, ?, ?, ?)", (input_file_id, requests, endpoint,
                                                                    utc_now()))

    @named_failures
    def set_batch_id(self, input_file_id: str, batch_id: str) -> None:
        """Record the batch created from ``input_file_id`` (committed at once)."""
        with self._transaction():
            self._conn.execute("UPDATE batches SET batch_id = ? WHERE input_file_id = ?",
                               (batch_id, input_file_id))

    @named_failures
    def end_batch(self, input_file_id: str) -> None:
        """Forget a batch whose results are recorded, in the same transaction as its judgments
        (``put(..., commit=False)`` before, :meth:`commit` after): a crash keeps both or neither."""
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN IMMEDIATE")
        self._conn.execute("DELETE FROM batches WHERE input_file_id = ?", (input_file_id,))

    # -- plumbing
    def _transaction(self) -> _Transaction:
        self.commit()
        return _Transaction(self._conn)

    @named_failures
    def close(self) -> None:
        self.commit()
        self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"row value {value!r} of type {type(value).__name__} is not JSON")


_ROWS_JSON = json.JSONEncoder(ensure_ascii=False, default=_json_default)

