"""Significance tests: Wilcoxon signed-rank, Friedman, normality, cluster t tests and
clustered permutation tests.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._gated": ["GatedTestResult", "normality_gated_paired_test"],
    "._permutation": ["PermutationResult", "cluster_permutation_test"],
    "._paired": [
        "NormalityResult",
        "PairedTestResult",
        "cluster_t_test",
        "normality_test",
        "wilcoxon_signed_rank",
    ],
    "._ranks": ["FriedmanResult", "PairwiseTest", "friedman_test", "pairwise_wilcoxon"],
})
