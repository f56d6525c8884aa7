"""``assay judge`` in this process: dead endpoints, failures and exit statuses, dry runs,
prompts, secrets and terminal text (issue 11, items 5, 6, 7, 24).

The exit statuses a shell sees are checked in a child process in test_judge_process.py;
here ``assay.cli.main`` runs in the test's process (the same code path, faster) so the
stand-in server can be told what to do and its counters read.
"""

from __future__ import annotations

import socket
import sqlite3

import pytest

from tests.cli._judge_helpers import PAIRWISE, closed_port, run, write_config
from tests.judge.prompts.test_placeholders import QED_USER, write_prompt


def error_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


def judge(config, out, *options: str) -> int:
    return run(["judge", str(config), "--out", str(out), "--display", "plain", *options])


# -- item 5: a dead endpoint is never a silent success ---------------------------------------
def test_nothing_listening_stops_the_run_with_one_line(tmp_path, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = write_config(tmp_path, url, backoff_base_s=0.5, backoff_max_s=60.0)
    assert judge(config, tmp_path / "run") == 2
    [line] = error_lines(capsys)
    assert line.startswith(f"error: {url}: connection refused: nothing answers there")
    assert "0 of 12 planned judgments are stored" in line
    assert f"resume: assay judge {config} --out {tmp_path / 'run'}" in line


def test_a_host_that_does_not_resolve_stops_the_run(tmp_path, capsys, monkeypatch):
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):  # no DNS query leaves the machine
        if host == "judge.example.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    config = write_config(tmp_path, "http://judge.example.invalid:8000/v1")
    assert judge(config, tmp_path / "run") == 2
    [line] = error_lines(capsys)
    assert "http://judge.example.invalid:8000/v1: the host name does not resolve" in line


@pytest.mark.parametrize(("fault", "status"), [("unauthorized", 401), ("forbidden", 403), (None, 404)])
def test_a_refused_key_permission_or_path_stops_the_run(server, tmp_path, capsys, fault, status):
    url = server.url if fault else server.url.removesuffix("/v1") + "/wrong/v1"
    if fault:
        server.configure(rates={fault: 1.0})
    config = write_config(tmp_path, url, max_concurrency=1)
    assert judge(config, tmp_path / "run") == 2
    [line] = error_lines(capsys)
    assert f"refused the request (HTTP {status})" in line and "0 of 12 planned judgments" in line
    assert server.stats.requests <= 2


def test_failed_judgments_make_exit_3_unless_allowed(server, tmp_path, capsys):
    server.configure(script=["refusal", "refusal"])
    config = write_config(tmp_path, server.url, max_concurrency=1)
    out = tmp_path / "run"
    assert judge(config, out) == 3
    err = capsys.readouterr().err
    assert "2 of 12 planned judgments are stored as failed (16.7%, above --allow-failures 0)" in err
    assert f"{config} --out {out} --retry-failed" in err
    assert judge(config, out, "--allow-failures", "0.2") == 0  # nothing asked: the store decides
    assert "within --allow-failures 0.2" in capsys.readouterr().err
    assert judge(config, out, "--allow-failures", "0.1") == 3
    assert judge(config, out, "--retry-failed") == 0 and server.stats.requests == 14
    assert run(["judge", str(config), "--allow-failures", "5"]) == 2


def test_max_failures_stops_early_with_exit_3(server, tmp_path, capsys):
    server.configure(rates={"refusal": 1.0})
    config = write_config(tmp_path, server.url, max_concurrency=1)
    assert judge(config, tmp_path / "run", "--max-failures", "2") == 3
    assert "stopped: " in capsys.readouterr().err
    assert server.stats.requests <= 3


# -- item 6: a dry run performs every check the run performs ---------------------------------
def test_dry_run_refuses_a_cost_limit_without_a_price(server, tmp_path, capsys):
    config = write_config(tmp_path, server.url, prices={}, cost_limit_usd=5.0)
    assert judge(config, tmp_path / "run", "--dry-run") == 2
    assert "cost_limit_usd needs a price for model 'judge-model'" in capsys.readouterr().err
    assert judge(config, tmp_path / "run") == 2  # the run says the same, before writing anything
    assert not (tmp_path / "run").exists() and server.stats.requests == 0


def test_dry_run_refuses_an_unpriced_judge_model_under_a_cost_limit(server, tmp_path, capsys):
    own = {**PAIRWISE, "model": "other-model", "label": "other"}
    config = write_config(tmp_path, server.url, judges=[own], cost_limit_usd=5.0)
    assert judge(config, tmp_path / "run", "--dry-run") == 2
    assert "needs a price for model 'other-model'" in capsys.readouterr().err


