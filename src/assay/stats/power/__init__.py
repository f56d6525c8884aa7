"""Power and sample size of a planned evaluation (Miller 2024): the variance of a clustered,
paired mean with runs and trials, the power of the t test assay runs on it, and the clusters
a difference or an interval's width needs."""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._size": ["DesignSize", "design_df", "design_power", "size_for_difference",
               "size_for_width"],
    "._variance": ["VarianceComponents", "design_variance", "paired_variance",
                   "preference_variance", "variance_components"],
})
