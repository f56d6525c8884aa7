"""Prediction-powered inference: a human metric estimated from many judge scores and a few
human labels (PPI++ with power tuning, unclustered and cluster-robust, and the paired
difference of two systems).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._mean": ["cluster_mean_interval", "ppi_mean", "ppi_mean_clustered",
               "ppi_paired_difference"],
})
