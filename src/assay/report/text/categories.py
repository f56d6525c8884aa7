"""Text of a per-category breakdown (scores and benchmark reports): each category's mean with
its own and its simultaneous interval, and the Holm-adjusted paired contrasts.

It formats the records of :func:`assay.analysis.categories.category_breakdown`; it computes
nothing.
"""

from __future__ import annotations

from typing import Any

from assay.report.text._format import columns, fixed, p_value, percent

__all__ = ["format_categories"]

_METHODS = {"logit_cluster_robust_t": "logit cluster-robust t (CR2)",
            "cluster_robust_t": "cluster-robust t (CR2)",
            "logit_cluster_robust_t_independent_df": ("logit cluster-robust t (CR2, df of the "
                                                      "independence model: a flagged design)"),
            "cluster_robust_t_independent_df": ("cluster-robust t (CR2, df of the independence "
                                                "model: a flagged design)"),
            "korn_graubard_clopper_pearson": "Korn-Graubard where the t is undefined"}


def _methods(records: list[dict[str, Any]]) -> str:
    """The interval methods of a block, in words, in the order they first appear."""
    names = dict.fromkeys(str(r.get("method", "")).split(";")[0] for r in records)
    words = [_METHODS[n] for n in names if n in _METHODS]
    return "; ".join(words) or "cluster-robust t intervals"


def _size(record: dict[str, Any]) -> str:
    """items/clusters, with G* where the design is flagged (few unequal clusters)."""
    size = f"{record['n_items']}/{record['n_clusters']}"
    if record.get("design_flagged"):
        size += f" ({float(record['effective_clusters']):.1f} effective)"
    return size


def format_categories(categories: list[dict[str, Any]], contrasts: list[dict[str, Any]], *,
                      conf: float, group: tuple[str, ...], digits: int = 3) -> list[str]:
    """Blocks of text: one per group (e.g. criterion and judge) with its categories and
    contrasts; empty without categories."""
    blocks: list[str] = []
    keys = list(dict.fromkeys(tuple(r[g] for g in group) for r in categories))
    for key in keys:
        mine = [r for r in categories if tuple(r[g] for g in group) == key]
        label = f"category (task): {' / '.join(key)}" if key else "category (task)"
        body = [[r["arm"], r["category"], _size(r),
                 fixed(r["estimate"], digits),
                 f"[{fixed(r['lower'], digits)}, {fixed(r['upper'], digits)}]",
                 f"[{fixed(r['lower_simultaneous'], digits)}, "
                 f"{fixed(r['upper_simultaneous'], digits)}]"] for r in mine]
        text = [f"By {label} ({_methods(mine)}, {percent(conf)} each and "
                f"{percent(conf)} simultaneous over each arm's categories, max-t)"]
        text += columns(["arm", "category", "items/clusters", "mean", "interval",
                         "simultaneous"], body, indent="  ")
        pairs = [c for c in contrasts if tuple(c[g] for g in group) == key]
        if pairs:
            text.append(f"  Paired differences per category (first minus second; p adjusted by "
                        f"Holm over the {len(pairs)} category contrasts)")
            text += columns(["category", "arm1 - arm2", "difference", "interval", "p", "p adj"],
                            [[c["category"], f"{c['arm1']} - {c['arm2']}",
                              fixed(c["estimate"], digits),
                              f"[{fixed(c['lower'], digits)}, {fixed(c['upper'], digits)}]",
                              p_value(c["p_value"], digits), p_value(c["p_adjusted"], digits)]
                             for c in pairs], indent="  ")
        blocks.append("\n".join(text))
    return blocks
