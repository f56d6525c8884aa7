"""The answer as text: the systems ranked, every pair read in one line, the judges' trust, the
cost, and the other reports the data support. It formats :class:`~assay.analysis.answer.Answer`
and computes nothing: whether a difference is detected is a field of the result. Its wording
functions (interval_text, pair_reading, trust_lines, spend_line, plural, what_is_scored) are
shared with the dashboard (:mod:`assay.report.html._dashboard`), so both say the same words."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assay.report.text._format import columns, fixed, p_text

if TYPE_CHECKING:
    from assay.analysis.answer import (
        Answer,
        HumanLine,
        PairDifference,
        Spend,
        TrustCheck,
        Verdict,
    )


def _num(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


FAILURES_RULE = "failures left out"
"""How the answer's estimates treat failures, named beside them: the benchmark report counts
them as wrong instead, and says so beside its accuracy."""


def what_is_scored(v: Verdict) -> str:
    """What the verdict's numbers are, in the data's units."""
    if v.units == "share":
        return "share of 1s (binary score)"
    if v.units == "win_rate":
        return "share of comparisons won (ties count half)"
    if v.units == "normalised":
        return f"mean on [0, 1] from the lowest to the highest label ({v.scale})"
    span = f", scores from {_num(v.low)} to {_num(v.high)}" if v.low is not None else ""
    return f"mean on the scores' own scale{span}"


def interval_text(lower: float, upper: float, digits: int, *, sign: bool = False) -> str:
    if not (math.isfinite(lower) and math.isfinite(upper)):
        return "no interval"
    if sign:
        return f"[{lower:+.{digits}f}, {upper:+.{digits}f}]"
    return f"[{fixed(lower, digits)}, {fixed(upper, digits)}]"


def pair_reading(p: PairDifference, v: Verdict, digits: int) -> str:
    """One line: who beats whom by how much, or that no difference is detected."""
    if p.n_items == 0:
        return f"{p.better} and {p.worse}: no question scored for both, no comparison"
    if v.units == "win_rate":
        size = (f"{p.better} wins {fixed(p.win_rate, digits)} of their comparisons "
                f"{interval_text(p.lower + 0.5, p.upper + 0.5, digits)}")
        beats = f"{p.better} beats {p.worse}: {size.removeprefix(p.better + ' ')}"
    else:
        size = f"{p.difference:+.{digits}f} {interval_text(p.lower, p.upper, digits, sign=True)}"
        beats = (f"{p.better} beats {p.worse} by {p.difference:.{digits}f} "
                 f"{interval_text(p.lower, p.upper, digits, sign=True)}")
    shown = p_text(p.p_adjusted)
    adjusted = f"adjusted p {shown}" if shown.startswith("<") else f"adjusted p = {shown}"
    if p.detected:
        return f"{beats}, {adjusted}"
    if p.detected is None:
        why = ("fewer than 2 clusters" if p.method == "too_few_clusters"
               else "no variation between clusters")
        return (f"{p.better} ahead of {p.worse}: {size}, no test ({why}; "
                f"{plural(p.n_items, 'shared question')})")
    after = " after adjusting for the other pairs" if p.detected_unadjusted else ""
    return (f"no detectable difference between {p.better} and {p.worse}{after}: {size}, "
            f"{adjusted}")


def _verdict(v: Verdict, conf: float, adjustment: str, digits: int, several: bool) -> list[str]:
    level = f"{conf:.0%}"
    failed = any(s.n_failed for s in v.systems)
    head = (f"{v.criterion}: {what_is_scored(v)}" + (f"; judge {v.judge}" if several else "")
            + (f"; {FAILURES_RULE}" if failed else ""))
    header = ["rank", "system", "estimate", f"{level} interval", "questions",
              *(["failed (left out)"] if failed else [])]
    rows = [[str(s.rank), s.arm, fixed(s.estimate, digits), interval_text(s.lower, s.upper, digits),
             str(s.n_items), *([str(s.n_failed)] if failed else [])] for s in v.systems]
    lines = [head, *columns(header, rows, indent="  ")]
    if v.pairs:
        what = ("win rate" if v.units == "win_rate" else
                "difference of the first minus the second on the questions both answered")
        lines.append(f"  each pair: {what}, {level} interval; p adjusted by "
                     f"{adjustment.capitalize()} over {plural(len(v.pairs), 'pair')}:")
        lines += [f"  {pair_reading(p, v, digits)}" for p in v.pairs]
    return lines


def trust_lines(checks: tuple[TrustCheck, ...], digits: int, *, complete: bool = True) -> list[str]:
    """The trust section's lines; with ``complete`` False (an engine left checks out, said
    in its own lines) no line claims there is nothing else to check the judges against."""
    failures = [c for c in checks if c.check == "failures"]
    others = [c for c in checks if c.check != "failures"]
    lines = []
    if failures and not any(c.count for c in failures):
        total = sum(c.n for c in failures)
        lines.append(f"  no judgment failed (0 of {total})")
    else:
        lines += [f"  judge {c.judge}: {c.count} of {c.n} judgments failed ({c.estimate:.1%}), "
                  "left out of the estimates" for c in failures if c.count]
    for c in others:
        bounds = interval_text(c.lower, c.upper, digits)
        bounds = "" if bounds == "no interval" else f" {bounds}"
        if c.check == "agreement":
            lines.append(f"  agreement between judges {c.judge} on {c.criterion}: {c.statistic} "
                         f"{fixed(c.estimate, digits)}{bounds} over {c.n} shared units")
        elif c.check == "humans":
            lines.append(f"  judge {c.judge} against human labels on {c.criterion}: {c.statistic} "
                         f"{fixed(c.estimate, digits)}{bounds} ({plural(c.n, 'comparison')})")
        else:
            bounds = (f" [{c.lower:.1%}, {c.upper:.1%}]" if bounds else "")
            lines.append(f"  judge {c.judge} on {c.criterion}: {c.estimate:.1%} of verdicts flip "
                         f"when the two answers swap places{bounds} ({c.count} of {c.n} pairs)")
    if not others and complete:
        lines.append("  nothing else to check them against: no second judge of a criterion, no "
                     "human labels, no pairwise trials in both orders")
    return lines


_HUMAN_KIND = {"system": "mean human label on [0, 1]",
               "pair": "difference of the human means",
               "win_rate": "human win rate, ties half"}


def human_groups(humans: tuple[HumanLine, ...], digits: int
                 ) -> list[tuple[str, list[list[str]]]]:
    """The humans' estimates as (title, rows) per (criterion, judge, kind), each row the
    name, the PPI++ estimate with its interval, the judge alone, the labels and their worth
    (shared with the dashboard)."""
    groups = dict.fromkeys((h.criterion, h.judge, h.kind) for h in humans)
    out = []
    for criterion, judge, kind in groups:
        rows = [h for h in humans if (h.criterion, h.judge, h.kind) == (criterion, judge, kind)]
        sign = kind == "pair"

        def number(value: float, lower: float, upper: float, sign: bool = sign) -> str:
            shown = f"{value:+.{digits}f}" if sign else fixed(value, digits)
            return f"{shown} {interval_text(lower, upper, digits, sign=sign)}"

        out.append((f"{criterion} ({_HUMAN_KIND[kind]}), judge {judge}", [
            [h.arm if h.opponent is None else
             f"{h.arm} {'-' if kind == 'pair' else 'vs'} {h.opponent}",
             number(h.estimate, h.lower, h.upper),
             number(h.judge_estimate, h.judge_lower, h.judge_upper),
             str(h.n_labelled), fixed(h.effective_n, 0)] for h in rows]))
    return out


HUMAN_COLUMNS = ("", "humans (PPI++)", "judge alone", "labels", "worth")
HUMAN_WORTH = "worth: the human labels alone that would be as precise"


def human_block(humans: tuple[HumanLine, ...], note: str | None, conf: float,
                digits: int) -> list[str]:
    """What humans would say: per (criterion, judge) the PPI++ estimate of each system, pair
    and win rate beside the judge alone; one line naming why when there is none."""
    if not humans:
        return [f"What humans would say: {note}"] if note else []
    lines = [f"What humans would say (the judge corrected by human labels; {conf:.0%} "
             "intervals):"]
    for title, rows in human_groups(humans, digits):
        lines.append(f"  {title}:")
        lines += columns(list(HUMAN_COLUMNS), rows, indent="    ")
    if note:
        lines.append(f"  {note}; {HUMAN_WORTH}")
    return lines


def _usd(value: float) -> str:
    """Dollars with cents, or two significant digits below a cent ($0.000044).

    >>> _usd(12.345), _usd(0.0000441), _usd(0.0)
    ('$12.35', '$0.000044', '$0.00')
    """
    if value == 0 or abs(value) >= 0.01:
        return f"${value:.2f}"
    return f"${value:.{1 - math.floor(math.log10(abs(value)))}f}"


def spend_line(spend: Spend | None) -> str:
    if spend is None:
        return "Cost: not recorded (no usd or tokens column, no run store of the judges' calls)"
    parts = []
    if spend.judges_calls is not None:
        usd = "no price" if spend.judges_usd is None else _usd(spend.judges_usd)
        parts.append(f"judges {usd} over {spend.judges_calls:g} calls")
    for arm, usd, per_answer in spend.systems:
        each = "" if per_answer is None else f" ({_usd(per_answer)} per answer)"
        parts.append(f"{arm} {'no price' if usd is None else _usd(usd)}{each}")
    return "Cost: " + "; ".join(parts)


def format_answer(result: Answer, *, digits: int = 3) -> str:
    """The answer in at most about 10 + 4 systems + 3 pairs lines per verdict."""
    r = result
    lines = [f"{r.n_judgments} judgments of {plural(r.n_systems, 'system')} on "
             f"{plural(r.n_items, 'question')} in {plural(r.n_clusters, 'topic')}, "
             f"{plural(r.n_runs, 'run')}, {plural(r.n_judges, 'judge')}; intervals count "
             "the topics, not the questions, as independent"]
    several = len({v.judge for v in r.verdicts}) > 1
    for v in r.verdicts:
        lines += _verdict(v, r.conf, r.adjustment, digits, several)
    if not r.verdicts:
        lines.append("No criterion has scores of two or more systems to compare.")
    lines += [f"not made here: {part}" for part in r.left_out]
    lines += human_block(r.humans, r.humans_note, r.conf, digits)
    lines.append("Can the judges be trusted:")
    lines += trust_lines(r.trust, digits, complete=not r.left_out)
    lines.append(spend_line(r.spend))
    lines += [f"note: {n}" for n in r.notes]
    more = []
    if r.available:
        more.append("also available: " + ", ".join(f"--kind {k}" if i == 0 else k
                                                    for i, k in enumerate(r.available)))
    if r.n_unsupported:
        more.append(f"{plural(r.n_unsupported, 'other report')} "
                    f"{'does' if r.n_unsupported == 1 else 'do'} not fit these data "
                    "(--kind list says why)")
    if more:
        lines.append("; ".join(more))
    return "\n".join(lines)
