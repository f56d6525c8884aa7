"""Plain-text renderings of reports for the terminal and ``print``.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    ".benchmark": ["format_benchmark_report"],
    ".scores": ["format_score_summary", "table_overview"],
})
