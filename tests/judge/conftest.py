"""Fixtures: the stand-in model server (tests/judge/llm_server.py) on 127.0.0.1 and clients for it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict

from assay.judge import ChatRequest, Price
from assay.llm import ClientConfig, LLMClient
from tests.judge.llm_server import Behaviour, LLMServer

PRICES = {"judge-model": Price(input=2.5, output=10.0)}


class PairwiseVerdict(BaseModel):
    """A verdict like the pairwise judge's (seed 004's output format)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reasoning: str
    winner: Literal[0, 1, 2]


class ScoreVerdict(BaseModel):
    """A pointwise verdict with a numeric score (what default_rows reads)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reasoning: str
    score: int


@pytest.fixture(scope="session")
def _server() -> Iterator[LLMServer]:
    with LLMServer() as server:
        yield server


@pytest.fixture
def server(_server: LLMServer) -> LLMServer:
    """The session's server with fresh counters and default behaviour."""
    _server.reset(Behaviour())
    return _server


@pytest.fixture(params=["direct", "openai"])
def make_client(server: LLMServer, request: pytest.FixtureRequest) -> Callable[..., LLMClient]:
    """Build a client for the server; keyword arguments override ClientConfig fields.

    Every test using it runs once per transport (assay's own aiohttp post, and the SDK's).
    """

    def make(cache: Any = None, **overrides: Any) -> LLMClient:
        options: dict[str, Any] = {
            "model": "judge-model", "base_url": server.url, "api_key_env": None,
            "max_concurrency": 8, "timeout_s": 2.0, "backoff_base_s": 0.01, "backoff_max_s": 5.0,
            "prices": PRICES, "transport": request.param}
        options.update(overrides)
        return LLMClient(ClientConfig(**options), cache=cache, rng=0)

    return make


def sigkill_when(argv: list[str], ready: Callable[[], bool], *, timeout_s: float = 60.0) -> None:
    """Start ``argv`` as a child process and SIGKILL it once ``ready()`` holds (checked every
    10 ms); fail when the child ends first."""
    import os
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.01)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stderr:
            proc.stderr.close()


def score_requests(n: int, *, prefix: str = "q", model: type[BaseModel] = ScoreVerdict) -> list[ChatRequest]:
    """n distinct rubric-like requests whose rows are valid judgments-table rows."""
    return [ChatRequest(key=f"{prefix}{i:05d}",
                        messages=(("system", "Rate the answer from 1 to 10."),
                                  ("user", f"Question {prefix}{i}: what is {i} + {i}? Answer: {2 * i}")),
                        response_model=model,
                        meta={"item": f"{prefix}{i}", "cluster": f"doc{i % 7}", "arm": "rag",
                              "judge": "judge-model", "criterion": "correctness", "run": 1})
            for i in range(n)]
