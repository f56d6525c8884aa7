"""The pages every report folder has: the dashboard (``index.html``: links to every page and
the highlights each page offers) and the glossary (``glossary.html``: every term, abbreviation
and method name the pages use)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from assay.report._glossary import METHOD_WORDS, TERMS
from assay.report.html._model import TOPICS, Column, Page, Section, Table, Topic

TOPIC_TITLES: dict[Topic, str] = {
    "rankings": "Top-line rankings with intervals",
    "cost": "Cost summary",
    "quality": "Key quality metrics",
    "agreement": "Judge ensemble confidence",
}
TOPIC_MISSING: dict[Topic, str] = {
    "rankings": "No report in this set ranks the arms: the benchmark report and the score "
                "summary do.",
    "cost": "No report in this set carries cost: the cost report (--kind cost) shows the judges' "
            "spend from a run folder and the systems' cost when the judgments have usd or "
            "tokens columns; the benchmark report shows dollars per correct answer.",
    "quality": "No report in this set counts failures or invalid records.",
    "agreement": "No report in this set measures agreement between judges: that is the judges "
                 "report (ICC, Krippendorff's alpha, pairwise correlations), which needs two or "
                 "more judges scoring the same answers.",
}


def dashboard_context(pages: Sequence[tuple[str, Page]], captions: Mapping[str, str],
                      skipped: Mapping[str, str], builder: Any) -> dict[str, Any]:
    """Template context of the dashboard; ``builder`` numbers its tables and figures."""
    cards = [{"href": href, "title": page.title, "summary": page.summary,
              "caption": captions.get(page.slug, "")} for href, page in pages]
    topics = []
    anchor = 0
    for topic in TOPICS:
        chosen = sorted(((h.order, p, h, href, page) for p, (href, page) in enumerate(pages)
                         for h in page.highlights if h.topic == topic),
                        key=lambda item: item[:2])
        sections = []
        for _, _, highlight, href, page in chosen:
            anchor += 1
            sections.append(builder.section(highlight.section, anchor=f"sec-{anchor}",
                                            source=(href, page.title)))
        topics.append({"id": f"topic-{topic}", "title": TOPIC_TITLES[topic],
                       "sections": sections, "missing": None if sections else TOPIC_MISSING[topic]})
    return {"cards": cards, "topics": topics,
            "skipped": [{"name": k, "reason": v} for k, v in skipped.items()]}


TERM_COLUMNS = (Column("term", "term"), Column("full", "in full"), Column("meaning", "meaning"),
                Column("column", "column in the data"))
METHOD_COLUMNS = (Column("words", "shown as"), Column("identifier", "identifier in the JSON files"))


def glossary_page() -> Page:
    """The page ``glossary.html`` (a tab of a single-file report), linked from every page."""
    terms = Table.from_records([asdict(t) for t in TERMS], TERM_COLUMNS,
                               caption="Terms and abbreviations", name="glossary")
    methods = Table.from_records([{"words": v, "identifier": k} for k, v in METHOD_WORDS.items()],
                                 METHOD_COLUMNS, caption="Methods", name="methods")
    return Page(slug="glossary", title="Glossary", sections=(
        Section(title="Terms", tables=(terms,),
                intro="The words these pages use. An abbreviated column header shows its line "
                      "as a tooltip."),
        Section(title="Methods", tables=(methods,),
                intro="Interval and test methods as the pages name them; the JSON files carry "
                      "the identifier.")),
        summary="What each term, abbreviation and method name on these pages means.")
