"""Self-contained HTML reports: one file per report object, plus ``index.html``, the dashboard.

Each analysis object becomes a page through a page builder registered for its type
(:class:`~assay.analysis.scores.ScoreSummary` -> ``scores.html``,
:class:`~assay.analysis.benchmark._report.BenchmarkReport` -> ``benchmark.html``). A page is a
title and sections; a section holds tables, plotly figures and notes, or the reason its data
do not exist. An analysis added later gets a page by registering a builder that lays its
object out as a :class:`Page` (:func:`register_page`); until it has one, an object with
``to_dict()`` is laid out from that dict (its lists of records as tables, with a forest plot
where records carry intervals). A :class:`Page` built by hand renders as it is.

Every file opens from disk with the network off: the CSS and assay's JavaScript are inlined;
plotly.js, read from the installed ``plotly`` package, is written once per folder as
``plotly.min.js`` beside the pages and loaded with a relative ``<script src>`` (4.7 MB once,
not once a page). ``single_file=True`` writes one ``index.html`` instead, with plotly.js
inlined and every page as a tab, for a report to send as one attachment. Tables sort by any column, filter
by a text box and export the rows shown as CSV (numbers at full precision); a click on a
chart's point filters the table beside it. Renderers format; they compute nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.analysis.aggregate import AggregateReport
from assay.analysis.answer import Answer
from assay.analysis.benchmark import BenchmarkReport
from assay.analysis.compare import ComparisonReport
from assay.analysis.composite import CompositeScores
from assay.analysis.cost import CostSummary
from assay.analysis.coverage import (
    CoverageReport,
    InteractionMatrix,
    SamplingAblation,
    TeacherReport,
)
from assay.analysis.judges import (
    CalibrationCurves,
    EnsembleReport,
    JudgeConsistency,
    JudgeReport,
    RobustSummary,
)
from assay.analysis.scores import ScoreSummary
from assay.analysis.systems import FactorBreakdown, SystemsReport
from assay.analysis.winrates import WinRateReport
from assay.report.html._aggregate import aggregate_page
from assay.report.html._benchmark import benchmark_page
from assay.report.html._compare import compare_page
from assay.report.html._coverage import coverage_page, interaction_page
from assay.report.html._dashboard import answer_context, dashboard_context, glossary_page
from assay.report.html._generic import cost_page, generic_page
from assay.report.html._judges import judges_page
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table
from assay.report.html._render import PLOTLY_FILE, PageBuilder, plotly_source, render_document
from assay.report.html._robust import consistency_page, robust_page
from assay.report.html._scores import scores_page
from assay.report.html._systems import composite_page, systems_page
from assay.report.html._winrates import winrates_page
from assay.report.html.coeval import (
    curves_page,
    ensemble_page,
    factors_page,
    sampling_page,
    teacher_page,
)

__all__ = [
    "HTML_ASSETS",
    "Column",
    "Figure",
    "Highlight",
    "Page",
    "Section",
    "Table",
    "page_for",
    "register_page",
    "render_html",
]

PageFunction = Callable[[Any], Page]

COEVAL_PAGES: dict[type, PageFunction] = {
    TeacherReport: teacher_page, CalibrationCurves: curves_page, SamplingAblation: sampling_page,
    EnsembleReport: ensemble_page, FactorBreakdown: factors_page,
    InteractionMatrix: interaction_page,
}

_BUILDERS: dict[type, PageFunction] = {
    ScoreSummary: scores_page,
    BenchmarkReport: benchmark_page,
    ComparisonReport: compare_page,
    AggregateReport: aggregate_page,
    JudgeReport: judges_page,
    WinRateReport: winrates_page,
    RobustSummary: robust_page,
    JudgeConsistency: consistency_page,
    CoverageReport: coverage_page,
    CompositeScores: composite_page,
    SystemsReport: systems_page,
    CostSummary: cost_page,
    **COEVAL_PAGES,
}

INDEX = "index.html"
HTML_ASSETS = ("glossary.html", PLOTLY_FILE)
"""Files :func:`render_html` writes beside the pages it returns (plotly.min.js only when a
page has a chart)."""


def register_page(kind: type, builder: PageFunction) -> None:
    """Render objects of type ``kind`` (and its subclasses) with ``builder(obj) -> Page``.

    Registering a type again replaces its builder.
    """
    if not isinstance(kind, type):
        raise TypeError(f"kind must be a class, got {kind!r}")
    _BUILDERS[kind] = builder


def page_for(report: Any) -> Page:
    """The page of one report object.

    A :class:`Page` as it is; else the builder registered for its type (or a base class);
    else, for an object with ``to_dict()``, a page laid out from that dict's tables and
    numbers (:mod:`assay.report.html._generic`).
    """
    if isinstance(report, Page):
        return report
    for kind in type(report).__mro__:
        if kind in _BUILDERS:
            return _BUILDERS[kind](report)
    if callable(getattr(report, "to_dict", None)):
        return generic_page(report)
    known = ", ".join(sorted(k.__name__ for k in _BUILDERS))
    raise TypeError(f"no HTML page for a {type(report).__name__}: pass one of {known}, an object "
                    "with to_dict(), or a Page, or register a builder with register_page")


def render_html(
    reports: Sequence[Any],
    out_dir: str | Path,
    *,
    partial: bool = False,
    captions: Mapping[str, str] | None = None,
    skipped: Mapping[str, str] | None = None,
    title: str = "Evaluation dashboard",
    single_file: bool = False,
) -> list[Path]:
    """Write one HTML file per report, ``index.html`` linking them all, and ``plotly.min.js``.

    Parameters
    ----------
    reports : sequence
        Analysis objects (``ScoreSummary``, ``BenchmarkReport``, any registered type) or
        :class:`Page` objects. Each is written to ``<slug>.html`` (``scores.html``,
        ``benchmark.html``); a repeated slug gets a suffix (``benchmark-2.html``). An
        :class:`~assay.analysis.answer.Answer` is not a page: it opens the dashboard (the
        verdict table of each criterion and the judges' trust panel).
    out_dir : str or Path
        Folder to write into; created when missing. Files of the same names are replaced.
    partial : bool, default False
        The run is incomplete (``--partial-ok``): every page carries a banner and every
        section, table caption and chart is marked preliminary.
    captions : mapping, optional
        A line under a page's title, by slug, e.g.
        ``{"benchmark": "judge exact-match, criterion correct"}``.
    skipped : mapping, optional
        Reports that were not made, with the reason: the dashboard counts them in one line
        and folds the reasons under it, e.g.
        ``{"win rates": "no pairwise judgments"}``.
    title : str
        The dashboard's title.
    single_file : bool, default False
        Write one ``index.html`` holding the dashboard and every page as tabs, plotly.js
        inlined, instead of a file per page and a shared ``plotly.min.js``.

    Returns
    -------
    list of Path
        The pages: ``index.html`` first, then each page in the order given (``index.html``
        alone with ``single_file``). Beside them, every folder also gets ``glossary.html``
        (linked from each page's navigation) and, when a page has a chart, ``plotly.min.js``
        (:data:`HTML_ASSETS`).

    Examples
    --------
    >>> import tempfile
    >>> page = Page(slug="hello", title="Hello", sections=(
    ...     Section(title="Counts", tables=(Table.from_records(
    ...         [{"arm": "a", "n": 3}], (Column("arm", "arm"), Column("n", "n", "int"))),)),
    ...     Section(title="Costs", missing="no usd column")))
    >>> paths = render_html([page], tempfile.mkdtemp())
    >>> [p.name for p in paths]
    ['index.html', 'hello.html']
    >>> "Not available: no usd column" in paths[1].read_text()
    True
    """
    captions = dict(captions or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # An answer is the dashboard's first screen, not a page of its own.
    answers = [answer_context(r) for r in reports if isinstance(r, Answer)]
    pages = _unique_slugs([*(page_for(r) for r in reports if not isinstance(r, Answer)),
                           glossary_page()])
    if single_file:
        return [_write(out / INDEX, _single_file(pages, captions, dict(skipped or {}), answers,
                                                 partial=partial, title=title))]
    nav = [{"href": f"{p.slug}.html", "title": p.title} for p in pages]
    written = []
    charts = False
    for page in pages:
        builder = PageBuilder(partial=partial)
        sections = [builder.section(s, anchor=f"sec-{i}") for i, s in enumerate(page.sections, 1)]
        text = render_document("page.html.j2", {
            "heading": page.title, "caption": captions.get(page.slug, ""),
            "facts": list(page.facts), "sections": sections,
            "nav": [{**link, "current": link["href"] == f"{page.slug}.html"} for link in nav],
        }, builder)
        charts = charts or bool(builder.figures)
        written.append(_write(out / f"{page.slug}.html", text))
    builder = PageBuilder(partial=partial)
    # The glossary (last) is linked from the navigation, not carded as a report.
    context = dashboard_context([(f"{p.slug}.html", p) for p in pages[:-1]], captions,
                                dict(skipped or {}), builder)
    text = render_document("index.html.j2", {
        "heading": title, "caption": "", "facts": [],
        "nav": _dashboard_nav(len(pages) - 1), "answers": answers, **context}, builder)
    charts = charts or bool(builder.figures)
    index = _write(out / INDEX, text)
    if charts:
        _write(out / PLOTLY_FILE, plotly_source())
    return [index, *written[:-1]]  # the glossary (last) is an asset, as plotly.min.js


def _dashboard_nav(n_reports: int) -> list[dict[str, Any]]:
    """The dashboard's navigation: one line, its reports' cards are on the page itself."""
    return [{"href": "#reports", "title": f"Reports ({n_reports})", "current": False},
            {"href": "glossary.html", "title": "Glossary", "current": False}]


def _single_file(pages: list[Page], captions: dict[str, str], skipped: dict[str, str],
                 answers: list[dict[str, Any]], *, partial: bool, title: str) -> str:
    """One document: the dashboard and each page as a tab (``#slug``), one figure numbering."""
    builder = PageBuilder(partial=partial, inline_plotly=True)
    nav = [{"href": f"#{p.slug}", "title": p.title, "current": False} for p in pages]
    tabs = []
    for page in pages:
        tabs.append({"slug": page.slug, "heading": page.title,
                     "caption": captions.get(page.slug, ""), "facts": list(page.facts),
                     "sections": [builder.section(s, anchor=f"{page.slug}-sec-{i}")
                                  for i, s in enumerate(page.sections, 1)]})
    context = dashboard_context([(f"#{p.slug}", p) for p in pages[:-1]], captions, skipped,
                                builder)
    return render_document("single.html.j2", {
        "heading": title, "caption": "", "facts": [], "nav": nav, "tabs": tabs, "home": "#index",
        "answers": answers, **context},
        builder)


def _unique_slugs(pages: list[Page]) -> list[Page]:
    seen: set[str] = {"index"}
    unique = []
    for page in pages:
        base = re.sub(r"[^a-z0-9_-]+", "-", page.slug.lower()).strip("-") or "report"
        slug, n = base, 1
        while slug in seen:
            n += 1
            slug = f"{base}-{n}"
        seen.add(slug)
        unique.append(page if slug == page.slug else replace(page, slug=slug))
    return unique


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
