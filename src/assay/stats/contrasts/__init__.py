"""Paired differences between arms (cluster-robust t, Tango, MOVER), simultaneous (max-t)
and Holm multiplicity, and non-inferiority (margins, minimum detectable differences).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._mover": ["mover_difference_interval"],
    "._multiplicity": ["bh_adjust", "bonferroni_adjust", "holm_adjust", "holm_stepdown",
                       "max_t_critical_value"],
    "._noninferiority": ["bisect_p_value", "mdd"],
    "._paired": ["effective_pairs", "paired_difference_interval", "tango_effective_n", "tango_interval"],
})
