"""A BenchmarkQED AutoE settings YAML as an ``assay judge`` config (``assay import qed-config``).

BenchmarkQED writes one settings file per scoring command; the file does not say which
command it is for, so the layout is told from its keys (:func:`qed_layout`).
:func:`qed_settings_to_config` reads one and gives the assay config that runs the same
evaluation (a dict, validated by :func:`assay.judge.config.parse_config` before it is
returned), or refuses it with one line naming the key that cannot be carried and why.

pairwise (``pairwise-scores``: ``base``, ``others``, ``question_sets``)
    ``inputs``: ``methods`` = base and others, ``question_sets``, ``input_dir`` = the folder
    holding every condition's ``answer_base_path`` (``{input_dir}/{name}``), ``answers_path``
    = ``{input_dir}/{method}/{question_set}.json``; one ``pairwise`` judge with ``base``,
    ``others``, ``criteria``, ``trials`` (no base: every pair of ``others``).
differential (``differential-pairwise-scores``: the pairwise keys, and ``prompt_config``
with ``extract_*`` / ``judge_*`` prompts)
    the pairwise ``inputs``; a ``differential`` judge (``mode: joint``: BenchmarkQED judges
    every criterion of the unique content in one call) per base; with no base, one per
    ``others[i]`` against every later one, as BenchmarkQED pairs them. No ``criteria``:
    BenchmarkQED's four pairwise criteria, with assay's definitions of them.
reference (``reference-scores``: ``reference``, ``generated``)
    each answer file ``{input_dir}/{name}/{file}``, one question set (the file's stem); one
    ``reference`` judge with ``score_min``, ``score_max``, ``criteria``, ``trials``.
assertion (``assertion-scores``: ``generated``, ``assertions``)
    the generated condition's answers and ``assertions_path``; one ``assertion`` judge with
    ``pass_threshold`` and ``trials``.
hierarchical (``hierarchical-assertion-scores``: the assertion keys and ``mode`` or
``detect_discovery``)
    one ``assertion_hierarchical`` judge with ``mode`` (staged, joint), ``pass_threshold``,
    ``trials``. A file with neither key is an assertion file to BenchmarkQED too; when its
    assertions have supporting assertions a note says how to make it hierarchical.
multi-RAG assertion (``assertion-scores``: ``rag_methods``, ``input_dir``, ``question_sets``)
    one config with every RAG method's answers (``answers_path_template``, its
    ``{generated_rag}`` or ``{rag_method}`` read as ``{method}``), ``assertions_path`` =
    ``{input_dir}/`` + ``assertions_filename_template``, the key names; one ``assertion``
    judge (``top_k_assertions`` -> ``top_k``) and the ``significance`` section.
multi-RAG hierarchical (``hierarchical-assertion-scores``: ``rag_methods`` and
``assertions_file``)
    as multi-RAG assertion, with ``assertions_file`` (in ``input_dir`` unless absolute), one
    question set named after the answer file (the template has no ``{question_set}``) and an
    ``assertion_hierarchical`` judge with ``mode`` and ``supporting_key``.
coverage (``chunk-assertion-scores``: ``generated.retrieval_path``, ``assertions``)
    ``inputs.retrieval_path`` (no answers: the chunks are judged), one question set (the
    file's stem); one ``chunk_assertion`` judge with ``k_list``, ``pass_threshold`` and
    ``max_chunks_per_question`` -> ``max_chunks``.

Refused, one line each: the significance-only layouts (``assertion-significance``,
``hierarchical-assertion-significance``: they read a scored folder, which ``assay import qed``
then ``assay report`` do) and the retrieval-metrics layouts (``generate-retrieval-reference``,
``retrieval-scores``: cluster relevance, which assay has no judge for); ``input_storage``
(blob storage); ``llm_config`` keys assay cannot authenticate or call with.

Significance (multi-RAG): ``run_significance_test`` -> ``significance.enabled``,
``significance_alpha`` -> ``alpha``, ``significance_correction`` -> ``correction``,
``n_permutations`` -> ``permutations`` (0 unless ``run_clustered_permutation``, whose
default is false), ``permutation_seed`` -> ``seed``. ``detect_discovery``: BenchmarkQED 0.4
declares it but never reads it (discovery is always asked for); a note says so when false.

``llm_config``: ``model``; ``init_args.api_base`` -> ``base_url``, ``init_args.api_version``
-> ``api_version``; ``api_key: ${VAR}`` -> ``api_key_env: VAR`` (a literal key is never
copied); ``call_args`` -> ``params``; ``concurrent_requests`` -> ``max_concurrency``
(BenchmarkQED's is a requests-per-second limit, assay's a bound on requests in flight).

Nothing is dropped silently: every key is carried or named in a note (``output_dir``,
``output_storage``, ``cache_dir``, the prompt files, and any key the layout does not have,
which BenchmarkQED ignores too). Relative paths are read from the settings file's folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from assay.errors import ConfigError
from assay.judge._qed_prompts import convert_qed_prompts
from assay.judge._qed_settings import (
    SettingsKeys,
    conditions,
    criteria_section,
    llm_section,
    one_folder,
    prompt_notes,
    rebase,
    significance_section,
    template,
)

__all__ = ["QedLayout", "convert_qed_prompts", "qed_layout", "qed_settings_to_config"]

QedLayout = Literal["pairwise", "differential", "reference", "assertion", "hierarchical",
                    "multi_assertion", "multi_hierarchical", "coverage"]
"""The settings layouts that convert."""

_Converted = tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]
"""A layout's ``inputs``, ``judges`` and ``significance`` (None: none)."""

