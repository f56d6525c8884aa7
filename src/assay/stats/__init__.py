"""assay.stats: pure numpy/scipy statistics, 1-D arrays in, frozen result dataclasses out.

No pandas, I/O, logging or rounding. Degenerate inputs give NaN bounds, documented per
function; ``assay.analysis`` chooses the fallbacks and writes the notes.
"""

from __future__ import annotations

from assay._lazy import attach as _attach

# Loaded on first use (PEP 562): `import assay` loads neither scipy nor pandas.
__getattr__, __dir__, _lazy_all = _attach(__name__, {
    "._results": [
        "BayesResult", "BootstrapRatios", "CR2Estimate", "IntervalResult", "RatioEstimate",
        "TwoWayVariance",
    ],
    "._distributions": ["beta_ppf", "f_sf", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf"],
    ".agreement": [
        "AgreementRate",
        "AlphaResult",
        "CorrelationMatrix",
        "FlipRateResult",
        "KappaResult",
        "PairwiseAgreement",
        "ReliabilityResult",
        "agreement_rate",
        "cohen_kappa",
        "fleiss_kappa",
        "icc_agreement",
        "kendall_tau_b_matrix",
        "krippendorff_alpha",
        "mean_absolute_difference",
        "mean_spearman",
        "position_flip_rate",
        "spearman_matrix",
    ],
    ".bleu": [
        "BleuResult",
        "PairwiseBleuResult",
        "bleu_from_counts",
        "mean_pairwise_bleu",
        "sentence_bleu",
    ],
    ".calibration": ["CalibrationFit", "apply_calibration", "ols_calibration"],
    ".correlation": ["CorrelationResult", "spearman_interval"],
    ".expectation": ["ScoreExpectation", "score_expectation"],
    ".contrasts": [
        "bisect_p_value",
        "effective_pairs",
        "holm_adjust",
        "holm_stepdown",
        "max_t_critical_value",
        "mdd",
        "mover_difference_interval",
        "paired_difference_interval",
        "tango_effective_n",
        "tango_interval",
    ],
    ".intervals": [
        "bca_interval",
        "bell_mccaffrey_df",
        "beta_binomial_bayes_interval",
        "cluster_bootstrap_ratios",
        "cluster_bootstrap_weights",
        "cluster_t_interval",
        "cr2_ratio_estimate",
        "effective_clusters",
        "korn_graubard_interval",
        "pass_hat_k",
        "pass_hat_k_per_item",
        "ratio_estimate",
        "run_effect_p_value",
        "studentised_bootstrap_interval",
        "two_way_cluster_variance",
        "working_icc",
    ],
    ".leaderboard": [
        "AlpacaEvalGLMWinRate",
        "BradleyTerryFit",
        "BradleyTerryIntervals",
        "LengthControlledWinRate",
        "alpaca_eval_glm_win_rate",
        "bradley_terry",
        "bradley_terry_bootstrap",
        "length_controlled_win_rate",
    ],
    ".sampling": ["STRATEGIES", "equal_allocation", "proportional_allocation", "sample_indices"],
    ".summaries": [
        "Diversity",
        "EnsembleWeights",
        "PercentileBands",
        "RankingStability",
        "attribute_diversity",
        "equal_count_bins",
        "kendall_tau_b",
        "percentile_bands",
        "ranking_stability",
        "reliability_weights",
    ],
    ".significance": [
        "FriedmanResult",
        "NormalityResult",
        "PairedTestResult",
        "PairwiseTest",
        "PermutationResult",
        "cluster_permutation_test",
        "cluster_t_test",
        "friedman_test",
        "normality_test",
        "pairwise_wilcoxon",
        "wilcoxon_signed_rank",
    ],
})
__all__ = _lazy_all
