"""The target attributes of coverage: which attribute keys form strata, and their values.

CoEval defines the stratum space Omega of a task as the Cartesian product of the values of its
*target attributes*. The ``attributes`` column of a judgments table holds whatever a data
generator or a judge wrote there, identifiers included (an assertion judge writes
``question_id``, ``assertion_id``, ``chunk_id``, the statement, ranks and positions), so the
product of every key can run to tens of millions of strata. The rule here:

* **Declared** (preferred): the space is read from a JSON file, a run folder's
  ``criteria.json`` or ``assay report --attribute-space FILE``::

      {"attributes": {"difficulty": ["easy", "medium", "hard"], "domain": ["law", "biology"]},
       "task_attributes": {"summarisation": {"length": ["short", "long"]}}}

  ``attributes`` applies to every task, ``task_attributes`` replaces it for the tasks it
  names. Only declared keys are strata, with exactly the declared values, so a value that
  was never sampled is a gap and lowers ACR (CoEval's definition). An item whose value is
  not declared is in no stratum (counted, with a note); keys not declared are ignored.
* **Inferred** (no declaration): a key of a task is a target attribute when (1) its name does
  not mark an identifier (``id``, ``*_id``, ``*_ids``, ``*Id``), (2) every value is a short
  label: a string of at most :data:`MAX_LABEL_LENGTH` characters or a boolean (numbers are
  measurements such as ranks and positions, and longer strings are free text), and (3) it
  takes at most :data:`MAX_LEVELS` distinct values in the task. The values are the ones
  observed, so ACR counts only combinations of observed values; a note says so and names the
  keys left out and why.

Either way the size of Omega is computed before any stratum is built; above ``max_strata``
(:data:`MAX_STRATA` by default) the coverage of that task is not computed and a note says
why and how to declare a smaller space.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.lines import json_file
from assay.errors import InputError

MAX_LEVELS = 20
"""Distinct values above which an undeclared key is not a target attribute."""
MAX_LABEL_LENGTH = 64
"""Characters above which an undeclared string value is free text, not a label."""
MAX_STRATA = 10_000
"""Default limit on |Omega| per task: above it coverage is refused for that task."""

_ID_NAME = re.compile(r"(^|[_\-\s.])ids?$", re.IGNORECASE)
_CAMEL_ID = re.compile(r"[a-z0-9]Ids?$")


@dataclass(frozen=True)
class AttributeSpace:
    """A declared attribute space: target attributes and their values, per task.

    ``attributes`` applies to every task; ``task_attributes`` replaces it for the tasks it
    names. ``source`` names where it was read (a file), for notes.
    """

    attributes: dict[str, list[str]] = field(default_factory=dict)
    task_attributes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    source: str = "attribute_space"

    def for_task(self, task: str) -> dict[str, list[str]]:
        """The declared keys and values of `task` (empty when none are declared)."""
        return self.task_attributes.get(task, self.attributes)

    @property
    def empty(self) -> bool:
        return not self.attributes and not self.task_attributes

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "attribute_space"
                     ) -> AttributeSpace:
        """Read ``{"attributes": {...}, "task_attributes": {...}}``; a mapping with neither
        key is taken as the ``attributes`` part itself (``{"difficulty": [...], ...}``).

        Raises :class:`InputError` naming `source` and the field at fault.
        """
        if not isinstance(data, Mapping):
            raise InputError(source, "expected a JSON object of attribute -> list of values")
        if "attributes" not in data and "task_attributes" not in data:
            return cls(_levels(data, source, "attributes"), {}, source)
        tasks = data.get("task_attributes") or {}
        if not isinstance(tasks, Mapping):
            raise InputError(source, "expected an object of task -> {attribute: [values]}",
                             column="task_attributes")
        return cls(_levels(data.get("attributes") or {}, source, "attributes"),
                   {str(t): _levels(v, source, f"task_attributes.{t}") for t, v in tasks.items()},
                   source)


def read_attribute_space(path: str | Path) -> AttributeSpace:
    """The attribute space declared in a JSON file (``criteria.json`` or a file of its own).

    Raises
    ------
    InputError
        The file cannot be read, is not JSON, or declares a key without a list of values.
    """
    p = Path(path)
    try:
        data = json_file(p)
    except OSError as exc:
        raise InputError(str(p), f"cannot read the attribute space ({exc.strerror or exc})") \
            from None
    return AttributeSpace.from_mapping(data, source=str(p))


def declared_in_folders(sources: Sequence[str]) -> AttributeSpace | None:
    """The space a run folder declares: its ``attribute_space.json`` (written by ``assay
    datapoints``), else its ``criteria.json`` (``attributes`` or ``task_attributes``), the
    first one found; None when none declares one."""
    for source in sources:
        own = Path(source) / "attribute_space.json"
        if own.is_file():
            return read_attribute_space(own)
        path = Path(source) / "criteria.json"
        if not path.is_file():
            continue
        try:
            data = json_file(path)
        except InputError:
            continue  # the loader reports a broken criteria.json; nothing is declared here
        if isinstance(data, Mapping) and ("attributes" in data or "task_attributes" in data):
            space = AttributeSpace.from_mapping(
                {k: data[k] for k in ("attributes", "task_attributes") if k in data},
                source=str(path))
            if not space.empty:
                return space
    return None


def _levels(data: Any, source: str, where: str) -> dict[str, list[str]]:
    if not isinstance(data, Mapping):
        raise InputError(source, "expected an object of attribute -> list of values",
                         column=where)
    out: dict[str, list[str]] = {}
    for key, values in data.items():
        column = f"{where}.{key}"
        if not isinstance(values, list) or not values:
            raise InputError(source, "expected a non-empty list of the attribute's values",
                             column=column)
        texts = [label(v) for v in values]
        if len(set(texts)) != len(texts):
            raise InputError(source, "a value is listed twice", column=column)
        out[str(key)] = texts
    return out


def label(value: Any) -> str:
    """A value as the text strata compare: itself for a string, else its JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def is_id_name(key: str) -> bool:
    """Whether an attribute name marks an identifier (``id``, ``chunk_id``, ``docIds``).

    >>> [is_id_name(k) for k in ("id", "question_id", "chunkId", "ids", "paid", "idiom")]
    [True, True, True, True, False, False]
    """
    return bool(_ID_NAME.search(key) or _CAMEL_ID.search(key))


