"""The dashboard (``index.html``): links to every page and the highlights each page offers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.report.html._model import TOPICS, Page, Topic

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
