"""A prompt filled from its memo (the text around its slots kept per value of the other
variables, assay.judge.prompts._render) is what jinja2 itself renders, for templates whose
variables are printed, filtered, computed with, captured, looped over or shadowed, and for values the memo
must not take (not text, text holding NUL, a variable missing)."""

from __future__ import annotations

import jinja2
import pytest

from assay.errors import ConfigError
from assay.judge.prompts import Prompt
from assay.judge.prompts import _slots as slots

TEMPLATES = {
    "plain": "{{ score_id }}\nQ: {{ question }}\n\nA1: {{ answer1 }}\nA2: {{ answer2 }}\n",
    "loop": "{{ question }} on {% for c in criteria %}{{ c.name }}{% if not loop.last %}, "
            "{% endif %}{% endfor %}. {{ answer1 }}",
    "in loop": "{% for c in criteria %}[{{ question }}|{{ c.name }}]{% endfor %}",
    "filtered": "{{ question | upper }} and {{ question }} / {{ answer1 }}",
    "condition": "{% if question %}asked: {% endif %}{{ question }} {{ answer1 }}",
    "filter block": "{% filter upper %}{{ question }}{% endfilter %} {{ answer1 }}",
    "set block": "{% set x %}{{ question }}{% endset %}{{ x | upper }} {{ answer1 }}",
    "shadowed": "{% for question in criteria %}{{ question.name }}{% endfor %} {{ answer1 }}",
    "assigned": "{% set answer1 = question ~ '!' %}{{ answer1 }} {{ question }}",
    "whitespace": "  {{- question -}}  \n\n  {{ answer1 }}  \n",
    "expression": "{{ question ~ '!' }} {{ answer1 }}{{ answer2 if answer2 else '-' }}",
    "autoescape": "{% autoescape true %}{{ question }}{% endautoescape %} {{ answer1 }}",
}

VALUES = [
    {"score_id": "Score ID: k1", "question": "Why <b>?</b>", "answer1": "Because.", "answer2": "No.",
     "criteria": [{"name": "relevance"}, {"name": "diversity"}]},
    {"score_id": "", "question": "  spaced  ", "answer1": "x\x00y", "answer2": "{{ question }}",
     "criteria": [{"name": "relevance"}, {"name": "diversity"}]},
    {"score_id": "s", "question": "Q2", "answer1": "a", "answer2": "b", "criteria": [{"name": "other"}]},
    {"score_id": "s", "question": 42, "answer1": None, "answer2": "b", "criteria": [{"name": "other"}]},
    {"score_id": "s", "question": "", "answer1": "", "answer2": "", "criteria": []},
]


def jinja_itself(text: str, values: dict) -> str:
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False,
                                                       keep_trailing_newline=False)
    return env.from_string(text).render(**values).strip()


@pytest.mark.parametrize("name", TEMPLATES)
def test_memo_renders_what_jinja_renders(name):
    text = TEMPLATES[name]
    prompt = Prompt(system=text, user=text)
    for _ in range(2):  # the second round is answered from the memo
        for values in VALUES:
            expected = jinja_itself(text, values)
            assert prompt.render(**values) == type(prompt.render(**values))(system=expected, user=expected)


def test_slots_are_the_variables_only_printed_as_they_are():
    assert slots(TEMPLATES["plain"]) == ("answer1", "answer2", "question", "score_id")
    assert slots(TEMPLATES["loop"]) == ("answer1", "question")
    assert slots(TEMPLATES["filtered"]) == ("answer1",)
    assert slots(TEMPLATES["condition"]) == ("answer1",)
    assert slots(TEMPLATES["expression"]) == ("answer1",)
    assert slots(TEMPLATES["shadowed"]) == ("answer1",)
    assert slots(TEMPLATES["assigned"]) == ()
    for name in ("filter block", "set block", "autoescape"):
        assert slots(TEMPLATES[name]) == ()


def test_a_missing_variable_is_still_refused_after_the_memo_is_filled():
    prompt = Prompt(system="s", user="{{ question }} {{ answer1 }}")
    assert prompt.render(question="q", answer1="a").user == "q a"
    with pytest.raises(ConfigError, match="answer1"):
        prompt.render(question="q")
