"""``docs/config.md``: every key of an ``assay judge`` config, its type, default and meaning,
generated from the pydantic models that read the config (so the page cannot drift from them).

    python -m assay.judge.config_doc > docs/config.md

``tests/llm/test_config_doc.py`` fails when the page in the repository differs from
what this module generates.
"""

from __future__ import annotations

import functools
import re
from typing import Any, get_args

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

__all__ = ["config_reference"]

_INTRO = """\
# The `assay judge` config

Generated from the pydantic models that read the config (`python -m
assay.judge.config_doc > docs/config.md`); a test keeps this page equal to them.
`assay judge --init DIR` writes a commented example (`DIR/assay.yaml`) with a tiny input
set that runs as written. Unknown keys are refused, with the closest known key suggested.
Strings may read environment variables: `${VAR}` or `${VAR:-default}`. Relative paths are
read from the config file's folder.
"""


def _type(annotation: Any) -> str:
    text = str(annotation) if not isinstance(annotation, type) else annotation.__name__
    text = re.sub(r"\b(typing|pathlib|assay\.[\w.]+)\.", "", text)
    return text.replace("NoneType", "None").replace("<class '", "").replace("'>", "")


def _default(field: Any) -> str:
    if field.default_factory is not None:
        value = field.default_factory()
        if isinstance(value, BaseModel):
            return "its section's defaults"
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    return f"`{value!r}`".replace("PosixPath(", "Path(")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _docstring(model: type[BaseModel], name: str) -> str | None:
    """The docstring under field ``name`` in the class that declares it, as pydantic's
    ``use_attribute_docstrings`` reads it (its own extraction): the config models leave that
    option off, since reading their source on every import cost the command's start-up about
    0.05 s of CPU, for this page alone."""
    import inspect

    for cls in model.__mro__:
        if name in inspect.get_annotations(cls):
            return _class_docstrings(cls).get(name)
    return None


@functools.cache
def _class_docstrings(cls: type) -> dict[str, str]:
    """The field docstrings of ``cls``, its source read once (not once per field, nor per
    model that inherits them)."""
    from pydantic._internal._docs_extraction import extract_docstrings_from_cls

    return extract_docstrings_from_cls(cls, use_inspect=True)


def _table(model: type[BaseModel], *, skip: frozenset[str] = frozenset()) -> list[str]:
    lines = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        if field.exclude or name in skip:
            continue
        meaning = field.description or _docstring(model, name) or ""
        lines.append(f"| `{field.alias or name}` | `{_cell(_type(field.annotation))}` | "
                     f"{_cell(_default(field))} | {_cell(meaning)} |")
    return lines


def config_reference() -> str:
    """The Markdown of ``docs/config.md``: a table per section and per judge kind."""
    from assay.judge.config import AssayConfig, InputsConfig
    from assay.judge.judges import JUDGE_KINDS, JudgeSettings
    from assay.llm.client_config import ClientConfig

    out = [_INTRO, "## Top level", "", *_table(AssayConfig), "",
           "## `llm`: the judge model's endpoint", "", *_table(ClientConfig), "",
           "## `inputs`: where the answers are", "", *_table(InputsConfig), "",
           "## `judges`: keys every judge has", "", *_table(JudgeSettings), ""]
    common = frozenset(JudgeSettings.model_fields)
    nested: dict[type[BaseModel], str] = {}
    for kind, judge in JUDGE_KINDS.items():
        settings = judge.Settings
        doc = (settings.__doc__ or "").strip().split("\n\n")[0]
        out += [f"## `kind: {kind}`", "", " ".join(doc.split()), "",
                *_table(settings, skip=common), ""]
    documented = [AssayConfig, ClientConfig, InputsConfig, JudgeSettings,
                  *(judge.Settings for judge in JUDGE_KINDS.values())]
    todo = list(documented)
    while todo:  # the models inside sections, and inside those (datapoints -> teacher tasks)
        section = todo.pop(0)
        for name, field in section.model_fields.items():
            for model in _models(field.annotation):
                if model not in documented and model not in nested:
                    nested[model] = f"`{name}`"
                    todo.append(model)
    for model, where in sorted(nested.items(), key=lambda pair: pair[0].__name__):
        doc = (model.__doc__ or "").strip().split("\n\n")[0]
        out += [f"## `{model.__name__}`: a value of {where}", "", " ".join(doc.split()), "",
                *_table(model), ""]
    return "\n".join(out)


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models inside a field's type (``list[CriterionSpec]`` -> CriterionSpec)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models(arg)]


if __name__ == "__main__":
    print(config_reference(), end="")
