"""The judging functions of BenchmarkQED's notebook, data frames in and out, on assay's engine.

Each function runs one judge of ``assay judge`` (:mod:`assay.notebook._run`) and returns the
CSV ``assay judge`` writes for it, with BenchmarkQED's columns:

* :func:`judge_pairwise`: ``win_rates.csv`` (``get_pairwise_scores``): score_id, question,
  answer_1_name, answer_1, answer_2_name, answer_2, criteria, ``{base}_score``,
  ``{other}_score``, reasoning, trial, base_name, other_name,
  question_set, judge.
* :func:`judge_differential`: ``differential_pairwise_scores.csv`` (joint) or
  ``separate_differential_scores.csv`` (separate), the same columns.
* :func:`judge_reference`: ``reference_scores.csv`` (``get_reference_scores``): score_id,
  question, criteria, score, reasoning, trial, reference, generated, question_set, judge.
* :func:`judge_assertions`: ``assertion_scores_by_assertion.csv``; the per-question and
  summary tables and ``significance_summary.csv`` are in the run folder.
* :func:`judge_assertions_hierarchical`: ``hierarchical_scores_by_assertion.csv``, likewise.

A failed judgment (no valid verdict after the retries) is left out of the frame, counted in
the printed line and kept in the store; calling again with the same ``store`` asks nothing
stored again. Answers frames have one row per question: ``question_id_key``,
``question_text_key`` and ``answer_text_key`` name their columns.

:func:`judge_pairwise` and :func:`judge_assertions` take ``until="decided"`` or
``until="width=W"``: sequential judging, as ``assay judge --until`` (the same rule, order and
confidence sequences, :mod:`assay.judge.sequential`): the questions are judged in a seeded
random order of clusters (each question its own cluster) and the run stops once every
comparison between the methods is decided (or every interval is narrower than W). The printed
lines say whether it stopped early, why, and what was saved; the frame holds the questions
judged, and ``frame.attrs["sequential"]`` is the :class:`~assay.judge.sequential.SequentialRun`.
The other three functions have no ``until``: a differential or hierarchical judge has a second
stage built from the first, and a reference judge scores one method (no comparison to decide).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import ConfigError
from assay.notebook._llm import LLM
from assay.notebook._run import Keys, NotebookRun, read_csv, run_judge

if TYPE_CHECKING:
    import pandas as pd

Criteria = Sequence[str | Mapping[str, Any]] | None


def _criteria(criteria: Criteria) -> dict[str, Any]:
    return {} if criteria is None else {"criteria": [c if isinstance(c, str) else dict(c) for c in criteria]}


def _frame(run: NotebookRun, name: str) -> pd.DataFrame:
    """The run's CSV ``name``, with ``attrs["sequential"]`` the sequential run (``until=`` only)."""
    frame = read_csv(run.folder, name)
    if run.sequential is not None:
        frame.attrs["sequential"] = run.sequential
    return frame


def _names(*names: str) -> None:
    if len(set(names)) != len(names):
        raise ConfigError(f"the methods compared need distinct names, got {', '.join(map(repr, names))}")


