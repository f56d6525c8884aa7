"""Items from a local table (JSONL, CSV, Parquet) or, with the ``datasets`` extra, the
Hugging Face hub, sampled over target attributes and written as a run folder's
``datapoints.jsonl`` with the declared attribute space (``attribute_space.json``).

The attribute space is the set of values each target attribute takes in the *source*
(per task), not in the sample: a value the sample missed counts as a gap in the coverage
report, as CoEval defines the attribute coverage ratio.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.atomic import write_text
from assay.errors import ConfigError, InputError, ValidationError
from assay.stats.sampling import Strategy, sample_indices

FIELDS = ("id", "task", "cluster", "prompt", "reference", "split")
"""Datapoint fields a source column can be mapped onto (``--map column=field``)."""


@dataclass(frozen=True)
class DatapointSample:
    """Items sampled from a source, with the attribute space they were drawn from."""

    datapoints: list[dict[str, Any]]
    space: dict[str, dict[str, list[str]]]
    """task -> target attribute -> the values the source holds."""
    population: int
    strategy: str
    seed: int
    strata: int
    """Strata (task x target-attribute values) in the source."""
    strata_sampled: int
    notes: list[str] = field(default_factory=list)


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, str) else str(value)


def load_items(source: str | Path, *, mapping: Mapping[str, str] | None = None,
               attributes: Sequence[str] = (), task: str | None = None,
               split: str | None = None) -> list[dict[str, Any]]:
    """Datapoint records from a table file (or ``hf:NAME`` with the ``datasets`` extra).

    ``mapping`` maps source columns to datapoint fields (``question=prompt``); a column
    already named like a field needs no mapping. ``attributes`` are the source columns that
    become the target attributes. Every record needs a prompt; an item without an id gets
    one from a hash of its task and prompt. Errors name the file, row and column.
    """
    frame, where = _read(source, split)
    mapping = dict(mapping or {})
    for column, target in mapping.items():
        if target not in FIELDS:
            raise ConfigError(f"--map {column}={target}: {target!r} is not a datapoint field "
                              f"({', '.join(FIELDS)})")
        if column not in frame.columns:
            raise InputError(where, f"no column {column!r} to map (columns: "
                             f"{', '.join(map(str, frame.columns[:20]))})")
    missing = [a for a in attributes if a not in frame.columns]
    if missing:
        raise InputError(where, f"no column {missing[0]!r} for --attributes (columns: "
                         f"{', '.join(map(str, frame.columns[:20]))})")
    source_of = {target: column for column, target in mapping.items()}
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, record in enumerate(frame.to_dict("records"), start=1):
        get = {f: _text(record.get(source_of.get(f, f))) for f in FIELDS}
        if not get["prompt"] or not get["prompt"].strip():
            raise InputError(where, "required field is missing", row=number,
                             column=source_of.get("prompt", "prompt"))
        item_task = get["task"] or task or "default"
        item_id = get["id"] or "i-" + hashlib.sha256(
            f"{item_task}\x00{get['prompt']}".encode()).hexdigest()[:12]
        if item_id in seen:
            raise InputError(where, f"duplicate id {item_id!r} (first at row {seen[item_id]})",
                             row=number, column=source_of.get("id", "id"))
        seen[item_id] = number
        values = {a: _text(record.get(a)) for a in attributes}
        out.append({"id": item_id, "task": item_task, "cluster": get["cluster"] or item_id,
                    "prompt": get["prompt"], "reference": get["reference"], "split": get["split"],
                    "attributes": {k: v for k, v in values.items() if v is not None}})
    return out


def _read(source: str | Path, split: str | None) -> tuple[Any, str]:
    text = str(source)
    if text.startswith("hf:"):
        try:
            import datasets  # optional extra
        except ImportError:
            raise ConfigError(f"{text}: reading from the Hugging Face hub needs the datasets "
                              "package: pip install 'assay[hub]'") from None
        try:
            data = datasets.load_dataset(text[3:], split=split or "train")
        except Exception as exc:  # the hub's own errors: offline, no such dataset, ...
            raise InputError(text, f"cannot load from the hub ({str(exc)[:200]})") from None
        return data.to_pandas(), text
    from assay.data._readers import read_records

    raw = read_records(source)
    if raw.problems:
        raise ValidationError(list(raw.problems))
    return raw.frame.drop(columns=["__row__"], errors="ignore"), raw.path


def sample_items(items: list[dict[str, Any]], n: int, *, strategy: Strategy = "stratified",
                 seed: int = 42) -> DatapointSample:
    """``n`` items sampled over the strata of their task and target attributes."""
    keys = sorted({k for item in items for k in item["attributes"]})
    labels = [json.dumps([item["task"], *[item["attributes"].get(k) for k in keys]]) for item in items]
    chosen = sample_indices(labels, n, strategy, seed)
    space: dict[str, dict[str, list[str]]] = {}
    for item in items:
        for key, value in item["attributes"].items():
            values = space.setdefault(item["task"], {}).setdefault(key, [])
            if value not in values:
                values.append(value)
    for task in space.values():
        for values in task.values():
            values.sort()
    notes = []
    if n > len(items):
        notes.append(f"asked for {n} items; the source holds {len(items)}: all are taken")
    return DatapointSample(datapoints=[items[i] for i in chosen], space=space, population=len(items),
                           strategy=strategy, seed=seed, strata=len(set(labels)),
                           strata_sampled=len({labels[i] for i in chosen}), notes=notes)


def write_datapoints(sample: DatapointSample, folder: str | Path) -> list[Path]:
    """``datapoints.jsonl`` and ``attribute_space.json`` in ``folder``; return their paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in sample.datapoints)
    tasks = list(sample.space)
    if len(tasks) == 1:
        space: dict[str, Any] = {"attributes": sample.space[tasks[0]]}
    else:
        space = {"task_attributes": sample.space}
    return [write_text(out / "datapoints.jsonl", lines),
            write_text(out / "attribute_space.json", json.dumps(space, indent=2) + "\n")]