_REFUSED = {
    "scores_dir": "a hierarchical-assertion-significance settings file: it tests a scored "
                  "folder and runs no judge; use 'assay import qed' on the scores, then "
                  "'assay report --kind assertions'",
    "reference_dir": "a retrieval-scores settings file: precision, recall and fidelity "
                     "against cluster references have no assay judge (chunk-level coverage "
                     "against assertions is chunk-assertion-scores)",
    "text_units_path": "a generate-retrieval-reference settings file: cluster relevance "
                       "references have no assay judge",
}


def qed_layout(settings: dict[str, Any], source: str = "settings") -> QedLayout:
    """Which BenchmarkQED command a settings document is for, told from its keys.

    Raises
    ------
    ConfigError
        A layout that does not convert, or no AutoE layout: one line naming why.

    Examples
    --------
    >>> qed_layout({"generated": {"name": "r", "answer_base_path": "in/r/q.json"},
    ...             "assertions": {"assertions_path": "in/a.json"}, "mode": "joint"})
    'hierarchical'
    >>> qed_layout({"rag_methods": ["a"], "output_dir": "out"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: settings: rag_methods without input_dir: an assertion-significance ...
    """
    for key, why in _REFUSED.items():
        if key in settings:
            raise ConfigError(f"{source}: {key}: {why}")
    prompts = settings.get("prompt_config")
    prompt_keys = set(prompts) if isinstance(prompts, dict) else set()
    if "rag_methods" in settings:
        if "input_dir" not in settings:
            raise ConfigError(f"{source}: rag_methods without input_dir: an assertion-significance "
                              "settings file: it tests a scored folder and runs no judge; use "
                              "'assay import qed' on the scores, then 'assay report --kind assertions'")
        hierarchical = {"assertions_file", "supporting_assertions_key", "mode"} & set(settings)
        return "multi_hierarchical" if hierarchical else "multi_assertion"
    if "base" in settings or "others" in settings:
        if any(k.startswith(("extract_", "judge_")) for k in prompt_keys):
            return "differential"
        return "pairwise"
    if "reference" in settings:
        return "reference"
    if "generated" in settings and "assertions" in settings:
        generated = settings["generated"]
        if (isinstance(generated, dict) and "retrieval_path" in generated) or \
                {"k_list", "max_chunks_per_question"} & set(settings):
            return "coverage"
        if {"mode", "detect_discovery"} & set(settings):
            return "hierarchical"
        return "assertion"
    raise ConfigError(f"{source}: not a BenchmarkQED AutoE settings file: expected base/others "
                      "(pairwise, differential), reference/generated (reference), "
                      "generated/assertions (assertion, hierarchical, chunk assertion) or "
                      "rag_methods/input_dir (multi-RAG assertion, hierarchical)")


