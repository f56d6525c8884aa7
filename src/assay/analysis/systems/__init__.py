"""The systems report: per-task composite scores, rank intervals, head-to-head paired
differences and performance by attribute.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._attributes": ["AttributeReport", "performance_by_attribute"],
    "._factors": ["FactorBreakdown", "factor_breakdown"],
    "._report": ["HeadToHeadRow", "SystemsReport", "head_to_head", "systems_report"],
})
