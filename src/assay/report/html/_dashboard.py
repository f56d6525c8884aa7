"""The pages every report folder has: the dashboard (``index.html``: the answer first, then
links to every page and the highlights each page offers) and the glossary (``glossary.html``:
every term, abbreviation and method name the pages use).

The answer at the top of the dashboard (:func:`answer_context`): for each criterion the systems
ranked with their estimates and intervals, each pair's difference, interval, adjusted p-value
and reading, then what says whether to trust the judges, and the cost. It formats
:class:`~assay.analysis.answer.Answer` in the words of ``assay report``'s text
(:mod:`assay.report.text.answer`) and computes nothing: ranks, differences, p-values and
whether a difference is detected are fields of the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from assay.report._glossary import METHOD_WORDS, TERMS
from assay.report.html._model import TOPICS, Column, Page, Section, Table, Topic
from assay.report.text._format import fixed, p_text
from assay.report.text.answer import (
    FAILURES_RULE,
    HUMAN_COLUMNS,
    HUMAN_WORTH,
    human_groups,
    interval_text,
    pair_reading,
    plural,
    spend_line,
    trust_lines,
    what_is_scored,
)

if TYPE_CHECKING:
    from assay.analysis.answer import Answer, PairDifference, Verdict

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


def _pair_row(p: PairDifference, v: Verdict, digits: int) -> dict[str, Any]:
    if v.units == "win_rate" and p.win_rate is not None:
        size = fixed(p.win_rate, digits)
        bounds = interval_text(p.lower + 0.5, p.upper + 0.5, digits)
    else:
        size = f"{p.difference:+.{digits}f}"
        bounds = interval_text(p.lower, p.upper, digits, sign=True)
    return {"pair": f"{p.better} - {p.worse}", "difference": size, "interval": bounds,
            "p": p_text(p.p_adjusted), "reading": pair_reading(p, v, digits),
            "detected": bool(p.detected)}


def _verdict(v: Verdict, several: bool, digits: int) -> dict[str, Any]:
    failed = any(s.n_failed for s in v.systems)
    return {
        "title": v.criterion + (f" (judge {v.judge})" if several else ""),
        "what": what_is_scored(v) + (f"; {FAILURES_RULE}" if failed else ""),
        "failed": failed,
        "difference": "win rate" if v.units == "win_rate" else "difference",
        "systems": [{"rank": s.rank, "system": s.arm, "estimate": fixed(s.estimate, digits),
                     "interval": interval_text(s.lower, s.upper, digits), "questions": s.n_items,
                     "failed": s.n_failed} for s in v.systems],
        "pairs": [_pair_row(p, v, digits) for p in v.pairs],
    }


def answer_context(result: Answer, *, digits: int = 3) -> dict[str, Any]:
    """What the dashboard's answer panel shows, every number already a string."""
    r = result
    several = len({v.judge for v in r.verdicts}) > 1
    others = []
    if r.available:
        others.append("Other reports these data support: " + ", ".join(r.available) + ".")
    return {
        "summary": (f"{r.n_judgments} judgments of {plural(r.n_systems, 'system')} on "
                    f"{plural(r.n_items, 'question')} in {plural(r.n_clusters, 'topic')}, "
                    f"{plural(r.n_runs, 'run')}, {plural(r.n_judges, 'judge')}; intervals "
                    f"({r.conf:.0%}) count the topics, not the questions, as independent; "
                    f"p-values adjusted by {r.adjustment.capitalize()} over each criterion's "
                    "pairs."),
        "verdicts": [_verdict(v, several, digits) for v in r.verdicts],
        "trust": [line.strip() for line in trust_lines(r.trust, digits)],
        "spend": spend_line(r.spend),
        "humans": [{"title": title, "rows": rows}
                   for title, rows in human_groups(r.humans, digits)],
        "humans_columns": list(HUMAN_COLUMNS),
        "humans_note": (f"{r.humans_note}; {HUMAN_WORTH}" if r.humans and r.humans_note
                        else r.humans_note),
        "notes": [*r.read_notes, *r.notes],
        "others": others,
        "level": f"{r.conf:.0%}",
    }
