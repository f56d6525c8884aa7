"""One phase of the whole evaluation (a teacher's items, the systems' answers) run on the
judges' engine: one run store per phase in a sub-folder of the run folder, the run's response
cache, the run folder's lock, and an LLM client per endpoint (or a local command)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assay._secrets import redact_text
from assay.config.steps import Endpoint, SystemConfig
from assay.llm import (
    ChatRequest,
    ClientConfig,
    ClientStats,
    Progress,
    Reply,
    RunStore,
    RunSummary,
    cache_path,
    run_requests,
)
from assay.llm._types import utc_now

RowsFn = Callable[[ChatRequest, Reply], Sequence[Mapping[str, Any]]]


def client_config(endpoint: Endpoint, base: ClientConfig | None, *, spent_usd: float = 0.0) -> ClientConfig:
    """The engine settings of one endpoint: its model, URL, key, parameters and price, with
    the concurrency, time-outs, retries and cost limit of the config's ``llm`` section (the
    cost limit less what this phase already spent)."""
    settings: dict[str, Any] = {}
    if base is not None:
        settings = base.model_dump(include={"max_concurrency", "timeout_s", "max_retries",
                                            "max_parse_retries", "backoff_base_s", "backoff_max_s",
                                            "transport", "max_reply_bytes"})
        if base.cost_limit_usd is not None:
            settings["cost_limit_usd"] = max(base.cost_limit_usd - spent_usd, 1e-12)
    return ClientConfig(model=str(endpoint.model), base_url=endpoint.base_url,
                        api_key_env=endpoint.api_key_env, params=dict(endpoint.params),
                        prices={str(endpoint.model): endpoint.price} if endpoint.price else {},
                        **settings)


def messages(endpoint: Endpoint, prompt: str) -> tuple[tuple[Any, str], ...]:
    """The chat messages that ask ``endpoint`` ``prompt``."""
    system = (("system", endpoint.system_prompt),) if endpoint.system_prompt else ()
    return (*system, ("user", prompt))


def run_phase(requests: Sequence[ChatRequest], make_client: Callable[[Any], Any], store: RunStore, *,
              rows: RowsFn, cache: Path | None, retry_failed: bool = False,
              progress: Callable[[Progress], None] | None = None) -> RunSummary:
    """Ask ``requests`` the store does not hold through the client ``make_client(cache)``
    builds, storing each reply as it comes (a rerun resumes)."""
    from assay.llm import ResponseCache

    async def go() -> RunSummary:
        responses = None if cache is None else ResponseCache(cache)
        try:
            async with make_client(responses) as client:
                return await run_requests(requests, client, store, rows=rows, retry_failed=retry_failed,
                                          progress=progress, record_plan=False)
        finally:
            if responses is not None:
                responses.close()

    return asyncio.run(go())


def phase_cache(setting: str, run: Path, base_dir: Path) -> Path | None:
    """The run's response cache file (``cache_path``), its folder made."""
    where = cache_path(setting, run, base_dir=base_dir)  # type: ignore[arg-type]
    if where is not None:
        where.parent.mkdir(parents=True, exist_ok=True)
    return where


COMMAND_ENVIRONMENT = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM",
                       "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC",
                       "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA")
"""The variables every command gets (with the locale's ``LC_*``): what a program needs to
start, find its files and read text; never a key."""


def command_environment(system: SystemConfig, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of ``system``'s command: :data:`COMMAND_ENVIRONMENT`, the ``LC_*``
    variables and the variables its ``env`` names, as far as ``environ`` (assay's own) sets them.

    >>> from assay.config.steps import SystemConfig
    >>> command_environment(SystemConfig(name="s", command=["x"], env=["MY_TOKEN"]),
    ...                     {"PATH": "/bin", "LC_ALL": "C", "OPENAI_API_KEY": "sk-1", "MY_TOKEN": "t"})
    {'PATH': '/bin', 'LC_ALL': 'C', 'MY_TOKEN': 't'}
    """
    source = os.environ if environ is None else environ
    wanted = {*COMMAND_ENVIRONMENT, *system.env}
    return {name: value for name, value in source.items() if name in wanted or name.startswith("LC_")}


@dataclasses.dataclass
class _CommandConfig:
    max_concurrency: int


class CommandClient:
    """A local command as a client of the runner: the prompt on its standard input, the
    answer from its standard output, a minimal environment (:func:`command_environment`). A
    non-zero exit status or a time-out is an
    ``api_error`` or ``timeout`` reply (failed, stored as failed); it costs nothing and is
    not cached (a local command is asked again on ``--retry-failed``)."""

    def __init__(self, system: SystemConfig, *, cwd: Path, max_concurrency: int) -> None:
        self.system, self.cwd = system, cwd
        self.config = _CommandConfig(max_concurrency)
        self.stats = ClientStats()
        self._slots = asyncio.Semaphore(max_concurrency)
        self._env = command_environment(system)

    async def __aenter__(self) -> CommandClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def complete(self, request: ChatRequest) -> Reply:
        prompt = request.messages[-1][1]
        words = list(self.system.command or [])
        async with self._slots:
            started = time.monotonic()
            self.stats.calls += 1
            try:
                proc = await asyncio.create_subprocess_exec(
                    *words, cwd=self.cwd, env=self._env, stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            except OSError as exc:
                return Reply(key=request.key, verdict=None, text=None, failure_kind="api_error",
                             error=f"cannot start {words[0]!r}: {exc.strerror}", evaluated_at=utc_now())
            try:
                out, err = await asyncio.wait_for(proc.communicate(prompt.encode("utf-8")),
                                                  self.system.timeout_s)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                return Reply(key=request.key, verdict=None, text=None, failure_kind="timeout",
                             error=f"no answer within {self.system.timeout_s:g} s",
                             latency_s=time.monotonic() - started, evaluated_at=utc_now())
        text = out.decode("utf-8", errors="replace")
        latency = time.monotonic() - started
        if proc.returncode != 0:
            last = err.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
            return Reply(key=request.key, verdict=None, text=text or None, failure_kind="api_error",
                         error=redact_text(f"exit status {proc.returncode}: {last[0][:200]}"),
                         latency_s=latency,
                         attempts=1, evaluated_at=utc_now())
        return Reply(key=request.key, verdict=None, text=text.strip(), latency_s=latency, attempts=1,
                     model=self.system.name, evaluated_at=utc_now())