def infer_target_attributes(attributes: Sequence[Mapping[str, Any]]
                            ) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Target attributes inferred from the raw attribute objects of one task's items.

    Returns the keys kept with their sorted observed labels, and the keys left out with why
    (see the module docstring for the rule).
    """
    labels: dict[str, set[str]] = {}
    why: dict[str, str] = {}
    for a in attributes:
        for k, v in a.items():
            key = str(k)
            labels.setdefault(key, set()).add(label(v))
            if not isinstance(v, (str, bool)):
                why.setdefault(key, "numbers, lists or objects, not labels")
            elif isinstance(v, str) and len(v) > MAX_LABEL_LENGTH:
                why.setdefault(key, f"free text (values over {MAX_LABEL_LENGTH} characters)")
    kept: dict[str, list[str]] = {}
    left_out: dict[str, str] = {}
    for key in sorted(labels):
        if is_id_name(key):
            left_out[key] = "an identifier"
        elif key in why:
            left_out[key] = why[key]
        elif len(labels[key]) > MAX_LEVELS:
            left_out[key] = f"{len(labels[key])} distinct values, over {MAX_LEVELS}"
        else:
            kept[key] = sorted(labels[key])
    return kept, left_out


def space_size(levels: Mapping[str, Sequence[str]]) -> int:
    """|Omega|, the product of the numbers of values, computed without building it."""
    return math.prod(len(v) for v in levels.values()) if levels else 0
