"""assay.stats: pure numpy/scipy statistics, 1-D arrays in, frozen result dataclasses out.

No pandas, I/O, logging or rounding. Degenerate inputs give NaN bounds, documented per
function; ``assay.analysis`` chooses the fallbacks and writes the notes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
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
    from assay.stats.cluster_bootstrap import cluster_bootstrap_ratios, studentised_bootstrap_interval
    from assay.stats.intervals import (
        beta_binomial_bayes_interval,
        cluster_t_interval,
        korn_graubard_interval,
        ratio_estimate,
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

# Loaded on first use (PEP 562): importing one module (assay.stats.bleu, say) does not load
# scipy through every other.
_LAZY = {
    "BayesResult": "assay.stats._results",
    "BootstrapRatios": "assay.stats._results",
    "IntervalResult": "assay.stats._results",
    "RatioEstimate": "assay.stats._results",
    "AgreementRate": "assay.stats.agreement",
    "AlphaResult": "assay.stats.agreement",
    "CorrelationMatrix": "assay.stats.agreement",
    "FlipRateResult": "assay.stats.agreement",
    "KappaResult": "assay.stats.agreement",
    "agreement_rate": "assay.stats.agreement",
    "cohen_kappa": "assay.stats.agreement",
    "fleiss_kappa": "assay.stats.agreement",
    "kendall_tau_b_matrix": "assay.stats.agreement",
    "krippendorff_alpha": "assay.stats.agreement",
    "position_flip_rate": "assay.stats.agreement",
    "spearman_matrix": "assay.stats.agreement",
    "BleuResult": "assay.stats.bleu",
    "PairwiseBleuResult": "assay.stats.bleu",
    "bleu_from_counts": "assay.stats.bleu",
    "mean_pairwise_bleu": "assay.stats.bleu",
    "sentence_bleu": "assay.stats.bleu",
    "CalibrationFit": "assay.stats.calibration",
    "apply_calibration": "assay.stats.calibration",
    "ols_calibration": "assay.stats.calibration",
    "beta_binomial_bayes_interval": "assay.stats.intervals",
    "cluster_bootstrap_ratios": "assay.stats.cluster_bootstrap",
    "cluster_t_interval": "assay.stats.intervals",
    "korn_graubard_interval": "assay.stats.intervals",
    "ratio_estimate": "assay.stats.intervals",
    "studentised_bootstrap_interval": "assay.stats.cluster_bootstrap",
    "holm_adjust": "assay.stats.multiplicity",
    "holm_stepdown": "assay.stats.multiplicity",
    "max_t_critical_value": "assay.stats.multiplicity",
    "bisect_p_value": "assay.stats.noninferiority",
    "mdd": "assay.stats.noninferiority",
    "effective_pairs": "assay.stats.paired",
    "paired_difference_interval": "assay.stats.paired",
    "tango_effective_n": "assay.stats.paired",
    "tango_interval": "assay.stats.paired",
    "pass_hat_k": "assay.stats.passk",
    "pass_hat_k_per_item": "assay.stats.passk",
    "PermutationResult": "assay.stats.permutation",
    "cluster_permutation_test": "assay.stats.permutation",
    "PairwiseAgreement": "assay.stats.reliability",
    "ReliabilityResult": "assay.stats.reliability",
    "icc_agreement": "assay.stats.reliability",
    "mean_absolute_difference": "assay.stats.reliability",
    "mean_spearman": "assay.stats.reliability",
    "bca_interval": "assay.stats.resampling",
    "cluster_bootstrap_weights": "assay.stats.resampling",
    "FriedmanResult": "assay.stats.significance",
    "NormalityResult": "assay.stats.significance",
    "PairedTestResult": "assay.stats.significance",
    "PairwiseTest": "assay.stats.significance",
    "cluster_t_test": "assay.stats.significance",
    "friedman_test": "assay.stats.significance",
    "normality_test": "assay.stats.significance",
    "pairwise_wilcoxon": "assay.stats.significance",
    "wilcoxon_signed_rank": "assay.stats.significance",
}

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


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
