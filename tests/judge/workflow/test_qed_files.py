"""Seed 004's CSV files written after ``assay judge`` (``assay.judge.qed_files``), and the
assertion comparisons of ``assay report --kind winrate``, against the test server.

One run per module (``seed_run``): a pairwise judge on two pairs and four criteria, the
reference judge, standard and hierarchical (JOINT) assertion judges on three arms (the
reference answers are judged as a third method, so Friedman's test has three arms), and the
differential judge joint and separate under two judge models. Every expected value is worked
out here from the stored rows with pandas, with scipy and statsmodels as the oracles.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.multitest import multipletests

import assay
import assay.cli.judge  # registers ``assay judge``
from tests.judge.llm_server import Behaviour, LLMServer
from tests.judge.workflow._dataset import N_ASSERTIONS, N_QUESTIONS, QUESTION_SETS, write_dataset
from tests.judge.workflow.test_notebook_workflow import MODEL_A, MODEL_B, TRIALS, _Capture, run, write_config

pytestmark = pytest.mark.slow  # a whole judge run against the test server: about 30 s (.ci/run runs it)

DIFF_CRITERIA = ["relevance", "diversity", "comprehensiveness"]
ARMS = ("vector_rag", "graph_rag", "reference")
OTHERS = ("graph_rag", "reference")
SUMMARY_COLUMNS = ["metric", "level", "test_name", "group1", "group2", "statistic", "p_value",
                   "is_significant", "group1_mean", "group2_mean", "formatted_p_value",
                   "question_set", "judge", "n", "p_value_raw"]
MC_TOLERANCE = 4 * math.sqrt(0.25 / 10_000) + 1 / 10_000  # Monte Carlo error of 10 000 sign patterns


def _judges() -> list[dict[str, Any]]:
    diff = {"kind": "differential", "base": "vector_rag", "others": ["graph_rag"], "trials": TRIALS}
    return [
        {"kind": "pairwise", "base": "vector_rag", "others": list(OTHERS), "trials": TRIALS,
         "criteria": [*DIFF_CRITERIA, "empowerment"]},
        {"kind": "reference", "label": "reference", "reference": "inputs", "trials": TRIALS,
         "criteria": ["correctness"]},
        {"kind": "assertion", "label": "assert", "trials": TRIALS, "question_sets": ["data_local"]},
        {"kind": "assertion_hierarchical", "label": "hjoint", "mode": "joint", "trials": TRIALS,
         "question_sets": ["data_global"]},
        {**diff, "label": "diff-joint", "mode": "joint"},
        {**diff, "label": "diff-separate", "mode": "separate"},
        {**diff, "label": "diff-joint", "mode": "joint", "model": MODEL_B},
        {**diff, "label": "diff-separate", "mode": "separate", "model": MODEL_B},
    ]


@dataclass(frozen=True)
class SeedRun:
    folder: Path
    report: Path
    table: pd.DataFrame
    report_text: str


@pytest.fixture(scope="module")
def seed_run(_server: LLMServer, tmp_path_factory: pytest.TempPathFactory) -> SeedRun:
    tmp = tmp_path_factory.mktemp("seed_outputs")
    data = write_dataset(tmp / "data")
    config = write_config(tmp, data, _server.url, _judges())
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["inputs"]["methods"] = list(ARMS)  # the reference answers as a third method
    del settings["inputs"]["retrieval_path"]  # no chunk-level judge here
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    folder, report = tmp / "run", tmp / "report"
    _server.reset(Behaviour())
    capture = _Capture()
    with capture:
        assert run(["judge", str(config), "--out", str(folder), "--display", "plain"]) == 0
        assert run(["report", str(folder), "--kind", "winrate", "--format", "json,text",
                    "--out", str(report)]) == 0
    return SeedRun(folder, report, assay.load(folder).frame, capture.outputs[0])


def _rows(table: pd.DataFrame, judge: str, criterion: str | None = None) -> pd.DataFrame:
    rows = table[table["judge"] == judge]
    return rows if criterion is None else rows[rows["criterion"] == criterion]


# ---------------------------------------------------------------------------------------------
def test_per_pair_files_hold_each_pairs_rows(seed_run):
    folder, t = seed_run.folder, seed_run.table
    everything = pd.read_csv(folder / "win_rates.csv")
    reference = pd.read_csv(folder / "reference_scores.csv")
    expected = {f"{qs}_vector_rag--{o}.csv" for qs in QUESTION_SETS for o in OTHERS}
    expected |= {f"{qs}_inputs--{a}.csv" for qs in QUESTION_SETS for a in ARMS}
    assert {p.name for p in folder.glob("*--*.csv")} == expected
    stored = _rows(t, MODEL_A)
    for qs, other in itertools.product(QUESTION_SETS, OTHERS):
        part = pd.read_csv(folder / f"{qs}_vector_rag--{other}.csv")
        assert list(part.columns) == ["score_id", "question", "answer_1_name", "answer_1",
                                      "answer_2_name", "answer_2", "criteria", "vector_rag_score",
                                      f"{other}_score", "reasoning", "trial", "base_name",
                                      "other_name", "question_set", "judge"]
        assert len(part) == N_QUESTIONS * 4 * TRIALS  # 4 criteria
        assert (part["vector_rag_score"] + part[f"{other}_score"] == 1.0).all()
        subset = everything[(everything["question_set"] == qs) & (everything["other_name"] == other)]
        assert sorted(part["score_id"]) == sorted(subset["score_id"])
        mine = stored[(stored["task"] == qs) & (stored["opponent"] == other)]
        for criterion, rows in part.groupby("criteria"):
            want = mine[mine["criterion"] == criterion]["score"]
            assert sorted(rows["vector_rag_score"]) == sorted(want)
    judge = f"{MODEL_A}/reference"
    for qs, arm in itertools.product(QUESTION_SETS, ARMS):
        part = pd.read_csv(folder / f"{qs}_inputs--{arm}.csv")
        assert list(part.columns) == list(reference.columns)
        assert set(part["generated"]) == {arm} and set(part["reference"]) == {"inputs"}
        want = _rows(t, judge, "correctness")
        want = want[(want["task"] == qs) & (want["arm"] == arm)]["score"]
        assert len(part) == N_QUESTIONS * TRIALS
        assert sorted(part["score"]) == sorted(want)


def test_original_pairwise_scores_are_the_pairs_the_differential_judge_scored(seed_run):
    original = pd.read_csv(seed_run.folder / "original_pairwise_scores.csv")
    # only the pair and criteria the differential judges scored: not 'reference', not empowerment
    assert set(original["other_name"]) == {"graph_rag"}
    assert set(original["criteria"]) == set(DIFF_CRITERIA)
    assert set(original["judge"]) == {MODEL_A}
    assert "reference_score" not in original.columns
    assert len(original) == len(QUESTION_SETS) * N_QUESTIONS * len(DIFF_CRITERIA) * TRIALS
    stored = _rows(seed_run.table, MODEL_A)
    for (qs, criterion), rows in original.groupby(["question_set", "criteria"]):
        want = stored[(stored["task"] == qs) & (stored["criterion"] == criterion)
                      & (stored["opponent"] == "graph_rag")]
        assert sorted(rows["vector_rag_score"]) == sorted(want["score"])


def _question_win_rates(rows: pd.DataFrame) -> np.ndarray:
    """The base's question-level win rate: its trials averaged per question (one position per run)."""
    return rows.groupby("item")["score"].mean().to_numpy(dtype=float)


