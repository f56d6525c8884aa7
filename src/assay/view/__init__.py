"""``assay view``: every judgment of a run or a judgments table, in the browser.

:class:`JudgmentIndex` opens a run folder's store (read-only) or a judgments table and
answers paged, filtered queries; :class:`ViewServer` serves the page and those queries on
127.0.0.1; :func:`export_html` writes a filtered view to one self-contained HTML file.
:func:`view_url` builds the deep links report pages use (the URL scheme is documented in
:mod:`assay.view._query`); :func:`find_run` says what a folder holding a run (the demo's
output) opens.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._build": ["BuildProgress", "PHASES"],
    "._index": ["JudgmentIndex"],
    "._pages": ["Page"],
    "._query": ["FILTERS", "Query", "parse_filter_options", "parse_query", "view_url"],
    "._server": ["ViewServer"],
    "._folder": ["FoundRun", "find_run"],
    "._export": ["export_html", "export_data", "MAX_EXPORT_ROWS"],
})
