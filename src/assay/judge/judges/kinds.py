"""The registry of judge kinds a config's ``kind:`` names.

``JUDGE_KINDS[kind]`` is a judge class with

* ``Settings``: its config section, a :class:`~assay.judge.judges._protocol.JudgeSettings`
  subclass whose ``kind`` is ``Literal[kind]``;
* ``from_config(settings, context) -> Judge``: build the judge
  (:class:`~assay.judge.judges._protocol.JudgeContext` gives the model, parameters and the
  config's folder);

and the :class:`~assay.judge.judges._protocol.Judge` protocol's ``name``, ``requests``,
``rows``, ``scales`` (``answer`` too for an offline judge). Add a kind by adding one line
to ``_CLASSES`` here (its module and class).

A judge with a second stage (STAGED hierarchical assertions, differential pairwise) also
has ``followups(inputs, rows, verdicts)`` and ``max_followups(first)``; the planner
(``assay.judge.plan``) runs that stage after the first.

>>> sorted(JUDGE_KINDS)  # doctest: +NORMALIZE_WHITESPACE
['assertion', 'assertion_hierarchical', 'chunk_assertion', 'differential', 'metric', 'pairwise',
 'reference', 'rubric']
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

_CLASSES = {
    "pairwise": ("pairwise", "PairwiseJudge"),
    "reference": ("reference", "ReferenceJudge"),
    "rubric": ("rubric", "RubricJudge"),
    "metric": ("metric", "MetricJudge"),
    "assertion": ("assertion", "AssertionJudge"),
    "assertion_hierarchical": ("assertion_hierarchical", "HierarchicalJudge"),
    "chunk_assertion": ("chunk_coverage", "ChunkCoverageJudge"),
    "differential": ("differential", "DifferentialJudge"),
}
"""kind -> (its module in ``assay.judge.judges``, its class)."""


class _Kinds(Mapping[str, type]):
    """kind -> judge class, each module imported when its kind is first asked for.

    A config names one or two kinds; importing all eight (their settings and verdict models
    are pydantic classes, built on import) cost about a tenth of a second of a run's start.
    The names (``in``, iteration, ``len``) need no import; ``values()`` and ``items()``
    import every kind.
    """

    def __init__(self) -> None:
        self._loaded: dict[str, type] = {}

    def __getitem__(self, kind: str) -> type:
        found = self._loaded.get(kind)
        if found is None:
            module, name = _CLASSES[kind]  # KeyError for an unknown kind, as a dict
            found = self._loaded[kind] = getattr(importlib.import_module(f"assay.judge.judges.{module}"),
                                                 name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(_CLASSES)

    def __len__(self) -> int:
        return len(_CLASSES)

    def __contains__(self, kind: object) -> bool:
        return kind in _CLASSES

    def __repr__(self) -> str:
        return f"<judge kinds {', '.join(_CLASSES)}>"


JUDGE_KINDS: Mapping[str, type] = _Kinds()
"""kind -> judge class (imported on first use)."""
