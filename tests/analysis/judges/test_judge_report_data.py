"""judge_agreement on realistic data, checked against direct computations on the pivoted table:
the demo simulator (judge-lenient vs judge-strict on quality; judge-ordinal's helpfulness with two
more ordinal judges made from the other judges' scores; the pairwise judge's flip rate) and the
real AlpacaEval annotations (several annotators on the same pairs).

Oracles: pingouin ICC(A,1) (unrounded CI), scipy spearmanr / kendalltau, the krippendorff
package, statsmodels' Cohen and Fleiss kappa, numpy for MAD, exact agreement and the
cluster-robust logit interval written out from its formula.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import krippendorff
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from assay.analysis.judges import judge_agreement
from assay.data.importers.alpaca_eval import import_alpaca_eval
from assay.stats.intervals import cr2_ratio_estimate


def _scored(judgments, criterion):
    f = judgments.frame
    return f[(f["criterion"] == criterion) & f["reportable"] & f["score"].notna()]


def _check_against_pivot(report, rows, index, criterion, pingouin_icc, task=None,
                         categorical=False, alpha_oracle=None):
    """Agreement and pair records of (criterion, task) against a direct computation.

    Krippendorff's alpha is checked against the krippendorff package, or against
    `alpha_oracle` (the closed form of conftest) where the package takes minutes (hundreds of
    distinct values)."""
    if task is not None:
        rows = rows[rows["task"] == task]
    wide = rows.pivot_table(index=index, columns="judge", values="score", aggfunc="first")
    rec = next(r for r in report.agreement if r.criterion == criterion and r.task == task)
    wide = wide[list(rec.judges)]
    wide = wide[wide.notna().sum(axis=1) >= 2]
    assert rec.n_units == len(wide)
    complete = wide.dropna().to_numpy()
    assert rec.n_complete_units == len(complete)
    icc, lower, upper = pingouin_icc(complete)
    assert_allclose([rec.icc, rec.icc_lower, rec.icc_upper], [icc, lower, upper], rtol=1e-8)
    for level in ("interval", "ordinal") + (("nominal",) if categorical else ()):
        expected = (alpha_oracle(wide.to_numpy(), level) if alpha_oracle is not None else
                    krippendorff.alpha(reliability_data=wide.to_numpy().T,
                                       level_of_measurement=level))
        assert_allclose(getattr(rec, f"krippendorff_alpha_{level}"), expected, rtol=1e-9)
    pairs = {(p.judge_a, p.judge_b): p for p in report.pairs
             if p.criterion == criterion and p.task == task}
    assert set(pairs) == set(itertools.combinations(rec.judges, 2))
    for (a, b), p in pairs.items():
        both = wide[[a, b]].dropna().to_numpy()
        assert p.n == len(both)
        assert_allclose(p.spearman_rho, stats.spearmanr(both[:, 0], both[:, 1]).statistic,
                        rtol=1e-9)
        assert_allclose(p.kendall_tau_b, stats.kendalltau(both[:, 0], both[:, 1]).statistic,
                        rtol=1e-9)
        assert_allclose(p.mad, np.mean(np.abs(both[:, 0] - both[:, 1])), rtol=1e-12)
        assert_allclose(p.agreement_rate, np.mean(both[:, 0] == both[:, 1]), rtol=1e-12)
        assert_allclose(p.icc, pingouin_icc(both)[0], rtol=1e-8)
    return rec, wide, pairs


# ----- demo: quality (range:0,100), lenient vs strict --------------------------------------------


@pytest.fixture(scope="module")
def demo_report(demo_judgments):
    return judge_agreement(demo_judgments)


def test_demo_quality_agreement_matches_direct_computation(demo_judgments, demo_report,
                                                           pingouin_icc, alpha_closed_form) -> None:
    rows = _scored(demo_judgments, "quality")
    for task in (None, "factoid_qa", "summarisation"):
        # the package's interval alpha takes ~5 s on these 0-100 scores: closed form here,
        # the package for the ordinal level below
        rec, wide, pairs = _check_against_pivot(demo_report, rows, ["item", "arm", "run"],
                                                "quality", pingouin_icc, task=task,
                                                alpha_oracle=alpha_closed_form)
        if task is None:
            assert_allclose(rec.krippendorff_alpha_ordinal,
                            krippendorff.alpha(reliability_data=wide.to_numpy().T,
                                               level_of_measurement="ordinal"), rtol=1e-9)
        assert rec.judges == ("judge-lenient", "judge-strict")
        assert rec.fleiss_kappa != rec.fleiss_kappa  # NaN: not categorical
        (pair,) = pairs.values()
        assert pair.cohen_kappa != pair.cohen_kappa
    # the strict judge is ~14 points harsher: rank agreement high, absolute agreement lower
    rec = demo_report.agreement[0]
    pair = demo_report.pairs[0]
    assert pair.spearman_rho > 0.7 and 10 < pair.mad < 20 and rec.icc < pair.spearman_rho


def test_demo_single_judge_criteria_are_named(demo_report) -> None:
    assert [r.criterion for r in demo_report.agreement] == ["quality"] * 3
    for criterion, judge in (("correct", "exact-match"), ("helpfulness", "judge-ordinal"),
                             ("preference", "judge-pairwise")):
        assert any(f"{criterion!r} is scored by one judge only ({judge})" in n
                   for n in demo_report.notes)


def test_demo_drift_windows_match_direct_icc(demo_judgments, demo_report, pingouin_icc) -> None:
    f = demo_judgments.frame
    order = pd.unique(f[f["reportable"] & f["score"].notna()]["item"])
    wide = _scored(demo_judgments, "quality").pivot_table(
        index=["item", "arm", "run"], columns="judge", values="score").dropna()
    have = set(wide.index.get_level_values("item"))
    items = [i for i in order if i in have]
    drift = demo_report.drift
    assert len(drift) == len(items) - 20 + 1
    for window in (1, 77, len(drift)):
        d = drift[window - 1]
        chosen = items[window - 1:window + 19]
        units = wide[wide.index.get_level_values("item").isin(chosen)].to_numpy()
        assert (d.window, d.first_item, d.last_item, d.n_units) == (
            window, chosen[0], chosen[-1], len(units))
        assert_allclose([d.icc, d.icc_lower, d.icc_upper], pingouin_icc(units), rtol=1e-8)


def test_demo_uncertain_units_match_direct_sd(demo_judgments, demo_report) -> None:
    wide = _scored(demo_judgments, "quality").pivot_table(
        index=["item", "arm", "run"], columns="judge", values="score").dropna() / 100.0
    sd = wide.std(axis=1, ddof=1)
    expected = set(sd[sd > 0.375].index)
    found = {(u.item, u.arm, u.run) for u in demo_report.uncertain_items}
    assert found == expected and len(found) > 0
    assert all(u.basis == "normalised" and u.n_judges == 2 for u in demo_report.uncertain_items)
    # a looser threshold flags more, in descending order of sd
    loose = judge_agreement(demo_judgments, uncertainty_threshold=0.2).uncertain_items
    assert len(loose) == int((sd > 0.2).sum())
    assert [u.sd for u in loose] == sorted((u.sd for u in loose), reverse=True)


def test_demo_position_flip_rate_matches_direct_count(demo_judgments, demo_report) -> None:
    f = demo_judgments.frame
    rows = f[(f["judge"] == "judge-pairwise") & f["reportable"]]
    wide = rows.pivot_table(index=["cluster", "item", "arm", "opponent", "run"],
                            columns="position", values="score", dropna=False, aggfunc="first")
    wide = wide.reindex(rows.set_index(["cluster", "item", "arm", "opponent", "run"])
                        .index.unique())
    pairs = wide.dropna()
    v1, v2 = np.sign(pairs[1] - 0.5), np.sign(pairs[2] - 0.5)
    flips = (v1 != v2).astype(float)
    (pos,) = demo_report.position
    assert (pos.judge, pos.criterion, pos.n) == ("judge-pairwise", "preference", len(pairs))
    assert pos.n_flips == int(flips.sum())
    assert pos.n_incomplete == len(rows) - 2 * len(pairs)
    assert_allclose(pos.reversal_rate, np.mean(v1 * v2 < 0), rtol=1e-12)
    # cluster-robust (CR2) logit t interval, written out: r = sum S_c / N; the hat block of
    # an intercept-only fit is 11'/N, so (I - H_cc)^(-1/2) scales a cluster's residual sum by
    # 1 / sqrt(1 - n_c / N): V = sum (S_c - r n_c)^2 / (1 - n_c / N) / N^2; bounds
    # expit(logit r -+ t_df sqrt(V) / (r (1 - r))), df Bell-McCaffrey's (oracle-tested in
    # tests/stats/intervals/test_cr2.py)
    by = flips.groupby(level="cluster")
    s, n = by.sum().to_numpy(), by.size().to_numpy()
    total = n.sum()
    r = s.sum() / total
    v = np.sum((s - r * n) ** 2 / (1 - n / total)) / total**2
    df = cr2_ratio_estimate(s, n, sumsq=s).df
    half = stats.t.ppf(0.975, df) * np.sqrt(v) / (r * (1 - r))
    logit = np.log(r / (1 - r))
    assert_allclose([pos.flip_rate, pos.lower, pos.upper],
                    [r, 1 / (1 + np.exp(-(logit - half))), 1 / (1 + np.exp(-(logit + half)))],
                    rtol=1e-10)
    # the simulated judge favours the answer shown first
    assert pos.first_shown_preference > 0.5
    assert pos.flip_rate_after != pos.flip_rate_after  # one trial pair per comparison: NaN


# ----- demo: helpfulness (ordinal) with two more ordinal judges ----------------------------------


def test_demo_ordinal_helpfulness_against_kappa_and_alpha_oracles(demo_judgments,
                                                                  pingouin_icc) -> None:
    # Two more Low/Medium/High judges on helpfulness, binned from the quality judges' scores
    # (a realistic disagreement structure on the demo's units); the strict one misses 10%.
    f = demo_judgments.frame
    extra = []
    for judge, cut, drop in (("judge-lenient", (45, 75), 0.0), ("judge-strict", (35, 65), 0.1)):
        rows = f[(f["judge"] == judge) & (f["criterion"] == "quality")].copy()
        binned = pd.Series(np.digitize(rows["score"], cut).astype(float), index=rows.index)
        rows["score"] = binned.where(rows["score"].notna())
        rows["criterion"] = "helpfulness"
        rows["judge"] = judge + "-binned"
        rows = rows[np.random.default_rng(4).random(len(rows)) >= drop]
        extra.append(rows)
    frame = pd.concat([f, *extra], ignore_index=True)
    table = replace(demo_judgments, frame=frame)
    report = judge_agreement(table)
    rows = frame[(frame["criterion"] == "helpfulness") & frame["reportable"]
                 & frame["score"].notna()]
    rec, wide, pairs = _check_against_pivot(report, rows, ["item", "arm", "run"], "helpfulness",
                                            pingouin_icc, categorical=True)
    assert rec.num_raters == 3 and rec.scale == "ordinal:Low,Medium,High"
    complete = wide.dropna().to_numpy().astype(int)
    counts = np.stack([(complete == c).sum(axis=1) for c in range(3)], axis=1)
    assert_allclose(rec.fleiss_kappa, fleiss_kappa(counts), rtol=1e-10)
    rates = []
    for (a, b), p in pairs.items():
        both = wide[[a, b]].dropna().to_numpy().astype(int)
        table3 = np.zeros((3, 3))
        np.add.at(table3, (both[:, 0], both[:, 1]), 1)
        assert_allclose(p.cohen_kappa, cohens_kappa(table3, return_results=False), rtol=1e-10)
        assert_allclose(p.cohen_kappa_linear,
                        cohens_kappa(table3, wt="linear", return_results=False), rtol=1e-10)
        assert_allclose(p.cohen_kappa_quadratic,
                        cohens_kappa(table3, wt="quadratic", return_results=False), rtol=1e-10)
        rates.append(np.mean(both[:, 0] == both[:, 1]))
    assert_allclose(rec.mean_pairwise_agreement, np.mean(rates), rtol=1e-12)
    # ordinal: drift and uncertainty on the [0, 1] scale (levels 0, 0.5, 1) apply too
    assert any(d.criterion == "helpfulness" for d in report.drift)


# ----- AlpacaEval: several annotators on the same pairs ------------------------------------------


_ALPACA: dict[str, object] = {}


@pytest.fixture
def alpaca(alpaca_results):
    """The AlpacaEval table and its report, computed once (skips when the data are absent)."""
    if "value" not in _ALPACA:
        table = import_alpaca_eval([alpaca_results])
        _ALPACA["value"] = (table, judge_agreement(table))
    return _ALPACA["value"]


def test_alpaca_agreement_matches_direct_computation(alpaca, pingouin_icc,
                                                     alpha_closed_form) -> None:
    table, report = alpaca
    rows = _scored(table, "preference")
    index = ["item", "arm", "opponent"]
    rec, _, _ = _check_against_pivot(report, rows, index, "preference", pingouin_icc,
                                     alpha_oracle=alpha_closed_form)
    # alpaca_eval_gpt4 compared the models with text_davinci_003, the others with
    # gpt4_1106_preview: different pairs, so it shares no unit and is not a rater.
    assert rec.judges == ("alpaca_eval_cot_gpt4_turbo_fn", "alpaca_eval_gpt4_turbo_fn",
                          "weighted_alpaca_eval_gpt4_turbo")
    assert any("'alpaca_eval_gpt4' share no unit" in n for n in report.notes)
    assert rec.n_units == 2 * 805 and rec.n_complete_units == 805
    assert rec.scale == "range:0,1" and rec.fleiss_kappa != rec.fleiss_kappa
    # the package where it is quick (up to ~120 distinct values), the closed form elsewhere
    for task in ("helpful_base", "vicuna"):
        _check_against_pivot(report, rows, index, "preference", pingouin_icc, task=task)
    for task in ("koala", "oasst", "selfinstruct"):
        _check_against_pivot(report, rows, index, "preference", pingouin_icc, task=task,
                             alpha_oracle=alpha_closed_form)


def test_alpaca_turbo_judges_agree_on_most_verdicts(alpaca) -> None:
    _, report = alpaca
    pair = next(p for p in report.pairs if p.task is None
                and {p.judge_a, p.judge_b} == {"alpaca_eval_cot_gpt4_turbo_fn",
                                               "alpaca_eval_gpt4_turbo_fn"})
    assert pair.n == 1610 and pair.agreement_rate > 0.85 and pair.spearman_rho > 0.5
    assert report.to_json()  # serialisable with no NaN
    assert report.position == []  # AlpacaEval has no positions
