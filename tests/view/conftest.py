"""Fixtures of the viewer's tests: a small run store with hostile text, a served viewer, and a
tab opened on it (headless Chromium, see tests/conftest.py)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.llm import ChatRequest, Reply, RunStore
from assay.view import JudgmentIndex, ViewServer

HOSTILE_ITEM = "<script>window.pwned = 1</script>"
HOSTILE_ARM = '</textarea><img src=x onerror="window.pwned = 2">'
HOSTILE_REASONING = "bold \x1b[31mred\x1b[0m, a NUL \x00 here, and </pre><b>not bold</b>"
HOSTILE_PROMPT = "Grade </pre><script>window.pwned = 4</script> \x1b[1m<b>this</b>"
HOSTILE_REPLY = '{"reasoning": "</script><script>window.pwned = 3</script>", "winner": 1}'


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Store indexes go to a temporary cache, never the user's."""
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _put(store: RunStore, key: str, text: str, rows: list[dict[str, Any]], *,
         prompt: str = "judge this", **reply: Any) -> None:
    store.put(ChatRequest(key=key, messages=(("system", "You are a judge."), ("user", prompt)),
                          prompt_hash="p1"),
              Reply(key=key, verdict=None, text=text, **reply), rows)


def write_small_store(folder: Path) -> Path:
    """Six judgments of one pairwise judge (two counterbalanced trials per pair, one failed)
    and one rubric call scoring two criteria at once; hostile text in names and replies."""
    with RunStore(folder, config={"judge": "m"}) as store:
        for n, (item, arm) in enumerate([("q1", "rag"), ("q2", "rag"), (HOSTILE_ITEM, HOSTILE_ARM)]):
            for trial in (1, 2):
                failed = item == "q2" and trial == 2
                row = {"item": item, "arm": arm, "opponent": "base", "position": 1 if trial == 1 else 2,
                       "run": trial, "judge": "gpt-j", "criterion": "relevance", "task": "t1",
                       "score": None if failed else (1.0 if trial == 1 else 0.5),
                       "failure_kind": "parse_error" if failed else None,
                       "reasoning": HOSTILE_REASONING if item == HOSTILE_ITEM else f"trial {trial} of {item}",
                       "raw_response": HOSTILE_REPLY if item == HOSTILE_ITEM else f"reply {n}.{trial}"}
                text = row["raw_response"]
                extra = ({"failure_kind": "parse_error", "error": "reply is not JSON", "attempts": 3}
                         if failed else {"tokens_in": 120 + trial, "tokens_out": 30, "usd": 0.0021,
                               "usd_provenance": "reported", "latency_s": 0.8, "attempts": trial,
                               "model": "gpt-j"})
                _put(store, f"k{n}{trial}", text, [row], **extra,
                     prompt=HOSTILE_PROMPT if item == HOSTILE_ITEM else f"judge {item} trial {trial}")
        rubric = [{"item": "q1", "arm": "rag", "run": 1, "judge": "rubric-j", "criterion": c, "score": s,
                   "reasoning": f"{c} is fine", "raw_response": "100% fine_ish"}
                  for c, s in (("clarity", 4.0), ("depth", 2.0))]
        _put(store, "r1", "100% fine_ish", rubric, tokens_in=50, tokens_out=10, attempts=1)
    return folder


@pytest.fixture
def small_store(tmp_path: Path) -> Path:
    return write_small_store(tmp_path / "run")


@pytest.fixture
def served(small_store: Path) -> Iterator[ViewServer]:
    with JudgmentIndex(small_store) as index, ViewServer(index) as server:
        server.start()
        yield server


def open_view(tab: Any, url: str, *, timeout: float = 20.0) -> None:
    """Navigate ``tab`` to the viewer at ``url`` (a server on 127.0.0.1, or an exported file)
    and wait until its first page is drawn."""
    tab.send("Network.emulateNetworkConditions", {
        "offline": url.startswith("file:"), "latency": 0, "downloadThroughput": -1,
        "uploadThroughput": -1})
    tab.mark = len(tab.browser.events)
    tab.send("Page.navigate", {"url": url})
    tab.wait_for("window.assay !== undefined && window.assay.ready === true", timeout=timeout)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` (dicts with the first row's keys) as a CSV file at ``path``."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def texts(tab: Any, selector: str) -> list[str]:
    """The textContent of every element matching ``selector``."""
    return list(tab.evaluate(f"[...document.querySelectorAll({json.dumps(selector)})]"
                             ".map(e => e.textContent)"))
