"""Reports computed by a query engine: the rows reduced to sufficient statistics where they lie.

Every interval assay prints rests on sums per cluster, arm and run. Here that reduction,
and the checks of the table, are relational queries run by the engine (DuckDB, in
process) over Parquet, CSV or JSONL files, so a table of many millions of rows is never
loaded whole: :func:`open_table` opens and checks it, :func:`engine_benchmark_report`
and :func:`engine_score_summary` give the same results as
:func:`~assay.analysis.benchmark.benchmark_report` and
:func:`~assay.analysis.scores.score_summary` do on the loaded table.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._table": ["EngineTable", "open_table"],
    "._bench": ["engine_bench_data", "engine_benchmark_report"],
    "._scores": ["engine_score_summary", "small_score_summary"],
    "._answer": ["engine_answer", "engine_table_facts"],
})
