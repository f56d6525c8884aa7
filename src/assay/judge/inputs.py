"""Readers of what the judges judge: BenchmarkQED's answer files, references, assertions, and JSONL.

* Answer files: ``{input_dir}/{method}/{question_set}_answers.json``, a JSON list of records
  whose question id, question text and answer text keys are configurable
  (``question_id_key``, ``question_text_key``, ``answer_text_key``); other keys are kept
  (judgments-table fields such as ``usd`` go into the rows).
* Reference files (same keys) per question set, or a method's answers used as references.
* Assertion files per question set: records with the question id and an ``assertions``
  list (or one assertion per record).
* assay's own JSONL: one answer per line with ``item``, ``arm``, ``question``, ``answer``
  and optional ``task``, ``cluster``, ``reference`` and judgments-table fields.

Question ids that repeat across question sets are made unique as ``{question_set}/{id}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.lines import json_lines
from assay.errors import ConfigError, InputError
from assay.judge.judges import Answer, JudgeInputs

if TYPE_CHECKING:
    from assay.judge.engine import AssayConfig, InputsConfig


def _read_json_records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(str(path), "no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict):  # pandas' "columns" orientation: {key: {row: value}}
        try:
            import pandas as pd

            data = pd.DataFrame(data).to_dict(orient="records")
        except ValueError:
            data = [data]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(str(path), "expected a JSON list of records (objects)")
    return data


def _text(record: Mapping[str, Any], key: str, path: Path, row: int) -> str:
    value = record.get(key)
    if value is None:
        raise InputError(
            str(path), f"missing key {key!r} (set the key name in the config's inputs)", row=row, column=key
        )
    return str(value)


def read_answers(
    path: str | Path,
    *,
    arm: str,
    task: str | None = None,
    question_id_key: str = "question_id",
    question_text_key: str = "question",
    answer_text_key: str = "answer",
    cluster_key: str | None = None,
) -> dict[str, Answer]:
    """Read one answer file (a JSON list of records) into item -> :class:`Answer`.

    Raises
    ------
    InputError
        No file, not a list of records, a record without a configured key, or a question id
        twice (the message names the file, record and key).
    """
    path = Path(path)
    out: dict[str, Answer] = {}
    used = {question_id_key, question_text_key, answer_text_key, *([cluster_key] if cluster_key else [])}
    for row, record in enumerate(_read_json_records(path), start=1):
        item = _text(record, question_id_key, path, row)
        if item in out:
            raise InputError(
                str(path), f"question id {item!r} appears twice", row=row, column=question_id_key
            )
        cluster = None if cluster_key is None or record.get(cluster_key) is None else str(record[cluster_key])
        out[item] = Answer(
            item=item,
            question=_text(record, question_text_key, path, row),
            text=_text(record, answer_text_key, path, row),
            arm=arm,
            task=task,
            cluster=cluster,
            fields={k: v for k, v in record.items() if k not in used},
        )
    return out


def read_jsonl(path: str | Path) -> list[Answer]:
    """Read assay's JSONL answers: ``item``, ``arm``, ``question``, ``answer`` (required), ``task``,
    ``cluster``, ``reference`` and other fields (kept in :attr:`Answer.fields`)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    out = []
    for row, record, why in json_lines(path):  # lines end at \n only (not at U+2028, U+0085...)
        if why is not None:
            raise InputError(str(path), why, row=row)
        if not isinstance(record, dict):
            raise InputError(str(path), "expected a JSON object", row=row)
        fields = {
            k: v
            for k, v in record.items()
            if k not in ("item", "arm", "question", "answer", "task", "cluster")
        }
        out.append(
            Answer(
                item=_text(record, "item", path, row),
                question=_text(record, "question", path, row),
                text=_text(record, "answer", path, row),
                arm=_text(record, "arm", path, row),
                task=None if record.get("task") is None else str(record["task"]),
                cluster=None if record.get("cluster") is None else str(record["cluster"]),
                fields=fields,
            )
        )
    return out


def _fill(template: str, inputs: InputsConfig, base: Path, **names: str) -> Path:
    input_dir = str(inputs.input_dir) if inputs.input_dir is not None else "."
    try:
        text = template.format(input_dir=input_dir, **names)
    except KeyError as exc:
        raise ConfigError(
            f"inputs: the path template {template!r} uses {{{exc.args[0]}}}, which is not "
            "one of input_dir, method, question_set"
        ) from None
    path = Path(text)
    return path if path.is_absolute() else base / path


