"""``assay judge`` reads keys from a ``.env`` beside the config and in the working folder."""

from __future__ import annotations

import os

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
