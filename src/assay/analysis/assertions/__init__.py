"""Assertion scores: pass rates per arm (standard and hierarchical), chunk-level coverage
and their significance tests.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._chunk_coverage": ["ChunkCoverage", "chunk_coverage"],
    "._qed_hierarchical": ["QedHierarchical", "QedTexts", "qed_hierarchical"],
    "._significance": ["assertion_significance"],
    "._summaries": ["AssertionSummary", "HierarchicalSummary", "assertion_summary", "hierarchical_summary"],
})
