"""The JSONL answers a judge reads end their lines at \\n only (issue item 19)."""

from __future__ import annotations

import json

import pytest

from assay.errors import InputError
from assay.judge.inputs import read_jsonl


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085"])
def test_answers_with_unicode_line_separators_stay_whole(tmp_path, char):
    path = tmp_path / "answers.jsonl"
    rows = [{"item": "q1", "arm": "a", "question": f"why{char}now?", "answer": f"because{char}"},
            {"item": "q2", "arm": "a", "question": "how?", "answer": "so"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    answers = read_jsonl(path)
    assert [(a.item, a.question, a.text) for a in answers] == [
        ("q1", f"why{char}now?", f"because{char}"), ("q2", "how?", "so")]


def test_a_bad_line_is_named(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"item": "q1", "arm": "a", "question": "x", "answer": "y"}\n{"item": \n')
    with pytest.raises(InputError, match="row 2") as info:
        read_jsonl(path)
    assert str(path) in str(info.value)
