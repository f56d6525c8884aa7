"""The glossary page of an HTML report: every term and abbreviation the pages use, and the
methods named in words beside their JSON identifiers."""

from __future__ import annotations

from dataclasses import asdict

from assay.report._glossary import METHOD_WORDS, TERMS
from assay.report.html._model import Column, Page, Section, Table

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