def _mode(keys: SettingsKeys) -> str:
    mode = keys.get("mode", "staged")
    if mode not in ("staged", "joint"):
        raise ConfigError(f"{keys.source}: mode: expected staged or joint, got {mode!r}")
    return str(mode)


def _discovery(keys: SettingsKeys, notes: list[str]) -> None:
    if keys.get("detect_discovery", True) is False:
        notes.append("detect_discovery: false is declared by BenchmarkQED 0.4 but never read by "
                     "its scoring (discovery is always asked for); assay asks for it too")


def _pairwise_inputs(keys: SettingsKeys) -> tuple[dict[str, Any], list[dict[str, str]],
                                                  list[dict[str, str]]]:
    base = conditions(keys, "base")
    others = conditions(keys, "others")
    if not others:
        raise ConfigError(f"{keys.source}: others: expected at least one condition to compare")
    sets = keys.get("question_sets", [])
    if not sets:
        raise ConfigError(f"{keys.source}: question_sets: expected at least one question set")
    inputs = {"input_dir": one_folder(base + others, "folder", keys.source),
              "methods": [c["name"] for c in base + others], "question_sets": list(sets),
              "answers_path": "{input_dir}/{method}/{question_set}.json",
              "question_text_key": "question_text"}
    return inputs, base, others


def _pairwise(keys: SettingsKeys, notes: list[str]) -> _Converted:
    inputs, base, others = _pairwise_inputs(keys)
    judge: dict[str, Any] = {"kind": "pairwise", "trials": keys.get("trials", 4),
                             "others": [c["name"] for c in others], **criteria_section(keys)}
    if base:
        judge["base"] = base[0]["name"]
    else:
        judge["pairs"] = "all"
    if keys.get("prompt_config") is None:
        notes.append("base/others converted as pairwise-scores; a differential-pairwise-scores "
                     "file names its extract_ and judge_ prompts under prompt_config")
    return inputs, [judge], None


def _differential(keys: SettingsKeys, notes: list[str]) -> _Converted:
    from assay.judge.judges.pairwise import DEFAULT_CRITERIA

    inputs, base, others = _pairwise_inputs(keys)
    criteria = criteria_section(keys)
    if not criteria:
        criteria = {"criteria": [{"name": n, "description": d} for n, d in DEFAULT_CRITERIA.items()]}
        notes.append("criteria absent: BenchmarkQED judges the unique content on its four pairwise "
                     "criteria; the config names them with assay's definitions")
    names = [c["name"] for c in others]
    pairs = [(base[0]["name"], names)] if base else \
        [(names[i], names[i + 1:]) for i in range(len(names) - 1)]
    if not pairs:
        raise ConfigError(f"{keys.source}: others: without a base, differential scoring compares "
                          "every pair of others: expected at least two")
    judges = [{"kind": "differential", "base": b, "others": o, "mode": "joint",
               "trials": keys.get("trials", 4), **criteria,
               **({} if base else {"label": f"differential-{b}"})} for b, o in pairs]
    return inputs, judges, None


def _reference(keys: SettingsKeys, notes: list[str]) -> _Converted:
    reference = conditions(keys, "reference")
    generated = conditions(keys, "generated")
    if len(reference) != 1 or not generated:
        raise ConfigError(f"{keys.source}: reference, generated: expected one reference condition "
                          "and at least one generated")
    everyone = reference + generated
    input_dir = one_folder(everyone, "file", keys.source)
    stems = {PurePosixPath(c["path"]).name for c in everyone}
    if len(stems) != 1:
        raise ConfigError(f"{keys.source}: the answer files have different names "
                          f"({', '.join(sorted(stems))}); assay reads one question set "
                          "file name per method")
    name = PurePosixPath(stems.pop())
    inputs = {"input_dir": input_dir, "methods": [c["name"] for c in everyone],
              "question_sets": [name.stem],
              "answers_path": "{input_dir}/{method}/{question_set}" + name.suffix,
              "question_text_key": "question_text"}
    judge = {"kind": "reference", "reference": reference[0]["name"],
             "generated": [c["name"] for c in generated], "trials": keys.get("trials", 4),
             "score_min": keys.get("score_min", 1), "score_max": keys.get("score_max", 10),
             **criteria_section(keys)}
    return inputs, [judge], None


