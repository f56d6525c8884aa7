"""Anytime-valid confidence sequences: a bounded mean and a paired difference that may be
looked at after every batch, and a run stopped when it is decided (``assay judge --until``).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._bernstein": ["ConfidenceSequenceResult", "cluster_means", "empirical_bernstein_cs"],
    "._paired": ["METHODS", "paired_difference_cs"],
    "._betting": ["betting_cs"],
})
