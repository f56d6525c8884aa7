"""Synthetic datapoints from a teacher model (``datapoints: {kind: teacher}``), as CoEval's
phase 3 makes them: one prompt per task and attribute stratum (each combination of the
task's attribute values), asked through the judges' engine into its own run store
(``RUN/teacher/``), so a rerun resumes and no prompt is paid twice.

Each reply is a JSON object ``{"items": [{"prompt", "reference"}]}`` (the schema is sent
as ``response_format``, or read from the text); the first ``items_per_stratum`` items with
a prompt become datapoints with the stratum's attributes, ``teacher`` set to the model and
``source: teacher:<model>``. A reply that stays malformed after the engine's parse
retries, or a stratum that yields no usable item, is a counted failure named in the
output, never a crash; the strata it leaves empty show as gaps in the coverage report.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from assay.data.atomic import write_text
from assay.pipeline.generate._engine import client_config, messages, phase_cache, run_phase

if TYPE_CHECKING:
    from assay.config.steps import TeacherDatapoints, TeacherTask
    from assay.judge.config import AssayConfig
    from assay.llm import ChatRequest, Progress, Reply

TEACHER_FOLDER = "teacher"
"""The sub-folder of a run folder holding the teacher's run store."""


class TeacherItem(BaseModel):
    """One item a teacher writes."""

    model_config = ConfigDict(extra="ignore")

    prompt: str
    reference: str | None = None


class TeacherItems(BaseModel):
    """A teacher's reply: the items of one stratum."""

    model_config = ConfigDict(extra="ignore")

    items: list[TeacherItem]


@dataclass(frozen=True)
class Stratum:
    """One task and one combination of its attribute values."""

    task: str
    attributes: dict[str, str]

    @property
    def label(self) -> str:
        values = " ".join(f"{k}={v}" for k, v in self.attributes.items())
        return f"{self.task}" + (f" ({values})" if values else "")


@dataclass(frozen=True)
class TeacherOutcome:
    """The teacher's datapoints and the strata that yielded none (named, counted)."""

    model: str
    datapoints: list[dict[str, Any]]
    strata: int
    failures: list[str] = field(default_factory=list)
    """One line per stratum whose reply could not be used: its label and why."""
    short: list[str] = field(default_factory=list)
    """Strata that gave fewer items than asked for."""
    pending: int = 0
    """Strata whose prompt is not stored (the cost limit stopped the phase, a batch expired or
    lost its result line, ...: ``notes`` say which)."""
    notes: tuple[str, ...] = ()
    """What the engine said of the phase (a batch's expiry, result lines lost, ...)."""
    stopped: str | None = None
    """``cost_limit`` when the cost limit stopped the phase."""

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def stored(self) -> int:
        """Teacher prompts stored (good or failed) of the :attr:`strata` planned."""
        return self.strata - self.pending

    def lines(self, run: Path) -> list[str]:
        out = [f"wrote {run / 'datapoints.jsonl'}: {len(self.datapoints)} items from teacher "
               f"{self.model} over {self.strata} strata"]
        if self.failures:
            out.append(f"teacher: {self.failed} of {self.strata} strata failed (no items from them):")
            out.extend(f"  {line}" for line in self.failures)
        out.extend(f"note: {line}" for line in (*self.notes, *self.short))
        if self.pending:
            why = "the cost limit stopped the phase" if self.stopped == "cost_limit" else "see the notes"
            out.append(f"teacher: {self.pending} of {self.strata} strata not stored ({why})")
        return out


def strata(task: TeacherTask) -> list[Stratum]:
    """Every combination of the task's attribute values, in the order declared.

    >>> from assay.config.steps import TeacherTask
    >>> [s.label for s in strata(TeacherTask(name="qa", description="d",
    ...     attributes={"level": ["easy", "hard"], "topic": ["x"]}))]
    ['qa (level=easy topic=x)', 'qa (level=hard topic=x)']
    """
    keys = list(task.attributes)
    return [Stratum(task.name, dict(zip(keys, values, strict=True)))
            for values in itertools.product(*(task.attributes[k] for k in keys))]


