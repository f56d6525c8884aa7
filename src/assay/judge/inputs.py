"""Readers of what the judges judge: BenchmarkQED's answer files, references, assertions, and JSONL.

* Answer files: ``{input_dir}/{method}/{question_set}_answers.json``, a JSON list of records
  whose question id, question text and answer text keys are configurable
  (``question_id_key``, ``question_text_key``, ``answer_text_key``); other keys are kept
  (judgments-table fields such as ``usd`` go into the rows).
* Reference files (same keys) per question set, or a method's answers used as references.
* Assertion files per question set: records with the question id and an ``assertions``
  list (or one assertion per record).
* assay's own answer tables (``tables``, and ``jsonl`` as before): one answer per record with
  ``item``, ``arm``, ``question``, ``answer`` and optional ``task``, ``cluster``,
  ``reference`` and judgments-table fields.

Every file is read by its suffix: a JSON list of records (``.json``), JSON lines
(``.jsonl``), CSV, TSV or Parquet; so ``answers_path`` may name a ``.csv`` or ``.parquet``
file per method and question set as well.

Question ids that repeat across question sets are made unique as ``{question_set}/{id}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.lines import json_file, json_lines
from assay.errors import ConfigError, InputError
from assay.judge.judges import Answer, JudgeInputs

if TYPE_CHECKING:
    from assay.judge.config import AssayConfig, InputsConfig


TABLE_SUFFIXES = (".json", ".jsonl", ".csv", ".tsv", ".parquet")
"""The answer tables read: a JSON list of records (or pandas' columns orientation), JSON
lines, CSV, TSV or Parquet, told apart by the file's suffix."""


def _read_json_records(path: Path) -> list[dict[str, Any]]:
    """The records of an answer, reference, assertion or retrieval file, by its suffix: a JSON
    list of records (the default), JSON lines, CSV, TSV or Parquet (every cell of a CSV read
    as text, an empty cell as no value)."""
    if not path.is_file():
        raise InputError(str(path), "no such file")
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _read_json_lines(path)
    if suffix in (".csv", ".tsv", ".parquet"):
        return _read_table(path, suffix)
    data = json_file(path)
    if isinstance(data, dict):  # pandas' "columns" orientation: {key: {row: value}}
        try:
            import pandas as pd

            data = pd.DataFrame(data).to_dict(orient="records")
        except ValueError:
            data = [data]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(str(path), "expected a JSON list of records (objects)")
    return data


def _read_json_lines(path: Path) -> list[dict[str, Any]]:
    records = []
    for row, record, why in json_lines(path):  # lines end at \n only (not at U+2028, U+0085...)
        if why is not None:
            raise InputError(str(path), why, row=row)
        if not isinstance(record, dict):
            raise InputError(str(path), "expected a JSON object", row=row)
        records.append(record)
    return records


def _read_table(path: Path, suffix: str) -> list[dict[str, Any]]:
    """The rows of a CSV, TSV or Parquet table as records; a missing cell is left out."""
    import pandas as pd

    try:
        if suffix == ".parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str,
                                keep_default_na=False, na_values=[""], encoding="utf-8")
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise InputError(str(path), f"cannot read it as a {suffix[1:]} table "
                         f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    columns = [str(c) for c in frame.columns]
    return [{k: v for k, v in zip(columns, values, strict=True) if not _missing(v)}
            for values in frame.itertuples(index=False, name=None)]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _text(record: Mapping[str, Any], key: str, path: Path, row: int) -> str:
    value = record.get(key)
    if value is None:
        raise InputError(
            str(path), f"missing key {key!r} (set the key name in the config's inputs)", row=row, column=key
        )
    return str(value)


def _name(record: Mapping[str, Any], key: str, path: Path, row: int) -> str:
    """The value of ``key`` as a name (an item id or an arm): :func:`_text`, and refused when
    blank or only spaces, which a report of the run reads as a missing value and refuses, so
    that the run refuses it before any call is paid for."""
    text = _text(record, key, path, row)
    if not text.strip():
        raise InputError(str(path), f"blank {key!r} (a report reads it as missing and cannot "
                         "show the judgment): give every row a name; nothing was sent",
                         row=row, column=key)
    return text


def _check_fields(path: Path, records: list[dict[str, Any]]) -> None:
    """Refuse the first value of a judgments-table column an answer carries into its rows
    (``usd``, ``split``, ``attributes``...) that a report would refuse, checked by the report's
    own reader and named by file, row and column: before any call is paid for."""
    from assay.judge.judges._protocol import ANSWER_COLUMNS

    present = [c for c in ANSWER_COLUMNS if any(c in record for record in records)]
    if not present:
        return
    import pandas as pd

    from assay.data._raw import ROW_COLUMN
    from assay.data.validate import build_table

    raw = pd.DataFrame({
        "item": [f"row {n}" for n in range(1, len(records) + 1)], "arm": "answer", "score": 0.0,
        **{c: pd.Series([r.get(c) for r in records], dtype=object) for c in present},
        ROW_COLUMN: range(1, len(records) + 1)})
    problems = [p for p in build_table(raw, path=str(path)).problems if p.column in present]
    if problems:
        first = problems[0]
        raise InputError(first.path, f"{first.message} (a report of the run would refuse it); "
                         "nothing was sent", row=first.row, column=first.column)


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
    records = _read_json_records(path)
    _check_fields(path, [{k: v for k, v in r.items() if k not in used} for r in records])
    for row, record in enumerate(records, start=1):
        item = _name(record, question_id_key, path, row)
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
    """Read assay's own answer table: ``item``, ``arm``, ``question``, ``answer`` (required),
    ``task``, ``cluster``, ``reference`` and other fields (kept in :attr:`Answer.fields`); JSON
    lines, or any table of :data:`TABLE_SUFFIXES` with those columns."""
    path = Path(path)
    if path.suffix.lower() in (".json", ".csv", ".tsv", ".parquet"):
        records = _read_json_records(path)
    elif path.is_file():
        records = _read_json_lines(path)  # JSON lines whatever the suffix, as before tables
    else:
        raise InputError(str(path), "no such file")
    _check_fields(path, records)
    out = []
    for row, record in enumerate(records, start=1):
        fields = {
            k: v
            for k, v in record.items()
            if k not in ("item", "arm", "question", "answer", "task", "cluster")
        }
        out.append(
            Answer(
                item=_name(record, "item", path, row),
                question=_text(record, "question", path, row),
                text=_text(record, "answer", path, row),
                arm=_name(record, "arm", path, row),
                task=None if record.get("task") is None else str(record["task"]),
                cluster=None if record.get("cluster") is None else str(record["cluster"]),
                fields=fields,
            )
        )
    return out


def first_items(inputs: JudgeInputs, limit: int) -> JudgeInputs:
    """``inputs`` with only the first ``limit`` items of each question set (``--limit``, a smoke
    run): the items in the order read, every arm's answer, reference, assertion and retrieval
    record of a kept item kept, every other dropped.

    Examples
    --------
    >>> a = [Answer(item=f"q{i}", question="?", text="a", arm="x", task=t)
    ...      for t in ("s1", "s2") for i in range(3)]
    >>> small = first_items(JudgeInputs(answers={"x": {f"{x.task}{x.item}": x for x in a}}), 2)
    >>> small.items("x")
    ('s1q0', 's1q1', 's2q0', 's2q1')
    """
    if limit < 1:
        raise ConfigError(f"--limit {limit}: expected a whole number of items >= 1")
    kept: dict[str | None, list[str]] = {}
    for answers in inputs.answers.values():
        for item, answer in answers.items():
            chosen = kept.setdefault(answer.task, [])
            if item not in chosen and len(chosen) < limit:
                chosen.append(item)
    keep = {item for items in kept.values() for item in items}
    return replace(
        inputs,
        answers={arm: {i: a for i, a in answers.items() if i in keep}
                 for arm, answers in inputs.answers.items()},
        references={i: r for i, r in inputs.references.items() if i in keep},
        assertions={i: a for i, a in inputs.assertions.items() if i in keep},
        retrieval={arm: {i: r for i, r in records.items() if i in keep}
                   for arm, records in inputs.retrieval.items()},
    )


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
    for index, method in enumerate(spec.methods):
        if not method.strip():  # the arm's name: a report reads a blank one as missing
            raise ConfigError(f"inputs.methods[{index}]: a blank method name ({method!r}); the "
                              "report of the run could not name its arm")
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
    for jsonl in [*spec.tables, *spec.jsonl]:
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
    if not by_arm and spec.retrieval_path is None:  # retrieval results alone: chunk-level judges
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