def _auto_p(x: np.ndarray) -> tuple[str, float] | None:
    """Seed 004's test of win rate = 1/2: Shapiro-Wilk, then the t test or Wilcoxon's."""
    if np.ptp(x) == 0:
        return None  # constant: no normality check (the report's documented fallback)
    if stats.shapiro(x).pvalue > 0.05:
        return "cluster_robust_t", float(stats.ttest_1samp(x, 0.5).pvalue)
    d = x - 0.5
    if not d.any():
        return "wilcoxon_signed_rank", 1.0
    return "wilcoxon_signed_rank", float(stats.wilcoxon(d, zero_method="wilcox", correction=False,
                                                         method="approx").pvalue)


def test_original_vs_differential_comparison_by_hand(seed_run):
    comparison = pd.read_csv(seed_run.folder / "original_vs_differential_comparison.csv")
    for column in ("question_set", "criteria", "base_name", "other_name", "other_mean_original",
                   "other_mean_differential", "formatted_corrected_p_value_original",
                   "formatted_corrected_p_value_differential", "winrate_delta"):
        assert column in comparison.columns
    differential = [f"{m}/diff-{mode}" for m in (MODEL_A, MODEL_B) for mode in ("joint", "separate")]
    # every question set and all together, every criterion, the pairwise judge against each
    assert len(comparison) == (len(QUESTION_SETS) + 1) * len(DIFF_CRITERIA) * len(differential)
    assert set(comparison["judge_original"]) == {MODEL_A}
    assert set(comparison["judge_differential"]) == set(differential)
    t = seed_run.table
    checked_p = 0
    for _, row in comparison.iterrows():
        assert (row["base_name"], row["other_name"]) == ("vector_rag", "graph_rag")
        for side, judge in (("original", MODEL_A), ("differential", row["judge_differential"])):
            rows = _rows(t, judge, row["criteria"])
            rows = rows[rows["opponent"] == "graph_rag"]
            if row["question_set"] != "ALL":
                rows = rows[rows["task"] == row["question_set"]]
            x = _question_win_rates(rows)
            assert row[f"n_{side}"] == len(x)
            assert row[f"other_mean_{side}"] == pytest.approx(1 - x.mean(), abs=1e-12)
            assert row[f"base_mean_{side}"] == pytest.approx(x.mean(), abs=1e-12)
            expected = _auto_p(x)
            if expected is not None:
                assert row[f"test_{side}"] == expected[0]
                assert row[f"p_value_{side}"] == pytest.approx(expected[1], rel=1e-9)
                # one pair per (judge, criterion, question set): Holm leaves the p-value alone
                assert row[f"corrected_p_value_{side}"] == pytest.approx(expected[1], rel=1e-9)
                checked_p += 1
        assert row["winrate_delta"] == pytest.approx(
            row["other_mean_differential"] - row["other_mean_original"], abs=1e-12)
    assert checked_p > len(comparison)  # most p-values were checked against scipy


