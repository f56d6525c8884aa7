"""Response cache (SQLite, WAL) and single-flight of identical requests in flight.

The cache is content-addressed: :func:`cache_key` hashes everything that determines a
reply (the endpoint, model, messages, parameters, the verdict's JSON schema, the prompt
hash and the sample number), so a rerun or a resumed run asking the same thing pays
nothing, and the same config pointed at another server (another vLLM deployment, another
provider serving a model of the same name) asks that server. The endpoint enters as
:func:`~assay._secrets.redact_url` of the base URL: scheme, host, port,
path (an Azure deployment) and query (``api-version``), never a credential. Only good
replies are cached; failures are asked again next time.

Where it lives (:func:`cache_path`, the config's ``cache`` key and ``assay judge
--cache``): ``run`` (the default) keeps ``responses.sqlite`` in the run folder, so a
project's replies stay with its runs; ``shared`` uses one cache per user
(:func:`default_cache_path`), which other run folders and projects on the machine read
too; ``off`` keeps none; anything else is a file path.

:class:`SingleFlight` makes concurrent identical requests share one call: the first
caller sends, the others await its future.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from assay.data.run_store import named_failures
from assay.llm._types import utc_now

CACHE_FORMAT = 3
"""Enters every key: 3 added the endpoint (keys of format 2 are never hit again)."""
CACHE_FILENAME = "responses.sqlite"
"""The cache's file name, in a run folder (the default) or in the shared cache folder."""
CacheSetting = str
"""``run``, ``shared``, ``off`` or a file path (see the module docstring)."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    model TEXT,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    usage_reported INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    endpoint TEXT,
    top_logprobs TEXT
)
"""

T = TypeVar("T")


