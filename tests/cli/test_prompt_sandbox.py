"""``assay describe`` and ``assay judge --dry-run`` refuse a prompt folder that escapes the
template sandbox, before anything runs or is sent (issue 22, item 1).

On main, a ``user.md`` holding ``{{ cycler.__init__.__globals__.os.system("id > PWNED") }}``
ran ``id`` on both commands, which then exited 0.
"""

from __future__ import annotations

import pytest

from tests.cli._judge_helpers import PAIRWISE, assay_process, run, write_config
from tests.judge.prompts.test_sandbox import PAYLOADS, _text

CASES = ("cycler", "self", "attr-filter", "key-computed", "format", "mro")


def _config(tmp_path, url, payload: str):
    folder = tmp_path / "shared_prompt"
    folder.mkdir()
    (folder / "user.md").write_text(_text(payload, tmp_path / "PWNED"), encoding="utf-8")
    return write_config(tmp_path, url, judges=[{**PAIRWISE, "prompt": "shared_prompt"}]), folder


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("command", ["describe", "dry-run"])
def test_an_escaping_prompt_is_refused_with_one_line(server, tmp_path, capsys, name, command):
    config, folder = _config(tmp_path, server.url, PAYLOADS[name][0])
    argv = (["describe", str(config)] if command == "describe" else
            ["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain", "--dry-run"])
    status = run(argv)
    assert not (tmp_path / "PWNED").exists()
    assert status == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: prompt {folder / 'user.md'}, line 3: "), lines[0]
    assert server.stats.requests == 0


def test_the_reported_attack_runs_nothing_as_a_user_runs_it(tmp_path):
    """The issue's payload, by a child process as the shell sees it: exit 2, one line, no traceback."""
    folder = tmp_path / "shared_prompt"
    folder.mkdir()
    (folder / "user.md").write_text('{{ cycler.__init__.__globals__.os.system("id > PWNED") }}'
                                    "{{ question }}{{ answer1 }}{{ answer2 }}\n", encoding="utf-8")
    write_config(tmp_path, "http://127.0.0.1:9/v1", judges=[{**PAIRWISE, "prompt": "shared_prompt"}])
    for argv in (["describe", "judge.yaml"], ["judge", "judge.yaml", "--out", "run", "--dry-run"]):
        done = assay_process(argv, tmp_path)
        assert not (tmp_path / "PWNED").exists()
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.strip() == (
            "error: prompt shared_prompt/user.md, line 1: the attribute '__init__' is outside what a "
            "template may read; a prompt may read only the values the judge fills ({{ question }}, ...), "
            "so it is refused")