def _assertions_file(keys: SettingsKeys) -> str:
    assertions = keys.get("assertions", {})
    path = assertions.get("assertions_path") if isinstance(assertions, dict) else None
    if not isinstance(path, str):
        raise ConfigError(f"{keys.source}: assertions.assertions_path: expected a file")
    return path


def _single_inputs(keys: SettingsKeys) -> dict[str, Any]:
    generated = conditions(keys, "generated")
    if len(generated) != 1:
        raise ConfigError(f"{keys.source}: generated: expected the one condition whose answers "
                          "are scored")
    path = PurePosixPath(generated[0]["path"])
    return {"input_dir": one_folder(generated, "file", keys.source),
            "methods": [generated[0]["name"]], "question_sets": [path.stem],
            "answers_path": "{input_dir}/{method}/{question_set}" + path.suffix,
            "assertions_path": _assertions_file(keys), "question_text_key": "question_text"}


def _has_supporting(path: Path) -> bool:
    import json

    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    listed = [a for r in records if isinstance(r, dict) for a in (r.get("assertions") or [r])
              if isinstance(a, dict)] if isinstance(records, list) else []
    return any(a.get("supporting_assertions") for a in listed)


def _assertion(keys: SettingsKeys, notes: list[str], folder: Path) -> _Converted:
    inputs = _single_inputs(keys)
    if _has_supporting(folder / inputs["assertions_path"]):
        notes.append("the assertions have supporting assertions but the settings have no mode: "
                     "converted as assertion-scores (globals only), as BenchmarkQED's "
                     "assertion-scores reads it; add mode: staged (or joint) for "
                     "hierarchical-assertion-scores")
    judge = {"kind": "assertion", "trials": keys.get("trials", 4),
             "pass_threshold": keys.get("pass_threshold", 0.5)}
    return inputs, [judge], None


def _hierarchical(keys: SettingsKeys, notes: list[str]) -> _Converted:
    inputs = _single_inputs(keys)
    _discovery(keys, notes)
    judge = {"kind": "assertion_hierarchical", "mode": _mode(keys), "trials": keys.get("trials", 4),
             "pass_threshold": keys.get("pass_threshold", 0.5)}
    return inputs, [judge], None


def _multi_inputs(keys: SettingsKeys, notes: list[str], default_answers: str,
                  placeholders: dict[str, str]) -> dict[str, Any]:
    methods = keys.get("rag_methods", [])
    if not isinstance(methods, list) or not methods:
        raise ConfigError(f"{keys.source}: rag_methods: expected the RAG methods to score")
    answers = keys.get("answers_path_template", default_answers)
    if not isinstance(answers, str):
        raise ConfigError(f"{keys.source}: answers_path_template: expected a path template")
    if "{rag_method}" in answers:
        notes.append("answers_path_template: BenchmarkQED 0.4 fills {generated_rag}, not "
                     "{rag_method} (its own default), so it stops there; assay reads either as "
                     "the method")
    inputs: dict[str, Any] = {
        "input_dir": str(keys.get("input_dir")), "methods": [str(m) for m in methods],
        "answers_path": template(answers, "answers_path_template", placeholders, keys.source)}
    for key in ("question_id_key", "question_text_key", "answer_text_key"):
        inputs[key] = keys.get(key, {"question_id_key": "question_id",
                                     "question_text_key": "question_text"}.get(key, "answer"))
    return inputs


