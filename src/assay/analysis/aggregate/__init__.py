"""Aggregation across runs (the run-level percentile bootstrap per arm and metric), the
judges' reliability (ICC, MAD, Spearman) and flags for unstable results.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._flags": ["has_version"],
    "._reliability": ["CriterionReliability", "icc_band", "mad_band", "rho_band"],
    "._report": ["AggregateReport", "RunAggregation", "aggregate"],
    "._runs": ["percentile_bootstrap_mean"],
})
