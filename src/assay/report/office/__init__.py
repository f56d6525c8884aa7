"""Office formats: the Excel workbook and LaTeX tables (with their CSV twins).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    ".excel": ["BENCHMARK_SHEETS", "write_workbook"],
    ".latex": ["format_value", "latex_escape", "write_paper_tables"],
})
