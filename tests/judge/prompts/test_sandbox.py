"""A prompt template cannot run anything or read outside its values (issue 22, item 1).

Prompt folders were rendered by a plain ``jinja2.Environment``: a ``user.md`` holding
``{{ cycler.__init__.__globals__.os.system("id > PWNED") }}`` ran ``id`` on ``assay describe``
and ``assay judge --dry-run``, before any call. Each payload below is first shown to be live
(outside the sandbox it creates its marker file, or prints what it leaks), then shown to be
refused when the prompt is read, with a ConfigError naming the file and line 3, and never
to run: not when read, and not when rendered in the sandbox directly either. The sandbox
(``assay._templates``) is imported inside the tests that use it, so this file also runs on
code that lacks it and shows what fails there.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from assay.errors import ConfigError
from assay.judge.judges.assertion import PromptPair, load_prompt_pair
from assay.judge.prompts import Prompt, load_prompt

OS = "__init__.__globals__.os"
"""From a function of ``jinja2.utils`` (cycler, joiner, namespace) to the ``os`` module."""
IMPORT = "__init__.__globals__.__builtins__.__import__('os')"
"""From a method of any jinja2 class to the ``os`` module, through the builtins."""
TOUCH = ".system('touch MARK')"
POPEN = "{% if c.__name__ == 'Popen' %}{{ c(['touch', 'MARK']).wait() }}{% endif %}{% endfor %}"

PAYLOADS: dict[str, tuple[str, str | None]] = {
    # name: (template line, what the payload prints outside the sandbox; None: it makes MARK)
    "cycler": (f"{{{{ cycler.{OS}{TOUCH} }}}}", None),
    "joiner": (f"{{{{ joiner.{OS}{TOUCH} }}}}", None),
    "namespace": (f"{{{{ namespace.{OS}{TOUCH} }}}}", None),
    "lipsum": (f"{{{{ lipsum.__globals__['os']{TOUCH} }}}}", None),
    "self": (f"{{{{ self.{IMPORT}{TOUCH} }}}}", None),
    "self-context": (f"{{{{ self._TemplateReference__context.cycler.{OS}{TOUCH} }}}}", None),
    "loop": (f"{{% for c in criteria %}}{{{{ loop.{IMPORT}{TOUCH} }}}}{{% endfor %}}", None),
    "macro": (f"{{% macro m() %}}{{% endmacro %}}{{{{ m.{IMPORT}{TOUCH} }}}}", None),
    "attr-filter": ("{{ cycler|attr('__init__')|attr('__globals__')|attr('__getitem__')('os')"
                    "|attr('system')('touch MARK') }}", None),
    "attr-escaped": ("{{ cycler|attr('\\x5f\\x5finit\\x5f\\x5f')|attr('\\u005f\\u005fglobals\\u005f\\u005f')"
                     "|attr('get')('os')|attr('system')('touch MARK') }}", None),
    "attr-computed": ("{% set u = '_' ~ '_' %}{{ cycler|attr(u ~ 'init' ~ u)|attr(u ~ 'globals' ~ u)"
                      "|attr('get')('os')|attr('system')('touch MARK') }}", None),
    "key-computed": ("{% set u = '_' ~ '_' %}{% set f = lipsum %}"
                     "{{ f[u ~ 'globals' ~ u]['os']['system']('touch MARK') }}", None),
    "map-attr": ("{{ [cycler]|map('attr', '__init__')|map('attr', '__globals__')|map(attribute='os')"
                 "|map(attribute='system')|first }}", "<built-in function system>"),
    "map-attribute": ("{{ [cycler]|map(attribute='__init__.__globals__.os')|first }}", "<module 'os'"),
    "subclasses": ("{% for c in ''.__class__.__mro__[1].__subclasses__() %}" + POPEN, None),
    "mro": ("{% for c in (question|attr('__class__')).mro()[-1].__subclasses__() %}" + POPEN, None),
    "mro-dict": ("{{ dict.mro()[-1] }}", "<class 'object'>"),
    "range": ("{{ range.__class__.__mro__ }}", "<class 'type'>"),
    "format": ("{{ '{0.__init__.__globals__[os]}'.format(cycler) }}", "<module 'os'"),
    "format-computed": ("{% set u = '_' ~ '_' %}{{ ('{0.' ~ u ~ 'init' ~ u ~ '.' ~ u ~ 'globals' ~ u"
                        " ~ '[os]}').format(cycler) }}", "<module 'os'"),
    "format-map": ("{{ '{c.__init__.__globals__[os]}'.format_map({'c': cycler}) }}", "<module 'os'"),
    "config": (f"{{{{ config.__class__.__init__.__globals__['os']{TOUCH} }}}}", None),
    "request": (f"{{{{ request.application.__globals__.__builtins__.__import__('os'){TOUCH} }}}}", None),
    "mutate": ("{{ criteria.append('injected') }}{{ criteria }}", "injected"),
    "generator-frame": ("{{ (criteria|map('string')).gi_frame.f_globals }}", "'__name__'"),
}
"""Escapes through jinja2's globals, ``self``, ``loop`` and macros, ``attr``/``map`` filters,
``str.format``, ``__subclasses__``, ``mro``, Flask-style ``config``/``request``, names built
while rendering, and changes to a value the judge passed."""


def _text(payload: str, mark: Path) -> str:
    """A pairwise user.md with the payload on line 3."""
    return f"Question: {{{{ question }}}}\nAnswers: {{{{ answer1 }}}} / {{{{ answer2 }}}}\n{payload}\n" \
        .replace("MARK", str(mark))


def _values() -> dict[str, object]:
    return {"question": "q", "answer1": "a", "answer2": "b", "score_id": "",
            "criteria": [{"name": "relevance", "description": "d", "field": "relevance"}],
            "config": {"debug": True}, "request": {"path": "/"}}


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_payload_is_live_outside_the_sandbox(tmp_path, name):
    """The payloads are real escapes: a plain jinja2 environment (main's) runs or leaks them."""
    payload, leaked = PAYLOADS[name]
    mark = tmp_path / "PWNED"
    values = _values()
    if name == "config":  # Flask's objects: any object with a Python function does
        values[name] = jinja2.utils.Cycler(1)
    if name == "request":
        values[name] = type("Request", (), {"application": _values})()
    try:
        out = jinja2.Environment().from_string(_text(payload, mark)).render(**values)
    except Exception as exc:  # the point is whether the marker was made
        out = repr(exc)
    if leaked is None:
        assert mark.exists(), out
    else:
        assert leaked in out


@pytest.mark.parametrize("name", sorted(PAYLOADS))
@pytest.mark.parametrize("loader", ["load_prompt", "load_prompt_pair"])
def test_payload_is_refused_on_reading_naming_file_and_line(tmp_path, name, loader):
    folder = tmp_path / "evil"
    folder.mkdir()
    mark = tmp_path / "PWNED"
    (folder / "user.md").write_text(_text(PAYLOADS[name][0], mark), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        if loader == "load_prompt":
            load_prompt("pairwise", folder)
        else:
            load_prompt_pair("assertion", folder)
    assert str(info.value).startswith(f"prompt {folder / 'user.md'}, line 3: "), info.value
    assert "\n" not in str(info.value)
    assert not mark.exists()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
@pytest.mark.parametrize("keep_trailing_newline", [False, True])
def test_payload_never_runs_in_the_sandbox_even_unchecked(tmp_path, name, keep_trailing_newline):
    """The sandbox itself stops each payload, should the check on reading ever miss one."""
    mark = tmp_path / "PWNED"
    from assay._templates import sandbox

    environment = sandbox(autoescape=False, keep_trailing_newline=keep_trailing_newline)
    with pytest.raises(jinja2.TemplateError):
        environment.from_string(_text(PAYLOADS[name][0], mark)).render(**_values())
    assert not mark.exists()


def test_prompts_built_in_code_are_checked_too(tmp_path):
    mark = tmp_path / "PWNED"
    text = _text(PAYLOADS["cycler"][0], mark)
    with pytest.raises(ConfigError, match=r"^prompt user\.md, line 3: the attribute '__init__'"):
        Prompt(system="Judge.", user=text)
    with pytest.raises(ConfigError, match=r"^prompt mine/system\.md, line 3: "):
        PromptPair("assertion", text, "{{ question }}", "0" * 64, ("mine/system.md", "mine/user.md"))
    assert not mark.exists()


@pytest.mark.parametrize("text", [
    "{{ criteria|map(attribute='name')|join(', ') }} {{ question|replace('__', '') }}",
    "{% set ns = namespace(n=0) %}{% for c in criteria %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}",
    "{% for c in criteria %}{{ loop.index }}. {{ c.name }}{{ cycler('a', 'b').next() }}{% endfor %}",
    "{{ '%s: %d'|format(question, 3) }} {{ criteria|selectattr('name')|list|length }} {{ range(3)|list }}",
    "{{ question|join('_') }} {{ question['text'] if question is mapping else question }}",
])
def test_ordinary_templates_stay_allowed(text):
    from assay._templates import sandbox, template_refusal

    assert template_refusal(sandbox(), text) is None
    sandbox().from_string(text).render(**_values())


def test_a_refusal_at_render_names_the_line(tmp_path):
    """A name built from the judge's values (no stand-in shows it on reading) is stopped by the
    sandbox while rendering: one ConfigError naming file and line, nothing run."""
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "user.md").write_text("{{ question }}\n{% set f = lipsum %}{{ answer1 }}\n{{ f[answer2] }}\n",
                                    encoding="utf-8")
    prompt = load_prompt("pairwise", folder)
    with pytest.raises(ConfigError, match=r"^prompt .*user\.md, line 3: access to attribute '__globals__'"):
        prompt.render(**{**_values(), "answer2": "__globals__"})


@pytest.mark.parametrize(("text", "reason"), [
    ("{% set ns = namespace() %}\n{% set ns.__class__ = 1 %}", "the attribute '__class__'"),
    ("{{ x }}\n{{ x['_private'] }}", "the key '_private'"),
    ("{{ x }}\n{{ x|sort(attribute='a.__class__') }}", "'a.__class__' given to 'sort'"),
    ("{{ x }}\n{{ x|selectattr('__dict__') }}", "'__dict__' given to 'selectattr'"),
    ("{{ x }}\n{{ x is sameas x.__class__ }}", "the attribute '__class__'"),
    ("{{ x }}\n{{ x.format(1) }}", "str.format on text computed while rendering"),
    ("{{ x }}\n{{ '{0:{1.__class__}}'.format(1, x) }}", "the format field reading '__class__'"),
    ("{{ x }}\n{{ cycler.next }}", "'cycler' is jinja2's own object"),
    ("{{ x }}\n{{ x.update({}) }}", "'update' would change a value"),
    ("{{ x }}\n{{ x.tb_frame }}", "the attribute 'tb_frame'"),
])
def test_each_rule_names_line_and_reason(text, reason):
    from assay._templates import sandbox, template_refusal

    line, found = template_refusal(sandbox(), text)
    assert (line, found.startswith(reason)) == (2, True), found
