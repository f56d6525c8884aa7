"""Azure OpenAI: api-version in the query, the key in an ``api-key`` header, Entra ID tokens.

Oracle: what the stand-in server received (its recorded paths, ``Authorization`` and
``api-key`` headers); and that no key or token reaches the store, the cache or an error.
"""

from __future__ import annotations

import sqlite3
import sys

import pytest

from assay.judge import FatalAPIError, ResponseCache
from assay.llm import client_problems
from tests.llm.test_engine_endpoints import TRANSPORTS, ask, client_for

KEY = "azure-KEY-0123456789abcdef"
TOKEN = "eyJ0eXAi.entra-TOKEN-0123456789"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_api_version_and_api_key_header(server, monkeypatch, transport, tmp_path):
    monkeypatch.setenv("ASSAY_AZURE_KEY", KEY)
    cache = ResponseCache(tmp_path / "responses.sqlite")
    client = client_for(server.url + "/openai/deployments/d1", transport, cache=cache,
                        api_key_env="ASSAY_AZURE_KEY", api_version="2024-10-21")
    reply = ask(client)
    cache.close()
    assert reply.ok, reply.error
    assert server.stats.paths == ["/v1/openai/deployments/d1/chat/completions?api-version=2024-10-21"]
    assert server.stats.api_keys == {KEY}
    assert server.stats.authorizations == set()  # no bearer key beside the api-key header
    assert "api-version=2024-10-21" in client.endpoint
    assert KEY.encode() not in (tmp_path / "responses.sqlite").read_bytes()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_api_version_in_the_url_is_kept(server, transport):
    reply = ask(client_for(server.url + "?api-version=2025-01-01", transport, api_version="2024-10-21"))
    assert reply.ok, reply.error
    assert server.stats.paths == ["/v1/chat/completions?api-version=2025-01-01"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_entra_token_from_a_variable_is_a_bearer_token(server, monkeypatch, transport):
    monkeypatch.setenv("ASSAY_ENTRA", TOKEN)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    reply = ask(client_for(server.url, transport, api_key_env="OPENAI_API_KEY",
                           azure_ad_token_env="ASSAY_ENTRA", api_version="2024-10-21"))
    assert reply.ok, reply.error
    assert server.stats.authorizations == {f"Bearer {TOKEN}"}
    assert server.stats.api_keys == set()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_entra_token_from_a_command_and_redacted_in_errors(server, transport, tmp_path):
    script = tmp_path / "token.py"
    script.write_text(f"print({TOKEN!r})\n", encoding="utf-8")
    server.configure(script=["echo_auth"])
    reply = ask(client_for(server.url, transport, api_key_env=None, api_version="2024-10-21",
                           azure_ad_token_command=f"{sys.executable} {script}"))
    assert reply.failure_kind == "api_error"
    assert TOKEN not in reply.error and "Authorization: Bearer ***" in reply.error
    assert server.stats.authorizations == {f"Bearer {TOKEN}"}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_api_key_header_echoed_is_redacted(server, monkeypatch, transport):
    monkeypatch.setenv("ASSAY_AZURE_KEY", KEY)
    server.configure(script=["echo_auth"])
    reply = ask(client_for(server.url, transport, api_key_env="ASSAY_AZURE_KEY", api_version="1"))
    assert reply.failure_kind == "api_error"
    assert KEY not in reply.error and "api-key: ***" in reply.error


def test_a_failing_token_command_is_fatal_without_its_output(server, tmp_path):
    script = tmp_path / "token.py"
    script.write_text(f"import sys; print({TOKEN!r}); sys.exit(3)\n", encoding="utf-8")
    client = client_for(server.url, "direct", api_key_env=None,
                        azure_ad_token_command=f"{sys.executable} {script}")
    with pytest.raises(FatalAPIError) as info:
        ask(client)
    assert "azure_ad_token_command: the command gave no token (exit status 3)" in str(info.value)
    assert TOKEN not in str(info.value) and server.stats.requests == 0


def test_problems_name_the_token_variable_and_skip_the_key(monkeypatch):
    from assay.llm import ClientConfig

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ASSAY_ENTRA", raising=False)
    config = ClientConfig(model="m", base_url="https://x.openai.azure.com/openai/deployments/d",
                          azure_ad_token_env="ASSAY_ENTRA")
    [problem] = client_problems(config)
    assert problem.startswith("environment variable ASSAY_ENTRA is not set: it should hold the Entra ID")
    monkeypatch.setenv("ASSAY_ENTRA", TOKEN)
    assert client_problems(config) == []  # no API key needed with a token


def test_the_run_store_holds_no_azure_key(server, monkeypatch, tmp_path):
    from tests.cli._judge_helpers import run, write_config

    monkeypatch.setenv("ASSAY_AZURE_KEY", KEY)
    config = write_config(tmp_path, server.url + "/openai/deployments/d1", api_key_env="ASSAY_AZURE_KEY",
                          api_version="2024-10-21")
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    assert server.stats.api_keys == {KEY}
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    with sqlite3.connect(tmp_path / "run" / "judgments.sqlite") as conn:
        assert conn.execute("select count(*) from judgments").fetchone()[0] == 12
