"""The baselines' config (``assay baselines RUN --config CFG``, or the ``baselines:`` section
of an ``assay run`` config): its models, and the readers of its three shapes
(:func:`load_baselines_config`, :func:`as_baselines_config`). Imported from
:mod:`assay.pipeline.baselines`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.errors import ConfigError
from assay.llm.client_config import ClientConfig
from assay.pipeline.geval import GEvalSettings

METHODS = ("bertscore", "geval")


class BertScoreSettings(BaseModel):
    """The ``bertscore`` section of a baselines config."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    model_path: str | None = None
    """A local model folder (nothing is downloaded); relative to the config's folder."""


class BaselinesConfig(BaseModel):
    """A baselines config (``assay baselines RUN --config CFG``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    methods: list[str] = Field(default_factory=lambda: list(METHODS))
    """The methods run: ``bertscore``, ``geval``."""
    llm: ClientConfig | None = None
    """G-Eval's model endpoint (an ``assay judge`` config's ``llm`` section)."""
    geval: GEvalSettings = Field(default_factory=GEvalSettings)
    bertscore: BertScoreSettings = Field(default_factory=BertScoreSettings)
    cache: str = "run"
    """Response cache: ``run`` (the run folder's ``responses.sqlite``), ``shared``, ``off`` or a path."""
    conf: float = Field(default=0.95, gt=0.0, lt=1.0)
    """Confidence level of the intervals."""
    base_dir: Path = Field(default=Path("."), exclude=True)

    @field_validator("methods", mode="before")
    @classmethod
    def _methods(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_methods(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return parse_methods(",".join(value))
        return value


def parse_methods(text: str) -> list[str]:
    """``bertscore,geval`` as a list, each checked.

    >>> parse_methods(" geval, bertscore ")
    ['geval', 'bertscore']
    """
    methods = [m.strip().lower() for m in text.split(",") if m.strip()]
    if not methods:
        raise ValueError("expected at least one of bertscore, geval")
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"{m!r}: expected bertscore or geval")
    return list(dict.fromkeys(methods))


def load_baselines_config(path: str | Path | None, *, data: Mapping[str, Any] | None = None,
                          base_dir: Path | None = None) -> BaselinesConfig:
    """Read a baselines config (YAML, or ``data`` already read).

    Three shapes: a baselines file (its keys checked, a typo is an error); a whole
    ``assay run`` config with a ``baselines:`` section (checked the same; the config's
    ``llm`` and ``cache`` apply when the section has none); an ``assay judge`` config
    without one (its ``llm`` and ``cache`` are read, its other keys left to it)."""
    from assay.judge.config import expand_env, read_config_text, safe_yaml

    source = "baselines config" if path is None else str(path)
    base = base_dir if base_dir is not None else Path(".") if path is None else Path(path).parent
    if data is None:
        if path is None:
            return BaselinesConfig()
        data = safe_yaml(read_config_text(path), source) or {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping with llm, geval, bertscore")
    keys = ("methods", "llm", "geval", "bertscore", "cache", "conf")
    if isinstance(data.get("baselines"), Mapping):  # a section of a whole config
        section = {**{k: data[k] for k in ("llm", "cache") if k in data}, **data["baselines"]}
        source += ": baselines"
    elif "version" in data or "judges" in data:  # an assay judge config
        section = {k: v for k, v in data.items() if k in keys}
    else:
        section = dict(data)
    llm = section.get("llm")
    if isinstance(llm, ClientConfig):  # already validated (a whole config's llm)
        section = {**expand_env({k: v for k, v in section.items() if k != "llm"}), "llm": llm}
    else:
        section = expand_env(section)
    try:
        return BaselinesConfig.model_validate({**section, "base_dir": base})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{source}: {where}: {first['msg'].removeprefix('Value error, ')}") from None


def as_baselines_config(config: Any) -> BaselinesConfig:
    """A :class:`BaselinesConfig` from any of the forms :func:`run_baselines` takes."""
    if isinstance(config, BaselinesConfig):
        return config
    if config is None or isinstance(config, Mapping):
        return load_baselines_config(None, data=config or {})
    if not hasattr(config, "baselines"):
        raise ConfigError(f"baselines: expected a baselines config, got {type(config).__name__}")
    data: dict[str, Any] = {"baselines": dict(config.baselines or {}),
                            "cache": getattr(config, "cache", "run")}
    if getattr(config, "llm", None) is not None:
        data["llm"] = config.llm
    return load_baselines_config(None, data=data, base_dir=getattr(config, "base_dir", None))
