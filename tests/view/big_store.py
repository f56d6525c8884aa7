"""A run store of many synthetic pairwise judgments, written by SQLite itself in one statement.

Used by the 1 M-judgment browser test and by ``bench/bench_view.py``. Judgment ``i`` is trial
``i % 2 + 1`` of pair ``i // 2``: the two trials of a pair show the system at positions 1
and 2, so every row has its counterbalanced partner. One judgment in 997 is a parse error.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from assay.data.run_store import STORE_FILENAME, STORE_TABLES

ARMS, JUDGES, CRITERIA, TASKS = 8, 3, 4, 5

_FILL = """
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < :n),
pairs AS (SELECT i, i / 2 AS pair, i % 2 AS p, i % 997 = 0 AS bad FROM n)
INSERT INTO judgments (key, config_hash, failed, failure_kind, error, rows, verdict, raw_response,
    model, prompt_hash, tokens_in, tokens_out, usd, usd_provenance, latency_s, attempts, cached,
    evaluated_at)
SELECT printf('%032x', i), 'cfg', bad, CASE WHEN bad THEN 'parse_error' END,
    CASE WHEN bad THEN 'reply is not JSON' END,
    json_array(json_object(
        'item', 'q' || (pair / 96), 'cluster', 'doc' || (pair / 960), 'arm', 'arm' || (pair % 8),
        'opponent', 'base', 'position', p + 1, 'run', p + 1, 'judge', 'judge' || ((pair / 8) % 3),
        'criterion', 'criterion' || ((pair / 24) % 4), 'task', 'task' || ((pair / 96) % 5),
        'score', CASE WHEN bad THEN NULL ELSE ((i * 7) % 3) / 2.0 END,
        'failure_kind', CASE WHEN bad THEN 'parse_error' END,
        'reasoning', 'Answer ' || (p + 1) || ' covers point ' || i || ' of the question.',
        '$raw_response', 1)),
    CASE WHEN bad THEN NULL ELSE json_object('reasoning', 'covers point ' || i, 'winner', 1 + p) END,
    CASE WHEN bad THEN 'not json ' || i ELSE '{"reasoning": "covers point ' || i || '", "winner": '
        || (1 + p) || '}' END,
    'judge' || ((pair / 8) % 3), 'ph', 400 + i % 200, 60 + i % 40, 0.0005, 'estimated',
    0.5 + (i % 10) / 10.0, 1 + (i % 50 = 0), 0, '2026-01-01T00:00:00Z'
FROM pairs
"""


def write_big_store(folder: Path, n: int) -> Path:
    """Write a run store of ``n`` judgments (one row each) into ``folder``; return ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(folder / STORE_FILENAME)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(STORE_TABLES)
        conn.execute(_FILL, {"n": n})
        conn.commit()
    finally:
        conn.close()
    return folder
