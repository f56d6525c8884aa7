"""BenchmarkQED's CSV files, written into a run folder after ``assay judge`` (``--csv``, the default).

:func:`write_qed_csvs` reads the stored judgments of the plan's pairwise, differential and
reference judges; :func:`write_assertion_csvs` those of its assertion judges. Failed
judgments are left out (they have no score). ``score_id`` is the judgment key (of the judging
call, for a differential judge). Every number is written at full precision (BenchmarkQED rounds
some of its tables for display; nothing is rounded here).

Row order never follows the order judgments were answered in (the judge answers concurrently,
so that order changes from run to run): the same store gives the same bytes. The per-judgment
files (``win_rates.csv``, the differential scores, ``original_pairwise_scores.csv``,
``reference_scores.csv`` and the per-pair files) list judgments in plan order, the store's
reading order (:func:`~assay.data.run_store.selected_rows`): judges in config order, then each
judge's requests in the order it builds them: its pairs (``others`` as configured), questions as
the inputs list them (question sets in config order), and within a question its criteria (as
configured) and trials. ``reference_scores_summary.csv`` is sorted (see
:func:`reference_summary_records`); the comparisons are the analyses' tables of the plan-ordered
judgments, ``joint_vs_separate_by_model.csv`` one row per judge model in config order. Which
file, when, with which columns:

Pairwise judges (``kind: pairwise``)
    ``win_rates.csv``: score_id, question (its text), answer_1_name, answer_1, answer_2_name,
    answer_2 (the answers in the order the judge saw them, with their texts), criteria,
    ``{base}_score``, ``{other}_score``, reasoning, trial, base_name, other_name,
    question_set, judge (one file for all pairs, so the score columns of arms not in a row's
    pair are empty).
    ``{question_set}_{base}--{other}.csv``: the same rows, one file per (question set, base,
    other) as BenchmarkQED saves each ``get_pairwise_scores`` result, with only the pair's two
    score columns (``all`` for the question set when the inputs have none). A name part that
    is not a plain file name becomes a slug and a short hash of the value (nothing is written
    outside the run folder), and a name another per-pair file already has gets
    ``.pairwise`` or ``.reference`` before ``.csv``.

Differential judges (``kind: differential``)
    ``differential_pairwise_scores.csv`` (mode joint) and ``separate_differential_scores.csv``
    (mode separate): ``win_rates.csv``'s columns.

A pairwise and a differential judge (seed: "Original vs. Differential Pairwise Scoring")
    ``original_pairwise_scores.csv``: the pairwise judges' rows (``win_rates.csv``'s columns)
    on the (question set, pair, criterion) the differential judges also scored.
    ``original_vs_differential_comparison.csv``: the win-rate summaries of both, merged on
    (question_set, criteria, base_name, other_name) with suffixes ``_original`` and
    ``_differential``, and winrate_delta = other_mean_differential - other_mean_original. A
    summary has ``winrates_sig_tests.csv``'s columns (BenchmarkQED's ``analyze_criteria``:
    base_mean, other_mean, p_value, test, statistic, corrected_p_value,
    formatted_corrected_p_value, ..., then judge, n, standard_error, lower, upper) from
    :func:`~assay.analysis.winrates._report.win_rates` with ``test="auto"`` and
    ``correction="holm-per-group"``, BenchmarkQED's choice of test and its Holm family (one
    question set and criterion of one judge); ``question_set`` is ``ALL`` for all question sets
    together. One row per (question set, criterion, pair, pairwise judge, differential judge).

A judge model with a joint and a separate differential judge (seed: "Repeat across judge models")
    ``joint_vs_separate_by_model.csv``: judge_model, verdict_agreement (share of the trials
    both scored with the same verdict, pooled over criteria and pairs), joint_mean_wr and
    separate_mean_wr (mean question-level win rate of the base over (question, criterion),
    weighted by questions), overall_p_value (Wilcoxon's signed-rank test, scipy's
    ``method="auto"`` as BenchmarkQED, of the paired question-level win rates pooled over criteria
    and pairs; 1 when no pair differs), significant_diff (overall_p_value < 0.05), then
    judge_joint, judge_separate, n_trials, n (paired question-level values). Agreement and
    means come from :attr:`WinRateReport.judges <assay.analysis.winrates._report.WinRateReport.judges>`.

Reference judges (``kind: reference``)
    ``reference_scores.csv``: score_id, question, criteria, score, reasoning, trial, reference,
    generated, question_set, judge; ``{question_set}_{reference}--{generated}.csv``: its rows
    per (question set, reference, generated); ``reference_scores_summary.csv``:
    question_set, criteria, reference, generated, judge, mean, std (BenchmarkQED's
    ``summarize_reference_scores``: ``np.std``, the population SD, ddof = 0).

Assertion judges
    Standard: ``assertion_scores_by_assertion.csv``, ``assertion_scores_by_question.csv``,
    ``assertion_scores_summary.csv``; hierarchical: ``hierarchical_assertion_scores.csv``,
    ``hierarchical_summary_by_question.csv``, ``hierarchical_summary.csv``; chunk-level:
    ``chunk_coverage.csv``, ``chunk_coverage_by_question.csv`` (columns in
    :mod:`assay.analysis.assertions._summaries` and :mod:`assay.analysis.assertions._chunk_coverage`). When a
    standard or hierarchical judge scored two or more arms of a question set,
    ``significance_summary.csv``
    (:data:`~assay.analysis.assertions._significance.SUMMARY_COLUMNS`: metric, level,
    test_name, group1, group2, statistic, p_value, is_significant, group1_mean, group2_mean,
    formatted_p_value, question_set, judge, n, p_value_raw): Friedman's test (three or more
    arms, ``level`` omnibus) and the pairwise Wilcoxon tests of each metric's per-question
    values, then the clustered permutation tests (``<metric>_clustered``); Holm within one
    judge, metric and question set (or the config's ``significance.correction``:
    bonferroni, fdr_bh; flags at ``significance.alpha``); 10 000 sign patterns, seed 42
    (BenchmarkQED's notebook) unless the
    config's ``significance`` section says otherwise (``permutations: 0`` leaves the permutation
    rows out, ``enabled: false`` the file).
    Metrics: ``pass_rate`` (standard), ``global_pass_rate``, ``support_level``,
    ``supporting_pass_rate``, ``discovery_rate`` (hierarchical).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._display import write_files
from assay.data.cells import write_csv_frame, write_csv_rows
from assay.data.filenames import FileNames, safe_name
from assay.judge.judges import JudgeInputs
from assay.llm import RunStore

if TYPE_CHECKING:
    import pandas as pd

    from assay.judge.plan import Plan

ALPHA = 0.05
"""Level of ``significant_diff`` in ``joint_vs_separate_by_model.csv`` (BenchmarkQED's alpha)."""


def write_qed_csvs(plan: Plan, inputs: JudgeInputs, folder: str | Path) -> list[Path]:
    """Write BenchmarkQED's CSVs of the plan's pairwise, differential and reference judges (see the
    module docstring for the files and their columns); return the files written.

    The plain score files are written with the csv module in pandas' format (pandas and the
    statistics stack load only for the comparisons of differential judges): a cached rerun
    of 10,000 judgments spends no second on imports."""
    folder = Path(folder)
    with RunStore(folder) as store:
        records = store.records()

    @functools.cache
    def judgments() -> pd.DataFrame:  # the validated table, read once if a comparison needs it
        from assay.llm import load_store

        return load_store(folder).frame

    index: dict[tuple[Any, ...], str] = {}
    for part in plan.judges:
        for r in (*part.followups, *part.requests):  # a second-stage key is the judgment's score_id
            m = r.meta
            index[
                (
                    m.get("judge"),
                    m.get("item"),
                    m.get("arm"),
                    m.get("opponent"),
                    m.get("run"),
                    m.get("criterion"),
                )
            ] = r.key
            index.setdefault(
                (m.get("judge"), m.get("item"), m.get("arm"), m.get("opponent"), m.get("run"), None), r.key
            )
    kinds = {part.judge.name: part for part in plan.judges}
    question = {item: a.question for answers in inputs.answers.values() for item, a in answers.items()}

    def shown(row: dict[str, Any]) -> dict[str, Any]:
        """answer_1_name, answer_1, answer_2_name, answer_2: the order the judge saw (empty
        for a judgment without a position)."""
        arm, opponent, position = row["arm"], row["opponent"], row.get("position")
        if position not in (1, 2, 1.0, 2.0):
            return {"answer_1_name": None, "answer_1": None, "answer_2_name": None, "answer_2": None}
        first, second = (arm, opponent) if position == 1 else (opponent, arm)

        def text(name: str) -> str | None:
            answer = inputs.answers.get(name, {}).get(row["item"])
            return None if answer is None else answer.text

        return {"answer_1_name": first, "answer_1": text(first), "answer_2_name": second,
                "answer_2": text(second)}
    pairwise: list[dict[str, Any]] = []
    reference: list[dict[str, Any]] = []
    differential: dict[str, list[dict[str, Any]]] = {}
    for row in records:
        owner = kinds.get(str(row.get("judge")))
        if owner is None or row.get("score") is None or row["score"] != row["score"]:  # None or NaN
            continue
        lookup = (row.get("judge"), row.get("item"), row.get("arm"), row.get("opponent"), row.get("run"))
        score_id = index.get((*lookup, row.get("criterion"))) or index.get((*lookup, None))
        common = {
            "score_id": score_id,
            "question": question.get(row["item"], ""),
            "criteria": row["criterion"],
        }
        if owner.kind in ("pairwise", "differential"):
            target = pairwise
            if owner.kind == "differential":
                mode = getattr(owner.judge, "mode", "joint")
                name = ("differential_pairwise_scores.csv" if mode == "joint"
                        else "separate_differential_scores.csv")
                target = differential.setdefault(name, [])
            target.append(
                {
                    "score_id": common["score_id"],
                    "question": common["question"],
                    **shown(row),
                    "criteria": common["criteria"],
                    f"{row['arm']}_score": row["score"],
                    f"{row['opponent']}_score": 1.0 - float(row["score"]),
                    "reasoning": row.get("reasoning"),
                    "trial": row["run"],
                    "base_name": row["arm"],
                    "other_name": row["opponent"],
                    "question_set": row.get("task"),
                    "judge": row["judge"],
                }
            )
        elif owner.kind == "reference":
            settings: Any = owner.judge
            reference.append(
                {
                    **common,
                    "score": row["score"],
                    "reasoning": row.get("reasoning"),
                    "trial": row["run"],
                    "reference": settings.settings.reference,
                    "generated": row["arm"],
                    "question_set": row.get("task"),
                    "judge": row["judge"],
                }
            )
    written = []
    names = FileNames()  # the per-pair files of both kinds share the folder: no name twice
    if pairwise:
        written.append(write_csv(folder / "win_rates.csv", pairwise))
        written += _per_pair_files(pairwise, folder, ("base_name", "other_name"), names, "pairwise")
    for name, rows in differential.items():
        written.append(write_csv(folder / name, rows))
    if pairwise and differential:
        import pandas as pd

        written += _original_vs_differential(plan, folder, pd.DataFrame(pairwise),
                                             pd.concat([pd.DataFrame(r) for r in differential.values()]),
                                             judgments)
    written += _joint_vs_separate(plan, folder, judgments)
    if reference:
        written.append(write_csv(folder / "reference_scores.csv", reference))
        summary = reference_summary_records(reference)
        written.append(write_csv(folder / "reference_scores_summary.csv", summary))
        written += _per_pair_files(reference, folder, ("reference", "generated"), names, "reference")
    return written


def write_csv(path: Path, records: list[dict[str, Any]], columns: list[str] | None = None) -> Path:
    """Write ``records`` as pandas writes ``pd.DataFrame(records)`` without its index.

    Columns in order of first appearance (or ``columns``), a key a record lacks and None
    written empty, floats as ``repr`` (full precision), ``\\n`` line ends, minimal quoting,
    text starting with ``= + - @``, a tab or CR prefixed with ``'`` (:mod:`assay.data.cells`).
    The records hold no NaN (a judgment without a finite score is not written).

    >>> import tempfile
    >>> path = write_csv(Path(tempfile.mkdtemp()) / "t.csv", [{"a": 1, "b": 0.5}, {"a": 2, "c": "x,y"}])
    >>> path.read_text()
    'a,b,c\\n1,0.5,\\n2,,"x,y"\\n'
    """
    if columns is None:
        columns = list(dict.fromkeys(k for record in records for k in record))
    # None -> "", float -> repr; text a spreadsheet would run as a formula gets a "'" (data.cells)
    return write_csv_rows(path, [columns, *([r.get(c) for c in columns] for r in records)])


def _per_pair_files(records: list[dict[str, Any]], folder: Path, pair: tuple[str, str],
                    names: FileNames, kind: str) -> list[Path]:
    """``{question_set}_{first}--{second}.csv`` per (question set, pair); all-empty columns (the
    score columns of other arms) dropped, the pair's score columns (if any) after ``criteria``.

    Each part of the name is :func:`~assay.data.filenames.safe_name` of its value (a value
    that is not a plain name, e.g. ``openai/gpt-4o`` or ``../x``, becomes a slug and a hash),
    and ``names`` gives no name twice: a name already taken (by the other kind of judge, or by
    two values with the same slug) becomes ``{name}.{kind}.csv``."""
    groups: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault((record.get("question_set"), record[pair[0]], record[pair[1]]), []).append(record)
    written = []
    for (qs, first, second), rows in groups.items():
        present = [c for c in dict.fromkeys(k for r in rows for k in r)
                   if any(r.get(c) is not None and r.get(c) != "" for r in rows)]
        scores = [c for c in (f"{first}_score", f"{second}_score") if c in present]
        head = [c for c in ("score_id", "question", "answer_1_name", "answer_1", "answer_2_name", "answer_2")
                if c in present]
        rest = [c for c in present if c not in scores and c not in (*head, "criteria")]
        stem = f"{'all' if _missing(qs) else safe_name(qs)}_{safe_name(first)}--{safe_name(second)}"
        name = names.claim(stem, ".csv", tag=kind)
        written.append(write_csv(folder / name, rows, [*head, "criteria", *scores, *rest]))
    return written


def reference_summary_records(reference: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean and SD per (question set, criterion, pair, judge), the SD as BenchmarkQED's
    ``summarize_reference_scores`` computes it (``np.std``: ddof 0, 0 for one score).

    Rows are sorted by question set, reference, generated, judge, then criterion (as
    BenchmarkQED's per-pair ``groupby("criteria")`` sorts criteria), never by the order the
    judgments happened to be answered in, so the same store always gives the same file.

    >>> rows = [{"question_set": "s", "criteria": c, "reference": "r", "generated": "g", "judge": "j",
    ...          "score": v} for c, v in [("z", 1), ("a", 2), ("z", 3)]]
    >>> [(r["criteria"], r["mean"], r["std"]) for r in reference_summary_records(rows)]
    [('a', 2.0, 0.0), ('z', 2.0, 1.0)]
    """
    import statistics

    keys = ("question_set", "criteria", "reference", "generated", "judge")
    groups: dict[tuple[Any, ...], list[float]] = {}
    for record in reference:
        group = tuple("" if k == "question_set" and _missing(record[k]) else record[k] for k in keys)
        groups.setdefault(group, []).append(float(record["score"]))
    return [{**dict(zip(keys, group, strict=True)), "mean": statistics.fmean(scores),
             "std": statistics.pstdev(scores)}
            for group, scores in sorted(groups.items(), key=lambda item: _summary_order(item[0]))]


def _summary_order(group: tuple[Any, ...]) -> tuple[str, ...]:
    question_set, criterion, reference, generated, judge = (str(v) for v in group)
    return question_set, reference, generated, judge, criterion


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _shared(frame: pd.DataFrame) -> pd.Series:
    """(question set, unordered pair, criterion) of each BenchmarkQED-format row, as one string."""
    low = frame[["base_name", "other_name"]].min(axis=1).astype(str)
    high = frame[["base_name", "other_name"]].max(axis=1).astype(str)
    return frame["question_set"].astype(str) + "\x1f" + low + "\x1f" + high + "\x1f" + frame["criteria"]


def _original_vs_differential(plan: Plan, folder: Path, pairwise: pd.DataFrame,
                              differential: pd.DataFrame, judgments: Callable[[], pd.DataFrame]
                              ) -> list[Path]:
    """``original_pairwise_scores.csv`` and ``original_vs_differential_comparison.csv``."""
    from assay.analysis.winrates import win_rates

    shared = set(_shared(differential))
    original = pairwise[_shared(pairwise).isin(shared)]
    if original.empty:
        return []
    path = write_csv_frame(original.dropna(axis=1, how="all"), folder / "original_pairwise_scores.csv")
    names = {p.judge.name: p.kind for p in plan.judges if p.kind in ("pairwise", "differential")}
    table = judgments()
    table = table[table["judge"].isin(list(names)) & table["opponent"].notna()]
    low = table[["arm", "opponent"]].min(axis=1).astype(str)
    high = table[["arm", "opponent"]].max(axis=1).astype(str)
    key = table["task"].astype(str) + "\x1f" + low + "\x1f" + high + "\x1f" + table["criterion"]
    report = win_rates(table[key.isin(shared)], test="auto", correction="holm-per-group", alpha=ALPHA)
    return [path, *write_files(report, folder, layout="comparison", judge_kinds=names,
                               name="original_vs_differential_comparison.csv")]


def _joint_vs_separate(plan: Plan, folder: Path, judgments: Callable[[], pd.DataFrame]) -> list[Path]:
    """``joint_vs_separate_by_model.csv``: a row per model with a joint and a separate judge."""
    modes: dict[str, dict[str, str]] = {}
    for part in plan.judges:
        if part.kind == "differential":
            judge: Any = part.judge
            modes.setdefault(str(judge.model), {}).setdefault(judge.mode, judge.name)
    pairs = {m: (d["joint"], d["separate"]) for m, d in modes.items() if {"joint", "separate"} <= set(d)}
    if not pairs:
        return []
    import numpy as np  # the statistics stack, only when there is something to compare
    import pandas as pd

    from assay.analysis.winrates import question_values, win_rates
    from assay.stats.significance import wilcoxon_signed_rank

    table = judgments()
    rows = []
    for model, (joint, separate) in pairs.items():
        mine = table[table["judge"].isin([joint, separate])]
        if not mine["score"].notna().any():
            continue
        report = win_rates(mine, alpha=ALPHA)
        found = [c for c in report.judges if {c.judge_a, c.judge_b} == {joint, separate}]
        flip = [c.judge_a != joint for c in found]
        n_trials = sum(c.n_trials for c in found)
        n = np.array([c.n for c in found], dtype=np.float64)
        wr_joint = np.array([c.win_rate_b if f else c.win_rate_a for c, f in zip(found, flip, strict=True)])
        wr_sep = np.array([c.win_rate_a if f else c.win_rate_b for c, f in zip(found, flip, strict=True)])
        values = question_values(report.trials)
        wide = values.pivot_table(index=["criterion", "arm", "opponent", "item"], columns="judge",
                                  values="value").dropna()
        p = math.nan
        if joint in wide and separate in wide and len(wide):
            d = (wide[joint] - wide[separate]).to_numpy(dtype=np.float64)
            p = 1.0 if np.allclose(d, 0.0) else wilcoxon_signed_rank(d, method="auto").p_value
        weight = n.sum()
        rows.append({
            "judge_model": model,
            "verdict_agreement": sum(c.n_agree for c in found) / n_trials if n_trials else math.nan,
            "joint_mean_wr": float(n @ wr_joint / weight) if weight else math.nan,
            "separate_mean_wr": float(n @ wr_sep / weight) if weight else math.nan,
            "overall_p_value": p,
            "significant_diff": None if math.isnan(p) else bool(p < ALPHA),
            "judge_joint": joint, "judge_separate": separate, "n_trials": n_trials,
            "n": len(wide) if joint in wide and separate in wide else 0,
        })
    if not rows:
        return []
    return [write_csv_frame(pd.DataFrame(rows), folder / "joint_vs_separate_by_model.csv")]


def write_assertion_csvs(plan: Plan, folder: str | Path, inputs: JudgeInputs | None = None) -> list[Path]:
    """Write the assertion summaries of the plan's assertion judges into the run folder, and
    ``significance_summary.csv`` when a judge scored two or more arms.

    Standard judges: ``assertion_scores_by_assertion.csv``, ``assertion_scores_by_question.csv``,
    ``assertion_scores_summary.csv`` (:func:`~assay.analysis.assertions._summaries.assertion_summary`);
    hierarchical: BenchmarkQED's single-RAG files computed as it computes them
    (:func:`~assay.analysis.assertions._qed_hierarchical.qed_hierarchical`, the texts from
    ``inputs``, else the plan's): ``hierarchical_assertion_scores.csv`` (per trial),
    ``hierarchical_assertion_summary.csv``, ``hierarchical_summary_by_question.csv``,
    ``eval_summary.json``, and assay's own ``hierarchical_scores_by_assertion.csv``,
    ``hierarchical_scores_by_question.csv``, ``hierarchical_summary.csv``; chunk-level:
    ``chunk_coverage.csv``, ``chunk_coverage_by_question.csv``. Each judge is summarised with its own
    ``pass_threshold`` (and ``top_k``, ``k_list``), the judges of one kind stacked in one file
    (the ``judge`` column tells them apart). A judge with no scored judgment is left out.
    Returns the files written.
    """
    from assay.llm import STORE_FILENAME, load_store

    folder = Path(folder)
    kinds = ("assertion", "assertion_hierarchical", "chunk_assertion")
    parts = [p for p in plan.judges if p.kind in kinds]
    if not parts or not (folder / STORE_FILENAME).is_file():
        return []
    import pandas as pd  # the statistics stack, only for a plan with assertion judges

    from assay.analysis.assertions import (
        AssertionSummary,
        ChunkCoverage,
        HierarchicalSummary,
        QedHierarchical,
        assertion_significance,
        assertion_summary,
        chunk_coverage,
        hierarchical_summary,
        qed_hierarchical,
    )

    with RunStore(folder) as store:
        if not store.counts().stored:
            return []
    frame = load_store(folder).frame
    found: dict[str, list[Any]] = {kind: [] for kind in kinds}
    qed: list[QedHierarchical] = []
    for part in parts:
        judge: Any = part.judge
        rows = frame[frame["judge"] == judge.name]
        if rows.empty or not rows["score"].notna().any():
            continue
        if part.kind == "assertion":
            found[part.kind].append(assertion_summary(rows, pass_threshold=judge.pass_threshold,
                                                      top_k=judge.top_k))
        elif part.kind == "assertion_hierarchical":
            found[part.kind].append(hierarchical_summary(rows, pass_threshold=judge.pass_threshold))
            qed.append(qed_hierarchical(rows, mode=judge.mode, pass_threshold=judge.pass_threshold,
                                        texts=_texts(inputs or plan.inputs, judge.supporting_key)))
        else:
            found[part.kind].append(chunk_coverage(rows, k_list=judge.k_list,
                                                   pass_threshold=judge.pass_threshold))

    def stack(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
        return pd.concat(list(tables), ignore_index=True)

    written: list[Path] = []
    if found["assertion"]:
        a = found["assertion"]
        written += AssertionSummary(stack(x.by_assertion for x in a), stack(x.by_question for x in a),
                                    stack(x.overall for x in a), a[0].pass_threshold,
                                    tuple(n for x in a for n in x.notes)).write_csvs(folder)
    if found["assertion_hierarchical"]:
        h = found["assertion_hierarchical"]
        written += QedHierarchical(stack(x.trials for x in qed), stack(x.aggregated for x in qed),
                                   stack(x.by_question for x in qed),
                                   tuple(d for x in qed for d in x.eval_summary),
                                   qed[0].pass_threshold).write_csvs(folder)
        written += HierarchicalSummary(stack(x.aggregated for x in h), stack(x.by_question for x in h),
                                       stack(x.overall for x in h), h[0].pass_threshold).write_csvs(folder)
    if found["chunk_assertion"]:
        c = found["chunk_assertion"]
        written += ChunkCoverage(stack(x.table for x in c), stack(x.per_question for x in c),
                                 c[0].pass_threshold).write_csvs(folder)
    tested = [*found["assertion"], *found["assertion_hierarchical"]]
    significance = plan.config.significance
    if tested and significance.enabled:
        written += assertion_significance(tested, correction="holm-per-group",
                                          alpha=significance.alpha,
                                          method=significance.correction,
                                          n_resamples=significance.permutations,
                                          seed=significance.seed).write_csvs(folder)
    return written


def _texts(inputs: JudgeInputs | None, supporting_key: str) -> Any:
    """The question, answer and assertion texts BenchmarkQED's hierarchical files show."""
    from assay.analysis.assertions import QedTexts

    if inputs is None:
        return QedTexts(supporting_key=supporting_key)
    questions = {item: a.question for answers in inputs.answers.values() for item, a in answers.items()}
    answers = {(arm, item): a.text for arm, by_item in inputs.answers.items() for item, a in by_item.items()}
    return QedTexts(questions=questions, answers=answers, assertions=dict(inputs.assertions),
                    supporting_key=supporting_key)