def load_inputs(config: AssayConfig) -> JudgeInputs:
    """Read everything a config's ``inputs`` section names into :class:`JudgeInputs`."""
    spec = config.inputs
    base = config.base_dir
    if spec.methods and not spec.question_sets:
        raise ConfigError("inputs.question_sets: name the question sets whose answer files to read")
    found: list[tuple[str, Answer]] = []  # (question set, answer)
    for method in spec.methods:
        for question_set in spec.question_sets:
            path = _fill(spec.answers_path, spec, base, method=method, question_set=question_set)
            answers = read_answers(
                path,
                arm=method,
                task=question_set,
                question_id_key=spec.question_id_key,
                question_text_key=spec.question_text_key,
                answer_text_key=spec.answer_text_key,
                cluster_key=spec.cluster_key,
            )
            found.extend((question_set, a) for a in answers.values())
    references: list[tuple[str, Answer]] = []
    if spec.references_path is not None:
        for question_set in spec.question_sets:
            path = _fill(spec.references_path, spec, base, method="reference", question_set=question_set)
            refs = read_answers(
                path,
                arm="reference",
                task=question_set,
                question_id_key=spec.question_id_key,
                question_text_key=spec.question_text_key,
                answer_text_key=spec.answer_text_key,
            )
            references.extend((question_set, a) for a in refs.values())
    for jsonl in spec.jsonl:
        for answer in read_jsonl(config.path(jsonl)):
            found.append((answer.task or "", answer))
            if answer.fields.get("reference") is not None:
                references.append(
                    (
                        answer.task or "",
                        Answer(
                            item=answer.item,
                            question=answer.question,
                            text=str(answer.fields["reference"]),
                            arm="reference",
                            task=answer.task,
                            cluster=answer.cluster,
                        ),
                    )
                )
    sets_of: dict[str, set[str]] = {}
    for question_set, answer in found + references:
        sets_of.setdefault(answer.item, set()).add(question_set)
    clash = any(len(s) > 1 for s in sets_of.values())

    def renamed(question_set: str, answer: Answer) -> Answer:
        if not clash or not question_set:
            return answer
        return Answer(
            item=f"{question_set}/{answer.item}",
            question=answer.question,
            text=answer.text,
            arm=answer.arm,
            task=answer.task,
            cluster=answer.cluster,
            fields=answer.fields,
        )

    by_arm: dict[str, dict[str, Answer]] = {}
    for question_set, answer in found:
        answer = renamed(question_set, answer)
        if answer.item in by_arm.setdefault(answer.arm, {}):
            raise ConfigError(f"inputs: arm {answer.arm!r} has two answers to item {answer.item!r}")
        by_arm[answer.arm][answer.item] = answer
    refs_by_item = {a.item: a for a in (renamed(s, r) for s, r in references)}
    assertions: dict[str, tuple[Mapping[str, Any], ...]] = {}
    if spec.assertions_path is not None:
        for question_set in spec.question_sets:
            path = _fill(spec.assertions_path, spec, base, method="", question_set=question_set)
            for row, record in enumerate(_read_json_records(path), start=1):
                item = _text(record, spec.question_id_key, path, row)
                item = f"{question_set}/{item}" if clash else item
                listed = record.get("assertions")
                new = tuple(listed) if isinstance(listed, list) else (record,)
                assertions[item] = assertions.get(item, ()) + new
    if not by_arm:
        raise ConfigError("inputs: no answers to judge (set methods and question_sets, or jsonl)")
    return JudgeInputs(answers=by_arm, references=refs_by_item, assertions=assertions)


def with_retrieval(config: AssayConfig, inputs: JudgeInputs) -> JudgeInputs:
    """``inputs`` with the retrieval results ``inputs.retrieval_path`` names (BenchmarkQED's
    ``{question_id, text, context: [{chunk_id, text, rank?}]}`` records), read per method
    (``retrieval_methods``, default ``methods``) and question set; unchanged without a path.

    A record's question id becomes ``{question_set}/{id}`` when the answers or assertions
    were read with ids made unique that way; its ``task`` is the question set.
    """
    spec = config.inputs
    if spec.retrieval_path is None:
        return inputs
    known = {item for answers in inputs.answers.values() for item in answers} | set(inputs.assertions)
    retrieval: dict[str, dict[str, Mapping[str, Any]]] = {}
    for method in spec.retrieval_methods if spec.retrieval_methods is not None else spec.methods:
        for question_set in spec.question_sets:
            path = _fill(spec.retrieval_path, spec, config.base_dir, method=method, question_set=question_set)
            for row, record in enumerate(_read_json_records(path), start=1):
                qid = record.get(spec.question_id_key)
                if qid is None:
                    raise ConfigError(f"{path}: record {row} has no {spec.question_id_key!r}")
                item = f"{question_set}/{qid}" if f"{question_set}/{qid}" in known else str(qid)
                retrieval.setdefault(method, {})[item] = {**record, "task": question_set}
    return replace(inputs, retrieval={**inputs.retrieval, **retrieval})
