"""Plotly figures as plain data: forest plots, lines with error bars, frontier, stacked bars.

Each function takes numbers a report already holds (one point per arm, pair or k, never
one per judgment) and returns a :class:`~assay.report.html._model.Figure`. Names go into
``x``, ``y``, ``name``, ``text`` and ``customdata``, which the renderer escapes; hover
templates are fixed strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.report.html._model import Figure, Trace, is_missing
from assay.report.html._render import MISSING, PALETTE


@dataclass(frozen=True)
class ForestPoint:
    """One row of a forest plot: a label on the y axis, a group (trace), and an interval."""

    label: str
    group: str
    estimate: Any
    lower: Any
    upper: Any
    key: str
    """Text a click writes into the section's table filter."""
    detail: str = ""


def number(value: Any, digits: int = 3) -> str:
    """A value for hover text: ``digits`` decimals, a dash when missing."""
    return MISSING if is_missing(value) else f"{float(value):.{digits}f}"


def interval_text(lower: Any, upper: Any, digits: int = 3) -> str:
    return f"[{number(lower, digits)}, {number(upper, digits)}]"


def _span(value: Any, other: Any) -> float | None:
    """Length of an error bar from the estimate to a bound (None when either is missing)."""
    if is_missing(value) or is_missing(other):
        return None
    return abs(float(other) - float(value))


def forest(points: Sequence[ForestPoint], *, x_title: str, reference: float | None = None,
           digits: int = 3, caption: str = "", filter_table: int | None = 0) -> Figure:
    """Estimates with their intervals, one row per label, one coloured trace per group."""
    groups = list(dict.fromkeys(p.group for p in points))
    labels = list(dict.fromkeys(p.label for p in points))
    traces: list[Trace] = []
    for g, group in enumerate(groups):
        mine = [p for p in points if p.group == group]
        traces.append({
            "type": "scatter", "mode": "markers", "name": group,
            "x": [p.estimate for p in mine], "y": [p.label for p in mine],
            "marker": {"size": 9, "color": PALETTE[g % len(PALETTE)]},
            "error_x": {"type": "data", "symmetric": False, "thickness": 1.6, "width": 4,
                        "array": [_span(p.estimate, p.upper) for p in mine],
                        "arrayminus": [_span(p.estimate, p.lower) for p in mine]},
            "customdata": [[p.key, interval_text(p.lower, p.upper, digits), p.detail]
                           for p in mine],
            "hovertemplate": (f"<b>%{{y}}</b><br>%{{fullData.name}}<br>estimate %{{x:.{digits}f}}"
                              "<br>interval %{customdata[1]}<br>%{customdata[2]}<extra></extra>"),
        })
    shapes = []
    if reference is not None:
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": reference,
                       "x1": reference, "y0": 0, "y1": 1,
                       "line": {"color": "#888888", "width": 1, "dash": "dot"}})
    rows = len(labels) * max(1.0, 0.55 * len(groups))
    layout: dict[str, Any] = {
        "height": int(min(900, max(240, 90 + 30 * rows))),
        "showlegend": len(groups) > 1,
        "xaxis": {"title": {"text": x_title}, "zeroline": False, "gridcolor": "#eeeeee",
                  "automargin": True},
        "yaxis": {"type": "category", "autorange": "reversed", "automargin": True},
        "shapes": shapes,
    }
    if len(groups) > 1:
        # Grouped markers need horizontal orientation, which makes plotly's autorange take
        # in zero; give the range of the intervals instead.
        layout.update(scattermode="group", scattergap=0.5)
        for trace in traces:
            trace["orientation"] = "h"
        ends = [float(v) for p in points for v in (p.lower, p.estimate, p.upper)
                if not is_missing(v)] + ([reference] if reference is not None else [])
        if ends:
            low, high = min(ends), max(ends)
            pad = 0.06 * (high - low) if high > low else 0.05 * max(abs(high), 1.0)
            layout["xaxis"]["range"] = [low - pad, high + pad]
    return Figure(data=tuple(traces), layout=layout, caption=caption, filter_table=filter_table)


MAX_UNIT_TICKS = 20
"""Most x values that each get a tick of their own on a line chart."""


