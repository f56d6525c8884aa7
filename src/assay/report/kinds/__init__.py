"""The registry of report kinds: each report's name, title, typed options, builder, support
check and renderers, shared by ``assay report`` and ``assay demo``.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._build": ["Made", "parse_contrasts"],
    "._options": ["AggregateOptions", "AgreementOptions", "AnswerOptions",
                  "AssertionsOptions", "BenchmarkOptions",
                  "CalibrationOptions", "CompositeOptions", "CostOptions", "CoverageOptions",
                  "LeaderboardOptions",
                  "RobustOptions",
                  "ScoresOptions", "SystemsOptions", "WinratesOptions", "options_from"],
    "._registry": ["FORMATS", "GROUPS", "KINDS", "REPORTS", "Outcome", "ReportKind",
                   "build_reports", "kinds_help", "resolve_kinds", "with_available"],
    "._write": ["write_reports"],
})