def test_joint_vs_separate_by_model_follows_the_seed_recipe(seed_run):
    table = pd.read_csv(seed_run.folder / "joint_vs_separate_by_model.csv")
    assert list(table.columns[:6]) == ["judge_model", "verdict_agreement", "joint_mean_wr",
                                       "separate_mean_wr", "overall_p_value", "significant_diff"]
    assert list(table["judge_model"]) == [MODEL_A, MODEL_B]
    t = seed_run.table
    trial = ["task", "item", "criterion", "run"]
    for _, row in table.iterrows():
        model = row["judge_model"]
        joint = _rows(t, f"{model}/diff-joint")[[*trial, "score"]]
        separate = _rows(t, f"{model}/diff-separate")[[*trial, "score"]]
        # the seed: merge the two on (question set, question, criterion, trial), equal base scores
        merged = joint.merge(separate, on=trial, suffixes=("_joint", "_separate"))
        assert row["n_trials"] == len(merged) == len(QUESTION_SETS) * N_QUESTIONS * 3 * TRIALS
        agree = (merged["score_joint"] == merged["score_separate"]).mean()
        assert row["verdict_agreement"] == pytest.approx(agree, abs=1e-12)
        # unit of the test: (question set, question, criterion), trials averaged
        unit = ["task", "item", "criterion"]
        a = joint.groupby(unit)["score"].mean()
        b = separate.groupby(unit)["score"].mean().loc[a.index]
        assert row["n"] == len(a)
        assert row["joint_mean_wr"] == pytest.approx(a.mean(), abs=1e-12)
        assert row["separate_mean_wr"] == pytest.approx(b.mean(), abs=1e-12)
        diff = (b - a).to_numpy()
        p = 1.0 if np.allclose(diff, 0.0) else stats.wilcoxon(a.to_numpy(), b.to_numpy()).pvalue
        assert row["overall_p_value"] == pytest.approx(p, rel=1e-9)
        assert bool(row["significant_diff"]) == (p < 0.05)


def _standard_pass_rates(table: pd.DataFrame) -> pd.DataFrame:
    """Per-question pass rate of the standard judge, by hand: an assertion passes when its mean
    over trials exceeds 0.5. Rows: question, columns: arms."""
    rows = _rows(table, f"{MODEL_A}/assert", "assertion")
    passed = rows.groupby(["arm", "cluster", "item"])["score"].mean() > 0.5
    return passed.groupby(level=["cluster", "arm"]).mean().unstack("arm")


