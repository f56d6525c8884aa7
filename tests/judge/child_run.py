"""A judging run in its own process, for the SIGKILL tests: ``python child_run.py URL FOLDER CACHE N C
[TRANSPORT]`` (``batch`` polls every 50 ms)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from assay.judge import ResponseCache, RunStore, run_requests
    from assay.llm import ClientConfig, LLMClient
    from tests.judge.conftest import score_requests

    url, folder, cache_path, n, concurrency = argv[0], argv[1], argv[2], int(argv[3]), int(argv[4])
    transport = argv[5] if len(argv) > 5 else "direct"
    config = ClientConfig(model="judge-model", base_url=url, api_key_env=None,
                          max_concurrency=concurrency, timeout_s=5.0, transport=transport,
                          batch_poll_s=0.05, batch_poll_max_s=0.05)

    async def run() -> None:
        with ResponseCache(cache_path) as cache, RunStore(folder, config={"judge": "kill-test"}) as store:
            async with LLMClient(config, cache=cache) as client:
                await run_requests(score_requests(n), client, store)

    asyncio.run(run())


if __name__ == "__main__":
    main(sys.argv[1:])