def judge_pairwise(df_base: pd.DataFrame, df_other: pd.DataFrame, *, llm: LLM, criteria: Criteria = None,
                   trials: int = 4, base_name: str = "base", other_name: str = "other",
                   question_set: str = "all", store: str | Path | None = None,
                   question_id_key: str = "question_id", question_text_key: str = "question",
                   answer_text_key: str = "answer", joint: bool = False,
                   verbose: bool = True, until: str | None = None) -> pd.DataFrame:
    """Pairwise win rates of ``df_other`` against ``df_base`` (BenchmarkQED's ``get_pairwise_scores``).

    Parameters
    ----------
    df_base, df_other : pandas.DataFrame
        The two methods' answers, one row per question.
    llm : LLM
        The judge model.
    criteria : list of str or dict, optional
        Criterion names (comprehensiveness, diversity, empowerment, relevance: the default) or
        ``{"name": ..., "description": ...}``.
    trials : int, default 4
        Even: trial t shows the base first when t is odd (counterbalanced).
    store : path, optional
        The run folder; a call again with it resumes. None: a new temporary folder.
    joint : bool, default False
        All criteria in one call per trial.
    until : str, optional
        ``"decided"`` or ``"width=W"``: judge the questions in a random order and stop once
        the rule is met for every criterion (``assay judge --until``; see the module docstring).

    Returns
    -------
    pandas.DataFrame
        ``win_rates.csv``'s rows (see the module docstring); with ``until``, those of the
        questions judged, and ``attrs["sequential"]`` how the sequential run went.

    Raises
    ------
    ConfigError
        A bad ``until`` (the message of ``assay judge --until``).
    """
    _names(base_name, other_name)
    section = {"kind": "pairwise", "base": base_name, "others": [other_name], "trials": trials,
               "joint": joint, **_criteria(criteria)}
    run = run_judge(section, {base_name: df_base, other_name: df_other}, llm=llm, store=store,
                    question_set=question_set, keys=Keys(question_id_key, question_text_key, answer_text_key),
                    verbose=verbose, until=until)
    return _frame(run, "win_rates.csv")


def judge_differential(df_base: pd.DataFrame, df_other: pd.DataFrame, *, llm: LLM, criteria: Criteria = None,
                       trials: int = 4, mode: str = "joint", base_name: str = "base",
                       other_name: str = "other", question_set: str = "all",
                       store: str | Path | None = None, question_id_key: str = "question_id",
                       question_text_key: str = "question", answer_text_key: str = "answer",
                       verbose: bool = True) -> pd.DataFrame:
    """Differential pairwise scores (BenchmarkQED's ``get_differential_pairwise_scores``, and its
    separate-call variant with ``mode="separate"``): the common and unique content of the two
    answers is extracted first, then the unique content judged. Parameters as
    :func:`judge_pairwise`; returns ``differential_pairwise_scores.csv`` (joint) or
    ``separate_differential_scores.csv`` (separate)."""
    _names(base_name, other_name)
    section = {"kind": "differential", "label": f"differential-{mode}", "base": base_name,
               "others": [other_name], "mode": mode, "trials": trials, **_criteria(criteria)}
    run = run_judge(section, {base_name: df_base, other_name: df_other}, llm=llm, store=store,
                    question_set=question_set, keys=Keys(question_id_key, question_text_key, answer_text_key),
                    verbose=verbose)
    name = "differential_pairwise_scores.csv" if mode == "joint" else "separate_differential_scores.csv"
    return read_csv(run.folder, name)


def judge_reference(df_reference: pd.DataFrame, df_generated: pd.DataFrame, *, llm: LLM,
                    criteria: Criteria = None, trials: int = 2, score_min: int = 1, score_max: int = 10,
                    reference_name: str = "reference", generated_name: str = "generated",
                    question_set: str = "all", store: str | Path | None = None,
                    question_id_key: str = "question_id", question_text_key: str = "question",
                    answer_text_key: str = "answer", verbose: bool = True) -> pd.DataFrame:
    """Scores of ``df_generated`` against the reference answers (BenchmarkQED's
    ``get_reference_scores``): an integer in [score_min, score_max] per criterion
    (correctness, completeness by default) and trial. Returns ``reference_scores.csv``'s rows;
    :func:`assay.notebook.tables.reference_summary` gives the mean and SD per set."""
    _names(reference_name, generated_name)
    section = {"kind": "reference", "label": "reference", "reference": reference_name,
               "generated": [generated_name], "trials": trials, "score_min": score_min,
               "score_max": score_max, **_criteria(criteria)}
    run = run_judge(section, {reference_name: df_reference, generated_name: df_generated}, llm=llm,
                    store=store, question_set=question_set,
                    keys=Keys(question_id_key, question_text_key, answer_text_key), verbose=verbose)
    return read_csv(run.folder, "reference_scores.csv")


