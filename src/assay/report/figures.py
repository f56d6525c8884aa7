"""PNG figures (``--format png``): scores with intervals, paired differences, the cost frontier.

Drawn with matplotlib's Agg canvas (no display, no pyplot state). Each figure is written
when its report is present:

==============================  =====================================================
``benchmark_accuracy.png``      accuracy per arm with its interval (forest plot), from
                                :class:`~assay.analysis.benchmark._report.BenchmarkReport`
``benchmark_contrasts.png``     paired differences with their intervals, marginal and
                                simultaneous (max-t), around zero
``cost_frontier.png``           dollars per item against accuracy, frontier arms joined
``composite_scores.png``        composite score per arm with its interval, from
                                :class:`~assay.analysis.composite.CompositeScores`
``aggregate_scores.png``        the results aggregator's figure: mean score per (criterion, judge)
                                over runs with its interval, from
                                :class:`~assay.analysis.aggregate._report.AggregateReport`
==============================  =====================================================

The renderer computes nothing: it plots fields of each report's ``to_dict()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from assay.analysis.aggregate import AggregateReport
from assay.analysis.benchmark import BenchmarkReport
from assay.analysis.composite import CompositeScores
from assay.data.cells import visible
from assay.report._collect import reports_by_type

__all__ = ["write_figures"]

DPI = 150


def write_figures(reports: Sequence[Any] | Mapping[str, Any], out_dir: str | Path) -> list[Path]:
    """Write one PNG per figure the reports allow and return their paths.

    Parameters
    ----------
    reports : sequence or mapping of report objects
        ``BenchmarkReport``, ``CompositeScores``, ``AggregateReport`` (others are ignored;
        ``(title, report)`` pairs are accepted).
    out_dir : str or Path
        Folder to write into; created when missing.

    Returns
    -------
    list of Path
        The PNG files written (empty when no report has a figure).

    Examples
    --------
    >>> import tempfile
    >>> write_figures([], tempfile.mkdtemp())
    []
    """
    found = _by_type(reports)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if BenchmarkReport in found:
        bench = found[BenchmarkReport].to_dict()
        percent = f"{round(100 * bench['conf'])}%"
        written.append(_forest(out / "benchmark_accuracy.png", [r["arm"] for r in bench["accuracy"]],
                               bench["accuracy"], "Accuracy",
                               f"Accuracy per arm {_with(bench['accuracy'], percent, BENCH_HINT)} "
                               f"({bench['method']})",
                               xlim=(0.0, 1.0)))
        if bench["contrasts"]:
            written.append(_contrasts(out / "benchmark_contrasts.png", bench, percent))
        if bench["frontier"]:
            written.append(_frontier(out / "cost_frontier.png", bench["frontier"]))
    if CompositeScores in found:
        comp = found[CompositeScores].to_dict()
        rows = [r for r in comp["composite"] if r.get("task") is None]
        if rows:
            written.append(_forest(out / "composite_scores.png", [r["arm"] for r in rows], rows,
                                   "Composite score (normalised to [0, 1])",
                                   "Composite score per arm "
                                   f"{_with(rows, str(round(100 * comp['conf'])) + '%')}",
                                   xlim=(0.0, 1.0)))
    if AggregateReport in found:
        agg = found[AggregateReport].to_dict()
        rows = [{"estimate": a["mean"], "lower": a["ci_lower"], "upper": a["ci_upper"]}
                for a in agg["aggregations"].values()]
        if rows:
            labels = [f"{a['metric_name']} ({a['evaluator_model']})" for a in agg["aggregations"].values()]
            written.append(_forest(out / "aggregate_scores.png", labels, rows, "Mean score over runs",
                                   "Mean score per metric and judge "
                                   f"{_with(rows, str(round(100 * agg['conf'])) + '%')} over runs"))
    return written


def _has_bounds(rows: Sequence[Mapping[str, Any]]) -> bool:
    return any(r.get("lower") is not None and r.get("upper") is not None for r in rows)


BENCH_HINT = "descriptive report; --method cluster_t gives intervals"


def _with(rows: Sequence[Mapping[str, Any]], percent: str, why: str = "no interval is defined"
          ) -> str:
    """"with 95% intervals" when some row has bounds; else says there are none and why, so
    that no title announces intervals over a column of dashes."""
    if _has_bounds(rows):
        return f"with {percent} intervals"
    return f"(point estimates only: {why})"


def _figure(n_rows: int) -> tuple[Figure, Any]:
    fig = Figure(figsize=(7.5, 1.4 + 0.45 * max(n_rows, 2)), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, facecolor="white")
    return path


def _errors(rows: Sequence[Mapping[str, Any]]) -> tuple[list[float], list[list[float]]]:
    """Estimates and errorbar half-widths; a missing bound (descriptive report) draws no bar."""
    est = [float(r["estimate"]) for r in rows]
    low = [e - float(r["lower"]) if r.get("lower") is not None else 0.0
           for e, r in zip(est, rows, strict=True)]
    high = [float(r["upper"]) - e if r.get("upper") is not None else 0.0
            for e, r in zip(est, rows, strict=True)]
    return est, [low, high]


def _forest(path: Path, labels: Sequence[str], rows: Sequence[Mapping[str, Any]], xlabel: str, title: str,
            *, xlim: tuple[float, float] | None = None) -> Path:
    fig, ax = _figure(len(rows))
    y = list(range(len(rows)))[::-1]
    est, err = _errors(rows)
    ax.errorbar(est, y, xerr=err, fmt="o", color="#1f4e79", ecolor="#5b8db8", capsize=4, markersize=6)
    for yi, e in zip(y, est, strict=True):
        ax.annotate(f"{e:.3f}", (e, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_yticks(y, [visible(str(label)) for label in labels])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_title(visible(title), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _contrasts(path: Path, bench: Mapping[str, Any], percent: str) -> Path:
    rows = bench["contrasts"]
    fig, ax = _figure(len(rows))
    y = list(range(len(rows)))[::-1]
    est, err = _errors(rows)
    ax.axvline(0.0, color="grey", linewidth=1)
    simultaneous = {(r["arm1"], r["arm2"]): r for r in bench.get("simultaneous") or []}
    sim = [simultaneous.get((r["arm1"], r["arm2"])) for r in rows]
    if any(s is not None for s in sim):
        pairs = [(yi, s) for yi, s in zip(y, sim, strict=True) if s is not None]
        s_est, s_err = _errors([s for _, s in pairs])
        ax.errorbar(s_est, [yi for yi, _ in pairs], xerr=s_err, fmt="none", ecolor="#e0a040",
                    elinewidth=6, alpha=0.45, label="simultaneous (max-t)")
    ax.errorbar(est, y, xerr=err, fmt="o", color="#1f4e79", ecolor="#1f4e79", capsize=4,
                label=f"marginal {percent}" if _has_bounds(rows) else "estimate")
    ax.set_yticks(y, [visible(f"{r['arm1']} - {r['arm2']}") for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Difference in accuracy")
    ax.set_title(f"Paired differences {_with(rows, percent, BENCH_HINT)}", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _frontier(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    fig = Figure(figsize=(7.0, 4.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    usable = [r for r in rows if r.get("usd_per_item") is not None and r.get("accuracy") is not None]
    on = sorted((r for r in usable if r.get("on_frontier")), key=lambda r: r["usd_per_item"])
    off = [r for r in usable if not r.get("on_frontier")]
    if on:
        ax.plot([r["usd_per_item"] for r in on], [r["accuracy"] for r in on], "-o", color="#1f4e79",
                label="on the frontier")
    if off:
        ax.plot([r["usd_per_item"] for r in off], [r["accuracy"] for r in off], "o", color="#a0a0a0",
                label="dominated")
    for r in usable:
        share = r.get("frontier_share")
        text = r["arm"] if share is None else f"{r['arm']} ({share:.0%} of resamples)"
        ax.annotate(visible(str(text)), (r["usd_per_item"], r["accuracy"]), textcoords="offset points",
                    xytext=(6, -10), fontsize=8)
    ax.set_xlabel("Dollars per item")
    ax.set_ylabel("Accuracy")
    ax.set_title("Cost-accuracy frontier", fontsize=10)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 3))
    ax.margins(x=0.25, y=0.15)
    ax.grid(alpha=0.3)
    if usable:
        ax.legend(fontsize=8, loc="lower right")
    return _save(fig, path)


_KNOWN = (AggregateReport, BenchmarkReport, CompositeScores)


def _by_type(reports: Sequence[Any] | Mapping[str, Any]) -> dict[type, Any]:
    return reports_by_type(reports, _KNOWN)
