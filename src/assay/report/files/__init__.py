"""Files in other tools' layouts written from a report (results.json, aggregated.json,
summary.txt).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    ".aggregate": ["format_summary", "write_aggregate_files"],
})
