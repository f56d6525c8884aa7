"""The response cache of ``assay judge`` and ``assay cache info|clear`` (issue 11, item 4).

The cache was keyed on model, messages and parameters only, and global (~/.cache/assay):
the same config pointed at another server got the first server's replies with 0 calls.
Oracles: each stand-in server's request counter and the replies it gives (a different
seed draws different verdicts), read back from the run folders' stores.
"""

from __future__ import annotations

import sqlite3

from tests.cli._judge_helpers import run, write_config
from tests.judge.llm_server import Behaviour, LLMServer


def raw_replies(folder) -> dict[str, str]:
    con = sqlite3.connect(folder / "judgments.sqlite")
    try:
        return dict(con.execute("SELECT key, raw_response FROM judgments"))
    finally:
        con.close()


def test_the_same_config_against_two_servers_gets_each_servers_replies(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "shared"))
    config = write_config(tmp_path, "${JUDGE_URL}", cache="shared")  # one cache for both runs
    with LLMServer(Behaviour(seed=1)) as one, LLMServer(Behaviour(seed=2)) as two:
        monkeypatch.setenv("JUDGE_URL", one.url)
        assert run(["judge", str(config), "--out", str(tmp_path / "a"), "--display", "plain"]) == 0
        monkeypatch.setenv("JUDGE_URL", two.url)
        assert run(["judge", str(config), "--out", str(tmp_path / "b"), "--display", "plain"]) == 0
        assert (one.stats.requests, two.stats.requests) == (12, 12)
    a, b = raw_replies(tmp_path / "a"), raw_replies(tmp_path / "b")
    assert a.keys() == b.keys() and all(a[k] != b[k] for k in a)  # each server's own verdicts


def test_the_cache_is_in_the_run_folder_by_default_and_shared_or_off_on_request(server, tmp_path, monkeypatch,
                                                                                capsys):
    monkeypatch.delenv("ASSAY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    config = write_config(tmp_path, server.url)  # no cache key: the default

    def judge(out: str, *options: str) -> int:
        before = server.stats.requests
        assert run(["judge", str(config), "--out", str(tmp_path / out), "--display", "plain", *options]) == 0
        return server.stats.requests - before

    assert judge("a") == 12
    assert (tmp_path / "a" / "responses.sqlite").is_file() and not (tmp_path / "xdg").exists()
    assert judge("b") == 12  # another run folder, another cache: nothing shared by default
    assert judge("c", "--cache", "shared") == 12
    assert (tmp_path / "xdg" / "assay" / "responses.sqlite").is_file()
    assert judge("d", "--cache", "shared") == 0  # the shared cache answers a new run folder
    assert judge("e", "--no-cache") == 12 and not (tmp_path / "e" / "responses.sqlite").exists()
    capsys.readouterr()

    assert run(["cache", "info", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "12 cached replies" in out and f"{server.url}  judge-model: 12 replies" in out
    assert run(["cache", "info", "--shared"]) == 0
    assert str(tmp_path / "xdg" / "assay" / "responses.sqlite") in capsys.readouterr().out
    assert run(["cache", "clear", str(tmp_path / "a"), "--endpoint", "http://127.0.0.1:1/v1"]) == 0
    assert "removed 0 cached replies (12 left)" in capsys.readouterr().out
    assert run(["cache", "clear", str(tmp_path / "a")]) == 0
    assert "removed 12 cached replies (0 left)" in capsys.readouterr().out
    assert judge("a") == 0  # the judgments stay stored in the run folder


def test_cache_command_names_what_is_missing(tmp_path, capsys):
    assert run(["cache", "info", str(tmp_path)]) == 2
    assert f"{tmp_path / 'responses.sqlite'}: no response cache there" in capsys.readouterr().err
    assert run(["cache", "info"]) == 2
    assert "give a run folder or a cache file, or --shared" in capsys.readouterr().err


def test_judge_help_documents_the_cache_and_exit_statuses(capsys):
    assert run(["judge", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("--cache", "--no-cache", "run (responses.sqlite in the run folder, the default)",
                  "shared", "--max-failures", "--allow-failures", "Exit status: 0", "2 a user error",
                  "3 the run finished with failed judgments", "130 interrupted"):
        assert words in text, words
