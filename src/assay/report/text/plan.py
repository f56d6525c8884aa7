"""Plans as text: ``assay describe``'s plan of a run (inputs, calls per judge and per model,
cost, time) and ``assay plan``'s evaluation plan (questions, clusters, runs, trials, calls, cost
and the trade-offs).

Formats a :class:`assay.pipeline.describe.PlanDescription` (read by its attributes: the
report layer does not import the pipeline layer) and an
:class:`assay.analysis.plan.EvaluationPlan`; computes nothing.
"""

from __future__ import annotations

from typing import Any


def _usd(value: float | None) -> str:
    return "unknown (no price)" if value is None else f"${value:,.4f}"


def duration(hours: float) -> str:
    """A wall time in words (s, min or h)."""
    seconds = hours * 3600.0
    if seconds < 90:
        return f"{seconds:.0f} s"
    if hours < 1.5:
        return f"{seconds / 60:.0f} min"
    return f"{hours:.1f} h"


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], left: int) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) if i < left else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in [header, *rows]]


def cost_words(plan: Any) -> str:
    """The estimated total cost, or why it is unknown (never $0 for an unpriced model)."""
    if plan.usd is not None:
        return f"${plan.usd:,.4f}"
    words = f"unknown: {', '.join(plan.unpriced)} has no price in the config"
    if len(plan.unpriced) < len(plan.models):
        words += f" (the priced models come to ${plan.usd_known:,.4f})"
    return words


def batch_words(discount: float) -> str:
    """What ``transport: batch`` changes in a plan's estimates.

    >>> batch_words(0.5)[:52]
    'Batch API (transport: batch): the costs above are 50'
    """
    return (f"Batch API (transport: batch): the costs above are {discount:.0%} off the listed prices "
            "(llm.batch_discount); the replies come within the batch window (up to 24 h), not in "
            "the time below")


def format_plan(plan: Any) -> str:
    """The plan as lines of text (estimates named as estimates)."""
    out = [f"Plan of {plan.config} (nothing sent; every check of the run passed)", ""]
    out.append(f"Inputs: {len(plan.systems)} systems ({', '.join(plan.systems) or 'none'}), "
               f"{plan.items} items, {plan.answers} answers to judge")
    out.append("")
    if plan.generation:
        out.append("Generation phase, per system (calls not yet stored):")
        rows = [(g.name, g.phase, g.model, f"{g.calls:,}", f"{g.tokens_in:,}", f"{g.tokens_out:,}",
                 _usd(g.usd)) for g in plan.generation]
        out += ["  " + s for s in _table(("system", "phase", "model", "calls", "tokens in ~",
                                          "tokens out ~", "cost ~"), rows, 3)]
        out.append("")
    out.append("Judge phase, per judge:")
    rows = [(line.judge, line.kind, line.model or "(offline: no call)", str(line.calls),
             str(line.followups) if line.followups else "-", f"{line.tokens_in:,}",
             f"{line.tokens_out:,}", "-" if line.model is None else _usd(line.usd))
            for line in plan.judges]
    out += ["  " + s for s in _table(("judge", "kind", "model", "judgments", "stage 2 at most",
                                      "tokens in ~", "tokens out ~", "cost ~"), rows, 3)]
    out.append("")
    if getattr(plan, "baselines", ()):
        out.append("Baselines (calls not yet stored; G-Eval's second stage at most):")
        rows = [(b.method, b.model, f"{b.calls:,}", f"{b.followups:,}" if b.followups else "-",
                 f"{b.tokens_in:,}", f"{b.tokens_out:,}", _usd(b.usd)) for b in plan.baselines]
        out += ["  " + s for s in _table(("method", "model", "calls", "stage 2 at most",
                                          "tokens in ~", "tokens out ~", "cost ~"), rows, 2)]
        out.append("")
    out.append("Per model (calls not yet stored):")
    rows = [(m.model, f"{m.calls:,}", f"{m.tokens_in:,}", f"{m.tokens_out:,}", _usd(m.usd))
            for m in plan.models]
    if rows:
        header = ("model", "calls", "tokens in ~", "tokens out ~", "cost ~")
        out += ["  " + s for s in _table(header, rows, 1)]
    else:
        out.append("  no call to any model")
    out.append("")
    cost = cost_words(plan)
    out.append(f"Total: {plan.calls:,} calls, {plan.offline:,} offline judgments, "
               f"~{plan.tokens_in:,} tokens in, ~{plan.tokens_out:,} tokens out; estimated cost {cost}")
    if plan.cost_limit_usd is not None:
        out.append(f"Cost limit: ${plan.cost_limit_usd:,.2f} (the run stops there; a rerun resumes)")
    if getattr(plan, "batch_discount", None) is not None:
        out.append(batch_words(plan.batch_discount))
    out.append(f"Time: about {duration(plan.hours)} at {plan.max_concurrency} requests in flight "
               f"and {plan.seconds_per_call:g} s a request (--seconds-per-call)")
    out.append("Estimates: ~4 characters a token in, 250 tokens out a call; second-stage calls "
               "counted at most.")
    return "\n".join(out)


