"""A BenchmarkQED AutoE settings YAML as an ``assay judge`` config (``assay import qed-config``).

BenchmarkQED writes one settings file per scoring command (``benchmark-qed config init
autoe_pairwise | autoe_reference | autoe_assertion``); :func:`qed_settings_to_config`
reads one and gives the equivalent assay config (a dict, validated by
:func:`assay.judge.config.parse_config` before it is returned):

pairwise (``base``, ``others``, ``question_sets``)
    ``inputs``: ``methods`` = base and others, ``question_sets``, ``input_dir`` = the folder
    holding every condition's ``answer_base_path`` (``{input_dir}/{name}``), ``answers_path``
    = ``{input_dir}/{method}/{question_set}.json`` as BenchmarkQED reads it; one ``pairwise``
    judge with ``base``, ``others``, ``criteria`` and ``trials``.
reference (``reference``, ``generated``)
    ``inputs``: ``methods`` = the reference and generated conditions, each answer file
    ``{input_dir}/{name}/{file name}`` with one question set (the file's stem); one
    ``reference`` judge with the reference method, ``score_min``, ``score_max``,
    ``criteria``, ``trials``.
assertion (``generated``, ``assertions``)
    ``inputs``: the generated condition's answers and ``assertions_path``; one ``assertion``
    judge with ``pass_threshold`` and ``trials``.

Significance settings (assertion scoring): ``run_significance_test`` -> ``significance.enabled``,
``significance_alpha`` -> ``significance.alpha``, ``significance_correction`` (holm, bonferroni,
fdr_bh) -> ``significance.correction``, ``n_permutations`` -> ``significance.permutations``
(0 when ``run_clustered_permutation`` is false), ``permutation_seed`` -> ``significance.seed``.
``detect_discovery``: BenchmarkQED 0.4 declares it but its scoring never reads it (discovery
is always asked for); assay asks for it too, and a note says so when it is false.

``llm_config``: ``model``; ``init_args.api_base`` -> ``base_url``; ``api_key:
${VAR}`` -> ``api_key_env: VAR`` (a literal key is never copied); ``call_args`` ->
``params``; ``concurrent_requests`` -> ``max_concurrency`` (BenchmarkQED's is a
requests-per-second limit, assay's a bound on requests in flight). Anything that cannot be
expressed (answer paths that do not follow one folder layout, an unknown settings kind) is a
ConfigError naming the field; BenchmarkQED prompt files (``prompt_config``) are not
converted (their ``$``-placeholders are not assay's templates): the config uses assay's
packaged prompts, and the notes say which files were left out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from assay.errors import ConfigError

_ENV = re.compile(r"^\$\{(\w+)\}$")


def _conditions(settings: Mapping[str, Any], key: str, source: str) -> list[dict[str, str]]:
    value = settings.get(key)
    items = value if isinstance(value, list) else [value] if value is not None else []
    out = []
    for n, item in enumerate(items):
        where = f"{source}: {key}" + (f"[{n}]" if isinstance(value, list) else "")
        if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                and isinstance(item.get("answer_base_path"), str)):
            raise ConfigError(f"{where}: expected a condition with name and answer_base_path")
        out.append({"name": item["name"], "path": item["answer_base_path"]})
    return out


def _one_folder(conditions: list[dict[str, str]], layout: str, source: str) -> str:
    """The folder D such that every condition's path is D/name (pairwise) or D/name/FILE."""
    parents = set()
    for c in conditions:
        path = PurePosixPath(c["path"].replace("\\", "/").rstrip("/"))
        folder = path if layout == "folder" else path.parent
        if folder.name != c["name"]:
            raise ConfigError(
                f"{source}: condition {c['name']!r}: answer_base_path {c['path']!r} is not "
                f"<folder>/{c['name']}{'' if layout == 'folder' else '/<file>'}; assay reads "
                "every method's answers from one folder layout: move or link the answers "
                "so that each condition's folder is named after it")
        parents.add(str(folder.parent))
    if len(parents) != 1:
        raise ConfigError(f"{source}: the conditions' answers are in different folders "
                          f"({', '.join(sorted(parents))}); assay reads them from one folder")
    return parents.pop()


def _llm(settings: Mapping[str, Any], source: str) -> dict[str, Any]:
    config = settings.get("llm_config") or {}
    if not isinstance(config, dict) or not isinstance(config.get("model"), str):
        raise ConfigError(f"{source}: llm_config.model: expected the judge model's name")
    llm: dict[str, Any] = {"model": config["model"]}
    base = (config.get("init_args") or {}).get("api_base")
    if isinstance(base, str) and base:
        llm["base_url"] = base
    key = config.get("api_key")
    match = _ENV.match(key) if isinstance(key, str) else None
    llm["api_key_env"] = match.group(1) if match else "OPENAI_API_KEY"
    if isinstance(config.get("concurrent_requests"), int):
        llm["max_concurrency"] = config["concurrent_requests"]
    if isinstance(config.get("call_args"), dict) and config["call_args"]:
        llm["params"] = dict(config["call_args"])
    return llm


def _criteria(settings: Mapping[str, Any]) -> dict[str, Any]:
    criteria = settings.get("criteria")
    if not criteria:
        return {}
    return {"criteria": [{"name": c["name"], "description": c.get("description", "")}
                         if isinstance(c, dict) else c for c in criteria]}


