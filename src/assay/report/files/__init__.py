"""Files in other tools' layouts written from a report: the results aggregator's results.json,
aggregated.json and summary.txt; BenchmarkQED's CSVs; CoEval's calibration_params.json.

``result.write_csvs(folder)`` of an analysis result comes here through :mod:`assay._display`
(importing this package registers the writers).
"""

from assay import _display
from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "assay._display": ["write_files"],
    "assay.report.text.aggregate": ["format_summary"],
    ".aggregate": ["write_aggregate_files"],
    ".coeval": ["write_calibration_params"],
    ".qed": ["CRITERIA_COLUMNS", "criteria_rows", "sig_test_rows", "trial_rows", "write_tables",
             "write_winrate_comparison", "write_winrate_csvs"],
})

WRITERS: dict[tuple[str, str], str] = {
    ("assay.analysis.assertions._chunk_coverage.ChunkCoverage", "default"):
        ".qed:write_chunk_coverage",
    ("assay.analysis.assertions._significance.AssertionSignificance", "default"):
        ".qed:write_significance_summary",
    ("assay.analysis.assertions._summaries.AssertionSummary", "default"):
        ".qed:write_assertion_tables",
    ("assay.analysis.assertions._summaries.HierarchicalSummary", "default"):
        ".qed:write_hierarchical_tables",
    ("assay.analysis.judges._calibration.CalibrationReport", "default"):
        ".coeval:write_calibration_params",
    ("assay.analysis.winrates._report.WinRateReport", "default"): ".qed:write_winrate_csvs",
    ("assay.analysis.winrates._report.WinRateReport", "comparison"):
        ".qed:write_winrate_comparison",
}
"""(result type, layout) -> its writer (``.module:function`` in this package)."""

_display.register_files({key: __name__ + target for key, target in WRITERS.items()})
