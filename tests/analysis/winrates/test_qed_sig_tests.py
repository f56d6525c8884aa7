"""``winrates_sig_tests.csv`` is BenchmarkQED's ``analyze_criteria``: its test choice, its
statistic, its correction family, its rows; assay's own tests go to
``winrates_cluster_tests.csv``. Oracle: benchmark_qed's own function on the same scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.multitest import multipletests

from assay.analysis.winrates import win_rates
from assay.report.files import CRITERIA_COLUMNS, criteria_rows

from ._qed_oracle import qed, quietly


def qed_scores(seed: int = 3, n_q: int = 12, trials: int = 4, sets=("local", "global"),
               others=("graph", "lazy", "drift"),
               criteria=("comprehensiveness", "diversity")) -> pd.DataFrame:
    """A ``win_rates.csv`` as BenchmarkQED writes it: base ``vector`` against each other method."""
    rng = np.random.default_rng(seed)
    rows = []
    for qs in sets:
        for other in others:
            bias = rng.uniform(0.3, 0.7)
            for q in range(n_q):
                for c in criteria:
                    for t in range(trials):
                        u = rng.random()
                        s = 1.0 if u < bias * 0.8 else (0.5 if u < bias * 0.8 + 0.2 else 0.0)
                        a1, a2 = ("vector", other) if t % 2 == 0 else (other, "vector")
                        rows.append({"score_id": f"{qs}-{other}-{q}-{c}-{t}",
                                     "question": f"{qs} question {q}?",
                                     "answer_1_name": a1, "answer_1": "x", "answer_2_name": a2,
                                     "answer_2": "y", "criteria": c, "vector_score": s,
                                     f"{other}_score": 1 - s, "reasoning": "r", "trial": t,
                                     "base_name": "vector", "other_name": other, "question_set": qs})
    return pd.DataFrame(rows)


def as_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The same trials as judgments-table rows, as a judge run stores them (arm = the base)."""
    return pd.DataFrame({
        "item": scores["question"], "cluster": scores["question"], "arm": scores["base_name"],
        "opponent": scores["other_name"],
        "position": np.where(scores["answer_1_name"] == scores["base_name"], 1, 2),
        "run": scores["trial"] // 2 + 1, "judge": "j", "criterion": scores["criteria"],
        "score": [r[f"{r['base_name']}_score"] for _, r in scores.iterrows()],
        "task": scores["question_set"]})


KEYS = ["question_set", "criteria", "base_name", "other_name"]


def test_the_file_is_benchmark_qeds_analyze_criteria():
    scores = qed_scores()
    want = quietly(qed("autoe.pairwise.scores").analyze_criteria, scores, alpha=0.05)
    got = criteria_rows(win_rates(as_table(scores)))
    assert list(got.columns[:18]) == list(want.columns)
    merged = want.merge(got, on=KEYS, suffixes=("_qed", ""), validate="one_to_one")
    assert len(merged) == len(want) == len(got) == 12
    assert set(want["test"]) == {"wilcoxon", "paired t-test"}  # both branches are exercised
    for column in ("base_mean", "shapiro_base", "other_mean", "shapiro_other", "p_value", "statistic",
                   "corrected_p_value"):
        assert_allclose(merged[column].astype(float), merged[f"{column}_qed"].astype(float), rtol=1e-10,
                        err_msg=column)
    for column in ("base_normal", "other_normal", "test", "uncorrected_significance", "formatted_p_value",
                   "corrected_significance", "formatted_corrected_p_value"):
        assert merged[column].tolist() == merged[f"{column}_qed"].tolist(), column


def test_written_under_its_name_with_assays_tests_beside_it(tmp_path):
    scores = qed_scores(seed=5, others=("graph", "lazy"))
    win_rates(as_table(scores)).write_csvs(tmp_path)
    written = pd.read_csv(tmp_path / "winrates_sig_tests.csv", keep_default_na=False, na_values=[""])
    assert list(written.columns) == CRITERIA_COLUMNS
    assert set(written["question_set"]) == {"local", "global"}  # no ALL rows
    assert set(written["base_name"]) == {"vector"}
    want = quietly(qed("autoe.pairwise.scores").analyze_criteria, scores, alpha=0.05)
    merged = want.merge(written, on=KEYS, suffixes=("_qed", ""))
    assert len(merged) == len(want) == len(written)
    assert_allclose(merged["corrected_p_value"], merged["corrected_p_value_qed"].astype(float), rtol=1e-10)
    ours = pd.read_csv(tmp_path / "winrates_cluster_tests.csv")
    assert ours["method"].notna().all() and ours["correction"].str.startswith("holm").all()


def test_hand_worked_wilcoxon_z_and_holm_per_question_set():
    # question-level win rates of the base 1, 1, 0.5, 1, 0 in question set "a" and the same in
    # "b": Shapiro-Wilk p = 0.046 < 0.05, so Wilcoxon: d = 2x - 1 = (1, 1, 0, 1, -1), the zero
    # dropped, |d| ranks all 2.5, min(W+, W-) = 2.5, E = 4*5/4 = 5, sd^2 = 4*5*9/24 -
    # (4^3 - 4)/48 = 6.25, z = (2.5 - 5)/2.5 = -1, p = 2(1 - Phi(1)) = 0.317311. One pair per
    # question set: Holm within the question set leaves p as it is (over both sets it would
    # double it).
    rows = []
    for task in ("a", "b"):
        for q, value in enumerate([1.0, 1.0, 0.5, 1.0, 0.0]):
            rows.append({"item": f"{task}{q}", "cluster": f"{task}{q}", "arm": "base", "opponent": "other",
                         "position": 1, "run": 1, "judge": "j", "criterion": "c", "score": value,
                         "task": task})
    got = criteria_rows(win_rates(pd.DataFrame(rows)))
    assert got["question_set"].tolist() == ["a", "b"]
    assert got["test"].tolist() == ["wilcoxon", "wilcoxon"]
    assert_allclose(got["statistic"], [-1.0, -1.0], rtol=1e-12)
    assert_allclose(got["p_value"], [0.31731050786291415] * 2, rtol=1e-12)
    assert_allclose(got["corrected_p_value"], got["p_value"], rtol=1e-12)
    assert got["base_mean"].tolist() == [0.7, 0.7]


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_the_correction_runs_within_each_question_set_and_criterion(method):
    table = as_table(qed_scores(seed=11))
    got = criteria_rows(win_rates(table, criteria_correction=method, alpha=0.1))
    for _, family in got.groupby(["question_set", "criteria"]):
        assert len(family) == 3
        assert_allclose(family["corrected_p_value"], multipletests(family["p_value"], method=method)[1],
                        rtol=1e-12)
        assert (family["corrected_significance"] == (family["corrected_p_value"] < 0.1)).all()