def _multi_assertion(keys: SettingsKeys, notes: list[str]) -> _Converted:
    inputs = _multi_inputs(keys, notes, "{input_dir}/{rag_method}/{question_set}.json",
                           {"input_dir": "input_dir", "generated_rag": "method",
                            "rag_method": "method", "question_set": "question_set"})
    sets = keys.get("question_sets", [])
    if not sets:
        raise ConfigError(f"{keys.source}: question_sets: expected at least one question set")
    inputs["question_sets"] = [str(s) for s in sets]
    assertions = keys.get("assertions_filename_template", "{question_set}_assertions.json")
    if not isinstance(assertions, str):
        raise ConfigError(f"{keys.source}: assertions_filename_template: expected a file name template")
    inputs["assertions_path"] = "{input_dir}/" + template(
        assertions, "assertions_filename_template", {"question_set": "question_set"}, keys.source)
    judge: dict[str, Any] = {"kind": "assertion", "trials": keys.get("trials", 4),
                             "pass_threshold": keys.get("pass_threshold", 0.5)}
    if keys.get("top_k_assertions") is not None:
        judge["top_k"] = keys.get("top_k_assertions")
    return inputs, [judge], significance_section(keys, notes, multi=True)


def _multi_hierarchical(keys: SettingsKeys, notes: list[str]) -> _Converted:
    inputs = _multi_inputs(keys, notes, "{input_dir}/{rag_method}/data_global.json",
                           {"input_dir": "input_dir", "generated_rag": "method",
                            "rag_method": "method"})
    stem = PurePosixPath(inputs["answers_path"]).stem
    inputs["question_sets"] = [stem if "{" not in stem else "all"]
    assertions = keys.get("assertions_file")
    if not isinstance(assertions, str):
        raise ConfigError(f"{keys.source}: assertions_file: expected the hierarchical assertions file")
    inputs["assertions_path"] = assertions if PurePosixPath(assertions).is_absolute() else \
        "{input_dir}/" + assertions.replace("{", "{{").replace("}", "}}")
    _discovery(keys, notes)
    judge = {"kind": "assertion_hierarchical", "mode": _mode(keys), "trials": keys.get("trials", 4),
             "pass_threshold": keys.get("pass_threshold", 0.5),
             "supporting_key": keys.get("supporting_assertions_key", "supporting_assertions")}
    return inputs, [judge], significance_section(keys, notes, multi=True)


def _coverage(keys: SettingsKeys, notes: list[str]) -> _Converted:
    generated = keys.get("generated", {})
    if not (isinstance(generated, dict) and isinstance(generated.get("name"), str)
            and isinstance(generated.get("retrieval_path"), str)):
        raise ConfigError(f"{keys.source}: generated: expected name and retrieval_path (the "
                          "retrieval results whose chunks are judged)")
    extra = sorted(set(generated) - {"name", "retrieval_path"})
    if extra:
        raise ConfigError(f"{keys.source}: generated.{extra[0]}: not a key of chunk-assertion "
                          "settings (name, retrieval_path)")
    path = generated["retrieval_path"]
    inputs = {"retrieval_path": path.replace("{", "{{").replace("}", "}}"),
              "retrieval_methods": [generated["name"]],
              "question_sets": [PurePosixPath(path).stem],
              "assertions_path": _assertions_file(keys).replace("{", "{{").replace("}", "}}")}
    judge: dict[str, Any] = {"kind": "chunk_assertion", "arms": [generated["name"]],
                             "k_list": keys.get("k_list", [5, 10, 20, 50]),
                             "pass_threshold": keys.get("pass_threshold", 0.5)}
    if keys.get("max_chunks_per_question") is not None:
        judge["max_chunks"] = keys.get("max_chunks_per_question")
    return inputs, [judge], None


_LAYOUTS: dict[str, Callable[..., _Converted]] = {
    "pairwise": _pairwise, "differential": _differential, "reference": _reference,
    "hierarchical": _hierarchical, "multi_assertion": _multi_assertion,
    "multi_hierarchical": _multi_hierarchical, "coverage": _coverage,
}