def cache_key(model: str, messages: Sequence[tuple[str, str]], params: Mapping[str, Any] | str,
              schema: Mapping[str, Any] | str | None, prompt_hash: str = "", sample: int = 0, *,
              endpoint: str = "", logprob_token: int = 0) -> str:
    """SHA-256 (hex) of what determines a reply.

    ``params`` and ``schema`` (the verdict's JSON schema) are mappings or their canonical
    JSON text (:func:`canonical_json`); ``endpoint`` names the server (the client passes
    the redacted base URL); ``logprob_token``, the token position whose top-logprob table is
    kept, enters only when it is not 0 (so the keys of every other request are unchanged).
    The hash is over the UTF-8 of a sequence of fields, each written as its length in
    characters, a colon and the text: the format number, endpoint, model, parameters and
    schema (canonical JSON), prompt hash and sample, then each message's role and text. The
    lengths keep the fields apart without escaping the messages (escaping kilobytes of
    text as JSON cost more than the rest of a cache lookup).

    >>> k = cache_key("m", [("user", "hi")], {"temperature": 0}, None)
    >>> k == cache_key("m", [("user", "hi")], {"temperature": 0}, None), len(k)
    (True, 64)
    >>> k == cache_key("m", [("user", "hi")], {"temperature": 0}, None, sample=1)
    False
    >>> cache_key("m", [("user", "ab")], {}, None) == cache_key("m", [("user", "a"), ("b", "")], {}, None)
    False
    >>> k == cache_key("m", [("user", "hi")], {"temperature": 0}, None, endpoint="http://127.0.0.1:8001/v1")
    False
    """
    if not isinstance(schema, str):
        schema = canonical_json(schema)
    if not isinstance(params, str):
        params = canonical_json(dict(params))
    fields = [str(CACHE_FORMAT), endpoint, model, params, schema, prompt_hash, str(sample)]
    for role, text in messages:
        fields += (role, text)
    if logprob_token:  # after the messages, as a pair no message can be (no such role)
        fields += ("logprob_token", str(logprob_token))
    return hashlib.sha256("".join([f"{len(f)}:{f}" for f in fields]).encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces, the form a cache key hashes.

    >>> canonical_json({"b": 1, "a": [1, "é"]})
    '{"a":[1,"é"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def logprobs_to_json(table: Sequence[tuple[str, float]] | None) -> str | None:
    """A top-logprob table as the cache and the run store keep it: JSON ``[[token, logprob], ...]``.

    >>> logprobs_to_json((("4", -0.1), ("3", -2.5))), logprobs_to_json(None)
    ('[["4",-0.1],["3",-2.5]]', None)
    """
    return None if table is None else json.dumps([[t, lp] for t, lp in table], separators=(",", ":"),
                                                 ensure_ascii=False)


def logprobs_from_json(text: str | None) -> tuple[tuple[str, float], ...] | None:
    """The table :func:`logprobs_to_json` wrote (None stays None).

    >>> logprobs_from_json('[["4",-0.1],["3",-2.5]]')
    (('4', -0.1), ('3', -2.5))
    """
    return None if text is None else tuple((str(t), float(lp)) for t, lp in json.loads(text))


@dataclass(frozen=True, slots=True)
class CachedResponse:
    """A good reply as the cache keeps it."""

    content: str
    """The message content (raw, as received)."""
    model: str | None
    tokens_in: int
    tokens_out: int
    usage_reported: bool
    """Whether the server reported the token counts (else they were estimated)."""
    created_at: str
    endpoint: str | None = None
    """The server that answered (its redacted base URL), for ``assay cache info``."""
    top_logprobs: tuple[tuple[str, float], ...] | None = None
    """The top-logprob table the request asked for (None when it asked none or got none)."""


def default_cache_path() -> Path:
    """Where the response cache lives by default.

    ``$ASSAY_CACHE_DIR/responses.sqlite``, else ``$XDG_CACHE_HOME/assay/responses.sqlite``,
    else ``~/.cache/assay/responses.sqlite``.
    """
    base = os.environ.get("ASSAY_CACHE_DIR")
    if base:
        return Path(base) / "responses.sqlite"
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "assay" / CACHE_FILENAME


def cache_path(setting: CacheSetting, run_folder: str | Path, *, base_dir: str | Path = ".") -> Path | None:
    """Where a run's response cache is: ``setting`` is ``run``, ``shared``, ``off`` or a path.

    A relative path is read from ``base_dir`` (the config's folder, or the working folder
    for ``--cache``); None means no cache.

    >>> str(cache_path("run", "runs/first")), cache_path("off", "runs/first")
    ('runs/first/responses.sqlite', None)
    >>> str(cache_path("caches/c.sqlite", "runs/first", base_dir="proj"))
    'proj/caches/c.sqlite'
    """
    if setting == "run":
        return Path(run_folder) / CACHE_FILENAME
    if setting == "shared":
        return default_cache_path()
    if setting == "off":
        return None
    path = Path(setting).expanduser()
    return path if path.is_absolute() else Path(base_dir) / path


@dataclass(frozen=True, slots=True)
class CacheGroup:
    """The replies a cache holds from one endpoint and model."""

    endpoint: str | None
    """The redacted base URL; None for replies cached before endpoints were recorded (their
    keys are of an older format and are never hit again)."""
    model: str | None
    replies: int
    first: str
    """When the oldest of them was stored (ISO 8601 UTC)."""
    last: str


@dataclass(frozen=True, slots=True)
class CacheSummary:
    """What :meth:`ResponseCache.summary` reports."""

    path: Path
    replies: int
    bytes: int
    """Size of the file and its write-ahead log."""
    groups: tuple[CacheGroup, ...]


class ResponseCache:
    """A persistent map cache key -> :class:`CachedResponse` in one SQLite file (WAL).

    Use from one thread (the event loop's). Writes commit at once, so a killed process
    keeps every reply it had cached.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with ResponseCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite") as cache:
    ...     cache.put("k1", CachedResponse("{}", "m", 3, 1, True, "2026-01-01T00:00:00Z"))
    ...     cache.get("k1").tokens_in, cache.get("k2"), len(cache)
    (3, None, 1)
    """

    @named_failures
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute(_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(responses)")}
        if "endpoint" not in columns:  # a cache of format 2: keep its file, add the column
            self._conn.execute("ALTER TABLE responses ADD COLUMN endpoint TEXT")
        if "top_logprobs" not in columns:  # a cache from before logprobs: keep every reply
            self._conn.execute("ALTER TABLE responses ADD COLUMN top_logprobs TEXT")
        self.hits = 0
        self.misses = 0

    @named_failures
    def get(self, key: str) -> CachedResponse | None:
        row = self._conn.execute(
            "SELECT content, model, tokens_in, tokens_out, usage_reported, created_at, top_logprobs "
            "FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return CachedResponse(row[0], row[1], int(row[2]), int(row[3]), bool(row[4]), row[5],
                              top_logprobs=logprobs_from_json(row[6]))

    @named_failures
    def get_many(self, keys: Iterable[str]) -> dict[str, CachedResponse]:
        """The cached responses of those ``keys`` that are cached, in one query per 500 keys.

        >>> import tempfile
        >>> cache = ResponseCache(Path(tempfile.mkdtemp()) / "c.sqlite")
        >>> cache.put("k1", CachedResponse("yes", "m", 3, 1, True, "2026-01-01T00:00:00Z"))
        >>> sorted(cache.get_many(["k1", "k2"])), cache.hits, cache.misses
        (['k1'], 1, 1)
        """
        wanted = list(dict.fromkeys(keys))
        found: dict[str, CachedResponse] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            for row in self._conn.execute(
                    "SELECT key, content, model, tokens_in, tokens_out, usage_reported, created_at, "
                    f"top_logprobs FROM responses WHERE key IN ({', '.join('?' * len(part))})", part):
                found[row[0]] = CachedResponse(row[1], row[2], int(row[3]), int(row[4]), bool(row[5]),
                                               row[6], top_logprobs=logprobs_from_json(row[7]))
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    @named_failures
    def put(self, key: str, response: CachedResponse) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO responses (key, content, model, tokens_in, tokens_out, "
            "usage_reported, created_at, endpoint, top_logprobs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, response.content, response.model, response.tokens_in, response.tokens_out,
             int(response.usage_reported), response.created_at or utc_now(), response.endpoint,
             logprobs_to_json(response.top_logprobs)))

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM responses").fetchone()[0])

    def summary(self) -> CacheSummary:
        """What the cache holds: replies per endpoint and model, and when they were stored."""
        groups = [CacheGroup(endpoint, model, int(n), str(first), str(last))
                  for endpoint, model, n, first, last in self._conn.execute(
                      "SELECT endpoint, model, count(*), min(created_at), max(created_at) FROM responses "
                      "GROUP BY endpoint, model ORDER BY endpoint, model")]
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.is_file())
        return CacheSummary(self.path, sum(g.replies for g in groups), size, tuple(groups))

    def clear(self, *, endpoint: str | None = None) -> int:
        """Remove every reply (or those of ``endpoint``, a redacted base URL); return how many."""
        if endpoint is None:
            removed = self._conn.execute("DELETE FROM responses").rowcount
        else:
            removed = self._conn.execute("DELETE FROM responses WHERE endpoint = ?", (endpoint,)).rowcount
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.execute("VACUUM")
        return int(removed)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SingleFlight(Generic[T]):
    """Run one call per key at a time; concurrent callers of the same key share its result.

    The first caller runs ``fetch()``; callers arriving while it runs await the same
    future and get the same result (or exception). Once it settles the key is free.

    Examples
    --------
    >>> import asyncio
    >>> calls = []
    >>> async def fetch():
    ...     calls.append(1)
    ...     await asyncio.sleep(0.01)
    ...     return "reply"
    >>> async def main():
    ...     flight = SingleFlight()
    ...     return await asyncio.gather(*(flight.run("k", fetch) for _ in range(5)))
    >>> asyncio.run(main()), len(calls)
    (['reply', 'reply', 'reply', 'reply', 'reply'], 1)
    """

    def __init__(self) -> None:
        self._flights: dict[str, asyncio.Future[T]] = {}
        self.shared = 0
        """Calls answered by another caller's flight."""

    async def run(self, key: str, fetch: Callable[[], Awaitable[T]]) -> T:
        pending = self._flights.get(key)
        if pending is not None:
            self.shared += 1
            return await asyncio.shield(pending)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._flights[key] = future
        try:
            result = await fetch()
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: nobody may be waiting
            raise
        except BaseException:  # cancelled or interrupted: the waiters are cancelled too
            future.cancel()
            raise
        else:
            future.set_result(result)
            return result
        finally:
            del self._flights[key]

