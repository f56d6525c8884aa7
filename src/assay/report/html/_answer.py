"""The answer at the top of the dashboard: for each criterion the systems ranked with their
estimates and intervals, each pair's difference, interval, adjusted p-value and reading, then
what says whether to trust the judges, and the cost.

It formats :class:`~assay.analysis.answer.Answer` in the words of ``assay report``'s text
(:mod:`assay.report.text.answer`) and computes nothing: ranks, differences, p-values and
whether a difference is detected are fields of the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.report.text._format import fixed, p_text
from assay.report.text.answer import _interval, _plural, _reading, _spend, _trust, _what

if TYPE_CHECKING:
    from assay.analysis.answer import Answer, PairDifference, Verdict


def _pair_row(p: PairDifference, v: Verdict, digits: int) -> dict[str, Any]:
    if v.units == "win_rate" and p.win_rate is not None:
        size = fixed(p.win_rate, digits)
        bounds = _interval(p.lower + 0.5, p.upper + 0.5, digits)
    else:
        size = f"{p.difference:+.{digits}f}"
        bounds = _interval(p.lower, p.upper, digits, sign=True)
    return {"pair": f"{p.better} - {p.worse}", "difference": size, "interval": bounds,
            "p": p_text(p.p_adjusted), "reading": _reading(p, v, digits),
            "detected": bool(p.detected)}


def _verdict(v: Verdict, several: bool, digits: int) -> dict[str, Any]:
    failed = any(s.n_failed for s in v.systems)
    return {
        "title": v.criterion + (f" (judge {v.judge})" if several else ""),
        "what": _what(v),
        "failed": failed,
        "difference": "win rate" if v.units == "win_rate" else "difference",
        "systems": [{"rank": s.rank, "system": s.arm, "estimate": fixed(s.estimate, digits),
                     "interval": _interval(s.lower, s.upper, digits), "questions": s.n_items,
                     "failed": s.n_failed} for s in v.systems],
        "pairs": [_pair_row(p, v, digits) for p in v.pairs],
    }


def answer_context(result: Answer, *, digits: int = 3) -> dict[str, Any]:
    """What the dashboard's answer panel shows, every number already a string."""
    r = result
    several = len({v.judge for v in r.verdicts}) > 1
    others = []
    if r.available:
        others.append("Other reports these data support: " + ", ".join(r.available) + ".")
    return {
        "summary": (f"{r.n_judgments} judgments of {_plural(r.n_systems, 'system')} on "
                    f"{_plural(r.n_items, 'question')} in {_plural(r.n_clusters, 'topic')}, "
                    f"{_plural(r.n_runs, 'run')}, {_plural(r.n_judges, 'judge')}; intervals "
                    f"({r.conf:.0%}) count the topics, not the questions, as independent; "
                    f"p-values adjusted by {r.adjustment.capitalize()} over each criterion's "
                    "pairs."),
        "verdicts": [_verdict(v, several, digits) for v in r.verdicts],
        "trust": [line.strip() for line in _trust(r.trust, digits)],
        "spend": _spend(r.spend),
        "notes": [*r.read_notes, *r.notes],
        "others": others,
        "level": f"{r.conf:.0%}",
    }
