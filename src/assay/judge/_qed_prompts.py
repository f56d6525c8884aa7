"""BenchmarkQED's prompt files as assay prompt folders (for :mod:`assay.judge.qed_config`).

assay ships none of BenchmarkQED's prompt text. :func:`find_qed_package` finds the user's
BenchmarkQED installation (``--qed-install``, else ``importlib.util.find_spec``), and
:func:`write_qed_prompts` reads from it (or from the files the settings' ``prompt_config``
names) the prompts the settings' command sends, turns their ``string.Template``
placeholders into the jinja2 variables the assay judge fills (:data:`PLACEHOLDERS`) and
writes them as a ``prompt:`` folder beside the config, so that ``assay judge`` sends the
same messages BenchmarkQED does (the Score ID aside: BenchmarkQED draws a random one per
call, assay's is the judgment key). :func:`qed_default_criteria` reads BenchmarkQED's
default criterion definitions from the same installation, without importing it (its
``config/model/score.py`` is parsed, not run), so the config carries them.

Which prompts a command sends (BenchmarkQED 0.4.0):

==============================  ===========================================================
pairwise-scores                 ``prompt_config`` (default ``prompts/pairwise/``)
reference-scores                ``prompt_config`` (default ``prompts/reference/``)
assertion-scores, single RAG    ``prompt_config`` (default ``prompts/assertion/``)
hierarchical, single RAG        joint: ``prompt_config`` (default the hierarchical prompt);
                                staged: the packaged assertion prompt, then the packaged
                                supporting-discovery prompt (``prompt_config`` unread)
multi-RAG assertion             the packaged assertion prompt (``prompt_config`` unread)
multi-RAG hierarchical          as single-RAG hierarchical, every prompt packaged
==============================  ===========================================================
"""

from __future__ import annotations

import ast
import importlib.util
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.errors import ConfigError

__all__ = ["PLACEHOLDERS", "QedPrompt", "find_qed_package", "qed_default_criteria",
           "qed_template_to_jinja", "write_qed_prompts"]

_LINE_ID = '{% if score_id %}{{ score_id }}{{ "\\n" }}{% endif %}'
"""``${score_id}`` of the pairwise and reference prompts: BenchmarkQED fills it with
``"Score ID: <id>\\n"`` (nothing when the Score ID is off)."""
_BARE_ID = '{{ score_id | replace("Score ID: ", "") }}'
"""``${score_id}`` of the assertion prompts: BenchmarkQED fills it with the bare id."""
_SUPPORTING = ('{% for s in supporting %}SA{{ loop.index }}: {{ s.statement }}'
               '{% if not loop.last %}{{ "\\n" }}{% endif %}{% endfor %}')
"""``${supporting_assertions}``: BenchmarkQED lists them as ``SA1: statement`` lines."""

PLACEHOLDERS: dict[str, dict[str, str]] = {
    "pairwise": {"score_id": _LINE_ID, "question": "{{ question }}", "answer1": "{{ answer1 }}",
                 "answer2": "{{ answer2 }}", "criteria_name": "{{ criteria[0].name }}",
                 "criteria_description": "{{ criteria[0].description }}"},
    # BenchmarkQED shows the reference first on its even trials (0, 2, ...), the ones assay
    # numbers 1, 3, ...; assay's reference judge lists the generated answer first on those,
    # so answer_1 is assay's second part
    "reference": {"score_id": _LINE_ID, "query": "{{ question }}",
                  "answer_1_name": "{{ answers[1].name }}", "answer_1": "{{ answers[1].text }}",
                  "answer_2_name": "{{ answers[0].name }}", "answer_2": "{{ answers[0].text }}",
                  "criteria_name": "{{ criterion.name }}",
                  "criteria_description": "{{ criterion.description }}",
                  "score_min": "{{ score_min }}", "score_max": "{{ score_max }}"},
    "assertion": {"score_id": _BARE_ID, "question": "{{ question }}", "answer": "{{ answer }}",
                  "assertion": "{{ assertion }}"},
    "assertion_hierarchical": {"score_id": _BARE_ID, "question": "{{ question }}",
                               "answer": "{{ answer }}", "assertion": "{{ assertion }}",
                               "supporting_assertions": _SUPPORTING},
    "assertion_supporting": {"score_id": _BARE_ID, "question": "{{ question }}",
                             "answer": "{{ answer }}", "assertion": "{{ assertion }}",
                             "supporting_assertions": _SUPPORTING,
                             "global_reasoning": "{{ global_reasoning }}"},
}
"""assay prompt -> BenchmarkQED placeholder -> the jinja2 that fills it as BenchmarkQED does."""

