"""Secrets kept out of what is stored and printed, and request URLs built with a URL library
(issue 11, item 24). Expected values are written out by hand from the rules in the docstrings."""

from __future__ import annotations

import pytest

from assay.judge.config import parse_config
from assay.llm import chat_completions_url, redact_text, redact_url


@pytest.mark.parametrize(("url", "shown"), [
    ("https://api.openai.com/v1", "https://api.openai.com/v1"),
    ("https://api.openai.com:443/v1/", "https://api.openai.com/v1"),
    ("http://user:pa%40ss@LOCALHOST:8000/v1", "http://***@localhost:8000/v1"),
    ("http://token-only@host/v1", "http://***@host/v1"),
    ("https://x.openai.azure.com/openai/deployments/gpt4o?api-version=2024-06-01",
     "https://x.openai.azure.com/openai/deployments/gpt4o?api-version=2024-06-01"),
    ("https://h/v1?key=AIza123&api_key=k&access_token=t&sig=s&project=p",
     "https://h/v1?key=***&api_key=***&access_token=***&sig=***&project=p"),
    ("http://[::1]:8000/v1", "http://[::1]:8000/v1"),
])
def test_redact_url(url, shown):
    assert redact_url(url) == shown


@pytest.mark.parametrize(("base", "url"), [
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions"),
    ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/chat/completions"),
    ("https://r.openai.azure.com/openai/deployments/d?api-version=2024-06-01",
     "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01"),
    ("https://u:p@h/v1?token=t#frag", "https://u:p@h/v1/chat/completions?token=t"),
])
def test_chat_completions_url_appends_to_the_path_not_the_query(base, url):
    assert chat_completions_url(base) == url


@pytest.mark.parametrize(("text", "clean"), [
    ("headers: Authorization: Bearer sk-proj-AbC123xyz789", "headers: Authorization: Bearer ***"),
    ('{"authorization": "Bearer abcdef123456"}', '{"authorization": "Bearer ***"}'),
    ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***"),
    ("Incorrect API key provided: sk-abcd1234efgh", "Incorrect API key provided: sk-***"),
    ("GET /v1?api_key=abc12345&x=1 failed", "GET /v1?api_key=***&x=1 failed"),
    ("proxy https://bob:hunter2@proxy:3128 refused", "proxy https://***@proxy:3128 refused"),
    ("the token count is over the limit", "the token count is over the limit"),
    ("basic authentication failed", "basic authentication failed"),
])
def test_redact_text(text, clean):
    assert redact_text(text) == clean


def test_redact_text_removes_the_known_key_anywhere():
    assert redact_text("key=my-own-key-value in 'my-own-key-value'", secrets=["my-own-key-value"]) == \
        "key=*** in '***'"


def test_the_recorded_config_holds_no_credential_of_the_base_url():
    config = parse_config({
        "version": 1, "llm": {"model": "m", "base_url": "https://h/v1?api-version=1&token=tok-9"},
        "judges": [{"kind": "rubric", "criteria": [{"name": "c"}]}]})
    frozen = config.frozen()
    assert frozen["llm"]["base_url"] == "https://h/v1?api-version=1&token=***"
    assert config.llm is not None and config.llm.base_url.endswith("token=tok-9")  # still sent as given


def test_a_run_store_records_no_secret_of_any_config_it_is_given(tmp_path, monkeypatch):
    # issue 22, item 3: the answers' and the teacher's stores recorded their configs as given
    from assay.llm import RunStore

    monkeypatch.setenv("ASSAY_TEST_KEY", "kq7Vr2Lw9Xe4Zt8Nb3")
    config = {"generate": [{"name": "a", "base_url": "http://127.0.0.1:8000/v1?token=tq5Hm8Jd2Ws6",
                            "api_key_env": "ASSAY_TEST_KEY", "params": {"user": "kq7Vr2Lw9Xe4Zt8Nb3"}},
                           {"name": "b", "command": ["serve", "--url", "https://h/v1?sig=sg3Lk9Pq"]}]}
    with RunStore(tmp_path, config=config) as store:
        recorded = store.config
    assert recorded == {"generate": [
        {"name": "a", "base_url": "http://127.0.0.1:8000/v1?token=***", "api_key_env": "ASSAY_TEST_KEY",
         "params": {"user": "***"}},
        {"name": "b", "command": ["serve", "--url", "https://h/v1?sig=***"]}]}
    written = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert not any(s in written for s in (b"tq5Hm8Jd2Ws6", b"kq7Vr2Lw9Xe4Zt8Nb3", b"sg3Lk9Pq"))


@pytest.mark.parametrize("section", ["systems", "datapoints"])
@pytest.mark.parametrize(("url", "said"), [
    ("http://u:pw@h/v1", "a user name or password in the URL is never sent"),
    ("http://token@h/v1", "a user name or password in the URL is never sent"),
    ("file:///etc/passwd", "expected an http:// or https:// URL with a host, got 'file:///etc/passwd'"),
    ("http://[::1", "expected an http:// or https:// URL with a host, got 'http://[::1' (Invalid IPv6 URL)"),
])
def test_a_system_or_teacher_base_url_is_checked_as_the_judges_is(section, url, said):
    from assay.errors import ConfigError

    endpoint = {"model": "m", "base_url": url, "api_key_env": None}
    data = {"version": 1, "judges": [], "llm": {"model": "m", "api_key_env": None}}
    if section == "systems":
        data["systems"] = [{"name": "s", **endpoint}]
    else:
        data["datapoints"] = {"kind": "teacher", "tasks": [{"name": "t", "description": "d"}], **endpoint}
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert said in str(info.value) and "pw" not in str(info.value).replace("password", "")
    assert f"{section}" in str(info.value) and "base_url" in str(info.value)
