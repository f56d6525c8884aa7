"""What a sequential run says: a line per look, and how it ended (early or not, why, what was
saved), in the words ``assay judge --until``, the notebook functions' ``until=`` and
``assay demo --until`` all print."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.judge.sequential._look import Look
    from assay.judge.sequential._loop import SequentialRun
    from assay.judge.sequential._rule import StoppingRule


def look_line(seen: Look) -> str:
    """One look of a sequential run, one line."""
    decided = sum(c.decided for c in seen.comparisons)
    widest = max(c.width for c in seen.comparisons)
    return (f"look {seen.number}: {seen.clusters} clusters judged; {decided} of {len(seen.comparisons)} "
            f"comparisons decided, widest interval {widest:.3f} (each at {seen.conf_each:.4g})"
            + ("; the rule is met" if seen.stop else ""))


def rule_words(rule: StoppingRule) -> str:
    """The rule, its level and its confidence sequence, as the output names them."""
    return f"--until {rule.words}, conf {rule.conf:g}, {rule.method} confidence sequence"


def ended_lines(run: SequentialRun) -> list[str]:
    """How a sequential run ended: whether the rule stopped it early, why, what was not bought,
    then each comparison's interval at the last look (indented)."""
    rule = run.rule
    what = ("every comparison is decided (its interval excludes 0)" if rule.width is None
            else f"every interval is narrower than {rule.width:g}")
    last = run.looks[-1] if run.looks else None
    lines = []
    if run.stopped_early:
        lines.append(f"stopped early by the rule ({rule_words(rule)}): {what} after look "
                     f"{len(run.looks)}, {run.clusters} of {run.clusters_total} clusters judged (random "
                     f"order, seed {rule.seed}); the plan is those clusters' judgments")
        saved = run.planned_total - run.summary.planned
        usd = "cost unknown (a model has no price)" if run.usd_saved is None else f"~${run.usd_saved:.4f}"
        lines.append(f"saved: {saved} of {run.planned_total} planned judgments not made "
                     f"({run.summary.planned} in the clusters judged, {run.summary.calls} calls made by "
                     f"this run), {usd} by the dry-run estimate")
    elif last is not None and run.clusters == run.clusters_total:
        lines.append(f"sequential ({rule_words(rule)}): judged every cluster ({run.clusters}, "
                     f"{len(run.looks)} looks); the rule was "
                     + ("met at the last look" if last.stop else "not met: nothing was saved"))
    if last is None:
        return lines
    for c in last.comparisons:
        state = "decided" if c.decided else "undecided"
        lines.append(f"  {c.comparison.label}: {c.estimate:+.3f} [{c.lower:+.3f}, {c.upper:+.3f}] {state} "
                     f"({c.n_clusters} clusters; anytime-valid at {last.conf_each:.4g})")
    return lines
