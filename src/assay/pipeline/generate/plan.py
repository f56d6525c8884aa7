"""The plan of the generation phase before anything is sent (``assay describe`` on a config
with ``systems``): calls, estimated tokens and cost per system (and for a teacher), and the
answers the judges' plan is built on before they exist.

Estimates are named as such: prompts at ~4 characters a token; an answer at the system's
``max_tokens`` when set, else :data:`~assay.judge.plan.REPLY_TOKENS_ESTIMATE` tokens; a
model without a price has an unknown cost (None, never $0); a local command costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from assay.pipeline.describe import GenerationLine
from assay.pipeline.generate._engine import messages

if TYPE_CHECKING:
    from assay.config.steps import Endpoint
    from assay.judge.config import AssayConfig
    from assay.judge.judges import JudgeInputs

TEACHER_PROMPT_TOKENS = 60
"""The estimated length of a teacher's item, in tokens, before the teacher has written it."""


def _reply_tokens(endpoint: Endpoint) -> int:
    from assay.judge.plan import REPLY_TOKENS_ESTIMATE

    value = endpoint.params.get("max_tokens") or endpoint.params.get("max_completion_tokens")
    return int(value) if isinstance(value, int) and value > 0 else REPLY_TOKENS_ESTIMATE


def _tokens_in(endpoint: Endpoint, prompt: str) -> int:
    from assay.llm import estimate_tokens

    return sum(estimate_tokens(text) for _, text in messages(endpoint, prompt))


def _usd(endpoint: Endpoint, tokens_in: int, tokens_out: int) -> float | None:
    return None if endpoint.price is None else endpoint.price.cost(tokens_in, tokens_out)


def teacher_placeholders(config: AssayConfig) -> list[dict[str, Any]]:
    """Stand-ins for the items a teacher will write (one per item asked for), so the answers
    and judgments on them can be counted before the teacher is asked."""
    from assay.pipeline.generate.teacher import strata

    section: Any = config.datapoints
    return [{"id": f"{s.label}#{i}", "task": s.task, "cluster": f"{s.label}#{i}",
             "prompt": "x" * (4 * TEACHER_PROMPT_TOKENS), "attributes": s.attributes}
            for task in section.tasks for s in strata(task) for i in range(section.items_per_stratum)]


def describe_generation(config: AssayConfig, datapoints: list[Mapping[str, Any]], *,
                        stored: Mapping[str, bool] | None = None,
                        teacher_stored: Mapping[str, bool] | None = None) -> tuple[GenerationLine, ...]:
    """One line for the teacher (when the datapoints come from one) and one per system:
    the calls not yet stored, their estimated tokens and cost."""
    from assay.pipeline.generate.answers import answer_requests

    out = []
    section: Any = config.datapoints
    if section is not None and section.kind == "teacher":
        from assay.pipeline.generate.teacher import _requests

        asked = [r for _, r in _requests(section) if r.key not in (teacher_stored or {})]
        tokens_in = sum(_tokens_in(section, r.messages[-1][1]) for r in asked)
        tokens_out = len(asked) * section.items_per_stratum * TEACHER_PROMPT_TOKENS * 2
        out.append(GenerationLine("teacher", "teacher", section.model, len(asked), tokens_in, tokens_out,
                                  _usd(section, tokens_in, tokens_out)))
    for system in config.systems:
        pending = [(r, p) for r, p in zip(answer_requests(system, datapoints), datapoints, strict=True)
                   if r.key not in (stored or {})]
        if system.command is not None:
            out.append(GenerationLine("answers", system.name, "command: " + " ".join(system.command),
                                      len(pending), 0, 0, 0.0))
            continue
        tokens_in = sum(_tokens_in(system, str(p["prompt"])) for _, p in pending)
        tokens_out = len(pending) * _reply_tokens(system)
        out.append(GenerationLine("answers", system.name, str(system.model), len(pending), tokens_in,
                                  tokens_out, _usd(system, tokens_in, tokens_out)))
    return tuple(out)


def placeholder_inputs(config: AssayConfig, datapoints: list[Mapping[str, Any]]) -> JudgeInputs:
    """The answers the judges will see, stood in by texts of the estimated answer length (the
    judges' plan is counted on them before the systems have answered)."""
    from assay.judge.judges import Answer, JudgeInputs

    answers: dict[str, dict[str, Answer]] = {}
    references: dict[str, Answer] = {}
    for system in config.systems:
        length = 4 * (_reply_tokens(system) if system.command is None else 250)
        for point in datapoints:
            item = str(point["id"])
            answers.setdefault(system.name, {})[item] = Answer(
                item=item, question=str(point["prompt"]), text="x" * length, arm=system.name,
                task=point.get("task"), cluster=point.get("cluster"))
            if point.get("reference") is not None:
                references[item] = Answer(item=item, question=str(point["prompt"]),
                                          text=str(point["reference"]), arm="reference",
                                          task=point.get("task"), cluster=point.get("cluster"))
    return JudgeInputs(answers=answers, references=references)
