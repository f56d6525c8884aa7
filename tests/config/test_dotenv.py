"""The .env parser and loader: quotes, comments, export, precedence, errors without values."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config.dotenv import dotenv_paths, load_dotenv, parse_dotenv
from assay.errors import ConfigError


def test_parse_quotes_comments_and_export() -> None:
    text = ("# a comment\n"
            "\n"
            "export OPENAI_API_KEY=sk-plain-value\n"
            "export\tTABBED=t\n"
            "SINGLE='literal \\n $HOME # not a comment'\n"
            'DOUBLE="line1\\nline2 \\"q\\" \\\\ \\$x" # trailing comment\n'
            "BARE = spaced value   # comment\n"
            "HASH=a#b\n"
            "EMPTY=\n"
            'MULTI="first\n'
            'second"\n'
            "DUP=1\n"
            "DUP=2\r\n")
    assert parse_dotenv(text) == {
        "OPENAI_API_KEY": "sk-plain-value",
        "TABBED": "t",
        "SINGLE": "literal \\n $HOME # not a comment",
        "DOUBLE": 'line1\nline2 "q" \\ $x',
        "BARE": "spaced value",
        "HASH": "a#b",
        "EMPTY": "",
        "MULTI": "first\nsecond",
        "DUP": "2",
    }


@pytest.mark.parametrize(("text", "message"), [
    ("NOEQUALS\n", "line 1: expected NAME=value"),
    ("\n1BAD=x\n", "line 2: expected NAME=value"),
    ('KEY="sk-secret-never-shown\n', "line 1: KEY: the value's \" quote is not closed"),
    ("KEY='sk-secret-never-shown' trailing\n", "line 1: KEY: text after the closing quote"),
])
def test_errors_name_the_line_never_the_value(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_dotenv(text, "x/.env")
    assert str(info.value) == f"x/.env, {message}"
    assert "sk-secret" not in str(info.value)


def test_load_never_overrides_and_first_file_wins(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / ".env").write_text("A=from-config\nB=from-config\n", encoding="utf-8")
    (tmp_path / ".env").write_text("B=from-cwd\nC=from-cwd\nD=from-cwd\n", encoding="utf-8")
    env = {"D": "already"}
    paths = dotenv_paths(tmp_path / "cfg" / "assay.yaml", cwd=tmp_path)
    assert paths == [tmp_path.resolve() / "cfg" / ".env", tmp_path.resolve() / ".env"]
    added = load_dotenv([*paths, tmp_path / "missing" / ".env"], environ=env)
    assert added == ["A", "B", "C"]
    assert env == {"A": "from-config", "B": "from-config", "C": "from-cwd", "D": "already"}


def test_same_folder_read_once(tmp_path: Path) -> None:
    assert dotenv_paths(tmp_path / "assay.yaml", cwd=tmp_path) == [tmp_path.resolve() / ".env"]


def test_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"\xff\xfeA=1")
    with pytest.raises(ConfigError, match=r"\.env: cannot read the \.env file \(not UTF-8 text\)"):
        load_dotenv([tmp_path / ".env"], environ={})
