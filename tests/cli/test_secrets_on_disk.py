"""Keys and credentials never reach disk or the terminal (issue 22, items 3 and 9).

Every command that takes an endpoint runs against the stand-in server with an API key in the
environment and a base URL holding a query token; then every file written (the SQLite bytes
of each store and cache included) and everything printed is scanned for the key and the
token. A base URL with a user and a password is refused by each of those commands, with one
line saying where the key goes, before anything is written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.cli._judge_helpers import run, write_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "run"
KEY = "kq7Vr2Lw9Xe4Zt8Nb3"  # no pattern a redaction could guess: only the known key is hidden
TOKEN = "tq5Hm8Jd2Ws6Pc1Fy0"
PASSWORD = "pw4Gk9Rb7Qn3Yx2Lv6"
USER = "alice7Mz3Bq"
SCORES = {"1": 0.1, "2": 0.15, "3": 0.25, "4": 0.3, "5": 0.2}


def teacher_config(folder: Path) -> Path:
    """A whole config whose datapoints a teacher writes and whose two systems answer them."""
    data = yaml.safe_load((EXAMPLE / "eval.yaml").read_text(encoding="utf-8"))
    data["datapoints"] = {
        "kind": "teacher", "model": "teacher-model", "base_url": "${OPENAI_BASE_URL}",
        "api_key_env": "OPENAI_API_KEY", "items_per_stratum": 1, "price": {"input": 1.0, "output": 2.0},
        "tasks": [{"name": "qa", "description": "Short factual questions.",
                   "attributes": {"level": ["easy", "hard"]}}]}
    for key in ("native_scores", "baselines", "report", "export"):
        data.pop(key)
    path = folder / "teacher.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def scan(root: Path, printed: str, secrets: tuple[str, ...]) -> list[str]:
    """Where any of ``secrets`` occurs: each file under ``root`` (its bytes) and the printed text."""
    found = [f"{path.relative_to(root)}: {secret}" for path in sorted(root.rglob("*")) if path.is_file()
             for secret in secrets if secret.encode() in path.read_bytes()]
    return found + [f"printed: {secret}" for secret in secrets if secret in printed]


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """A working folder with the example's config and items; caches kept inside it."""
    for name in ("eval.yaml", "items.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("ASSAY_CACHE_DIR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_and_scan(folder: Path, server, monkeypatch, capsys, steps: list[tuple[str, ...]]) -> list[str]:
    """Run each ``assay`` command of ``steps`` (a trailing ``"exit=N"`` is its expected status)
    with the key in the environment and a query token in every base URL, then scan every file
    the commands wrote and everything they printed for the key and the token."""
    server.configure(scores=SCORES)
    url = f"{server.url}?token={TOKEN}"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    write_config(folder / "judge", "${OPENAI_BASE_URL}", api_key_env="OPENAI_API_KEY")
    write_config(folder / "judge", "${OPENAI_BASE_URL}", api_key_env="OPENAI_API_KEY", name="batch.yaml",
                 transport="batch", batch_poll_s=0.02, batch_poll_max_s=0.05)
    (folder / "baselines.yaml").write_text(yaml.safe_dump({
        "llm": {"model": "judge-model", "base_url": "${OPENAI_BASE_URL}", "api_key_env": "OPENAI_API_KEY"},
        "geval": {"criterion": "correctness", "score_max": 5}}), encoding="utf-8")
    teacher_config(folder)
    printed = []
    for step in steps:
        argv, code = list(step), 0
        if argv[-1].startswith("exit="):
            code = int(argv.pop()[5:])
        if argv[:3] == ["judge", "judge/judge.yaml", "--out"]:
            # a server whose error echoes the request's Authorization header and query string
            server.configure(script=["echo_auth"])
        assert run(argv) == code, (argv, capsys.readouterr())
        said = capsys.readouterr()
        printed.append(said.out + said.err)
    assert f"Bearer {KEY}" in server.stats.authorizations  # the key was sent, as a bearer token
    assert any(f"token={TOKEN}" in path for path in server.stats.paths)  # and the token, in the query
    assert server.stats.faults.get("echo_auth", 0) == sum(s[:3] == ("judge", "judge/judge.yaml", "--out")
                                                          for s in steps)
    return scan(folder, "".join(printed), (KEY, TOKEN))


def test_every_command_with_an_endpoint_writes_and_prints_no_key_and_no_token(server, folder, monkeypatch,
                                                                             capsys):
    found = run_and_scan(folder, server, monkeypatch, capsys, [
        ("describe", "eval.yaml", "--out", "plan.html"),
        ("judge", "judge/judge.yaml", "--dry-run"),
        ("generate", "eval.yaml", "--out", "dry", "--dry-run"),
        ("generate", "eval.yaml", "--out", "whole"),  # the table's datapoints, the systems' answers
        ("judge", "eval.yaml", "--out", "whole", "--display", "plain"),
        ("describe", "eval.yaml", "--run", "whole"),
        ("generate", "teacher.yaml", "--out", "taught"),  # the teacher's items, then the answers
        ("baselines", "whole", "--methods", "geval", "--config", "baselines.yaml"),
        ("judge", "judge/judge.yaml", "--out", "judged", "--display", "plain", "exit=3"),
        ("judge", "judge/batch.yaml", "--out", "batched", "--display", "plain"),  # the Batch API
        ("report", "whole", "--kind", "scores", "--format", "json,html", "--out", "reports"),
        ("export", "whole", "--format", "leaderboard-csv", "-o", "standings.csv"),
        ("view", "whole", "--export", "view.html"),
        ("view", "judged", "--export", "judged.html"),
        ("cache", "info", "whole"),
    ])
    for store in ("whole/generation", "whole", "taught/teacher", "taught/generation", "judged", "batched"):
        assert (folder / store / "judgments.sqlite").is_file(), store
    assert not found, found


@pytest.mark.slow  # the whole evaluation and every report in every format: about 50 s
def test_a_whole_run_and_every_report_write_and_print_no_key_and_no_token(server, folder, monkeypatch,
                                                                         capsys):
    found = run_and_scan(folder, server, monkeypatch, capsys, [
        ("run", "eval.yaml", "--out", "whole"),
        ("report", "whole", "--format", "json,html,xlsx,text,latex", "--out", "reports"),
        ("export", "whole", "--format", "leaderboard-csv", "-o", "standings.csv"),
        ("view", "whole", "--export", "view.html"),
    ])
    assert (folder / "whole" / "baselines.jsonl").is_file()
    assert not found, found


@pytest.mark.parametrize("command", ["judge", "judge --dry-run", "describe", "generate", "generate --dry-run",
                                     "run", "teacher", "baselines"])
def test_a_base_url_with_a_user_and_password_is_refused_and_written_nowhere(server, folder, monkeypatch,
                                                                           capsys, command):
    url = server.url.replace("http://", f"http://{USER}:{PASSWORD}@")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    config = {"judge": lambda: write_config(folder / "judge", "${OPENAI_BASE_URL}",
                                            api_key_env="OPENAI_API_KEY"),
              "teacher": lambda: teacher_config(folder),
              }.get(command.split()[0], lambda: folder / "eval.yaml")()
    argv = {"describe": ["describe", str(config)],
            "teacher": ["generate", str(config), "--out", "out"],
            "baselines": ["baselines", "out", "--methods", "geval", "--config", str(config)],
            }.get(command, [*command.split()[:1], str(config), "--out", "out", *command.split()[1:]])
    if command == "baselines":
        (folder / "out").mkdir()
    before = {p for p in folder.rglob("*")}
    assert run(argv) == 2
    said = capsys.readouterr()
    err = said.err.strip()
    assert "\n" not in err and "base_url: a user name or password in the URL is never sent" in err, err
    assert "api_key_env" in err and "OPENAI_API_KEY" in err
    assert server.stats.requests == 0
    assert {p for p in folder.rglob("*")} == before  # nothing written
    found = scan(folder, said.out + said.err, (PASSWORD, USER))
    assert not found, found
