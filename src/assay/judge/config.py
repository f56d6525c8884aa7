"""The ``assay judge`` config file: pydantic models, ``${ENV}`` expansion and the example.

A config (YAML) has a ``version``, an ``llm`` section (the endpoint: base_url,
api_key_env, model, max_concurrency, timeout_s, params, prices, cost_limit_usd; see
:class:`~assay.llm.client_config.ClientConfig`), an ``inputs`` section (where the answers,
references and assertions are, and their key names) and a list of ``judges``, each with
a ``kind`` from :data:`assay.judge.judges.kinds.JUDGE_KINDS` and that kind's fields. Unknown keys
are refused everywhere; a string may use ``${VAR}`` (or ``${VAR:-default}``) to read an
environment variable. Every problem is a :class:`~assay.errors.ConfigError` whose one line
names the key (``judges[0].trials: ...``).

Examples
--------
>>> cfg = parse_config({"version": 1, "inputs": {"jsonl": ["answers.jsonl"]},
...                     "judges": [{"kind": "metric", "metrics": ["exact_match"]}]})
>>> cfg.judges[0].kind, cfg.llm is None
('metric', True)
>>> parse_config({"version": 1, "inputs": {}, "judges": [], "colour": 1})
Traceback (most recent call last):
...
assay.errors.ConfigError: config: colour: unknown key
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from assay.config import read_config_text, safe_yaml
from assay.config.steps import (
    DatapointsSection,
    ExportStep,
    NativeScoresStep,
    ReportStep,
    SystemConfig,
    datapoints_section,
)
from assay.errors import ConfigError, did_you_mean
from assay.judge.judges import JudgeContext, JudgeSettings
from assay.llm.client_config import ClientConfig

if TYPE_CHECKING:
    from assay.judge.judges import Judge

CONFIG_VERSION = 1
"""The config format this version of assay reads."""

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class InputsConfig(BaseModel):
    """Where the answers are and how their records are keyed (BenchmarkQED's answer files).

    Answers are read from ``answers_path`` for each method (arm) and question set, and/or
    from assay's own JSONL files (one record per answer with ``item``, ``arm``,
    ``question``, ``answer`` and optional ``task``, ``cluster``, ``reference`` and
    judgments-table fields such as ``usd``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_dir: Path | None = None
    """The folder of the answer files (relative to the config file)."""
    methods: list[str] = Field(default_factory=list)
    """The methods (arms) whose answers are read from ``answers_path``."""
    question_sets: list[str] = Field(default_factory=list)
    """The question sets (the ``task`` column); ``answers_path`` is read once per method and set."""
    answers_path: str = "{input_dir}/{method}/{question_set}_answers.json"
    """Template of an answer file, filled with ``{input_dir}``, ``{method}`` and
    ``{question_set}``: a JSON list of records, or JSON lines, CSV, TSV or Parquet by its
    suffix (e.g. ``{input_dir}/{method}/{question_set}.csv``)."""
    question_id_key: str = "question_id"
    """The record key of the question id."""
    question_text_key: str = "question"
    """The record key of the question text."""
    answer_text_key: str = "answer"
    """The record key of the answer text."""
    cluster_key: str | None = None
    """A record key naming the question's cluster (its document); None: each question is its own."""
    references_path: str | None = None
    """Template of a reference (gold) answer file per question set, e.g.
    ``{input_dir}/{question_set}_references.json``; read with the same keys."""
    reference_method: str | None = None
    """A method whose answers serve as references (BenchmarkQED's reference scoring) instead."""
    assertions_path: str | None = None
    """Template of an assertions file per question set,
    e.g. ``{input_dir}/{question_set}_assertions.json``."""
    retrieval_path: str | None = None
    """Template of a retrieval-results file per method and question set (chunk-level assertion
    scoring), e.g. ``{input_dir}/{method}/{question_set}_retrieval_results.json``: records
    ``{question_id, text, context: [{chunk_id, text, rank?}]}``."""
    retrieval_methods: list[str] | None = None
    """The methods whose retrieval results are read; None for ``methods``."""
    tables: list[Path] = Field(default_factory=list)
    """assay's own answer tables, one answer per row with ``item``, ``arm``, ``question``,
    ``answer`` and optional ``task``, ``cluster``, ``reference`` and judgments-table fields
    (``usd``...): CSV, TSV, JSON lines, a JSON list or Parquet, by the file's suffix."""
    jsonl: list[Path] = Field(default_factory=list)
    """assay's own JSONL answer files (read as ``tables``, kept for older configs)."""


class SignificanceConfig(BaseModel):
    """The significance tests written after a run (``significance_summary.csv`` of the assertion
    judges: Friedman, pairwise Wilcoxon, clustered permutation; BenchmarkQED's
    ``run_significance_test``, ``run_clustered_permutation``, ``n_permutations``,
    ``permutation_seed``). ``assay judge --no-significance``, ``--permutations`` and
    ``--permutation-seed`` override it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """Write ``significance_summary.csv`` when a judge scored two or more arms."""
    permutations: int = Field(10_000, ge=0)
    """Random sign patterns of each clustered permutation test; 0 switches those tests off
    (the Friedman and Wilcoxon rows are still written)."""
    seed: int = 42
    """Seed of the permutation streams."""
    alpha: float = Field(0.05, gt=0, lt=1)
    """Level of the ``is_significant`` flags (BenchmarkQED's ``significance_alpha``)."""
    correction: Literal["holm", "bonferroni", "fdr_bh"] = "holm"
    """Adjustment of the pairwise p-values within each judge, metric and question set
    (BenchmarkQED's ``significance_correction``)."""


class SequentialConfig(BaseModel):
    """Sequential judging (``assay judge --until``): judge the items in a random order, look
    at the stored results after each batch of clusters, and stop once every comparison is
    decided (or every interval is narrow enough), with an anytime-valid confidence sequence
    (docs/statistics.md, "Stopping when it is decided"). ``--until`` and ``--conf`` override it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    until: str | None = None
    """``decided`` (stop when every comparison's interval excludes 0) or ``width=W`` (stop when
    every comparison's interval is narrower than W, on the normalised [-1, 1] difference scale);
    None: only with ``--until`` (the other keys still apply)."""
    conf: float = Field(0.95, gt=0.0, lt=1.0)
    """The level of the confidence sequences, familywise over the comparisons (Bonferroni)."""
    method: Literal["betting", "empirical_bernstein"] = "betting"
    """The anytime-valid confidence sequence: ``betting`` (the hedged-capital betting CS of
    Waudby-Smith and Ramdas 2024, the narrower) or ``empirical_bernstein`` (their closed-form
    predictable plug-in empirical-Bernstein CS); recorded in sequential.json, kept on resume."""
    clusters_per_look: int | None = Field(None, ge=1)
    """Clusters judged between two looks; None: a twentieth of the clusters (at least 1)."""
    seed: int = 0
    """Seed of the random order of the clusters (recorded in the run folder's sequential.json)."""

    @field_validator("until")
    @classmethod
    def _until(cls, value: str | None) -> str | None:
        from assay.judge.sequential import parse_until

        if value is None:
            return None
        parse_until(value)
        return value.strip()


class AssayConfig(BaseModel):
    """A whole ``assay judge`` config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1]
    """The config format (1)."""
    llm: ClientConfig | None = None
    """The judge model's endpoint; may be left out when every judge is a metric."""
    inputs: InputsConfig = Field(default_factory=InputsConfig)
    """Where the answers are."""
    judges: list[JudgeSettings] = Field(default_factory=list)
    """The judges, each a section whose ``kind`` picks its fields."""
    datapoints: DatapointsSection | None = None
    """Where the items come from (``assay run``, ``assay generate``): a datapoints.jsonl path,
    a table sampled over target attributes, or a teacher model (docs/run.md)."""
    systems: list[SystemConfig] = Field(default_factory=list)
    """The systems under test that answer the datapoints (``assay generate``); their answers
    are what the judges judge when ``inputs`` names none."""
    native_scores: NativeScoresStep | None = None
    """``assay run``: score each answer against its reference after judging."""
    baselines: dict[str, Any] | None = None
    """``assay run``: the judge baselines (``assay baselines``), passed as given."""
    report: ReportStep = Field(default_factory=ReportStep)
    """``assay run``: the report kinds to write."""
    export: list[ExportStep] = Field(default_factory=list)
    """``assay run``: the exports to write."""
    significance: SignificanceConfig = Field(default_factory=SignificanceConfig)
    """The significance tests of the assertion judges (on/off, permutations, seed)."""
    sequential: SequentialConfig | None = None
    """Stop the run once it is decided (``assay judge --until``); None judges every item."""
    cache: str = "run"
    """Where the response cache is: ``run`` (``responses.sqlite`` in the run folder), ``shared``
    (one per user: ``$ASSAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/assay``, else ~/.cache/assay),
    ``off``, or a file path (relative to the config file). ``assay judge --cache`` overrides it."""
    base_dir: Path = Field(default=Path("."), exclude=True)
    """The config file's folder (set by :func:`load_config`; not a key of the file)."""

    @field_validator("cache", mode="before")
    @classmethod
    def _cache(cls, value: Any) -> Any:
        if value is None or value is True:  # YAML reads `cache: on` as True, `cache: off` as False
            return "run"
        if value is False:
            return "off"
        if isinstance(value, str) and not value.strip():
            raise ValueError("expected run, shared, off or a file path")
        return str(value) if isinstance(value, Path) else value

    @field_validator("datapoints", mode="before")
    @classmethod
    def _datapoints(cls, value: Any) -> Any:
        return datapoints_section(value)

    @field_validator("export", mode="before")
    @classmethod
    def _exports(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @field_validator("systems")
    @classmethod
    def _system_names(cls, value: list[SystemConfig]) -> list[SystemConfig]:
        names = [s.name for s in value]
        if len(set(names)) != len(names):
            raise ValueError(f"two systems are named {_first_dup(names)!r}")
        return value

    @field_validator("judges", mode="before")
    @classmethod
    def _sections(cls, value: Any) -> Any:
        from assay.judge.judges import JUDGE_KINDS

        if not isinstance(value, list):
            return value
        out = []
        for index, section in enumerate(value):
            if not isinstance(section, dict):
                out.append(section)
                continue
            kind = section.get("kind")
            if kind not in JUDGE_KINDS:
                raise ValueError(
                    f"judges[{index}].kind: expected one of {', '.join(sorted(JUDGE_KINDS))}, got {kind!r}"
                )
            try:
                out.append(JUDGE_KINDS[kind].Settings.model_validate(section))
            except ValidationError as exc:
                raise ValueError(_describe(exc, prefix=f"judges[{index}]")) from None
        return out

    @model_validator(mode="after")
    def _needs_llm(self) -> AssayConfig:
        if self.llm is None and any(j.kind != "metric" for j in self.judges):
            raise ValueError("llm: a judge other than a metric needs the llm section (model, base_url, ...)")
        return self

    def context(self, settings: JudgeSettings) -> JudgeContext:
        """The :class:`~assay.judge.judges._protocol.JudgeContext` of one judge section."""
        base_params = dict(self.llm.params) if self.llm is not None else {}
        model = settings.model or (self.llm.model if self.llm is not None else settings.kind)
        return JudgeContext(model=model, params={**base_params, **settings.params}, base_dir=self.base_dir)

    def build_judges(self) -> list[Judge]:
        """Every judge of the config, built (prompts read)."""
        from assay.judge.judges import JUDGE_KINDS

        judges = [JUDGE_KINDS[s.kind].from_config(s, self.context(s)) for s in self.judges]
        names = [j.name for j in judges]
        if len(set(names)) != len(names):
            raise ConfigError(f"judges: two judges are named {_first_dup(names)!r}: give one a label")
        return judges

    def path(self, value: str | Path) -> Path:
        """A path of the config, relative to its folder."""
        path = Path(value)
        return path if path.is_absolute() else self.base_dir / path

    def frozen(self) -> dict[str, Any]:
        """The config as JSON values (what the run store records; no secret is ever in it).

        The API key is never in a config (only the name of its variable), and every base
        URL (the judge's, each system's, a teacher's) is recorded redacted, as every other
        string is (:func:`~assay._secrets.redact_config`): no token in a query, no key.
        """
        from assay._secrets import redact_config

        frozen: dict[str, Any] = redact_config(self.model_dump(mode="json"))
        return frozen


def _first_dup(names: list[str]) -> str:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return ""


def _describe(exc: ValidationError, *, prefix: str = "") -> str:
    parts = []
    for error in exc.errors():
        loc = "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}"
            for p in error["loc"]
            if p not in ("function-after", "function-before")
        )
        where = (prefix + loc).lstrip(".") or "config"
        message = ("unknown key" + did_you_mean(str(error["loc"][-1]), _known_keys())
                   if error["type"] == "extra_forbidden" else error["msg"])
        message = message.removeprefix("Value error, ")
        if message.startswith(("judges[", "llm:")):
            parts.append(message)
        else:
            parts.append(f"{where}: {message}")
    return "; ".join(parts)


def _known_keys() -> set[str]:
    """Every key a config may hold, at any depth: the fields of every pydantic model reachable
    from :class:`AssayConfig` and every judge kind's settings (for "did you mean" on an
    unknown key)."""
    from assay.judge.judges import JUDGE_KINDS

    keys: set[str] = set()
    seen: set[type] = set()
    todo: list[Any] = [AssayConfig, *(judge.Settings for judge in JUDGE_KINDS.values())]
    while todo:
        kind = todo.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if kind in seen:
                continue
            seen.add(kind)
            for name, field in kind.model_fields.items():
                if not field.exclude:
                    keys.add(field.alias or name)
                todo.append(field.annotation)
        else:
            todo.extend(get_args(kind))
    return keys


def expand_env(value: Any, *, where: str = "") -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of a YAML document.

    Raises
    ------
    ConfigError
        A variable is unset and has no default; the message names the key.

    Examples
    --------
    >>> os.environ["ASSAY_DOCTEST_URL"] = "http://127.0.0.1:8000/v1"
    >>> expand_env({"llm": {"base_url": "${ASSAY_DOCTEST_URL}", "model": "${NO_SUCH_VAR_X:-m}"}})
    {'llm': {'base_url': 'http://127.0.0.1:8000/v1', 'model': 'm'}}
    >>> expand_env({"llm": {"model": "${NO_SUCH_VAR_X}"}})
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: config: llm.model: environment variable NO_SUCH_VAR_X is not set
    """
    if isinstance(value, dict):
        return {k: expand_env(v, where=f"{where}.{k}" if where else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, where=f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = os.environ.get(name)
            if found is None:
                if default is None:
                    raise ConfigError(f"config: {where}: environment variable {name} is not set")
                return default
            return found

        return _ENV.sub(substitute, value)
    return value


def parse_config(data: Any, *, base_dir: str | Path = ".", source: str = "config") -> AssayConfig:
    """Validate a config document (already read from YAML); see the module docstring."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping with version, llm, inputs and judges")
    if "version" in data and data["version"] != CONFIG_VERSION:
        raise ConfigError(
            f"{source}: version: this assay reads config version {CONFIG_VERSION}, got {data['version']!r}"
        )
    if "base_dir" in data:
        raise ConfigError(f"{source}: base_dir: unknown key")
    expanded = expand_env(data)
    try:
        return AssayConfig.model_validate({**expanded, "base_dir": Path(base_dir)})
    except ValidationError as exc:
        raise ConfigError(f"{source}: {_describe(exc)}") from None


def load_config(path: str | Path) -> AssayConfig:
    """Read and validate a YAML config file; relative paths in it are read from its folder."""
    path = Path(path)
    data = safe_yaml(read_config_text(path), str(path))
    return parse_config(data, base_dir=path.parent, source=str(path))
