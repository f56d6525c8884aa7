"""Prompt templates with placeholders jinja2 does not fill are refused, never sent (issue 11, item 7).

A prompt folder written for BenchmarkQED (``string.Template``: ``${question}``, ``$answer1``)
was accepted: the judge received the literal placeholders, every judgment of a criterion
got one prompt, and the cache answered them all with one reply.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import ConfigError
from assay.judge.judges.assertion import load_prompt_pair
from assay.judge.prompts import load_prompt

QED_USER = """Compare the two answers below.

---Question---
${question}

---Answer 1---
$answer1

---Answer 2---
$answer2
"""


def write_prompt(folder: Path, user: str, system: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.md").write_text(user, encoding="utf-8")
    if system is not None:
        (folder / "system.md").write_text(system, encoding="utf-8")
    return folder


def test_benchmarkqed_prompt_is_refused_naming_file_line_and_variable(tmp_path):
    folder = write_prompt(tmp_path / "qed", QED_USER)
    with pytest.raises(ConfigError) as info:
        load_prompt("pairwise", folder)
    message = str(info.value)
    # the first placeholder is on line 4; the pairwise judge fills `question`, so the fix is named
    assert f"{folder / 'user.md'}, line 4: ${{question}}" in message
    assert "write {{ question }}" in message


@pytest.mark.parametrize(("text", "line", "shown"), [
    ("Rate it.\n\nAnswer: $answer1", 3, "$answer1"),
    ("Question: {question}", 1, "{question}"),
    ("{% if x %}\nok\n{% endif %}\n\n${score_id}", 5, "${score_id}"),
])
def test_each_syntax_is_found_on_its_line(tmp_path, text, line, shown):
    folder = write_prompt(tmp_path / "p", text)
    with pytest.raises(ConfigError, match=rf"line {line}: {shown.replace('$', '[$]')} is not"):
        load_prompt("rubric", folder)


def test_assertion_judges_loader_refuses_too(tmp_path):
    folder = write_prompt(tmp_path / "a", "Assertion: $assertion\nAnswer: {{ answer }}")
    with pytest.raises(ConfigError, match=r"line 1: \$assertion is not .* write \{\{ assertion \}\}"):
        load_prompt_pair("assertion", folder)


def test_literal_dollars_and_braces_outside_placeholders_pass():
    from assay.judge.prompts import check_placeholders

    text = ('Reply with {"winner": 1}. It costs $$5 or 5$.\n'
            "{% raw %}Keep ${this} and {that} as text.{% endraw %}\n{{ question }}")
    check_placeholders(text, "user.md")  # raises nothing


def test_an_undefined_jinja_variable_names_the_file_and_what_the_judge_fills(tmp_path):
    folder = write_prompt(tmp_path / "u", "Q: {{ question }}\nA: {{ respuesta }}", system="Judge.")
    prompt = load_prompt("rubric", folder)
    expected = r"u/user.md: 'respuesta' is undefined: this judge fills answer, question"
    with pytest.raises(ConfigError, match=expected):
        prompt.render(question="Why?", answer="Because.")


def test_a_jinja_syntax_error_names_the_file_and_line(tmp_path):
    folder = write_prompt(tmp_path / "s", "Q: {{ question }}\n\nA: {{ answer }\n")
    with pytest.raises(ConfigError, match=r"s/user.md, line 3: "):
        load_prompt("rubric", folder)


def test_every_packaged_prompt_passes():
    root = Path(__file__).resolve().parents[3] / "src" / "assay" / "judge" / "prompts"
    names = sorted(p.name for p in root.iterdir() if (p / "user.md").is_file())
    assert len(names) == 10
    for name in names:
        load_prompt(name)
