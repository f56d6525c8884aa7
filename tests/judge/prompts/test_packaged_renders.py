"""Every packaged template renders byte for byte as before the sandbox (issue 22, item 1).

The prompts (``assay/judge/prompts/*/*.md``) and the HTML report templates
(``assay/report/html/templates/*.j2``) moved from a plain ``jinja2.Environment`` to the
sandboxed one. The expected SHA-256 below were computed once by main's code before that
change (commit 943477b, plain environment) from the same fixed inputs; they are literals,
not values the changed code computes. Inputs hold text that must come out as text
(``{{ 7*7 }}``, ``{0.__class__}``, markup), lists of objects and dicts (the loops and
attribute look-ups the templates make), and both branches of every ``if``.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any

import pytest

from assay.judge.judges.assertion import SupportingSpec, load_prompt_pair
from assay.judge.judges.differential import differential_criteria
from assay.judge.judges.pairwise import CriterionSpec
from assay.judge.prompts import load_prompt
from assay.report.html._render import environment

TRICKY = "Why {{ 7*7 }} and {0.__class__} and ${x}? <b>&amp;</b> naïve — 日本\n  second line\t"


def _variables(variant: str) -> dict[str, Any]:
    many = variant == "many"
    criteria = [{"name": "relevance", "description": "Answers the question " + TRICKY, "field": "relevance"}]
    if many:
        criteria += [{"name": "diversity", "description": "Varied", "field": "diversity"},
                     {"name": "tone", "description": "<i>calm</i>", "field": "tone"}]
    return {
        "score_id": "Score ID: 0f3a" if many else "",
        "question": TRICKY, "answer": "The answer. " + TRICKY, "answer1": "First " + TRICKY,
        "answer2": "Second", "answer_1": "One " + TRICKY, "answer_2": "Two",
        "assertion": "The sky is blue " + TRICKY, "chunk": "A passage " + TRICKY,
        "supporting": [SupportingSpec("s1", "Light scatters " + TRICKY), SupportingSpec("s2", "Rayleigh")]
        if many else [],
        "common": "Both say it " + TRICKY, "unique_1": "Only one", "unique_2": "" if many else "Only two",
        "criteria": criteria,
        "criterion": {"name": "correctness", "description": "Is it right? " + TRICKY},
        "score_min": 1, "score_max": 10 if many else 5,
        "levels": ["poor", "fair", "good <ok>"] if many else None,
        "reference": "The reference " + TRICKY if many else "",
        "answers": [{"label": "Reference answer", "text": "Ref " + TRICKY},
                    {"label": "Generated answer", "text": "Gen"}],
    }


def _differential_variables(name: str, variant: str) -> dict[str, Any]:
    values = _variables(variant)
    criteria = differential_criteria(["relevance", CriterionSpec(name="tone", description=TRICKY)]
                                     if variant == "many" else ["relevance"])
    values["criteria"] = criteria
    if name == "differential_separate":
        values["criterion"] = criteria[-1]
    return values


PROMPTS = ("pairwise", "reference", "rubric")
"""Rendered by :class:`assay.judge.prompts.Prompt` (the other packaged prompts by ``PromptPair``)."""
PAIRS = ("assertion", "assertion_chunk", "assertion_hierarchical", "assertion_supporting",
         "differential_extract", "differential_joint", "differential_separate")

EXPECTED_PROMPTS: dict[tuple[str, str], str] = {
    ('pairwise', 'one'): '380dc4f578dcce632369923da28a45d32687589169b967a08aaa2b8c03b572dc',
    ('pairwise', 'many'): 'c4929c621a034a5629c414d8e54bbeb2aab3176aa8aebede73c2c0107aa5344a',
    ('reference', 'one'): '6038c94399a5ba89e3bf081f2fd2cdf72f201fcc1c496b0aa5942a5435743747',
    ('reference', 'many'): '329a30f54035213a72d81dab6a4364fd78c2085ec2a37eaeaf6436d50c8004e5',
    ('rubric', 'one'): '985fb845ac5eb428001e57c3a68eed934338ce1012e71271cd97c369f1a25ecf',
    ('rubric', 'many'): '4407a545878bd664f10be973813557d09592b0bd96959cf25b61f0441ad3afdd',
    ('assertion', 'one'): 'ae558c5ff779e6269e6e585836ca061f9d7172673435b76737d9e342327a20e9',
    ('assertion', 'many'): 'cb93437a1a8c4f41e50adb1fdc0aecef78414a81ba48aa6a504ddb4a326f262a',
    ('assertion_chunk', 'one'): '558b6e218641e7069f36bbe12694614419242e4b2e6a0fece8b78cd75b97e2a6',
    ('assertion_chunk', 'many'): '8701e07f2ff7a4c93b291b411adcb49375b062d3ad64ac3894570e0740a3cd6b',
    ('assertion_hierarchical', 'one'): '2f8895cc0ef31a7d5ebeca487875f3e29882f3992e67b674fda63791cde35b2f',
    ('assertion_hierarchical', 'many'): '066217b02557ef45f49f44df74ba539ddfc82784715234ff538b3675549cbf6c',
    ('assertion_supporting', 'one'): 'd285a0aba33be7d68cf819ad5859b0deb601cb4196bcba6d798f6d3ed5139f7e',
    ('assertion_supporting', 'many'): 'f153e4683cea992f616e94e4d028fe5424bac85017d54dec9e6c8b8363085215',
    ('differential_extract', 'one'): 'ff1ac62c3261ff5684c5c7a34b3d5b3d3a79b4dfcfdde66e85f4d2a9e00a8c4c',
    ('differential_extract', 'many'): 'e09e1da12896e944b8294c5cdacd67b666544c132ce4424c11145ab28b07af5f',
    ('differential_joint', 'one'): 'cb5502bdd1b2267d8ed8c0d171285bc86aa9ac8ee60c5cc88d6945b0530519e7',
    ('differential_joint', 'many'): '8a772104e768b94d12f85335ea31294c101f4fdd2decace10ef7b42b782e328b',
    ('differential_separate', 'one'): '722baea6756b999e8ba47c9316bcee395c300cda68632b70d3d3a7f121e42499',
    ('differential_separate', 'many'): 'cdb3d15db045fbbd0ea70f859bb164b2d886f597567d2439d30a4a9fbbc7d80b',
}
"""(packaged prompt, variant) -> SHA-256 of ``system + NUL + user``, from main before the sandbox."""

EXPECTED_PAGES: dict[tuple[str, bool], str] = {
    ('base.html.j2', False): 'c155f4902ab07ee8fb2a7037c8070c5d382513cb1b8b71ce4cf7bf32ae6c4d24',
    ('base.html.j2', True): 'cf30c07a641abb884c652e67ac5de1dbada129444fff4b4b69d72f90ba77b4f4',
    ('index.html.j2', False): 'c8859b573de4e03b97b3b92fae480101e5aead99c18cdce52cdd3f84e275e81d',
    ('index.html.j2', True): '21a753cf8bb93a356635e14d602a8e65c0b23570643cbc19450abb5235d6ebc4',
    ('page.html.j2', False): '7986365ff63285c2a4448158caaac886b5d0d7611a048afa2ababcd775df21ce',
    ('page.html.j2', True): '585f13e3dc62020aba6f06c96ad8034a66434980d365d06b873eada585605053',
    ('single.html.j2', False): 'a537f9a3d1c1acd94c723e79c55b493a08c35ee156842f5798442228738a440d',
    ('single.html.j2', True): '2c4a79e98ee4a7ef89645d679c1c9cc769050ae3121ea2bc2c8516bc321e9584',
}
"""(HTML template, partial) -> SHA-256 of the page, from main before the sandbox."""


def _prompt_digest(name: str, variant: str) -> str:
    if name in PROMPTS:
        rendered = load_prompt(name).render(**_variables(variant))
        system, user = rendered.system, rendered.user
    else:
        (_, system), (_, user) = load_prompt_pair(name).render(**_differential_variables(name, variant))
    return hashlib.sha256(f"{system}\x00{user}".encode()).hexdigest()


def _table(n: int) -> dict[str, Any]:
    cells = [{"text": "0.75", "value": 0.75, "missing": False, "optional": False, "title": None,
              "link": None},
             {"text": "<img src=x onerror=alert(1)>", "value": None, "missing": False, "optional": True,
              "title": "pairwise_exact", "link": "/?item=q1&arm=<b>", "link_rows": 2,
              "link_title": "The 2 judgments <b> behind this number"},
             {"text": "-", "value": None, "missing": True, "optional": False, "title": None, "link": None}]
    return {"id": f"tbl-{n}", "caption": "Accuracy " + TRICKY, "name": "accuracy",
            "headers": [{"key": "acc", "label": "Accuracy", "numeric": True, "abbr": None, "optional": False},
                        {"key": "m", "label": "CI", "numeric": False, "abbr": "confidence interval",
                         "optional": True},
                        {"key": "x", "label": "<x>", "numeric": False, "abbr": None, "optional": False}],
            "rows": [cells, cells[::-1]] if n == 1 else [], "n_optional": 1 if n == 1 else 0}


def _sections() -> list[dict[str, Any]]:
    return [{"title": "Scores " + TRICKY, "anchor": "sec-1", "intro": "Intro <em>",
             "notes": ["a note & more"], "missing": None, "tables": [_table(1), _table(2)],
             "figures": [{"id": "fig-1", "caption": "Figure <1>"}],
             "source": ("scores.html", "Scores <page>")},
            {"title": "Absent", "anchor": "sec-2", "intro": "", "notes": [],
             "missing": "no usd column <here>", "tables": [], "figures": [], "source": None},
            {"title": "Third", "anchor": "sec-3", "intro": "", "notes": [], "missing": None,
             "tables": [], "figures": [], "source": None}]


def _page_context(template: str, partial: bool) -> dict[str, Any]:
    cards = [{"href": "scores.html", "title": "Scores <1>", "caption": "cap & co", "summary": TRICKY},
             {"href": "b.html", "title": "B", "caption": "", "summary": "s"}]
    dashboard = {"cards": cards if partial else [],
                 "skipped": [{"name": "cost", "reason": "no usd column <x>"}],
                 "topics": [{"id": "t1", "title": "Topic " + TRICKY,
                             "missing": "none <y>" if partial else None, "sections": _sections()[:2]}]}
    base = {"heading": "Heading " + TRICKY, "caption": "Caption <c>" if partial else "",
            "facts": [("Judge", "gpt <4>"), ("Items", 12)] if partial else [],
            "nav": [{"href": "scores.html", "title": "Scores & more", "current": partial},
                    {"href": "b.html", "title": "B", "current": False}],
            "partial": partial, "version": "0.0.test", "css": "body{color:red}</style>",
            "scripts": ["var a = 1 < 2;"], "external_scripts": ["plotly.min.js"] if partial else [],
            "csp": "default-src 'none'", "figures_json": '{"figures": []}'}
    if template == "page.html.j2":
        return {**base, "sections": _sections()}
    dashboard["answers"] = []  # the answer's panel came with the dashboard after the sandbox
    if template == "index.html.j2":
        return {**base, **dashboard}
    tabs = [{"slug": "scores", "heading": "Scores <h>", "caption": "cap" if partial else "",
             "facts": [("a", "b<")] if partial else [], "sections": _sections()}]
    return {**base, **dashboard, "tabs": tabs, "home": "#index"}


def _page_digest(template: str, partial: bool, env: Any = None) -> str:
    env = environment() if env is None else env
    text = env.get_template(template).render(**_page_context(template, partial))
    return hashlib.sha256(text.encode()).hexdigest()


def _plain_environment() -> Any:
    """The report pages' environment as it was before the sandbox: plain jinja2, same options."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("assay.report.html", "templates"),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


