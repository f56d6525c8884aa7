"""One module per judge kind (pairwise, reference, rubric, assertion, hierarchical
assertion, chunk coverage, differential, metric) and their verdict models.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._protocol": [
        "Answer",
        "CriterionSpec",
        "Judge",
        "JudgeContext",
        "JudgeInputs",
        "JudgeSettings",
        "OfflineJudge",
    ],
    ".assertion": ["AssertionJudge"],
    ".assertion_hierarchical": ["DISCOVERY", "GLOBAL", "HierarchicalJudge", "SUPPORTING"],
    ".chunk_coverage": ["ChunkCoverageJudge"],
    ".differential": ["CriterionVerdict", "DifferentialJudge", "ExtractionVerdict"],
    ".kinds": ["JUDGE_KINDS"],
    ".metric": ["bleu", "exact_match", "lcs_length", "normalize_answer", "rouge_l", "token_f1"],
    ".pairwise": ["PairwiseJudge", "PairwiseSettings"],
    ".reference": ["ReferenceJudge", "ReferenceSettings"],
    ".rubric": ["RubricJudge", "RubricSettings"],
    ".verdicts": ["PairwiseVerdict", "joint_pairwise_verdict", "label_verdict", "score_verdict"],
})
