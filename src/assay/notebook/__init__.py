"""BenchmarkQED's notebook surface: data frames in, data frames out, on assay's judge engine.

``judge_pairwise(df_base, df_other, criteria=..., trials=4, llm=LLM(...))`` and the reference,
assertion, hierarchical and differential equivalents write the frames as answer files in a
run folder, write the config ``assay judge`` would read beside them (``assay.yaml``: the same
run can be resumed or inspected from the command line), run it through the same engine
(cache, exactly-once store, retries, concurrency) and return the CSVs ``assay judge`` writes,
as data frames with BenchmarkQED's columns. The functions of :mod:`assay.notebook.tables`
turn those frames into the tables BenchmarkQED's notebook prints.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._llm": ["LLM"],
    ".judges": ["judge_assertions", "judge_assertions_hierarchical", "judge_differential",
                "judge_pairwise", "judge_reference"],
    ".tables": ["chunk_coverage_by_k", "disagreements", "joint_vs_separate", "original_vs_differential",
                "reference_summary", "winrate_summary"],
})
