"""Intervals for a proportion or a mean over clustered items: the ratio estimator, the
cluster-robust t (CR1, and CR2 with Bell-McCaffrey degrees of freedom), the effective
number of clusters, Korn-Graubard (Clopper-Pearson, Wilson, mid-p and Jeffreys on n*), the
beta-binomial Bayes interval, the cluster bootstrap (percentile, BCa, studentised) and pass^k.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._analytic": ["cluster_t_interval", "korn_graubard_interval", "korn_graubard_wilson_interval",
                     "ratio_estimate"],
    "._bayes": ["beta_binomial_bayes_interval"],
    "._effective_n": ["korn_graubard_jeffreys_interval", "korn_graubard_midp_interval"],
    "._cr2": [
        "bell_mccaffrey_df",
        "cr2_ratio_estimate",
        "effective_clusters",
        "working_icc",
    ],
    "._cr2_factors": ["CR2FactorsEstimate", "cr2_weighted_means"],
    "._runs": [
        "run_effect_p_value",
        "run_inclusive_df",
        "run_variance_component",
        "two_way_cluster_variance",
    ],
    "._bootstrap": ["cluster_bootstrap_ratios", "studentised_bootstrap_interval"],
    "._passk": ["pass_hat_k", "pass_hat_k_per_item"],
    "._resampling": ["bca_interval", "cluster_bootstrap_weights"],
})
