"""The plan of ``assay describe`` as one self-contained HTML page.

Lays a :class:`assay.pipeline.describe.PlanDescription` (read by its attributes) out as a
:class:`~assay.report.html.Page` and renders it alone (no dashboard, no links to other
pages); the same estimates as the text, named as estimates. Computes nothing.
"""

from __future__ import annotations

from typing import Any

from assay.report.html._model import Column, Page, Section, Table
from assay.report.html._render import PageBuilder, render_document
from assay.report.text.plan import batch_words, cost_words, duration


def plan_page(plan: Any) -> Page:
    """The plan as a page: inputs, the judge phase per judge and per model, totals."""
    judges = Table.from_records(
        [{"judge": j.judge, "kind": j.kind, "model": j.model or "(offline: no call)",
          "judgments": j.calls, "stage2": j.followups or None, "tokens_in": j.tokens_in,
          "tokens_out": j.tokens_out, "usd": j.usd if j.model is not None else None}
         for j in plan.judges],
        (Column("judge", "Judge"), Column("kind", "Kind"), Column("model", "Model"),
         Column("judgments", "Judgments", "int"), Column("stage2", "Second stage, at most", "int"),
         Column("tokens_in", "Tokens in (estimate)", "int"),
         Column("tokens_out", "Tokens out (estimate)", "int"),
         Column("usd", "Cost in USD (estimate; blank: no price)", "fixed", 4)),
        caption="Calls per judge", name="plan_judges")
    models = Table.from_records(
        [{"model": m.model, "calls": m.calls, "tokens_in": m.tokens_in, "tokens_out": m.tokens_out,
          "usd": m.usd} for m in plan.models],
        (Column("model", "Model"), Column("calls", "Calls", "int"),
         Column("tokens_in", "Tokens in (estimate)", "int"),
         Column("tokens_out", "Tokens out (estimate)", "int"),
         Column("usd", "Cost in USD (estimate; blank: no price)", "fixed", 4)),
        caption="Calls per model (not yet stored)", name="plan_models")
    total = cost_words(plan)
    facts = (("Systems", str(len(plan.systems))), ("Items", str(plan.items)),
             ("Answers to judge", str(plan.answers)), ("Calls", f"{plan.calls:,}"),
             ("Estimated cost", total), ("Estimated time", duration(plan.hours)))
    notes = [f"Time assumes {plan.seconds_per_call:g} s a request with {plan.max_concurrency} "
             "requests in flight (assay describe --seconds-per-call).",
             "Tokens are estimated at ~4 characters a token in and 250 tokens out a call; "
             "second-stage calls are counted at most."]
    if getattr(plan, "batch_discount", None) is not None:
        notes.append(batch_words(plan.batch_discount) + ".")
    if plan.cost_limit_usd is not None:
        notes.append(f"The config's cost limit is ${plan.cost_limit_usd:,.2f}: the run stops "
                     "there and a rerun resumes.")
    inputs = Section(title="Inputs", intro=(
        f"{len(plan.systems)} systems: {', '.join(plan.systems) or 'none'}; {plan.items} items; "
        f"{plan.answers} answers to judge."))
    phase = Section(title="Judge phase", tables=(judges, models), notes=tuple(notes))
    sections: tuple[Section, ...] = (inputs, phase)
    if plan.generation:
        answers = Table.from_records(
            [{"system": g.name, "phase": g.phase, "model": g.model, "calls": g.calls,
              "tokens_in": g.tokens_in, "tokens_out": g.tokens_out, "usd": g.usd}
             for g in plan.generation],
            (Column("system", "System"), Column("phase", "Phase"), Column("model", "Model"),
             Column("calls", "Calls", "int"), Column("tokens_in", "Tokens in (estimate)", "int"),
             Column("tokens_out", "Tokens out (estimate)", "int"),
             Column("usd", "Cost in USD (estimate; blank: no price)", "fixed", 4)),
            caption="Calls per system (not yet stored)", name="plan_generation")
        sections = (inputs, Section(title="Generation phase", tables=(answers,), notes=(
            "An answer is estimated at the system's max_tokens when set, else 250 tokens; a "
            "local command costs nothing.",)), phase)
    if getattr(plan, "baselines", ()):
        baselines = Table.from_records(
            [{"method": b.method, "model": b.model, "calls": b.calls, "followups": b.followups,
              "tokens_in": b.tokens_in, "tokens_out": b.tokens_out, "usd": b.usd}
             for b in plan.baselines],
            (Column("method", "Method"), Column("model", "Model"), Column("calls", "Calls", "int"),
             Column("followups", "Stage 2 at most", "int"),
             Column("tokens_in", "Tokens in (estimate)", "int"),
             Column("tokens_out", "Tokens out (estimate)", "int"),
             Column("usd", "Cost in USD (estimate, at most; blank: no price)", "fixed", 4)),
            caption="Calls per baseline (not yet stored)", name="plan_baselines")
        sections = (*sections, Section(title="Baselines", tables=(baselines,), notes=(
            "G-Eval asks one logprob call per answer, and up to its samples per answer where "
            "the endpoint returns no logprobs; BERTScore runs locally.",)))
    return Page(slug="plan", title=f"Plan of {plan.config}", sections=sections, facts=facts,
                summary="What the config will send, estimated before anything is sent.")


def render_plan_html(plan: Any) -> str:
    """One self-contained HTML document of the plan."""
    page = plan_page(plan)
    builder = PageBuilder(partial=False)
    sections = [builder.section(s, anchor=f"sec-{i}") for i, s in enumerate(page.sections, 1)]
    return render_document("page.html.j2", {"heading": page.title, "caption": page.summary,
                                            "facts": list(page.facts), "sections": sections,
                                            "nav": []}, builder)
