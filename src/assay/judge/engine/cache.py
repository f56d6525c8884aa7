"""Response cache (SQLite, WAL) and single-flight of identical requests in flight.

The cache is content-addressed: :func:`cache_key` hashes everything that determines a
reply (model, messages, parameters, the verdict's JSON schema, the prompt hash and the
sample number), so a rerun, a resumed run or another run folder asking the same thing
pays nothing. Only good replies are cached; failures are asked again next time.

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

from assay.judge.engine._types import utc_now

CACHE_FORMAT = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    model TEXT,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    usage_reported INTEGER NOT NULL,
    created_at TEXT NOT NULL
)
"""

T = TypeVar("T")


def cache_key(model: str, messages: Sequence[tuple[str, str]], params: Mapping[str, Any] | str,
              schema: Mapping[str, Any] | str | None, prompt_hash: str = "", sample: int = 0) -> str:
    """SHA-256 (hex) of what determines a reply.

    ``params`` and ``schema`` (the verdict's JSON schema) are mappings or their canonical
    JSON text (:func:`canonical_json`).
    The hash is over the UTF-8 of a sequence of fields, each written as its length in
    characters, a colon and the text: the format number, model, parameters and schema
    (canonical JSON), prompt hash and sample, then each message's role and text. The
    lengths keep the fields apart without escaping the messages (escaping kilobytes of
    text as JSON cost more than the rest of a cache lookup).

    >>> k = cache_key("m", [("user", "hi")], {"temperature": 0}, None)
    >>> k == cache_key("m", [("user", "hi")], {"temperature": 0}, None), len(k)
    (True, 64)
    >>> k == cache_key("m", [("user", "hi")], {"temperature": 0}, None, sample=1)
    False
    >>> cache_key("m", [("user", "ab")], {}, None) == cache_key("m", [("user", "a"), ("b", "")], {}, None)
    False
    """
    if not isinstance(schema, str):
        schema = canonical_json(schema)
    if not isinstance(params, str):
        params = canonical_json(dict(params))
    fields = [str(CACHE_FORMAT), model, params, schema, prompt_hash, str(sample)]
    for role, text in messages:
        fields += (role, text)
    return hashlib.sha256("".join([f"{len(f)}:{f}" for f in fields]).encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces, the form a cache key hashes.

    >>> canonical_json({"b": 1, "a": [1, "é"]})
    '{"a":[1,"é"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


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
    return root / "assay" / "responses.sqlite"


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

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute(_SCHEMA)
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> CachedResponse | None:
        row = self._conn.execute(
            "SELECT content, model, tokens_in, tokens_out, usage_reported, created_at "
            "FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return CachedResponse(row[0], row[1], int(row[2]), int(row[3]), bool(row[4]), row[5])

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
                    "SELECT key, content, model, tokens_in, tokens_out, usage_reported, created_at "
                    f"FROM responses WHERE key IN ({', '.join('?' * len(part))})", part):
                found[row[0]] = CachedResponse(row[1], row[2], int(row[3]), int(row[4]), bool(row[5]),
                                               row[6])
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def put(self, key: str, response: CachedResponse) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO responses (key, content, model, tokens_in, tokens_out, "
            "usage_reported, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, response.content, response.model, response.tokens_in, response.tokens_out,
             int(response.usage_reported), response.created_at or utc_now()))

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM responses").fetchone()[0])

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