def _assertions(answers: Mapping[str, pd.DataFrame], assertions: pd.DataFrame, section: dict[str, Any], *,
                llm: LLM, store: str | Path | None, question_set: str, keys: Keys, verbose: bool,
                until: str | None = None) -> NotebookRun:
    if "assertions" not in assertions.columns:
        from assay.errors import InputError

        raise InputError("assertions", "no column 'assertions' (a list of {statement, ...} per question)",
                         column="assertions")
    frame = assertions.assign(**{keys.question_id: assertions[keys.question_id].astype(str)})
    run = run_judge(section, dict(answers), llm=llm, store=store, question_set=question_set, keys=keys,
                    extra_files={f"{question_set}_assertions.json": frame},
                    inputs={"assertions_path": "{input_dir}/{question_set}_assertions.json"},
                    verbose=verbose, until=until)
    return run


def judge_assertions(answers: Mapping[str, pd.DataFrame], assertions: pd.DataFrame, *, llm: LLM,
                     trials: int = 2, pass_threshold: float = 0.5, question_set: str = "all",
                     store: str | Path | None = None, question_id_key: str = "question_id",
                     question_text_key: str = "question", answer_text_key: str = "answer",
                     verbose: bool = True, until: str | None = None) -> pd.DataFrame:
    """Assertion scores of each method's answers (BenchmarkQED's ``run_assertion_evaluation``).

    ``answers`` maps a method's name to its answers frame; ``assertions`` has a row per
    question: ``question_id_key`` and ``assertions`` (a list of ``{"statement": ..., "rank":
    ...}``), as BenchmarkQED's assertion files. Returns ``assertion_scores_by_assertion.csv``;
    ``assertion_scores_by_question.csv``, ``assertion_scores_summary.csv`` and (two or more
    methods) ``significance_summary.csv`` are in the run folder. ``until`` (two or more methods):
    sequential judging, as :func:`judge_pairwise`'s, each pair of methods a comparison."""
    section = {"kind": "assertion", "label": "assertion", "trials": trials, "pass_threshold": pass_threshold}
    run = _assertions(answers, assertions, section, llm=llm, store=store, question_set=question_set,
                      keys=Keys(question_id_key, question_text_key, answer_text_key), verbose=verbose,
                      until=until)
    return _frame(run, "assertion_scores_by_assertion.csv")


def judge_assertions_hierarchical(answers: Mapping[str, pd.DataFrame], assertions: pd.DataFrame, *,
                                  llm: LLM, mode: str = "staged", trials: int = 2,
                                  pass_threshold: float = 0.5, question_set: str = "all",
                                  store: str | Path | None = None, question_id_key: str = "question_id",
                                  question_text_key: str = "question", answer_text_key: str = "answer",
                                  supporting_key: str = "supporting_assertions",
                                  verbose: bool = True) -> pd.DataFrame:
    """Hierarchical assertion scores (BenchmarkQED's ``run_hierarchical_assertion_evaluation``):
    global assertions, each with ``supporting_key`` assertions, in ``mode`` staged (supporting
    ones judged for passed globals only) or joint. Arguments as :func:`judge_assertions`;
    returns assay's per-global table ``hierarchical_scores_by_assertion.csv`` (BenchmarkQED's
    files, ``hierarchical_assertion_scores.csv`` per trial among them, are in the run folder)."""
    section = {"kind": "assertion_hierarchical", "label": f"hierarchical-{mode}", "mode": mode,
               "trials": trials, "pass_threshold": pass_threshold, "supporting_key": supporting_key}
    run = _assertions(answers, assertions, section, llm=llm, store=store, question_set=question_set,
                      keys=Keys(question_id_key, question_text_key, answer_text_key), verbose=verbose)
    return read_csv(run.folder, "hierarchical_scores_by_assertion.csv")
