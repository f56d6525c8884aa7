"""The answer first: which system is better, by how much, whether to trust the judges, the cost
(the default of ``assay report``, ``--kind answer``).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._answer": ["answer"],
    "._result": ["Answer", "HumanLine", "PairDifference", "Spend", "SystemEstimate",
                 "TrustCheck", "Verdict"],
})
