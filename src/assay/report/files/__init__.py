"""Files in other tools' layouts written from a report: the results aggregator's results.json,
aggregated.json and summary.txt; BenchmarkQED's CSVs; CoEval's calibration_params.json.

``result.write_csvs(folder)`` of an analysis result comes here through :mod:`assay._display`,
the one import that reaches up here; :data:`WRITERS` names each result type's writer.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "assay.report._dispatch": ["DEFAULT_LAYOUT", "WRITERS", "write_files"],
    "assay.report.text.aggregate": ["format_summary"],
    ".aggregate": ["write_aggregate_files"],
    ".coeval": ["write_calibration_params"],
    ".qed": ["CRITERIA_COLUMNS", "criteria_rows", "sig_test_rows", "trial_rows", "write_tables",
             "write_winrate_comparison", "write_winrate_csvs"],
})
