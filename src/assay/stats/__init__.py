"""assay.stats: pure numpy/scipy statistics, 1-D arrays in, frozen result dataclasses out.

No pandas, I/O, logging or rounding. Degenerate inputs give NaN bounds, documented per
function; ``assay.analysis`` chooses the fallbacks and writes the notes.
"""

from assay.stats._results import BayesResult, BootstrapRatios, IntervalResult, RatioEstimate
from assay.stats.agreement import (
    AgreementRate,
    AlphaResult,
    CorrelationMatrix,
    FlipRateResult,
    KappaResult,
    agreement_rate,
    cohen_kappa,
    fleiss_kappa,
    kendall_tau_b_matrix,
    krippendorff_alpha,
    position_flip_rate,
    spearman_matrix,
)
from assay.stats.bleu import (
    BleuResult,
    PairwiseBleuResult,
    bleu_from_counts,
    mean_pairwise_bleu,
    sentence_bleu,
)
from assay.stats.calibration import CalibrationFit, apply_calibration, ols_calibration
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
from assay.stats.permutation import PermutationResult, cluster_permutation_test
from assay.stats.reliability import (
    PairwiseAgreement,
    ReliabilityResult,
    icc_agreement,
    mean_absolute_difference,
    mean_spearman,
)
from assay.stats.resampling import bca_interval, cluster_bootstrap_weights
from assay.stats.significance import (
    FriedmanResult,
    NormalityResult,
    PairedTestResult,
    PairwiseTest,
    cluster_t_test,
    friedman_test,
    normality_test,
    pairwise_wilcoxon,
    wilcoxon_signed_rank,
)

__all__ = [
    "AgreementRate",
    "AlphaResult",
    "BayesResult",
    "BleuResult",
    "BootstrapRatios",
    "CalibrationFit",
    "CorrelationMatrix",
    "FlipRateResult",
    "FriedmanResult",
    "IntervalResult",
    "KappaResult",
    "NormalityResult",
    "PairedTestResult",
    "PairwiseAgreement",
    "PairwiseBleuResult",
    "PairwiseTest",
    "PermutationResult",
    "RatioEstimate",
    "ReliabilityResult",
    "agreement_rate",
    "apply_calibration",
    "bca_interval",
    "beta_binomial_bayes_interval",
    "bisect_p_value",
    "bleu_from_counts",
    "cluster_bootstrap_ratios",
    "cluster_bootstrap_weights",
    "cluster_permutation_test",
    "cluster_t_interval",
    "cluster_t_test",
    "cohen_kappa",
    "effective_pairs",
    "fleiss_kappa",
    "friedman_test",
    "holm_adjust",
    "holm_stepdown",
    "icc_agreement",
    "kendall_tau_b_matrix",
    "korn_graubard_interval",
    "krippendorff_alpha",
    "max_t_critical_value",
    "mdd",
    "mean_absolute_difference",
    "mean_pairwise_bleu",
    "mean_spearman",
    "normality_test",
    "ols_calibration",
    "paired_difference_interval",
    "pairwise_wilcoxon",
    "pass_hat_k",
    "pass_hat_k_per_item",
    "position_flip_rate",
    "ratio_estimate",
    "sentence_bleu",
    "spearman_matrix",
    "studentised_bootstrap_interval",
    "tango_effective_n",
    "tango_interval",
    "wilcoxon_signed_rank",
]
