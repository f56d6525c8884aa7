"""Sequential judging (``assay judge --until``): the plan in a seeded random order of clusters,
a look at the stored results after each batch, and a stop once every comparison is decided
or every interval is narrow enough (anytime-valid confidence sequences,
:mod:`assay.stats.sequential`).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._look": ["ComparisonLook", "Look", "Observations", "look"],
    "._loop": ["SequentialRun", "execute_sequential"],
    "._rule": ["Comparison", "StoppingRule", "cluster_order", "comparisons", "parse_until",
               "restricted", "stopping_rule"],
    "._words": ["ended_lines", "look_line", "rule_words"],
})
