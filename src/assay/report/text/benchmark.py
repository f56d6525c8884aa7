"""Plain-text layout of a benchmark report (hr_report's example print).

The only place the benchmark report is rounded: accuracies, differences and shares to
``digits`` decimals, dollars and tokens to ``digits + 1`` significant digits. Tables are
left-aligned columns, wrapped at 80 characters like R's ``print.data.frame``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from assay.report.text._format import p_text
from assay.report.text.categories import format_categories

__all__ = ["format_benchmark_report"]

WIDTH = 80
MISSING = "-"

_INTERVALS = {
    "cluster_t": "cluster-robust t on the logit scale, C - 1 df",
    "bootstrap": "studentised cluster bootstrap, {B} resamples",
    "exact": "Clopper-Pearson on the Korn-Graubard effective number of items",
    "bayes": "beta-binomial Bayes with a cluster random effect, equal-tailed credible",
}
_CR2_INTERVAL = "cluster-robust t (CR2) on the logit scale, Bell-McCaffrey df"
_CR2_INDEPENDENT = ("cluster-robust t (CR2) on the logit scale, Bell-McCaffrey df of the "
                    "independence working model")
_FLAGGED_METHODS = {"logit_cluster_robust_t_independent_df", "cluster_robust_t_independent_df"}
_RUN_INTERVAL = ("rows marked logit_cluster_run_t or cluster_run_t add the run component "
                 "(V_1 + V_run, Satterthwaite df)")
_RUN_METHODS = {"logit_cluster_run_t", "cluster_run_t"}
_ACCURACY_METHODS = {
    "cluster_t": "logit_cluster_robust_t",
    "bootstrap": "studentised_cluster_bootstrap",
    "exact": "korn_graubard_clopper_pearson",
    "bayes": "beta_binomial_bayes",
}


def format_benchmark_report(report: Any, *, digits: int = 3) -> str:
    """Lay out a benchmark report (a ``BenchmarkReport`` or its ``to_dict()``) as text."""
    data: Mapping[str, Any] = report.to_dict() if hasattr(report, "to_dict") else report
    fmt = _Numbers(digits)
    out = [_header(data), _intervals_line(data), ""]
    out += _accuracy(data, fmt)
    out += _bayes(data, fmt)
    out += _contrasts(data, fmt)
    out += _section("Stability across runs:", [
        ("arm", [r["arm"] for r in data["stability"]]),
        ("flip_rate", [fmt.fixed(r["flip_rate"]) for r in data["stability"]]),
        ("TARa", [fmt.fixed(r["tara"]) for r in data["stability"]]),
        ("run_sd", [fmt.fixed(r["run_sd"]) for r in data["stability"]]),
    ])
    out += _pass_k(data, fmt)
    out += _cost(data, fmt)
    out += _failures(data, fmt)
    out += _ni(data, fmt)
    if data.get("categories"):
        out += [*format_categories(data["categories"], data["category_contrasts"] or [],
                                   conf=data["conf"], group=(), digits=digits), ""]
    variance = data["variance"]
    out.append(f"Variance on the probability scale: within-item runs "
               f"{fmt.fixed(variance['within'])}, between items {fmt.fixed(variance['between'])}"
               f", within share {fmt.fixed(variance['within_share'])}.")
    out += [f"Note: {note}" for note in data["notes"]]
    return "\n".join(out)


class _Numbers:
    def __init__(self, digits: int) -> None:
        self.digits = digits

    def fixed(self, value: Any) -> str:
        if not _is_number(value):
            return MISSING
        return f"{float(value):.{self.digits}f}"

    def significant(self, value: Any) -> str:
        if not _is_number(value):
            return MISSING
        return f"{float(value):.{self.digits + 1}g}"

    def count(self, value: Any) -> str:
        if not _is_number(value):
            return MISSING
        number = float(value)
        return str(int(number)) if number.is_integer() else f"{number:.{self.digits}f}"

    def interval(self, lower: Any, upper: Any, *, significant: bool = False) -> str:
        if not (_is_number(lower) and _is_number(upper)):
            return MISSING
        show = self.significant if significant else self.fixed
        return f"[{show(lower)}, {show(upper)}]"


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(float(value)))


def _unequal(data: Mapping[str, Any]) -> bool:
    """Whether the clusters differ in size (G* below C), where CR2 differs from C - 1 df."""
    effective = data.get("effective_clusters")
    return _is_number(effective) and float(effective) < data["n_clusters"] * (1.0 - 1e-9)


def _header(data: Mapping[str, Any]) -> str:
    kind = ", confirmatory" if data["confirmatory"] else ""
    effective = (f" ({float(data['effective_clusters']):.1f} effective)" if _unequal(data)
                 else "")
    return (f"<assay benchmark report{kind}> {len(data['arms'])} arm(s), {data['n_items']} "
            f"item(s) in {data['n_clusters']} cluster(s){effective}, {data['runs']} run(s)")


def _intervals_line(data: Mapping[str, Any]) -> str:
    """The method line; it names every interval the rows hold (an accuracy or difference
    interval with the run component added, or on the independence df, is said so here)."""
    if data["descriptive"]:
        return f"Descriptive only ({data['method_reason']})."
    what = _INTERVALS.get(data["method"], data["method"]).format(B=data["B"])
    methods = {r["method"] for r in data["accuracy"]} | {r["method"] for r in data["contrasts"]}
    if data["method"] == "cluster_t" and methods & _FLAGGED_METHODS:
        what = _CR2_INDEPENDENT
    elif data["method"] == "cluster_t" and _unequal(data):
        what = _CR2_INTERVAL
    if methods & _RUN_METHODS:
        what += f"; {_RUN_INTERVAL}"
    return f"Intervals: {what} at {_percent(data['conf'])} ({data['method_reason']})."


def _accuracy(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data["accuracy"]
    columns = [("arm", [r["arm"] for r in rows]),
               ("accuracy", [fmt.fixed(r["estimate"]) for r in rows])]
    if not data["descriptive"]:
        columns.append(("interval", [fmt.interval(r["lower"], r["upper"]) for r in rows]))
        columns.append(("rank_interval", [_rank(r) for r in rows]))
        expected = _ACCURACY_METHODS.get(data["method"])
        if any(r["method"] != expected for r in rows):
            columns.append(("method", [r["method"] for r in rows]))
    return _section("Accuracy (arms in benchmark order, not ranked; failures count as wrong):", columns)


def _rank(record: Mapping[str, Any]) -> str:
    if record["rank_lower"] is None or record["rank_upper"] is None:
        return MISSING
    return f"{record['rank_lower']}-{record['rank_upper']}"


def _bayes(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data.get("bayes")
    if not rows:
        return []
    return _section("Bayesian posterior of mu (clusters weighted alike):", [
        ("arm", [r["arm"] for r in rows]),
        ("posterior_mean", [fmt.fixed(r["posterior_mean"]) for r in rows]),
        ("posterior_median", [fmt.fixed(r["posterior_median"]) for r in rows]),
        ("rho_mean", [fmt.fixed(r["rho_mean"]) for r in rows]),
    ])


def _contrasts(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data["contrasts"]
    if not rows:
        return []
    simultaneous = {(r["arm1"], r["arm2"]): (r["lower"], r["upper"])
                    for r in data["simultaneous"]}
    for (first, second), (lower, upper) in list(simultaneous.items()):
        simultaneous[(second, first)] = (None if upper is None else -upper,
                                         None if lower is None else -lower)
    columns = [("contrast", [f"{r['arm1']} - {r['arm2']}" for r in rows]),
               ("difference", [fmt.fixed(r["estimate"]) for r in rows])]
    if not data["descriptive"]:
        columns.append(("interval", [fmt.interval(r["lower"], r["upper"]) for r in rows]))
        columns.append(("simultaneous", [fmt.interval(*simultaneous.get(
            (r["arm1"], r["arm2"]), (None, None))) for r in rows]))
        if any(r["method"] != "cluster_robust_t" for r in rows):
            columns.append(("method", [r["method"] for r in rows]))
    return _section("Paired differences (first minus second):", columns)


def _pass_k(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data["pass_k"]
    if not rows:
        return []
    ks = sorted({r["k"] for r in rows})
    value = {(r["arm"], r["k"]): r["pass_k"] for r in rows}
    arms = [a for a in data["arms"] if any((a, k) in value for k in ks)]
    columns = [("arm", arms)]
    columns += [(f"pass^{k}", [fmt.fixed(value.get((a, k))) for a in arms]) for k in ks]
    return _section("Reliability:", columns)


def _cost(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data.get("cost")
    if not rows:
        return []
    frontier = {r["arm"]: r for r in (data.get("frontier") or [])}
    columns = [
        ("arm", [r["arm"] for r in rows]),
        ("usd_per_item", [fmt.significant(r["usd_per_item"]) for r in rows]),
        ("usd_per_correct", [fmt.significant(r["usd_per_correct"]) for r in rows]),
        ("interval", [fmt.interval(r["usd_per_correct_lower"], r["usd_per_correct_upper"],
                                   significant=True) for r in rows]),
        ("tokens_per_item", [fmt.significant(r["tokens_per_item"]) for r in rows]),
        ("estimated", [_flag(r["estimated_flag"], r["usd_estimated_share"], fmt)
                       for r in rows]),
    ]
    if frontier:
        columns.append(("on_frontier", [_yes(frontier[r["arm"]]["on_frontier"]) for r in rows]))
        columns.append(("frontier_share", [fmt.fixed(frontier[r["arm"]]["frontier_share"])
                                           for r in rows]))
    return _section("Cost:", columns)


def _flag(flag: Any, share: Any, fmt: _Numbers) -> str:
    if flag is None:
        return MISSING
    return f"{'yes' if flag else 'no'} ({fmt.fixed(share)})"


def _yes(value: Any) -> str:
    return MISSING if value is None else ("yes" if value else "no")


def _failures(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data["failures"]
    fixed = {"arm", "wrong", "n_failures", "accuracy", "accuracy_without_parse_refusal"}
    kinds = [key for key in rows[0] if key not in fixed] if rows else []
    columns = [("arm", [r["arm"] for r in rows]),
               ("wrong", [fmt.count(r["wrong"]) for r in rows])]
    columns += [(kind, [fmt.count(r[kind]) for r in rows]) for kind in kinds]
    columns.append(("without_parse_refusal",
                    [fmt.fixed(r["accuracy_without_parse_refusal"]) for r in rows]))
    return _section("Failures (all counted wrong):", columns)


def _ni(data: Mapping[str, Any], fmt: _Numbers) -> list[str]:
    rows = data.get("ni")
    if not rows:
        return []
    reg = data.get("registration") or {}
    title = (f"Non-inferiority (registration {str(reg.get('hash', ''))[:12]}, reference "
             f"{reg.get('reference_hash', MISSING)}; new minus reference, one-sided):")
    columns = [
        ("contrast", [r["label"] for r in rows]),
        ("margin", [fmt.fixed(r["margin"]) for r in rows]),
        ("estimate", [fmt.fixed(r["estimate"]) for r in rows]),
        ("lower", [fmt.fixed(r["lower"]) for r in rows]),
        ("level", [f"{float(r['level']):.{fmt.digits}g}" for r in rows]),
        ("cost_upper", [fmt.significant(r["cost_upper"]) for r in rows]),
        ("tango", [fmt.interval(r["tango_lower"], r["tango_upper"]) for r in rows]),
        ("p_value", [p_text(r["p_value"]) for r in rows]),
        ("mdd_design", [fmt.fixed(r["mdd_design"]) for r in rows]),
        ("mdd_achieved", [fmt.fixed(r["mdd_achieved"]) for r in rows]),
        ("verdict", [r["verdict"] + ("" if r["confirmatory"] else " (exploratory)")
                     for r in rows]),
    ]
    return _section(title, columns)


def _section(title: str, columns: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    return [title, *_table(columns), ""]


def _table(columns: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """Left-aligned columns, one space apart, wrapped into blocks that fit ``WIDTH``."""
    widths = [max(len(h), *(len(v) for v in values)) if values else len(h)
              for h, values in columns]
    blocks: list[list[int]] = [[]]
    used = 0
    for index, width in enumerate(widths):
        if blocks[-1] and used + 1 + width > WIDTH:
            blocks.append([])
            used = 0
        blocks[-1].append(index)
        used += 1 + width
    n_rows = len(columns[0][1]) if columns else 0
    lines = []
    for block in blocks:
        lines.append(" " + " ".join(columns[i][0].ljust(widths[i]) for i in block))
        lines += [" " + " ".join(columns[i][1][row].ljust(widths[i]) for i in block)
                  for row in range(n_rows)]
    return lines


def _percent(conf: Any) -> str:
    return f"{100.0 * float(conf):g}%"
