"""The benchmark report: accuracy with cluster-robust intervals, paired contrasts,
simultaneous intervals, ranks, stability, pass^k, cost, failures, variance components and
registered non-inferiority tests, from one judge's correctness scores.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._accuracy": ["rank_intervals"],
    "._errors": ["DevNotEvidenceError", "RegistrationChangedError", "RegistrationMismatchError"],
    "._registration": ["Registration", "register_contrasts"],
    "._report": ["BenchmarkReport", "benchmark_report"],
    "._selection": ["benchmark_rows", "reference_answers", "reference_hash"],
})
