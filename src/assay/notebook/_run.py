"""One notebook call: frames to answer files and a config in a run folder, the run, the CSVs back.

Nothing here judges: the config is the one ``assay judge`` reads (written as ``assay.yaml``
in the run folder), built, checked and run by :func:`assay.judge.plan.build_plan` and
:func:`assay.judge.plan.execute`, and the CSVs are :mod:`assay.judge.qed_files`' own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import tempfile
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from assay.errors import InputError
from assay.notebook._llm import LLM

if TYPE_CHECKING:
    import pandas as pd

    from assay.judge.sequential import SequentialRun
    from assay.llm import RunSummary

T = TypeVar("T")
CONFIG_NAME = "assay.yaml"
"""The config written into the run folder (``assay judge RUN/assay.yaml --out RUN`` resumes it)."""


@dataclass(frozen=True)
class Keys:
    """The columns of an answers frame (BenchmarkQED's ``question_id_key``, ``question_text_key``)."""

    question_id: str = "question_id"
    question_text: str = "question"
    answer_text: str = "answer"


@dataclass(frozen=True)
class NotebookRun:
    """What a call ran: its run folder and the engine's summary."""

    folder: Path
    summary: RunSummary
    sequential: SequentialRun | None = None
    """With ``until=``: how the sequential run went (its rule, looks, whether it stopped early,
    the clusters judged and the judgments not made); None otherwise."""


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end, also from inside a running event loop (a Jupyter cell):
    then in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def answers_file(frame: pd.DataFrame, path: Path, keys: Keys, what: str) -> None:
    """Write an answers frame as a JSON list of records (BenchmarkQED's answer file)."""
    missing = [c for c in (keys.question_id, keys.question_text, keys.answer_text) if c not in frame.columns]
    if missing:
        raise InputError(what, f"missing (the frame has {', '.join(map(str, frame.columns))}; "
                         "name yours with question_id_key, question_text_key, answer_text_key)",
                         column=missing[0])
    frame = frame.assign(**{keys.question_id: frame[keys.question_id].astype(str)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frame.to_json(orient="records", force_ascii=False, default_handler=str), encoding="utf-8")


def run_judge(section: Mapping[str, Any], answers: Mapping[str, pd.DataFrame], *, llm: LLM,
              store: str | Path | None, question_set: str, keys: Keys,
              extra_files: Mapping[str, pd.DataFrame] | None = None,
              inputs: Mapping[str, Any] | None = None, verbose: bool = True,
              until: str | None = None) -> NotebookRun:
    """Run one judge ``section`` over ``answers`` (method -> frame) into a run folder.

    ``store`` is the run folder (created; a call again with the same folder resumes: nothing
    stored is asked again); None for a new temporary folder. ``extra_files`` are more JSON
    files to write into the folder's ``inputs`` (assertions), ``inputs`` more keys of the
    config's ``inputs`` section. ``until`` (``decided`` or ``width=W``, as ``assay judge
    --until``) writes the config's ``sequential`` section and runs the plan in batches of
    clusters until the rule is met (:func:`~assay.judge.sequential.execute_sequential`). Prints
    the run's line and its token totals when ``verbose`` (with ``until``, first the lines
    ``assay judge --until`` prints: whether it stopped early, why, and what was saved).

    Raises
    ------
    ConfigError
        A bad ``until`` (the message of ``assay judge --until``), or a plan the rule cannot
        watch (:func:`~assay.judge.sequential.comparisons`).
    """
    from assay.config.dotenv import dotenv_paths, load_dotenv
    from assay.judge.config import load_config
    from assay.judge.inputs import load_inputs
    from assay.judge.plan import build_plan, execute
    from assay.judge.qed_files import write_assertion_csvs, write_qed_csvs
    from assay.judge.sequential import ended_lines, execute_sequential, stopping_rule

    if until is not None:
        stopping_rule(None, until=until)  # a bad rule fails here, before any folder is written
    folder = Path(store) if store is not None else Path(tempfile.mkdtemp(prefix="assay-notebook-"))
    folder.mkdir(parents=True, exist_ok=True)
    load_dotenv(dotenv_paths(None))  # keys from ./.env, never over a variable already set
    for method, frame in answers.items():
        answers_file(frame, folder / "inputs" / method / f"{question_set}_answers.json", keys,
                     f"answers of {method!r}")
    for name, frame in (extra_files or {}).items():
        (folder / "inputs" / name).write_text(frame.to_json(orient="records", force_ascii=False),
                                               encoding="utf-8")
    config = {
        "version": 1,
        "llm": llm.section(),
        "cache": llm.cache_setting(),
        "inputs": {"input_dir": "inputs", "methods": list(answers), "question_sets": [question_set],
                   "question_id_key": keys.question_id, "question_text_key": keys.question_text,
                   "answer_text_key": keys.answer_text, **(inputs or {})},
        "judges": [dict(section)],
    }
    if until is not None:
        config["sequential"] = {"until": until}  # so ``assay judge RUN/assay.yaml --out RUN`` resumes it
    path = folder / CONFIG_NAME
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    cfg = load_config(path)
    loaded = load_inputs(cfg)
    plan = build_plan(cfg, loaded)
    rule = stopping_rule(cfg.sequential)
    sequential = None
    if rule is None:
        summary = run_sync(execute(plan, folder))
    else:
        sequential = run_sync(execute_sequential(plan, folder, rule))
        summary = sequential.summary
    write_qed_csvs(plan, loaded, folder)
    write_assertion_csvs(plan, folder, loaded)
    if verbose:
        for line in ended_lines(sequential) if sequential is not None else []:
            print(line)
        failed = summary.failed_stored if summary.failed_stored is not None else summary.failed
        print(f"{summary.done} judged ({summary.failed} failed, {summary.cached} from cache), "
              f"{summary.skipped} already stored, {summary.calls} calls -> {folder}")
        print(summary.token_line())
        if failed:
            print(f"warning: {failed} of {summary.planned} judgments failed and are left out of the "
                  f"scores; ask them again: assay judge {path} --out {folder} --retry-failed",
                  file=sys.stderr)
        if summary.stopped is not None:
            print(f"warning: the run stopped early ({summary.stopped}); call again to resume",
                  file=sys.stderr)
    return NotebookRun(folder, summary, sequential)


def read_csv(folder: Path, name: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A CSV the run wrote (empty, with ``columns``, when there is none: nothing was scored)."""
    import pandas as pd

    path = folder / name
    if not path.is_file():
        return pd.DataFrame(columns=columns or [])
    return pd.read_csv(path, keep_default_na=False, na_values=[""])
