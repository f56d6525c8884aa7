"""Win rates of pairwise judgments (counterbalanced positions, per criterion and question
set), their tests with Holm's correction, position bias, agreement of judges on shared
trials and comparisons of assertion scores.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._assertions": ["AssertionComparisons", "assertion_comparisons"],
    "._criteria": ["CriteriaTest", "criteria_tests"],
    "._data": ["question_values"],
    "._report": ["RECORD_FIELDS", "WinRateReport", "win_rates"],
    "._stats": ["Correction"],
})