def test_dry_run_names_a_missing_key_variable_and_the_run_refuses(server, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_NO_KEY", raising=False)
    config = write_config(tmp_path, server.url, api_key_env="ASSAY_TEST_NO_KEY")
    assert judge(config, tmp_path / "run", "--dry-run") == 0  # a plan needs no key (issue 23, item 6)
    assert "note: environment variable ASSAY_TEST_NO_KEY is not set" in capsys.readouterr().err
    assert judge(config, tmp_path / "run") == 2
    assert "error: environment variable ASSAY_TEST_NO_KEY is not set" in capsys.readouterr().err
    assert server.stats.requests == 0


def test_dry_run_shows_an_unknown_cost_as_unknown(server, tmp_path, capsys):
    config = write_config(tmp_path, server.url, prices={})
    assert judge(config, tmp_path / "run", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "$0.0000" not in out and " 0.0000" not in out
    assert "cost unknown: no price for model judge-model" in out
    assert "response cache: " + str(tmp_path / "run" / "responses.sqlite") in out


# -- item 7: unfilled prompt templates are never sent ----------------------------------------
def test_a_benchmarkqed_prompt_folder_is_refused_before_anything_is_sent(server, tmp_path, capsys):
    folder = write_prompt(tmp_path / "qed_prompt", QED_USER)
    config = write_config(tmp_path, server.url, judges=[{**PAIRWISE,
                                                         "prompt": "qed_prompt"}])
    for options in (["--dry-run"], []):
        assert judge(config, tmp_path / "run", *options) == 2
        [line] = error_lines(capsys)
        assert f"{folder / 'user.md'}, line 4: ${{question}} is not a jinja2 placeholder" in line
    assert server.stats.requests == 0


# -- item 24: secrets and terminals -----------------------------------------------------------
@pytest.mark.parametrize("transport", ["direct", "openai"])
def test_a_query_token_and_echoed_keys_are_never_stored_or_printed(server, tmp_path, capsys, monkeypatch,
                                                                  transport):
    # a user and password in the URL are refused since issue 22 (tests/cli/test_secrets_on_disk.py)
    monkeypatch.setenv("ASSAY_TEST_KEY", "sk-test-KEY-0123456789")
    server.configure(script=["echo_auth"])
    host = server.url.removeprefix("http://")
    url = f"http://{host}?api-version=2024-06-01&token=tok-SECRET-9"
    config = write_config(tmp_path, url, api_key_env="ASSAY_TEST_KEY", transport=transport,
                          max_concurrency=1)
    out = tmp_path / "run"
    assert judge(config, out) == 3  # the echoed request failed; the others went through the query URL
    assert server.stats.requests == 12
    assert set(server.stats.paths) == {"/v1/chat/completions?api-version=2024-06-01&token=tok-SECRET-9"}
    printed = capsys.readouterr()
    stored = b"".join(p.read_bytes() for p in out.iterdir() if p.is_file())
    for secret in ("tok-SECRET-9", "sk-test-KEY-0123456789"):
        assert secret not in printed.out + printed.err
        assert secret.encode() not in stored
    con = sqlite3.connect(out / "judgments.sqlite")
    try:
        [error] = [e for (e,) in con.execute("SELECT error FROM judgments WHERE failed = 1")]
        config_text = con.execute("SELECT config FROM configs").fetchone()[0]
    finally:
        con.close()
    assert "Authorization: Bearer ***" in error and "token=***" in error
    assert f"http://{host}?api-version=2024-06-01&token=***" in config_text


def test_control_characters_from_a_server_or_a_config_are_escaped(server, tmp_path, capsys):
    server.configure(rates={"unauthorized": 1.0}, error_text="bad key\x1b[2J\x1b]0;pwned\x07\x00!")
    config = write_config(tmp_path, server.url, max_concurrency=1)
    assert judge(config, tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x00" not in err and "\x07" not in err
    assert "bad key\\x1b[2J\\x1b]0;pwned\\x07\\x00!" in err
    labelled = {**PAIRWISE, "label": "red\x1b[31mjudge"}
    config = write_config(tmp_path, server.url, judges=[labelled], name="labelled.yaml")
    assert judge(config, tmp_path / "run2", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "judge-model/red\\x1b[31mjudge" in out