def _calls(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def format_evaluation_plan(plan: Any) -> str:
    """An :class:`~assay.analysis.plan.EvaluationPlan` as lines of text."""
    pilot = plan.pilot
    win = plan.estimand == "win_rate"
    what = "win rate" if win else plan.estimand
    if pilot is not None:
        subject = (" vs ".join(pilot.arms) if win else
                   " - ".join(pilot.arms) if plan.estimand == "difference" else pilot.arms[0])
        subject += f" ({pilot.judge}/{pilot.criterion})"
    else:
        subject = ("a system against a baseline" if win else
                   "two systems" if plan.estimand == "difference" else "one system")
    if plan.target == "difference":
        goal = (f"a win rate {abs(plan.difference):g} from 1/2" if win
                else f"a {what} of {plan.difference:g}")
        head = (f"Plan: detect {goal} ({subject}) with {plan.power:.0%} power, two-sided at "
                f"conf {plan.conf:g}")
    else:
        head = (f"Plan: an interval of full width {plan.width:g} at conf {plan.conf:g} for the "
                f"{what} ({subject})")
    out = [head]
    if pilot is not None:
        replicates = ("counterbalanced judgment(s) a question" if pilot.replicates == "trials"
                      else "run(s)")
        out.append(f"From the pilot: {pilot.n_items} items in {pilot.n_clusters} clusters, "
                   f"{pilot.n_runs} {replicates}; observed {what} {pilot.mean:.4g}, working "
                   f"ICC {pilot.icc:.3f}")
    else:
        out.append("From stated assumptions (no pilot table)")
    c = plan.components
    one = "one counterbalanced judgment" if win else "one score"
    out.append(f"Variance of {one}: {c.total:.4g} = cluster {c.cluster:.4g} (ICC "
               f"{c.icc:.3f}) + question {c.question:.4g} + within {c.within:.4g}; run shift "
               f"{c.run:.4g} (SD {c.run ** 0.5:.4g})")
    judged = ("both orders judged on every question (a trial: 2 rows)" if win
              else f"{plan.arms_scored} arm(s) judged on every question")
    out.append(f"Clusters: {plan.cluster_size:.3g} questions each (size CV {plan.size_cv:.2f}); "
               f"{judged}, {plan.calls_per_score:g} call(s) a {'row' if win else 'score'}"
               + (f", ${plan.usd_per_call:.6g} a call"
                  if plan.usd_per_call is not None else ", no price"))
    out.append(f"Test: {plan.method}")
    out.append("")
    ch = plan.chosen
    if ch.reachable:
        reach = (f"power {ch.power:.3f}" if plan.target == "difference" else "")
        out.append(f"Needed: {ch.questions:,} questions in {ch.clusters:,} clusters, {ch.runs} "
                   f"run(s), {ch.trials} trial(s): {_calls(ch.judge_calls)} judge calls, cost "
                   f"{_usd(ch.usd)}" + (f" ({reach}, width {ch.width:.4g})" if reach
                                        else f" (width {ch.width:.4g})"))
    else:
        out.append(f"Needed: not reachable with {ch.runs} run(s) and {ch.trials} trial(s), "
                   "however many questions")
    out.append("")
    out.append("Trade-offs (each row reaches the target; '-' where it cannot):")
    header = ("design", "runs", "trials", "questions", "clusters", "judge calls", "cost",
              "power" if plan.target == "difference" else "width")
    rows = []
    for r in plan.rows:
        if not r.reachable:
            rows.append((r.label, str(r.runs), str(r.trials), "-", "-", "-", "-", "-"))
            continue
        last = f"{r.power:.3f}" if plan.target == "difference" else f"{r.width:.4g}"
        rows.append((r.label, str(r.runs), str(r.trials), f"{r.questions:,}", f"{r.clusters:,}",
                     _calls(r.judge_calls), "-" if r.usd is None else f"${r.usd:,.2f}", last))
    out += ["  " + line for line in _table(header, rows, 1)]
    best = plan.cheapest
    if best is not None:
        out.append(f"Fewest judge calls: {best.label} ({best.runs} run(s), {best.trials} "
                   f"trial(s), {best.questions:,} questions, {_calls(best.judge_calls)} calls)")
    for note in plan.notes:
        out.append(f"note: {note}")
    return "\n".join(out)
