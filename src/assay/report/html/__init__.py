"""Self-contained HTML pages (one per report, a dashboard and an index) that open from disk
with the network off.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._coverage": ["interaction_page"],
    "._judges": ["judge_report_page", "score_distribution_page"],
    "._model": ["Column", "Figure", "Highlight", "Page", "Section", "Table"],
    "._write": ["HTML_ASSETS", "page_for", "render_html"],
})
