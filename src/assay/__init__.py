"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics.
"""

from __future__ import annotations

from assay._lazy import attach as _attach
from assay._version import __version__ as __version__
from assay.errors import AssayError as AssayError
from assay.errors import ConfigError as ConfigError
from assay.errors import DesignError as DesignError
from assay.errors import InputError as InputError
from assay.errors import ValidationError as ValidationError

# Loaded on first use (PEP 562): `import assay` loads neither scipy nor pandas.
__getattr__, __dir__, _lazy_all = _attach(__name__, {
    ".analysis.aggregate": ["AggregateReport", "aggregate"],
    ".analysis.benchmark": ["BenchmarkReport", "Registration", "benchmark_report", "register_contrasts"],
    ".analysis.compare": ["ComparisonReport", "compare"],
    ".analysis.composite": ["composite_score_by_student"],
    ".analysis.coverage": ["coverage_ratio"],
    ".analysis.judges": [
        "JudgeReport",
        "calibrate_judges",
        "judge_agreement",
        "judge_consistency",
        "robust_summary",
    ],
    ".analysis.plan": ["EvaluationPlan", "plan_evaluation"],
    ".analysis.scores": ["ScoreSummary", "score_summary"],
    ".analysis.winrates": ["WinRateReport", "win_rates"],
    ".data.io": ["load", "load_many", "run_importer"],
    ".data.schema": ["Scale"],
    ".data.table": ["Judgments"],
    ".notebook": ["LLM", "chunk_coverage_by_k", "disagreements", "joint_vs_separate", "judge_assertions",
                  "judge_assertions_hierarchical", "judge_differential", "judge_pairwise", "judge_reference",
                  "original_vs_differential", "reference_summary", "winrate_summary"],
    ".report.html": ["render_html"],
})
__all__ = sorted([*_lazy_all, "AssayError", "ConfigError", "DesignError", "InputError", "ValidationError",
                  "__version__"])