_NOTED = {
    "output_dir": "assay writes the run to 'assay judge CONFIG --out FOLDER'",
    "output_storage": "assay writes the run to a local folder ('assay judge --out')",
    "cache_dir": "assay caches the replies in the run folder (the config's cache:)",
}


def qed_settings_to_config(settings: Any, *, source: str = "settings", folder: str | Path = ".",
                           out_folder: str | Path | None = None, convert_prompts: bool = False,
                           qed_install: str | Path | None = None) -> tuple[dict[str, Any],
                                                                             list[str]]:
    """The assay judge config of a BenchmarkQED settings document, and notes (module doc).

    `folder` is the settings file's folder: BenchmarkQED's relative paths are read from it;
    `out_folder` the folder the config is written into (default `folder`): the config's
    relative paths are written relative to it, as ``assay judge`` reads them.

    `convert_prompts`: write the prompts the settings' command sends, read from the
    settings' ``prompt_config`` files or the BenchmarkQED installation (`qed_install`, else
    the one this Python finds), as prompt folders under ``<out_folder>/prompts/`` and name
    them in the judges, with BenchmarkQED's default criterion definitions when the settings
    give none (:func:`convert_qed_prompts`). Without it, or with no installation found, the
    judges use assay's own prompts and a note says so.

    Examples
    --------
    >>> config, notes = qed_settings_to_config({
    ...     "base": {"name": "vector_rag", "answer_base_path": "input/vector_rag"},
    ...     "others": [{"name": "graph_rag", "answer_base_path": "input/graph_rag"}],
    ...     "question_sets": ["activity_local"], "trials": 4,
    ...     "llm_config": {"model": "gpt-4.1", "api_key": "${OPENAI_API_KEY}"}})
    >>> config["inputs"]["methods"], config["judges"][0]["kind"], config["judges"][0]["trials"]
    (['vector_rag', 'graph_rag'], 'pairwise', 4)
    """
    if not isinstance(settings, dict):
        raise ConfigError(f"{source}: expected a BenchmarkQED settings mapping")
    layout = qed_layout(settings, source)
    keys = SettingsKeys(settings, source)
    if keys.get("input_storage") is not None:
        raise ConfigError(f"{source}: input_storage is not supported: assay reads the answers "
                          "from local files; download them and point the paths at them")
    notes: list[str] = []
    llm = llm_section(keys, notes)
    prompt_config = keys.get("prompt_config")
    unconverted = prompt_notes(keys, Path(folder))
    try:
        if layout == "assertion":
            inputs, judges, significance = _assertion(keys, notes, Path(folder))
        else:
            inputs, judges, significance = _LAYOUTS[layout](keys, notes)
    except (TypeError, AttributeError, KeyError) as exc:  # a value of the wrong shape, not a bug of ours
        raise ConfigError(f"{source}: a value of the {layout} settings has the wrong type or "
                          f"lacks a key ({type(exc).__name__}: {exc})") from None
    if significance is None:
        significance = significance_section(keys, notes, multi=False) or None
    for key, why in _NOTED.items():
        if keys.get(key) is not None:
            notes.append(f"{key} not carried: {why}")
    left = keys.left_over()
    if left:
        notes.append(f"{', '.join(left)}: not keys of BenchmarkQED's {layout} settings; "
                     "ignored, as BenchmarkQED ignores them")
    base, out = Path(folder), Path(folder) if out_folder is None else Path(out_folder)
    converted = convert_prompts and convert_qed_prompts(
        layout, judges, prompt_config, notes, source=source, folder=base, out_folder=out,
        qed_install=qed_install)
    if not converted:
        notes.extend(unconverted)
    for key in ("input_dir", "assertions_path", "retrieval_path", "answers_path"):
        if key in inputs:
            inputs[key] = rebase(inputs[key], base, out)
    config: dict[str, Any] = {"version": 1, "llm": llm, "inputs": inputs, "judges": judges}
    if significance is not None:
        config["significance"] = significance
    from assay.judge.config import parse_config

    parse_config(config, base_dir=out, source=source)  # as assay judge will read it
    return config, notes