def _hjoint_global_pass_rates(table: pd.DataFrame) -> pd.DataFrame:
    """Per-question global pass rate of the JOINT hierarchical judge, by hand (seed 004's rule: a
    global passes on its trial mean, unless no supporting assertion passed and no discovery)."""
    judge = f"{MODEL_A}/hjoint"
    glob = _rows(table, judge, "global_assertion")
    raw = glob.groupby(["arm", "item"])["score"].mean() > 0.5
    sup = _rows(table, judge, "supporting_assertion")
    sup = sup.assign(parent=sup["item"].str.split("/").str[0])
    sup_passed = (sup.groupby(["arm", "parent", "item"])["score"].mean() > 0.5).groupby(
        level=["arm", "parent"]).sum()
    disc = _rows(table, judge, "discovery").groupby(["arm", "item"])["score"].mean() > 0.5
    rows = []
    for (arm, item), passed in raw.items():
        support = int(sup_passed.get((arm, item), 0))
        discovery = bool(passed and disc.get((arm, item), False))
        rows.append({"arm": arm, "question": item.split("#")[0],
                     "pass": bool(passed and (support > 0 or discovery))})
    return pd.DataFrame(rows).groupby(["question", "arm"])["pass"].mean().unstack("arm")


def _exact_sign_flip(d: np.ndarray) -> float:
    """Exact p-value of the sign-flip test of the mean of d (one cluster per value)."""
    total = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= total - 1e-12 for s in itertools.product([-1.0, 1.0], repeat=d.size))
    return hits / 2 ** d.size


def _check_metric(summary: pd.DataFrame, judge: str, metric: str, wide: pd.DataFrame,
                  counts: pd.Series | None) -> None:
    """The omnibus, pairwise and clustered rows of one metric against scipy and statsmodels."""
    rows = summary[(summary["judge"] == judge) & (summary["metric"] == metric)]
    arms = list(wide.columns)
    omnibus = rows[rows["level"] == "omnibus"]
    assert len(omnibus) == (1 if len(arms) >= 3 else 0)
    if len(arms) >= 3 and wide.nunique(axis=1).gt(1).any():
        f = stats.friedmanchisquare(*(wide[a].to_numpy() for a in arms))
        assert_allclose(omnibus[["statistic", "p_value"]].iloc[0], [f.statistic, f.pvalue], rtol=1e-9)
        assert omnibus["test_name"].iloc[0] == "friedman"
    pairs = rows[rows["level"] == "pairwise"]
    assert len(pairs) == len(arms) * (len(arms) - 1) // 2
    raw = []
    for _, r in pairs.iterrows():
        d = (wide[r["group1"]] - wide[r["group2"]]).to_numpy()
        p = 1.0 if not d.any() else stats.wilcoxon(d, zero_method="wilcox", correction=False,
                                                    method="approx").pvalue
        raw.append(p)
        assert r["group1_mean"] == pytest.approx(wide[r["group1"]].mean(), abs=1e-12)
        assert r["group2_mean"] == pytest.approx(wide[r["group2"]].mean(), abs=1e-12)
        assert r["n"] == len(wide)
    assert_allclose(pairs["p_value_raw"], raw, rtol=1e-9)
    assert_allclose(pairs["p_value"], multipletests(raw, method="holm")[1], rtol=1e-9)
    clustered = summary[(summary["judge"] == judge) & (summary["metric"] == f"{metric}_clustered")]
    assert len(clustered) == len(pairs)
    for _, r in clustered.iterrows():
        d = (wide[r["group1"]] - wide[r["group2"]]).to_numpy()
        w = np.ones_like(d) if counts is None else counts.loc[wide.index].to_numpy(dtype=float)
        # assertion-level statistic: each question weighs as many assertions as it has
        assert r["statistic"] == pytest.approx((w * d).sum() / w.sum(), abs=1e-12)
        assert abs(r["p_value_raw"] - _exact_sign_flip(w * d)) < MC_TOLERANCE
    assert_allclose(clustered["p_value"], multipletests(clustered["p_value_raw"], method="holm")[1],
                    rtol=1e-9)


