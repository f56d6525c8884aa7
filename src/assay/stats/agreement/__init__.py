"""Agreement between raters: ICC(2,1), Krippendorff's alpha, Cohen's and Fleiss' kappa,
rank correlations, agreement rates and the position flip rate.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._kappa": ["KappaResult", "cohen_kappa", "fleiss_kappa"],
    "._krippendorff": ["AlphaResult", "krippendorff_alpha"],
    "._rates": [
        "AgreementRate",
        "CorrelationMatrix",
        "FlipRateResult",
        "agreement_rate",
        "kendall_tau_b_matrix",
        "position_flip_rate",
        "spearman_matrix",
    ],
    "._reliability": [
        "PairwiseAgreement",
        "ReliabilityResult",
        "icc_agreement",
        "mean_absolute_difference",
        "mean_spearman",
    ],
})