def lines_with_errors(series: Sequence[tuple[str, Sequence[Any], Sequence[Any], Sequence[Any],
                                             Sequence[Any]]], *,
                      x_title: str, y_title: str, caption: str = "",
                      filter_table: int | None = 0,
                      y_range: tuple[float, float] | None = None) -> Figure:
    """One line per (name, x, y, lower, upper) with asymmetric error bars on y; ``y_range``
    fixes the axis to a statistic's own range (a Kendall tau's -1 to 1)."""
    traces: list[Trace] = []
    for s, (name, xs, ys, lowers, uppers) in enumerate(series):
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": name, "x": list(xs),
            "y": list(ys), "line": {"color": PALETTE[s % len(PALETTE)]},
            "error_y": {"type": "data", "symmetric": False, "thickness": 1.4, "width": 4,
                        "array": [_span(y, u) for y, u in zip(ys, uppers, strict=True)],
                        "arrayminus": [_span(y, lo) for y, lo in zip(ys, lowers, strict=True)]},
            "customdata": [[name, interval_text(lo, u)]
                           for lo, u in zip(lowers, uppers, strict=True)],
            "hovertemplate": ("<b>%{fullData.name}</b><br>" + x_title + " %{x}<br>" + y_title
                              + " %{y:.3f}<br>interval %{customdata[1]}<extra></extra>"),
        })
    # A tick per value while they fit (runs 1..5); past 20, plotly's own spacing (about 12
    # ticks), so 161 drift windows do not smear into a bar of labels.
    n_x = len({x for _, xs, *_ in series for x in xs})
    ticks = {"dtick": 1} if n_x <= MAX_UNIT_TICKS else {"nticks": 12}
    layout = {"height": 340,
              "xaxis": {"title": {"text": x_title}, "automargin": True, **ticks},
              "yaxis": {"title": {"text": y_title}, "gridcolor": "#eeeeee", "automargin": True}}
    if y_range is not None:
        pad = 0.03 * (y_range[1] - y_range[0])
        layout["yaxis"]["range"] = [y_range[0] - pad, y_range[1] + pad]
    return Figure(data=tuple(traces), layout=layout, caption=caption, filter_table=filter_table)


@dataclass(frozen=True)
class FrontierPoint:
    arm: str
    cost: Any
    cost_lower: Any
    cost_upper: Any
    accuracy: Any
    accuracy_lower: Any
    accuracy_upper: Any
    on_frontier: bool
    frontier_share: Any


def frontier(points: Sequence[FrontierPoint], *, cost_title: str, caption: str = "",
             filter_table: int | None = 0) -> Figure:
    """Cost against accuracy per arm, the frontier arms joined by a line (ordered by cost)."""
    on = sorted((p for p in points if p.on_frontier and not is_missing(p.cost)),
                key=lambda p: float(p.cost))
    arms: Trace = {
        "type": "scatter", "mode": "markers+text", "name": "arms",
        "x": [p.cost for p in points], "y": [p.accuracy for p in points],
        "text": [p.arm for p in points], "textposition": "top center", "cliponaxis": False,
        "marker": {"size": 12, "color": [PALETTE[0] if p.on_frontier else "#9ca3af"
                                         for p in points]},
        "error_x": {"type": "data", "symmetric": False, "thickness": 1, "width": 3,
                    "array": [_span(p.cost, p.cost_upper) for p in points],
                    "arrayminus": [_span(p.cost, p.cost_lower) for p in points]},
        "error_y": {"type": "data", "symmetric": False, "thickness": 1, "width": 3,
                    "array": [_span(p.accuracy, p.accuracy_upper) for p in points],
                    "arrayminus": [_span(p.accuracy, p.accuracy_lower) for p in points]},
        "customdata": [[p.arm, "yes" if p.on_frontier else "no", number(p.frontier_share)]
                       for p in points],
        "hovertemplate": ("<b>%{text}</b><br>" + cost_title + " %{x:.4g}<br>accuracy %{y:.3f}"
                          "<br>on the frontier: %{customdata[1]}<br>frontier share "
                          "%{customdata[2]}<extra></extra>"),
    }
    line: Trace = {"type": "scatter", "mode": "lines", "name": "frontier",
                   "x": [p.cost for p in on], "y": [p.accuracy for p in on],
                   "line": {"color": PALETTE[0], "dash": "dash", "width": 1.5},
                   "hoverinfo": "skip"}
    layout = {"height": 420, "showlegend": False,
              "xaxis": {"title": {"text": cost_title}, "gridcolor": "#eeeeee",
                        "exponentformat": "e", "automargin": True},
              "yaxis": {"title": {"text": "accuracy"}, "gridcolor": "#eeeeee",
                        "automargin": True}}
    return Figure(data=(line, arms), layout=layout, caption=caption, filter_table=filter_table)


def stacked_bars(categories: Sequence[str], stacks: Sequence[tuple[str, Sequence[Any]]], *,
                 y_title: str, caption: str = "", filter_table: int | None = 0,
                 barmode: str = "stack") -> Figure:
    """Values per category (x), one bar segment per named series, stacked or grouped."""
    traces: list[Trace] = [{
        "type": "bar", "name": name, "x": list(categories), "y": list(values),
        "marker": {"color": PALETTE[s % len(PALETTE)]},
        "customdata": [[c] for c in categories],
        "hovertemplate": "<b>%{x}</b><br>%{fullData.name}: %{y}<extra></extra>",
    } for s, (name, values) in enumerate(stacks)]
    layout = {"height": 340, "barmode": barmode,
              "xaxis": {"type": "category", "automargin": True},
              "yaxis": {"title": {"text": y_title}, "gridcolor": "#eeeeee", "automargin": True}}
    return Figure(data=tuple(traces), layout=layout, caption=caption, filter_table=filter_table)