def teacher_prompt(section: TeacherDatapoints, task: TeacherTask, stratum: Stratum) -> str:
    """What the teacher is asked for one stratum."""
    wanted = "\n".join(f"- {k}: {v}" for k, v in stratum.attributes.items()) or "- (none)"
    return (f"Write {section.items_per_stratum} distinct evaluation item(s) for this task.\n\n"
            f"Task: {task.name}\n{task.description}\n\nEvery item must have these attributes:\n"
            f"{wanted}\n\nReply with a JSON object {{\"items\": [{{\"prompt\": ..., \"reference\": ...}}]}}: "
            "`prompt` is what the system under test is asked, `reference` a correct answer.")


def _requests(section: TeacherDatapoints) -> list[tuple[Stratum, ChatRequest]]:
    from assay.llm import ChatRequest, config_hash, judgment_key

    digest = config_hash(section.model_dump(mode="json", include={"model", "base_url", "params",
                                                                 "system_prompt", "items_per_stratum"}))
    out = []
    for task in section.tasks:
        for stratum in strata(task):
            asked = messages(section, teacher_prompt(section, task, stratum))
            prompt_hash = hashlib.sha256(json.dumps(asked).encode("utf-8")).hexdigest()
            key = judgment_key(digest, json.dumps([task.name, stratum.attributes], sort_keys=True),
                               ("teacher",), "items", 1, judge=section.model, prompt_hash=prompt_hash)
            out.append((stratum, ChatRequest(key=key, messages=asked, response_model=TeacherItems,
                                             meta={"task": task.name, "attributes": stratum.attributes})))
    return out


def _rows(request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
    return [{**request.meta, "failure_kind": reply.failure_kind, "error": reply.error,
             "items": None if reply.verdict is None else reply.verdict_dict()}]


def teacher_datapoints(config: AssayConfig, run: Path, *, cache: str | None = None,
                       progress: Callable[[Progress], None] | None = None) -> TeacherOutcome:
    """Ask the teacher for every stratum (what is stored is not asked again) and write the
    items as ``RUN/datapoints.jsonl`` and the declared space as ``attribute_space.json``."""
    from assay.llm import LLMClient, RunStore

    section: Any = config.datapoints
    asked = _requests(section)
    settings = client_config(section, config.llm)
    where = phase_cache(cache or config.cache, Path(run), config.base_dir)
    with RunStore(Path(run) / TEACHER_FOLDER, config={"teacher": section.model_dump(mode="json")}) as store:
        store.set_plan([r.key for _, r in asked])
        summary = run_phase([r for _, r in asked], lambda responses: LLMClient(settings, cache=responses),
                            store, rows=_rows, cache=where, progress=progress)
        stored = {}
        for row in store.records():
            stored[json.dumps([row["task"], row["attributes"]], sort_keys=True)] = row
    source = f"teacher:{section.model}"
    points: list[dict[str, Any]] = []
    failures, short, pending = [], [], 0
    seen: set[str] = set()
    for stratum, _ in asked:
        row = stored.get(json.dumps([stratum.task, stratum.attributes], sort_keys=True))
        if row is None:
            pending += 1
            continue
        if row.get("failure_kind"):
            failures.append(f"{stratum.label}: {row['failure_kind']} ({row.get('error') or 'no reply'})")
            continue
        items = [i for i in (row.get("items") or {}).get("items", []) if str(i.get("prompt", "")).strip()]
        kept = 0
        for index, item in enumerate(items[: section.items_per_stratum]):
            ident = "t-" + hashlib.sha256(json.dumps(
                [stratum.task, stratum.attributes, index], sort_keys=True).encode()).hexdigest()[:12]
            if item["prompt"] in seen:
                continue
            seen.add(item["prompt"])
            kept += 1
            points.append({"id": ident, "task": stratum.task, "cluster": ident, "prompt": item["prompt"],
                           "reference": item.get("reference"), "teacher": section.model,
                           "source": source, "split": None, "attributes": dict(stratum.attributes)})
        if kept == 0:
            failures.append(f"{stratum.label}: the reply held no usable item (no prompt)")
        elif kept < section.items_per_stratum:
            short.append(f"{stratum.label}: {kept} of {section.items_per_stratum} items")
    run = Path(run)
    write_text(run / "datapoints.jsonl", "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in points))
    space = {t.name: t.attributes for t in section.tasks}
    document = {"attributes": space[section.tasks[0].name]} if len(space) == 1 else {"task_attributes": space}
    write_text(run / "attribute_space.json", json.dumps(document, indent=2) + "\n")
    return TeacherOutcome(section.model, points, len(asked), failures, short, pending,
                          notes=summary.notes, stopped=summary.stopped)
