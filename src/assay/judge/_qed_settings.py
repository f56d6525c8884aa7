"""Reading one BenchmarkQED settings document key by key (for :mod:`assay.judge.qed_config`).

:class:`SettingsKeys` records which keys a layout read, so that every key left over is
named in a note; the helpers convert the parts every layout shares: conditions, the
``llm_config`` section, the prompt files, the significance keys and relative paths.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from assay.errors import ConfigError

_ENV = re.compile(r"^\$\{(\w+)\}$")


@dataclass
class SettingsKeys:
    """A settings mapping that records the keys read (the rest is named in a note)."""

    data: Mapping[str, Any]
    """The settings document."""
    source: str
    """The settings file, named in errors and notes."""
    read: set[str] = field(default_factory=set)
    """The keys read so far."""

    def get(self, key: str, default: Any = None) -> Any:
        """The value of `key` (`default` when absent), marked as read."""
        self.read.add(key)
        value = self.data.get(key, default)
        return default if value is None else value

    def left_over(self) -> list[str]:
        """The keys no layout step read, in file order."""
        return [str(k) for k in self.data if k not in self.read]


def conditions(keys: SettingsKeys, key: str) -> list[dict[str, str]]:
    """The ``{name, path}`` of a condition (or list of conditions) ``key``."""
    value = keys.get(key)
    items = value if isinstance(value, list) else [value] if value is not None else []
    out = []
    for n, item in enumerate(items):
        where = f"{keys.source}: {key}" + (f"[{n}]" if isinstance(value, list) else "")
        if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                and isinstance(item.get("answer_base_path"), str)):
            raise ConfigError(f"{where}: expected a condition with name and answer_base_path")
        extra = sorted(set(item) - {"name", "answer_base_path"})
        if extra:
            raise ConfigError(f"{where}.{extra[0]}: not a key of a BenchmarkQED condition "
                              "(name, answer_base_path)")
        out.append({"name": item["name"], "path": item["answer_base_path"]})
    return out


def one_folder(conditions: list[dict[str, str]], layout: str, source: str) -> str:
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


def llm_section(keys: SettingsKeys, notes: list[str]) -> dict[str, Any]:
    """The ``llm`` section of ``llm_config``; every key carried, noted or refused."""
    source = keys.source
    config = keys.get("llm_config", {})
    if not isinstance(config, dict) or not isinstance(config.get("model"), str):
        raise ConfigError(f"{source}: llm_config.model: expected the judge model's name")
    llm: dict[str, Any] = {"model": config["model"]}
    noted: list[str] = []
    for name, value in config.items():
        if name == "model":
            continue
        if name == "init_args":
            if not isinstance(value, dict | None):
                raise ConfigError(f"{source}: llm_config.init_args: expected a mapping")
            args = dict(value or {})
            base = args.pop("api_base", None)
            if isinstance(base, str) and base:
                llm["base_url"] = base
            version = args.pop("api_version", None)
            if isinstance(version, str) and version:
                llm["api_version"] = version
            noted.extend(f"init_args.{k}" for k in args)
        elif name == "api_key":
            match = _ENV.match(value) if isinstance(value, str) else None
            if match:
                llm["api_key_env"] = match.group(1)
            elif value:
                notes.append("llm_config.api_key: a literal key is never copied into a config; "
                             "the config reads it from OPENAI_API_KEY")
        elif name == "auth_type":
            if value not in (None, "api_key"):
                raise ConfigError(
                    f"{source}: llm_config.auth_type {value!r} is not supported: assay "
                    "authenticates with an API key or an Entra ID token (llm.azure_ad_token_env "
                    "or azure_ad_token_command), not a managed identity")
        elif name == "custom_providers":
            if value:
                raise ConfigError(
                    f"{source}: llm_config.custom_providers is not supported: assay cannot load "
                    "a BenchmarkQED provider class; give it an OpenAI-compatible endpoint")
        elif name == "concurrent_requests" and isinstance(value, int):
            llm["max_concurrency"] = value
            notes.append(f"llm_config.concurrent_requests {value} is BenchmarkQED's requests "
                         "per second; assay's max_concurrency bounds the requests in flight")
        elif name == "call_args" and isinstance(value, dict):
            if value:
                llm["params"] = dict(value)
        elif name == "llm_provider" and value in ("openai.chat", None):
            continue
        else:
            noted.append(name)
    llm.setdefault("api_key_env", "OPENAI_API_KEY")
    if noted:
        notes.append(f"llm_config: {', '.join(noted)} not carried (assay speaks OpenAI-compatible "
                     "chat completions with its own retries: see the llm section in docs/config.md)")
    return llm


def criteria_section(keys: SettingsKeys) -> dict[str, Any]:
    """``criteria`` as the judge's definitions (absent: the judge's defaults)."""
    criteria = keys.get("criteria")
    if not criteria:
        return {}
    return {"criteria": [{"name": c["name"], "description": c.get("description", "")}
                         if isinstance(c, dict) else c for c in criteria]}


def prompt_notes(keys: SettingsKeys, folder: Path) -> list[str]:
    """The note naming the BenchmarkQED prompt files the config does not use."""
    prompts = keys.get("prompt_config")
    if not isinstance(prompts, dict):
        return ["prompt_config absent: BenchmarkQED would use its packaged prompts; the config "
                "uses assay's own (docs/formats/qed.md says how to send BenchmarkQED's)"]
    left = []
    for name, part in prompts.items():
        if not isinstance(part, dict):
            continue
        if part.get("prompt"):
            left.append(str(folder / str(part["prompt"])))
        for text in ("prompt_text", "template"):
            if part.get(text):
                left.append(f"prompt_config.{name}.{text}")
    return [f"BenchmarkQED prompts not converted (assay's packaged prompts are used): "
            f"{', '.join(left)}"] if left else []


_SIGNIFICANCE = ("run_significance_test", "significance_alpha", "significance_correction",
                 "run_clustered_permutation", "n_permutations", "permutation_seed")


def significance_section(keys: SettingsKeys, notes: list[str], *, multi: bool) -> dict[str, Any]:
    """The ``significance`` section, with BenchmarkQED's defaults when `multi` (multi-RAG).

    BenchmarkQED runs the clustered permutation tests only when ``run_clustered_permutation``
    is true (default false), so ``permutations`` is 0 unless it is. A single-RAG layout has
    none of these keys (one method: nothing to compare); those given are carried, with a note.
    """
    given = [k for k in _SIGNIFICANCE if k in keys.data]
    if not multi:
        if not given:
            return {}
        notes.append(f"{', '.join(given)}: not read by BenchmarkQED's single-RAG scoring (one "
                     "method, nothing to compare); carried into significance: for when arms are added")
    out: dict[str, Any] = {}
    if multi or "run_significance_test" in keys.data:
        out["enabled"] = bool(keys.get("run_significance_test", True))
    if multi or "significance_alpha" in keys.data:
        out["alpha"] = keys.get("significance_alpha", 0.05)
    if multi or "significance_correction" in keys.data:
        out["correction"] = keys.get("significance_correction", "holm")
    if multi or {"run_clustered_permutation", "n_permutations"} & set(keys.data):
        permutations = keys.get("n_permutations", 10_000)
        out["permutations"] = permutations if keys.get("run_clustered_permutation", False) else 0
    seed = keys.get("permutation_seed")
    if seed is not None:
        out["seed"] = seed
    elif out.get("enabled", True) and out.get("permutations"):
        notes.append("permutation_seed unset: BenchmarkQED draws the permutations unseeded; "
                     "assay seeds them (significance.seed 42)")
    return out


def template(value: str, key: str, allowed: Mapping[str, str], source: str) -> str:
    """A BenchmarkQED path template with its placeholders renamed to assay's (`allowed`)."""
    out = []
    for text, name, spec, conv in string.Formatter().parse(value):
        out.append(text.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if name not in allowed or spec or conv:
            raise ConfigError(f"{source}: {key} {value!r}: the placeholder {{{name}}} is not "
                              f"supported (expected {', '.join('{' + k + '}' for k in allowed)})")
        out.append("{" + allowed[name] + "}")
    return "".join(out)


def rebase(value: str, folder: Path, out_folder: Path) -> str:
    """A path (or template) read from the settings' folder, written relative to the config's."""
    if value.startswith("{input_dir}") or PurePosixPath(value).is_absolute() or Path(value).is_absolute():
        return value
    return Path(os.path.relpath(folder / value, out_folder)).as_posix()