def _prompt_notes(settings: Mapping[str, Any], folder: Path) -> list[str]:
    prompts = settings.get("prompt_config")
    if not isinstance(prompts, dict):
        return []
    files = [str(part.get("prompt")) for part in prompts.values()
             if isinstance(part, dict) and part.get("prompt")]
    texts = [name for name, part in prompts.items()
             if isinstance(part, dict) and part.get("prompt_text")]
    left = [str(folder / f) for f in files] + [f"prompt_config.{t}.prompt_text" for t in texts]
    return [f"BenchmarkQED prompts not converted (assay's packaged prompts are used): "
            f"{', '.join(left)}"] if left else []


def _significance(settings: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """The ``significance`` section of BenchmarkQED's significance settings (module doc)."""
    out: dict[str, Any] = {}
    if "run_significance_test" in settings:
        out["enabled"] = bool(settings["run_significance_test"])
    if "significance_alpha" in settings:
        out["alpha"] = settings["significance_alpha"]
    if "significance_correction" in settings:
        out["correction"] = settings["significance_correction"]
    if "n_permutations" in settings:
        out["permutations"] = settings["n_permutations"]
    if settings.get("run_clustered_permutation") is False:
        out["permutations"] = 0
    if settings.get("permutation_seed") is not None:
        out["seed"] = settings["permutation_seed"]
    if settings.get("detect_discovery") is False:
        notes.append("detect_discovery: false is declared by BenchmarkQED 0.4 but never read by "
                     "its scoring (discovery is always asked for); assay asks for it too")
    return out


def qed_settings_to_config(settings: Any, *, source: str = "settings", folder: str | Path = ".",
                           out_folder: str | Path | None = None) -> tuple[dict[str, Any],
                                                                        list[str]]:
    """The assay judge config of a BenchmarkQED settings document, and notes (module doc).

    `folder` is the settings file's folder: BenchmarkQED's relative paths are read from it;
    `out_folder` the folder the config is written into (default `folder`): the config's
    relative paths are written relative to it, as ``assay judge`` reads them.

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
    llm = _llm(settings, source)
    trials = settings.get("trials", 4)
    notes = _prompt_notes(settings, Path(folder))
    if "base" in settings or "others" in settings:
        base = _conditions(settings, "base", source)
        others = _conditions(settings, "others", source)
        if not others:
            raise ConfigError(f"{source}: others: expected at least one condition to compare")
        input_dir = _one_folder(base + others, "folder", source)
        sets = settings.get("question_sets") or []
        if not sets:
            raise ConfigError(f"{source}: question_sets: expected at least one question set")
        inputs = {"input_dir": input_dir, "methods": [c["name"] for c in base + others],
                  "question_sets": list(sets),
                  "answers_path": "{input_dir}/{method}/{question_set}.json",
                  "question_text_key": "question_text"}
        judge: dict[str, Any] = {"kind": "pairwise", "trials": trials,
                                 "others": [c["name"] for c in others], **_criteria(settings)}
        if base:
            judge["base"] = base[0]["name"]
        else:
            judge["pairs"] = "all"
    elif "reference" in settings:
        reference = _conditions(settings, "reference", source)
        generated = _conditions(settings, "generated", source)
        everyone = reference + generated
        input_dir = _one_folder(everyone, "file", source)
        stems = {PurePosixPath(c["path"]).name for c in everyone}
        if len(stems) != 1:
            raise ConfigError(f"{source}: the answer files have different names "
                              f"({', '.join(sorted(stems))}); assay reads one question set "
                              "file name per method")
        stem = stems.pop()
        name = PurePosixPath(stem)
        inputs = {"input_dir": input_dir, "methods": [c["name"] for c in everyone],
                  "question_sets": [name.stem],
                  "answers_path": "{input_dir}/{method}/{question_set}" + name.suffix,
                  "question_text_key": "question_text"}
        judge = {"kind": "reference", "reference": reference[0]["name"],
                 "generated": [c["name"] for c in generated], "trials": trials,
                 "score_min": settings.get("score_min", 1),
                 "score_max": settings.get("score_max", 10), **_criteria(settings)}
    elif "generated" in settings and "assertions" in settings:
        generated = _conditions(settings, "generated", source)
        path = PurePosixPath(generated[0]["path"])
        input_dir = _one_folder(generated, "file", source)
        assertions = (settings.get("assertions") or {}).get("assertions_path")
        if not isinstance(assertions, str):
            raise ConfigError(f"{source}: assertions.assertions_path: expected a file")
        inputs = {"input_dir": input_dir, "methods": [generated[0]["name"]],
                  "question_sets": [path.stem],
                  "answers_path": "{input_dir}/{method}/{question_set}" + path.suffix,
                  "assertions_path": assertions, "question_text_key": "question_text"}
        judge = {"kind": "assertion", "trials": trials,
                 "pass_threshold": settings.get("pass_threshold", 0.5)}
    else:
        raise ConfigError(f"{source}: not a BenchmarkQED AutoE settings file: expected "
                          "base/others (pairwise), reference/generated (reference) or "
                          "generated/assertions (assertion)")
    if isinstance(llm.get("max_concurrency"), int):
        notes.append(f"llm_config.concurrent_requests {llm['max_concurrency']} is "
                     "BenchmarkQED's requests per second; assay's max_concurrency bounds "
                     "the requests in flight")
    out_folder = Path(folder) if out_folder is None else Path(out_folder)
    for key in ("input_dir", "assertions_path"):
        if key in inputs and not PurePosixPath(inputs[key]).is_absolute():
            moved = os.path.relpath(Path(folder) / inputs[key], out_folder)
            inputs[key] = Path(moved).as_posix()
    config = {"version": 1, "llm": llm, "inputs": inputs, "judges": [judge]}
    significance = _significance(settings, notes)
    if significance:
        config["significance"] = significance
    from assay.judge.config import parse_config

    parse_config(config, base_dir=out_folder, source=source)  # as assay judge will read it
    return config, notes
