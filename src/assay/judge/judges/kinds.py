"""The registry of judge kinds a config's ``kind:`` names.

``JUDGE_KINDS[kind]`` is a judge class with

* ``Settings``: its config section, a :class:`~assay.judge.judges._protocol.JudgeSettings`
  subclass whose ``kind`` is ``Literal[kind]``;
* ``from_config(settings, context) -> Judge``: build the judge
  (:class:`~assay.judge.judges._protocol.JudgeContext` gives the model, parameters and the
  config's folder);

and the :class:`~assay.judge.judges._protocol.Judge` protocol's ``name``, ``requests``,
``rows``, ``scales`` (``answer`` too for an offline judge). Add a kind by importing its
class here and adding one line.

A judge with a second stage (STAGED hierarchical assertions, differential pairwise) also
has ``followups(inputs, rows, verdicts)`` and ``max_followups(first)``; the planner
(``assay.judge.plan``) runs that stage after the first.

>>> sorted(JUDGE_KINDS)  # doctest: +NORMALIZE_WHITESPACE
['assertion', 'assertion_hierarchical', 'chunk_assertion', 'differential', 'metric', 'pairwise',
 'reference', 'rubric']
"""

from __future__ import annotations

from assay.judge.judges.assertion import AssertionJudge
from assay.judge.judges.assertion_hierarchical import HierarchicalJudge
from assay.judge.judges.chunk_coverage import ChunkCoverageJudge
from assay.judge.judges.differential import DifferentialJudge
from assay.judge.judges.metric import MetricJudge
from assay.judge.judges.pairwise import PairwiseJudge
from assay.judge.judges.reference import ReferenceJudge
from assay.judge.judges.rubric import RubricJudge

JUDGE_KINDS: dict[str, type] = {
    "pairwise": PairwiseJudge,
    "reference": ReferenceJudge,
    "rubric": RubricJudge,
    "metric": MetricJudge,
    "assertion": AssertionJudge,
    "assertion_hierarchical": HierarchicalJudge,
    "chunk_assertion": ChunkCoverageJudge,
    "differential": DifferentialJudge,
}
"""kind -> judge class."""
