"""``assay judge`` reads keys from a ``.env`` beside the config and in the working folder; an endpoint
or a key that could only fail is refused in one line."""

from __future__ import annotations

import os
import time

import pytest

from tests.cli._judge_helpers import run, write_config

KEY = "sk-dotenv-KEY-0123456789"


def test_the_config_folders_env_supplies_the_key_and_never_overrides(server, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ASSAY_DOTENV_KEY", "")  # recorded, so the key .env sets is removed after
    monkeypatch.delenv("ASSAY_DOTENV_KEY")
    monkeypatch.setenv("ASSAY_DOTENV_MODEL", "from-the-environment")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp").mkdir()
    config = write_config(tmp_path / "exp", server.url, api_key_env="ASSAY_DOTENV_KEY")
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 2
    assert "environment variable ASSAY_DOTENV_KEY is not set" in capsys.readouterr().err
    (tmp_path / "exp" / ".env").write_text(f"export ASSAY_DOTENV_KEY='{KEY}'\nASSAY_DOTENV_MODEL=x\n",
                                           encoding="utf-8")
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    out = capsys.readouterr()
    assert server.stats.authorizations == {f"Bearer {KEY}"}
    assert KEY not in out.out + out.err
    assert os.environ["ASSAY_DOTENV_MODEL"] == "from-the-environment"  # never replaced


def test_a_bad_env_line_is_one_error_naming_file_and_line(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path, server.url)
    (tmp_path / ".env").write_text("# keys\nOPENAI_API_KEY sk-secret-9999\n", encoding="utf-8")
    assert run(["judge", str(config), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path / '.env'}, line 2: expected NAME=value"


def test_token_totals_are_printed_after_a_run(server, tmp_path, capsys):
    config = write_config(tmp_path, server.url)
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    prompt, completion = server.stats.usage
    assert prompt > 0 and completion > 0
    line = f"tokens: {prompt:,} in, {completion:,} out, {prompt + completion:,} in all (12 calls;"
    assert line in capsys.readouterr().out
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    assert "tokens: 0 in, 0 out, 0 in all (0 calls;" in capsys.readouterr().out  # all stored


# issue 22, items 8 and 9: endpoints and keys that could only fail, or leak, are refused in one line

@pytest.mark.parametrize("url", ["", "file:///etc/passwd", "javascript:alert(1)", "http://[::1",
                                 "http:///v1", "ftp://127.0.0.1/v1", "http://127.0.0.1:port/v1"])
def test_an_endpoint_no_run_could_reach_is_refused_by_the_dry_run(tmp_path, capsys, url):
    config = write_config(tmp_path, url)
    assert run(["judge", str(config), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {config}: llm.base_url: expected an http:// or https:// URL with a host, "
                          "got "), err
    assert "\n" not in err


@pytest.mark.parametrize("url", ["javascript:alert(1)", ""])
def test_a_run_on_an_invalid_endpoint_stops_at_once_and_writes_nothing(tmp_path, capsys, url):
    # on main: every call was retried with back-off (20 s with the defaults), then exit 3
    config = write_config(tmp_path, url, backoff_base_s=0.5, backoff_max_s=20.0)
    started = time.monotonic()
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 2
    assert time.monotonic() - started < 5.0
    assert "llm.base_url: expected an http:// or https:// URL" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("key", ["sk-abc123\r\nX-Injected: 1", "sk-abc123\n", "sk-abc\x1b[31m123"])
def test_a_key_with_a_line_break_or_control_character_is_named_never_sent_never_shown(
        server, tmp_path, monkeypatch, capsys, key):
    monkeypatch.setenv("ASSAY_BAD_KEY", key)
    config = write_config(tmp_path, server.url, api_key_env="ASSAY_BAD_KEY")
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    what = "a control character (0x1b)" if "\x1b" in key else "a line break (CR or LF)"
    assert last == (f"error: environment variable ASSAY_BAD_KEY holds {what}: a key is one line of "
                    "printable characters (check how it was set: a .env value, a pasted key)")
    assert "sk-abc" not in err and "Traceback" not in err and "internal error" not in err
    assert server.stats.requests == 0


def test_a_dotenv_value_with_a_nul_is_one_error_naming_file_and_line(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_NUL_KEY", raising=False)
    config = write_config(tmp_path, server.url, api_key_env="ASSAY_NUL_KEY")
    (tmp_path / ".env").write_bytes(b"# keys\nASSAY_NUL_KEY=sk-a\x00secret\n")
    assert run(["judge", str(config), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path / '.env'}, line 2: ASSAY_NUL_KEY: the value holds a NUL character"
    assert "ASSAY_NUL_KEY" not in os.environ