CHANGED_SINCE = {"index.html.j2", "single.html.j2", "page.html.j2"}
"""Pages whose template changed after the digests were recorded (the dashboard opens on the
answer; a count's link is written as ``data-view`` without ``href``, so that it is plain text
opened from disk): they are held to a plain environment's render of the same template instead."""


def _packaged_prompts() -> list[str]:
    folder = resources.files("assay.judge") / "prompts"
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and (p / "user.md").is_file())


def _packaged_pages() -> list[str]:
    folder = resources.files("assay.report.html") / "templates"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".j2") and not p.name.startswith("_"))


def test_every_packaged_template_has_expected_renders():
    """A template added later must get its expected renders here (else it is not covered)."""
    assert sorted(PROMPTS + PAIRS) == _packaged_prompts()
    assert {name for name, _ in EXPECTED_PROMPTS} == set(PROMPTS + PAIRS)
    assert {name for name, _ in EXPECTED_PAGES} == set(_packaged_pages())


@pytest.mark.parametrize(("name", "variant"), sorted(EXPECTED_PROMPTS))
def test_packaged_prompt_renders_byte_identically(name, variant):
    assert _prompt_digest(name, variant) == EXPECTED_PROMPTS[name, variant]


@pytest.mark.parametrize(("template", "partial"), sorted(EXPECTED_PAGES))
def test_packaged_html_template_renders_byte_identically(template, partial):
    assert _page_digest(template, partial) == _page_digest(template, partial, _plain_environment())
    if template not in CHANGED_SINCE:
        assert _page_digest(template, partial) == EXPECTED_PAGES[template, partial]


def test_every_packaged_template_passes_the_sandbox_check():
    """The packaged templates follow the rule a prompt folder is held to (nothing is refused)."""
    from assay._templates import template_refusal
    from assay.judge.prompts import _ENV

    for name in _packaged_prompts():
        for part in ("system.md", "user.md"):
            text = (resources.files("assay.judge") / "prompts" / name / part).read_text(encoding="utf-8")
            assert template_refusal(_ENV, text) is None, (name, part)
    for page in (resources.files("assay.report.html") / "templates").iterdir():
        if page.name.endswith(".j2"):
            assert template_refusal(environment(), page.read_text(encoding="utf-8")) is None, page.name


if __name__ == "__main__":  # how the expected digests were made (run once on main before the change)
    for n in PROMPTS + PAIRS:
        for v in ("one", "many"):
            print(f"    ({n!r}, {v!r}): {_prompt_digest(n, v)!r},")
    for t in _packaged_pages():
        for p in (False, True):
            print(f"    ({t!r}, {p!r}): {_page_digest(t, p)!r},")