_FILES = {
    "pairwise": ("pairwise", "pairwise"),
    "reference": ("reference", "reference"),
    "assertion": ("assertion", "assertion"),
    "assertion_hierarchical": ("assertion", "hierarchical_assertion"),
    "assertion_supporting": ("assertion", "supporting_discovery"),
}
"""assay prompt -> (folder under ``benchmark_qed/autoe/prompts``, file stem)."""

_STRIPPED = {"pairwise": ("user",), "reference": ("user",)}
"""The messages BenchmarkQED strips of surrounding whitespace (the others are sent as the
file has them, trailing newline included)."""

_RAW = re.compile(r"\{[{%#]|[{}]\s*[A-Za-z_]|\$")
"""Literal text jinja2 or assay's placeholder check would read as markup: kept raw."""


@dataclass(frozen=True)
class QedPrompt:
    """One converted prompt: the jinja2 system and user templates and where they were read."""

    name: str
    """The assay prompt it replaces (``pairwise``, ``assertion_supporting``, ...)."""
    system: str
    """The system template."""
    user: str
    """The user template."""
    sources: tuple[str, str]
    """The BenchmarkQED files (or ``prompt_config`` keys) they were read from."""


def find_qed_package(explicit: str | Path | None = None) -> Path | None:
    """The ``benchmark_qed`` package folder of an installation, or None when none is found.

    `explicit` (``--qed-install``) may be the package folder itself, a folder holding it
    (``site-packages``) or a virtual environment; without it, the ``benchmark_qed`` that
    this Python would import (``importlib.util.find_spec``, which does not run it).

    Raises
    ------
    ConfigError
        `explicit` given but no BenchmarkQED package found under it.
    """
    if explicit is not None:
        root = Path(explicit)
        candidates = [root, root / "benchmark_qed",
                      *sorted(root.glob("lib/python*/site-packages/benchmark_qed")),
                      *sorted(root.glob("Lib/site-packages/benchmark_qed"))]
        for candidate in candidates:
            if (candidate / "autoe" / "prompts").is_dir():
                return candidate
        raise ConfigError(f"--qed-install {root}: no BenchmarkQED package there (expected "
                          "benchmark_qed/autoe/prompts/ in it, its site-packages or a venv)")
    try:
        spec = importlib.util.find_spec("benchmark_qed")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if (Path(location) / "autoe" / "prompts").is_dir():
            return Path(location)
    return None


def qed_default_criteria(package: Path, which: str) -> list[dict[str, str]]:
    """BenchmarkQED's default criteria (``which``: ``pairwise`` or ``reference``) as
    ``{name, description}``, read from the installation's ``config/model/score.py``.

    The file is parsed, not imported: the ``Criteria(name=..., description=...)`` calls
    of its ``{which}_scores_criteria`` function, in order.

    Raises
    ------
    ConfigError
        The file or function is missing, or a definition is not a literal.
    """
    path = package / "config" / "model" / "score.py"
    function = f"{which}_scores_criteria"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as exc:
        raise ConfigError(f"{path}: cannot read BenchmarkQED's default criteria ({exc})") from None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            out = []
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Criteria":
                    try:
                        values = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
                    except ValueError:
                        raise ConfigError(f"{path}: {function}: a criterion is not written as "
                                          "text") from None
                    out.append({"name": str(values["name"]), "description": str(values["description"])})
            if out:
                return out
    raise ConfigError(f"{path}: no {function}() with Criteria(...) in it: not a BenchmarkQED "
                      "0.4 installation?")


def qed_template_to_jinja(text: str, placeholders: Mapping[str, str], source: str) -> str:
    """A BenchmarkQED ``string.Template`` as an assay jinja2 template.

    Each ``$name`` / ``${name}`` becomes its jinja2 in `placeholders`; ``$$`` is a literal
    ``$``; literal text jinja2 would read as markup (``{{``, ``{%``, ``{#``) or assay's
    placeholder check would refuse (``$``, ``{name}``) goes in ``{% raw %}``.

    Raises
    ------
    ConfigError
        A placeholder the judge cannot fill (named with the file and what it fills), or an
        invalid ``$`` (which ``string.Template`` refuses too).

    Examples
    --------
    >>> qed_template_to_jinja("Q: ${question}\\n{x} costs $$5", {"question": "{{ question }}"}, "u.txt")
    'Q: {{ question }}{% raw %}\\n{x} costs $5{% endraw %}'
    """
    out: list[str] = []
    literal: list[str] = []

    def flush() -> None:
        chunk = "".join(literal)
        literal.clear()
        if chunk:
            out.append(f"{{% raw %}}{chunk}{{% endraw %}}" if _RAW.search(chunk) else chunk)

    position = 0
    for match in string.Template.pattern.finditer(text):
        literal.append(text[position:match.start()])
        position = match.end()
        if match.group("escaped") is not None:
            literal.append("$")
            continue
        name = match.group("named") or match.group("braced")
        if name is None:
            line = text.count("\n", 0, match.start()) + 1
            raise ConfigError(f"{source}, line {line}: an invalid $ placeholder (string.Template "
                              "refuses it too)")
        if name not in placeholders:
            line = text.count("\n", 0, match.start()) + 1
            raise ConfigError(f"{source}, line {line}: ${{{name}}} is not a placeholder this "
                              f"prompt is filled with (BenchmarkQED fills {', '.join(sorted(placeholders))})")
        flush()
        out.append(placeholders[name])
    literal.append(text[position:])
    flush()
    return "".join(out)