def test_significance_summary_against_scipy_and_statsmodels(seed_run):
    summary = pd.read_csv(seed_run.folder / "significance_summary.csv", keep_default_na=False,
                          na_values=[""])
    assert list(summary.columns) == SUMMARY_COLUMNS
    t = seed_run.table
    standard = _standard_pass_rates(t)
    assert standard.shape == (N_QUESTIONS, len(ARMS))
    counts = pd.Series(N_ASSERTIONS, index=standard.index)
    _check_metric(summary, f"{MODEL_A}/assert", "pass_rate", standard, counts)
    assert set(summary[summary["judge"] == f"{MODEL_A}/assert"]["question_set"]) == {"data_local"}
    hjoint = f"{MODEL_A}/hjoint"
    glob = _hjoint_global_pass_rates(t)
    _check_metric(summary, hjoint, "global_pass_rate", glob, pd.Series(N_ASSERTIONS, index=glob.index))
    # the other hierarchical metrics from the per-question table (checked in test_notebook_workflow)
    by_q = pd.read_csv(seed_run.folder / "hierarchical_scores_by_question.csv")  # assay's (real ids)
    by_q = by_q[by_q["judge"] == hjoint]
    support = by_q.pivot(index="question", columns="arm", values="avg_support_level")
    _check_metric(summary, hjoint, "support_level", support, pd.Series(N_ASSERTIONS, index=support.index))
    # the clustered statistic weighs a question by its supporting assertions (JOINT: every arm
    # has all of them)
    supporting = by_q.pivot(index="question", columns="arm", values="supporting_pass_rate")
    n_supporting = by_q.groupby("question")["n_supporting_unique"].agg(["min", "max"])
    assert (n_supporting["min"] == n_supporting["max"]).all()
    _check_metric(summary, hjoint, "supporting_pass_rate", supporting, n_supporting["min"])
    discovery = by_q.assign(rate=by_q["n_with_discovery"] / by_q["assertions_total"])
    discovery = discovery.pivot(index="question", columns="arm", values="rate")
    _check_metric(summary, hjoint, "discovery_rate", discovery,
                  pd.Series(N_ASSERTIONS, index=discovery.index))
    metrics = {"global_pass_rate", "support_level", "supporting_pass_rate", "discovery_rate"}
    assert set(summary[summary["judge"] == hjoint]["metric"]) == metrics | {f"{m}_clustered" for m in metrics}
    ok = summary[summary["p_value"].notna()]
    assert (ok["is_significant"].astype(str) == (ok["p_value"] < 0.05).astype(str)).all()


def test_report_winrate_includes_the_assertion_comparisons(seed_run):
    assert (seed_run.report / "winrates.json").is_file()
    data = json.loads((seed_run.report / "assertions.json").read_text())
    assert (data["correction"], data["n_resamples"], data["seed"]) == ("holm", 10_000, 42)
    standard = _standard_pass_rates(seed_run.table)
    (friedman,) = [f for f in data["friedman"]
                   if (f["judge"], f["metric"]) == (f"{MODEL_A}/assert", "pass_rate")]
    oracle = stats.friedmanchisquare(*(standard[a].to_numpy() for a in friedman["arms"]))
    assert_allclose([friedman["statistic"], friedman["p_value"]], [oracle.statistic, oracle.pvalue],
                    rtol=1e-9)
    pairs = [p for p in data["pairs"] if (p["judge"], p["metric"]) == (f"{MODEL_A}/assert", "pass_rate")]
    assert len(pairs) == 3
    raw = []
    for p in pairs:
        d = (standard[p["arm"]] - standard[p["opponent"]]).to_numpy()
        raw.append(1.0 if not d.any() else stats.wilcoxon(d, zero_method="wilcox", correction=False,
                                                          method="approx").pvalue)
        assert p["mean_arm"] == pytest.approx(standard[p["arm"]].mean(), abs=1e-12)
    assert_allclose([p["wilcoxon_p_value"] for p in pairs], raw, rtol=1e-9)
    assert_allclose([p["wilcoxon_p_adjusted"] for p in pairs], multipletests(raw, method="holm")[1],
                    rtol=1e-9)
    text = seed_run.report_text
    assert "Assertion scores compared across arms" in text
    assert f"{MODEL_A}/assert / pass_rate" in text and "Friedman" in text
    assert f"{MODEL_A}/hjoint / global_pass_rate" in text
