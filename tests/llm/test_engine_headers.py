"""The direct transport sends the SDK's own headers without importing the SDK (issue 27).

``sdk_headers`` rebuilds what ``openai.AsyncOpenAI`` would send (its ``default_headers`` and
``auth_headers``); these tests compare it with the installed SDK's own, with and without the
organisation and project variables, inside an event loop as the transports are made, and
check that a judged call through the direct transport leaves ``openai`` unimported.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from assay.llm import ClientConfig
from assay.llm._transport import openai_client, sdk_headers
from tests.cli._judge_helpers import SRC


def _sdk_own(config: ClientConfig) -> dict[str, str]:
    sdk = openai_client(config)
    return {k: v for k, v in {**sdk.default_headers, **sdk.auth_headers}.items() if isinstance(v, str)}


@pytest.mark.parametrize("env", [{}, {"OPENAI_ORG_ID": "org-1", "OPENAI_PROJECT_ID": "proj-2",
                                     "MY_KEY": "sk-3"}])
def test_the_headers_are_the_sdks_own(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in ("OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = ClientConfig(model="m", base_url="http://127.0.0.1:9/v1",
                          api_key_env="MY_KEY" if env else None)

    async def both() -> tuple[dict[str, str], dict[str, str]]:
        return sdk_headers(config), _sdk_own(config)

    ours, theirs = asyncio.run(both())
    assert ours == theirs
    assert ours["Authorization"] == ("Bearer sk-3" if env else "Bearer not-needed")
    assert ("OpenAI-Organization" in ours) == bool(env)


def test_a_direct_call_never_imports_the_sdk(server) -> None:
    code = f"""
import asyncio, json, sys
from assay.llm import ChatRequest, ClientConfig, LLMClient
async def main():
    config = ClientConfig(model="m", base_url={server.url!r}, api_key_env=None)
    async with LLMClient(config) as client:
        reply = await client.complete(ChatRequest(key="k", messages=(("user", "Say hi"),)))
    print(json.dumps({{"ok": reply.ok, "openai": "openai" in sys.modules}}))
asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"ok": True, "openai": False}
    assert server.stats.requests == 1