def _read(path: Path, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read {path} ({exc})") from None


def _settings_prompt(part: Any, where: str, folder: Path,
                     missing: list[str]) -> tuple[str, str] | None:
    """The text and source of a ``prompt_config`` part (``prompt`` path or ``prompt_text``);
    None for none, or for a file that does not exist (named in `missing`)."""
    if not isinstance(part, dict):
        return None
    if part.get("prompt_text"):
        return str(part["prompt_text"]), where + ".prompt_text"
    if part.get("prompt"):
        path = Path(str(part["prompt"]))
        path = path if path.is_absolute() else folder / path
        if not path.is_file():
            missing.append(str(path))
            return None
        return _read(path, where + ".prompt"), str(path)
    return None


def read_qed_prompt(name: str, package: Path | None, prompt_config: Any, folder: Path,
                    source: str, missing: list[str] | None = None) -> QedPrompt:
    """The converted prompt `name`: the settings' ``prompt_config`` files when given
    (`prompt_config` None: the command does not read them), else the installation's; a
    named file that does not exist is listed in `missing` and the installation's read.

    Raises
    ------
    ConfigError
        A file to read from an installation when none was found, or a template that does not
        convert (:func:`qed_template_to_jinja`).
    """
    texts: dict[str, tuple[str, str]] = {}
    for role in ("system", "user"):
        given = None
        if isinstance(prompt_config, dict):
            given = _settings_prompt(prompt_config.get(f"{role}_prompt"),
                                     f"{source}: prompt_config.{role}_prompt", folder,
                                     missing if missing is not None else [])
        if given is None:
            if package is None:
                raise ConfigError(f"{source}: BenchmarkQED's {name} prompt is read from its "
                                  "installation, and none was found: install benchmark-qed "
                                  "into this Python or give --qed-install PATH")
            sub, stem = _FILES[name]
            path = package / "autoe" / "prompts" / sub / f"{stem}_{role}_prompt.txt"
            given = _read(path, source), str(path)
        texts[role] = given
    converted = {}
    for role, (text, where) in texts.items():
        jinja = qed_template_to_jinja(text, PLACEHOLDERS[name], where)
        if role in _STRIPPED.get(name, ()):
            jinja = jinja.strip()
        converted[role] = jinja
    return QedPrompt(name, converted["system"], converted["user"],
                     (texts["system"][1], texts["user"][1]))


def write_prompt_folder(prompt: QedPrompt, folder: Path) -> None:
    """``system.md``, ``user.md`` and the ``verbatim`` marker into `folder`.

    BenchmarkQED sends the messages it does not strip exactly as the file has them; assay
    strips a rendered prompt unless the folder's ``verbatim`` file names the message
    (``assay.judge.prompts``).
    """
    folder.mkdir(parents=True, exist_ok=True)
    # a file's final newline is part of BenchmarkQED's message: jinja2 drops it unless told
    # (keep_trailing_newline, set for verbatim messages)
    (folder / "system.md").write_text(prompt.system, encoding="utf-8")
    (folder / "user.md").write_text(prompt.user, encoding="utf-8")
    stripped = _STRIPPED.get(prompt.name, ())
    kept = [role for role in ("system", "user") if role not in stripped]
    (folder / "verbatim").write_text(
        "# the messages sent exactly as rendered (not stripped), as BenchmarkQED sends them\n"
        + "".join(f"{role}\n" for role in kept), encoding="utf-8")
    (folder / "SOURCE.txt").write_text(
        "Converted by 'assay import qed-config' from BenchmarkQED's prompt files:\n"
        + "".join(f"  {s}\n" for s in prompt.sources), encoding="utf-8")


def write_qed_prompts(names: list[str], out: Path, package: Path | None, prompt_config: Any,
                      folder: Path, source: str, *, several: bool = False,
                      missing: list[str] | None = None) -> list[QedPrompt]:
    """Convert the prompts `names` into `out` (``several``: one subfolder per prompt, as a
    judge with several prompts reads them) and return them.

    `prompt_config` is the settings' (None when the command does not read it); it applies
    to the first of `names` only (the one prompt a BenchmarkQED command configures).
    """
    done = []
    for n, name in enumerate(names):
        prompt = read_qed_prompt(name, package, prompt_config if n == 0 else None, folder, source,
                                 missing)
        write_prompt_folder(prompt, out / name if several else out)
        done.append(prompt)
    return done


# -- a settings layout's prompts, converted for its judges ------------------------------

_PROMPTS: dict[str, tuple[str, bool]] = {
    "pairwise": ("pairwise", True), "reference": ("reference", True),
    "assertion": ("assertion", True), "multi_assertion": ("assertion", False),
    "hierarchical": ("assertion_hierarchical", True),
    "multi_hierarchical": ("assertion_hierarchical", False),
}
"""layout -> (the assay prompt BenchmarkQED's command sends, whether it reads ``prompt_config``).
A hierarchical layout's entry is its joint mode's; staged mode: :data:`_STAGED`."""

_STAGED = ["assertion", "assertion_supporting"]
"""The prompts of STAGED hierarchical scoring: BenchmarkQED's packaged assertion prompt (stage
1, ``get_assertion_scores``), then its supporting-discovery prompt; ``prompt_config`` unread."""

_CRITERIA = {"pairwise": "pairwise", "reference": "reference"}
"""layout -> the BenchmarkQED default criteria it uses when the settings give none."""


def convert_qed_prompts(layout: str, judges: list[dict[str, Any]], prompt_config: Any,
                        notes: list[str], *, source: str, folder: Path, out_folder: Path,
                        qed_install: str | Path | None = None) -> bool:
    """Write BenchmarkQED's prompts for `layout` into ``<out_folder>/prompts/qed_<prompt>/``
    and point `judges` at them, adding to `notes` what was read (``assay.judge._qed_prompts``);
    whether they were converted (False: no installation found, or a layout without one).

    The judges get BenchmarkQED's default criterion definitions, read from the installation,
    when the settings name none.

    Raises
    ------
    ConfigError
        `qed_install` given but holding no BenchmarkQED, or a prompt file that does not
        convert.
    """
    package = find_qed_package(qed_install)
    if layout not in _PROMPTS:
        notes.append(f"prompts not converted: BenchmarkQED's {layout} prompts have no assay "
                     "prompt folder yet; the config uses assay's own (docs/formats/qed.md)")
        return False
    name, reads_config = _PROMPTS[layout]
    names = [name]
    staged = layout in ("hierarchical", "multi_hierarchical") and judges[0].get("mode") == "staged"
    if staged:
        names, reads_config = list(_STAGED), False
    given = isinstance(prompt_config, dict) and bool(prompt_config)
    if given and not reads_config:
        what = "staged scoring" if staged else f"{layout} command"
        notes.append(f"prompt_config not read: BenchmarkQED's {what} sends its packaged "
                     "prompts whatever the settings say; so does the config")
    absent: list[str] = []
    own = given and reads_config and all(
        _settings_prompt(prompt_config.get(f"{r}_prompt"), "", folder, absent) is not None
        for r in ("system", "user"))
    if package is None and not own:
        notes.append("BenchmarkQED prompts not converted: no BenchmarkQED installation found "
                     "(install benchmark-qed here or give --qed-install PATH); the config uses "
                     "assay's own packaged prompts, whose verdicts differ from BenchmarkQED's")
        return False
    target = out_folder / "prompts" / f"qed_{name}{'_staged' if staged else ''}"
    missing: list[str] = []
    several = layout in ("hierarchical", "multi_hierarchical")  # one subfolder per prompt
    prompts = write_qed_prompts(names, target, package, prompt_config if reads_config else None,
                                folder, source, several=several, missing=missing)
    if missing:
        notes.append(f"prompt_config names {', '.join(missing)}, which do not exist (BenchmarkQED "
                     "would stop on them); converted the installation's packaged prompt instead")
    relative = target.relative_to(out_folder).as_posix()
    for judge in judges:
        judge["prompt"] = relative
        if layout in _CRITERIA and "criteria" not in judge:
            if package is None:
                notes.append("criteria absent and no BenchmarkQED installation found: the judge "
                             "uses assay's definitions of BenchmarkQED's default criteria")
            else:
                judge["criteria"] = qed_default_criteria(package, _CRITERIA[layout])
                notes.append(f"criteria: BenchmarkQED's default {_CRITERIA[layout]} criteria, "
                             f"with their definitions read from {package}")
    for prompt in prompts:
        notes.append(f"prompts: BenchmarkQED's {prompt.name} prompt converted into "
                     f"{relative}/{prompt.name + '/' if several else ''} from " + ", ".join(prompt.sources))
    return True
