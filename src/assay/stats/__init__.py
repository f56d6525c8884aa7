"""assay.stats: pure numpy/scipy statistics, 1-D arrays in, frozen result dataclasses out.

No pandas, I/O, logging or rounding. Degenerate inputs give NaN bounds, documented per
function; ``assay.analysis`` chooses the fallbacks and writes the notes.
"""

from assay.stats._results import BayesResult, BootstrapRatios, IntervalResult, RatioEstimate
from assay.stats.intervals import (
    beta_binomial_bayes_interval,
    cluster_bootstrap_ratios,
    cluster_t_interval,
    korn_graubard_interval,
    ratio_estimate,
    studentised_bootstrap_interval,
)
from assay.stats.multiplicity import holm_adjust, holm_stepdown, max_t_critical_value
from assay.stats.noninferiority import bisect_p_value, mdd
from assay.stats.paired import (
    effective_pairs,
    paired_difference_interval,
    tango_effective_n,
    tango_interval,
)
from assay.stats.passk import pass_hat_k, pass_hat_k_per_item
from assay.stats.resampling import bca_interval, cluster_bootstrap_weights

__all__ = [
    "BayesResult",
    "BootstrapRatios",
    "IntervalResult",
    "RatioEstimate",
    "bca_interval",
    "beta_binomial_bayes_interval",
    "bisect_p_value",
    "cluster_bootstrap_ratios",
    "cluster_bootstrap_weights",
    "cluster_t_interval",
    "effective_pairs",
    "holm_adjust",
    "holm_stepdown",
    "korn_graubard_interval",
    "max_t_critical_value",
    "mdd",
    "paired_difference_interval",
    "pass_hat_k",
    "pass_hat_k_per_item",
    "ratio_estimate",
    "studentised_bootstrap_interval",
    "tango_effective_n",
    "tango_interval",
]
