"""The sections of a whole-evaluation config around the judges: where the datapoints come
from (``datapoints``), which systems answer them (``systems``), and the steps ``assay run``
takes after judging (``native_scores``, ``baselines``, ``report``, ``export``).

They are fields of :class:`~assay.judge.config.AssayConfig`, so one file declares a
whole evaluation and ``assay judge`` reads the same file. Unknown keys are refused.

Examples
--------
>>> SystemConfig(name="small", model="m", api_key_env=None).endpoint
'https://api.openai.com/v1'
>>> SystemConfig(name="echo", command=["cat"]).endpoint
'command:cat'
>>> from pydantic import ValidationError
>>> try:
...     SystemConfig(name="x")
... except ValidationError as error:
...     print(error.errors()[0]["msg"])
Value error, give model (an OpenAI-compatible endpoint) or command (a local program)
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.llm.pricing import Price

_MODEL = ConfigDict(extra="forbid", frozen=True,
                    hide_input_in_errors=True)


class Endpoint(BaseModel):
    """An OpenAI-compatible model that answers prompts (a system under test or a teacher)."""

    model_config = _MODEL

    model: str | None = None
    """The model name sent to the endpoint."""
    base_url: str = "https://api.openai.com/v1"
    """The OpenAI-compatible endpoint (``https://api.openai.com/v1``, a vLLM server...): http or
    https, with a host and no user name or password (the key goes in ``api_key_env``)."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """NAME of the environment variable holding the key (never the key); null for none."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Chat-completions parameters of every call (``temperature``, ``max_tokens``, ``seed``...)."""
    price: Price | None = None
    """USD per million input and output tokens (for the cost, the cost limit and the plan)."""
    system_prompt: str | None = None
    """A system message sent before each prompt."""

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        from assay.llm.client_config import check_base_url

        return check_base_url(value)

    @property
    def endpoint(self) -> str:
        """Where the answers come from, as it enters the cache keys and is printed."""
        from assay._secrets import redact_url

        return redact_url(self.base_url)


class SystemConfig(Endpoint):
    """One system under test: an OpenAI-compatible model, or a local command.

    A command reads the prompt on its standard input and prints the answer; it runs once
    per datapoint with the config's folder as its working folder and a minimal environment
    (``PATH``, ``HOME``, the locale... and the variables ``env`` names: never assay's API
    keys unless named). A non-zero exit status,
    a time-out or an empty answer is a failed answer (never an empty text).
    """

    name: str
    """The system's name (the ``arm`` of every judgment of its answers)."""
    command: list[str] | None = None
    """A local command instead of a model: a list of words, or one string split as a shell
    would (no shell runs it)."""
    timeout_s: float = Field(120.0, gt=0)
    """Longest wait for one answer of a command."""
    env: list[str] = Field(default_factory=list)
    """A command's environment variables beyond the few every program needs (``PATH``,
    ``HOME``, ``LANG``, ``LC_*``, ``TZ``, ``TMPDIR``...): the NAMES of the variables of assay's
    environment it gets too (``[MY_SERVICE_TOKEN, PYTHONPATH]``). Nothing else is passed, API
    keys included."""

    @field_validator("command", mode="before")
    @classmethod
    def _words(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = shlex.split(value)
        if isinstance(value, list) and not value:
            raise ValueError("expected a command (a list of words or a string)")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("expected a non-empty name")
        return value

    @field_validator("env")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name or "=" in name or "\0" in name:
                raise ValueError(f"expected names of environment variables, got {name!r}")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> SystemConfig:
        if (self.model is None) == (self.command is None):
            raise ValueError("give model (an OpenAI-compatible endpoint) or command (a local program)")
        if self.env and self.command is None:
            raise ValueError("env: only a command system gets environment variables (a model's key "
                             "is named by api_key_env)")
        return self

    @property
    def endpoint(self) -> str:
        if self.command is not None:
            return "command:" + shlex.join(self.command)
        return super().endpoint


class FileDatapoints(BaseModel):
    """Datapoints already made: a ``datapoints.jsonl`` (``assay datapoints`` writes one)."""

    model_config = _MODEL

    kind: Literal["file"] = "file"
    """file (the default when ``path`` is given, or ``datapoints: PATH``)."""
    path: Path
    """The datapoints.jsonl file (relative to the config): ``id``, ``prompt`` and optional
    ``task``, ``cluster``, ``reference``, ``attributes``..."""


class TableDatapoints(BaseModel):
    """Items from a table or the hub, sampled over target attributes (as ``assay datapoints``)."""

    model_config = _MODEL

    kind: Literal["table"] = "table"
    """table (the default when ``source`` is given)."""
    source: str
    """A table of items (JSONL, CSV, Parquet; relative to the config) or ``hf:NAME``."""
    map: dict[str, str] = Field(default_factory=dict)
    """Source column -> datapoint field (id, task, cluster, prompt, reference, split)."""
    attributes: list[str] = Field(default_factory=list)
    """The source columns that are the target attributes (the strata)."""
    sample_size: int | None = Field(None, ge=1)
    """Items to sample (all when omitted)."""
    strategy: Literal["random", "frequency", "stratified"] = "stratified"
    """random, frequency (proportional to each stratum's size) or stratified (equal per stratum)."""
    seed: int = 42
    """Seed of the sample."""
    task: str | None = None
    """The task of items that name none."""
    split: str | None = None
    """hf: the split to read (train)."""


class TeacherTask(BaseModel):
    """One task a teacher writes items for, and its attribute space."""

    model_config = _MODEL

    name: str
    """The task (the ``task`` of its datapoints)."""
    description: str
    """What the items of this task are, as the teacher is told."""
    attributes: dict[str, list[str]] = Field(default_factory=dict)
    """Target attribute -> its values; one prompt per combination (stratum)."""

    @field_validator("attributes")
    @classmethod
    def _values(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for key, values in value.items():
            if not values:
                raise ValueError(f"{key}: expected at least one value")
        return value


class TeacherDatapoints(Endpoint):
    """Synthetic items from a teacher model: one prompt per task and attribute stratum."""

    kind: Literal["teacher"]
    """teacher."""
    model: str  # type: ignore[assignment]  # a teacher is always a model
    """The teacher model."""
    tasks: list[TeacherTask] = Field(min_length=1)
    """The tasks and their attribute spaces."""
    items_per_stratum: int = Field(1, ge=1, le=50)
    """Items asked for per stratum."""


DatapointsSection = Annotated[FileDatapoints | TableDatapoints | TeacherDatapoints,
                              Field(discriminator="kind")]
"""The ``datapoints`` section: ``kind`` file, table (the default) or teacher."""


def datapoints_section(value: Any) -> Any:
    """The ``datapoints`` value as a section: a plain path is a ``file``; a mapping with no
    kind is a ``table`` when it names a source, a ``file`` when it names a path."""
    if isinstance(value, str | Path):
        return {"kind": "file", "path": str(value)}
    if isinstance(value, dict) and "kind" not in value:
        return {**value, "kind": "file" if "path" in value and "source" not in value else "table"}
    return value


class NativeScoresStep(BaseModel):
    """``assay run``'s ground-truth step (``assay native-scores RUN --metric M``)."""

    model_config = _MODEL

    metric: Literal["exact_match", "token_f1", "rouge_l", "bleu4", "bertscore"]
    """The benchmark-native metric."""
    model_path: str | None = None
    """bertscore: a local model folder."""


def inside_run_folder(value: str) -> str:
    """``value``, a path a config names for a file ``assay run`` writes, when it stays inside
    the run folder: relative, with no ``..`` leading out of it (an absolute path is for a
    command-line flag to ask for, never for a config shared between colleagues).

    >>> inside_run_folder("reports/main"), inside_run_folder("a/../b.json")
    ('reports/main', 'a/../b.json')
    >>> inside_run_folder("../../../tmp/x.json")
    Traceback (most recent call last):
    ...
    ValueError: '../../../tmp/x.json' leads out of the run folder: give a path inside it, such as 'x.json'
    """
    import ntpath
    import posixpath

    text = str(value)
    if not text.strip():
        raise ValueError("is empty: give a path inside the run folder")
    if posixpath.isabs(text) or ntpath.isabs(text) or ntpath.splitdrive(text)[0] or \
            text.startswith("~"):
        raise ValueError(f"{text!r} is an absolute path: a config names paths inside the run "
                         f"folder (such as {posixpath.basename(text.rstrip('/')) or 'report'!r}); "
                         "to write elsewhere, run the step's command with its --out")
    normal = posixpath.normpath(text.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        raise ValueError(f"{text!r} leads out of the run folder: give a path inside it, such as "
                         f"{posixpath.basename(normal) if normal != '..' else 'report'!r}")
    return text


class ReportStep(BaseModel):
    """``assay run``'s report step (``assay report RUN --kind K``)."""

    model_config = _MODEL

    kinds: list[str] = Field(default_factory=lambda: ["all"])
    """The report kinds (``assay report --kind``); default all."""
    formats: list[str] = Field(default_factory=lambda: ["json", "html"])
    """The report formats (``assay report --format``): text, json, html, xlsx, latex, png."""
    out: str = "report"
    """The report folder, inside the run folder."""
    calibrate: bool = False
    """Add the calibration of the judges against the native scores (``--calibrate``)."""

    @field_validator("out")
    @classmethod
    def _inside(cls, value: str) -> str:
        return inside_run_folder(value)


class ExportStep(BaseModel):
    """``assay run``'s export step (``assay export RUN --format F -o OUT``)."""

    model_config = _MODEL

    format: Literal["leaderboard-json", "leaderboard-csv", "alpaca-eval-csv", "hf-dataset"]
    """The export format."""
    out: str
    """The file (a folder for hf-dataset), inside the run folder."""

    @field_validator("out")
    @classmethod
    def _inside(cls, value: str) -> str:
        return inside_run_folder(value)
