"""Summaries of CoEval's reports: attribute diversity, equal-count bins, percentile bands,
reliability weights of a judge ensemble, and the stability of a ranking over repeated samples.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._diversity": ["Diversity", "attribute_diversity"],
    "._bins": ["equal_count_bins"],
    "._bands": ["PercentileBands", "percentile_bands"],
    "._ensemble": ["EnsembleWeights", "reliability_weights"],
    "._stability": ["RankingStability", "kendall_tau_b", "ranking_stability"],
})
