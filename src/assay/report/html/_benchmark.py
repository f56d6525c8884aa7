"""The benchmark page: a :class:`~assay.analysis.benchmark._report.BenchmarkReport` (hr_report)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assay.analysis.benchmark import BenchmarkReport
from assay.report._glossary import method_words
from assay.report.html._figures import (
    ForestPoint,
    FrontierPoint,
    forest,
    lines_with_errors,
    stacked_bars,
)
from assay.report.html._figures import frontier as frontier_figure
from assay.report.html._model import (
    REPORTED,
    Column,
    ColumnKind,
    Figure,
    Highlight,
    Page,
    Section,
    Table,
    is_missing,
    linked,
)

Record = Mapping[str, Any]

METHODS = {
    "cluster_t": "cluster-robust t on the logit scale (CR2; C - 1 df when clusters have one "
                 "size, Bell-McCaffrey df otherwise)",
    "bootstrap": "studentised cluster bootstrap",
    "exact": "Clopper-Pearson on the Korn-Graubard effective number of items",
    "bayes": "beta-binomial Bayes with a cluster random effect (credible intervals)",
    "descriptive": "none: below 5 runs the report is descriptive",
}
ACCURACY = (Column("arm", "arm"), Column("estimate", "accuracy", "fixed"),
            Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
            Column("standard_error", "standard error", "fixed", 4),
            Column("rank_lower", "best rank", "int"), Column("rank_upper", "worst rank", "int"),
            Column("method", "method"))
BAYES = (Column("arm", "arm"), Column("posterior_mean", "posterior mean", "fixed"),
         Column("posterior_median", "posterior median", "fixed"),
         Column("rho_mean", "intra-cluster correlation", "fixed"))
CONTRASTS = (Column("arm1", "arm 1"), Column("arm2", "arm 2"),
             Column("estimate", "difference", "fixed"), Column("lower", "lower", "fixed"),
             Column("upper", "upper", "fixed"), Column("standard_error", "standard error", "fixed", 4),
             Column("df", "df", "int"), Column("n_eff", "effective n", "fixed", 1),
             Column("method", "method"))
SIMULTANEOUS = (Column("arm1", "arm 1"), Column("arm2", "arm 2"),
                Column("estimate", "difference", "fixed"), Column("lower", "lower", "fixed"),
                Column("upper", "upper", "fixed"),
                Column("standard_error", "standard error", "fixed", 4),
                Column("critical_value", "critical value", "fixed"), Column("method", "method"))
STABILITY = (Column("arm", "arm"), Column("flip_rate", "flip rate", "fixed"),
             Column("tara", "TARa", "fixed"), Column("run_sd", "run SD", "fixed", 4))
PASS_K = (Column("arm", "arm"), Column("k", "k", "int"), Column("pass_k", "pass^k", "fixed"),
          Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"))
COST_KEYS = ("usd_per_item", "usd_per_correct", "tokens_per_item", "tokens_per_correct")
FRONTIER = (Column("arm", "arm"), Column("usd_per_item", "usd per item", "sig"),
            Column("accuracy", "accuracy", "fixed"), Column("on_frontier", "on frontier", "bool"),
            Column("frontier_share", "frontier share", "fixed"))
FAILURE_FIXED = ("arm", "wrong", "n_failures", "accuracy", "accuracy_without_parse_refusal")
VARIANCE = (Column("arm", "arm"), Column("within", "within-item (runs)", "fixed", 4),
            Column("between", "between items", "fixed", 4),
            Column("within_share", "within share", "fixed"))
NI = (Column("label", "contrast"), Column("new", "new"), Column("reference", "reference"),
      Column("margin", "margin", "fixed"), Column("confirmatory", "confirmatory", "bool"),
      Column("estimate", "difference", "fixed"), Column("lower", "lower bound", "fixed"),
      Column("level", "level", "fixed"), Column("accuracy_holds", "accuracy holds", "bool"),
      Column("cost_diff", "cost difference", "sig"), Column("cost_upper", "cost upper", "sig"),
      Column("cost_holds", "cost holds", "bool"), Column("verdict", "verdict"),
      Column("p_value", "p-value", "p"), Column("mdd_design", "MDD (design)", "fixed"),
      Column("mdd_achieved", "MDD (achieved)", "fixed"),
      Column("tango_lower", "Tango lower", "fixed"), Column("tango_upper", "Tango upper", "fixed"),
      Column("tango_agrees", "Tango agrees", "bool"), Column("n_eff", "effective n", "fixed", 1))


def _table(records: Sequence[Record], columns: Sequence[Column], caption: str, name: str) -> Table:
    return Table.from_records(records, columns, caption=caption, name=f"benchmark-{name}")


def _with(report: BenchmarkReport, pct: str, kind: str = "") -> str:
    """"with 95% intervals", or what a descriptive report (no intervals) has instead."""
    if report.descriptive:
        return "(point estimates only: descriptive report; --method cluster_t gives intervals)"
    return f"with {pct} {kind}intervals"


def _accuracy_forest(report: BenchmarkReport, records: Sequence[Record], pct: str) -> Figure:
    points = [ForestPoint(label=r["arm"], group="accuracy", estimate=r.get("estimate"),
                          lower=r.get("lower"), upper=r.get("upper"), key=r["arm"],
                          detail=f"ranks {r.get('rank_lower', '-')} to {r.get('rank_upper', '-')}")
              for r in records]
    return forest(points, x_title="accuracy (failures count as wrong)",
                  caption=f"Accuracy per system {_with(report, pct)} ({method_words(report.method)})")


def benchmark_page(report: BenchmarkReport) -> Page:
    """The benchmark page and its dashboard highlights."""
    pct = f"{report.conf * 100:g}%"
    sections = [
        _accuracy(report, pct), _bayes(report), _contrasts(report, pct), _pass_k(report, pct),
        _stability(report), _cost(report, pct), _frontier(report), _failures(report),
        _variance(report), _ni(report),
        Section(title="Notes", notes=tuple(report.notes),
                missing=None if report.notes else "The analysis left no notes."),
    ]
    facts = (
        ("arms", str(len(report.arms))), ("items", str(report.n_items)),
        ("clusters", _clusters(report)), ("runs", str(report.runs)),
        ("interval method", METHODS.get(report.method, report.method)),
        ("why", report.method_reason), ("confidence", pct),
        ("bootstrap", "none drawn" if report.descriptive else f"B = {report.B}, seed {report.seed}"),
        ("evidence", "confirmatory" if report.confirmatory else "exploratory"),
    )
    return Page(slug="benchmark", title="Benchmark report", sections=tuple(sections),
                summary="Accuracy with cluster-robust intervals and ranks, paired differences, "
                        "pass^k, stability, cost and failures.",
                facts=facts, highlights=_highlights(report, pct))


def _accuracy(report: BenchmarkReport, pct: str) -> Section:
    intro = (f"Accuracy per system (failures count as wrong) with {pct} intervals: "
             f"{METHODS.get(report.method, report.method)}. Ranks give the range of places "
             "each arm takes over the cluster bootstrap.")
    if report.descriptive:
        intro = "Below 5 runs per item the report is descriptive: point estimates only."
    return Section(title="Accuracy", intro=intro,
                   figures=(_accuracy_forest(report, report.accuracy, pct),),
                   tables=(_table(report.accuracy, ACCURACY, "Accuracy per system (failures count as wrong)",
                                  "accuracy"),))


def _bayes(report: BenchmarkReport) -> Section:
    if not report.bayes:
        return Section(title="Bayesian posterior", missing="Only reported with method = bayes; "
                       f"this report used {method_words(report.method)}.")
    return Section(title="Bayesian posterior",
                   tables=(_table(report.bayes, BAYES, "Posterior per system", "bayes"),))


def _contrasts(report: BenchmarkReport, pct: str) -> Section:
    if not report.contrasts and not report.simultaneous:
        return Section(title="Paired differences",
                       missing="There is only one arm: no pair to compare.")
    points = [ForestPoint(label=f"{r['arm1']} − {r['arm2']}", group=group,
                          estimate=r.get("estimate"), lower=r.get("lower"), upper=r.get("upper"),
                          key=f"{r['arm1']} {r['arm2']}", detail=str(r.get("method", "")))
              for group, records in (("paired (per contrast)", report.contrasts),
                                     ("simultaneous (max-t)", report.simultaneous))
              for r in records]
    figure = forest(points, x_title="difference in accuracy (first minus second)", reference=0.0,
                    caption=f"Paired differences {_with(report, pct)}: per contrast and "
                            "simultaneous over all pairs")
    tables = (_table(report.contrasts, CONTRASTS, "Paired differences, first minus second",
                     "contrasts"),
              _table(report.simultaneous, SIMULTANEOUS,
                     "Simultaneous intervals over all pairs (max-t) "
                     f"{_with(report, pct)}", "simultaneous"))
    return Section(title="Paired differences", figures=(figure,), tables=tables,
                   intro="Differences in accuracy on the same items, first arm minus second. The "
                         "simultaneous intervals hold together over every pair.")


def _pass_k(report: BenchmarkReport, pct: str) -> Section:
    if not report.pass_k:
        return Section(title="pass^k", missing="No pass^k: it needs binary correctness and k "
                       "no larger than the runs per item (see the notes).")
    series = []
    for arm in report.arms:
        mine = [r for r in report.pass_k if r["arm"] == arm]
        series.append((arm, [r["k"] for r in mine], [r["pass_k"] for r in mine],
                       [r.get("lower") for r in mine], [r.get("upper") for r in mine]))
    figure = lines_with_errors(series, x_title="k", y_title="pass^k",
                               caption=f"pass^k (all k runs correct) {_with(report, pct, 'BCa ')}")
    return Section(title="pass^k", figures=(figure,),
                   tables=(_table(report.pass_k, PASS_K, "pass^k per system and k", "pass-k"),),
                   intro="The chance that k runs of an item are all correct.")


def _stability(report: BenchmarkReport) -> Section:
    if not report.stability:
        return Section(title="Stability across runs", missing="No runs to compare.")
    figure = stacked_bars(
        [r["arm"] for r in report.stability],
        [("flip rate", [r["flip_rate"] for r in report.stability]),
         ("TARa", [r["tara"] for r in report.stability])],
        y_title="share of items", caption="Flip rate and TARa per system", barmode="group")
    return Section(title="Stability across runs", figures=(figure,),
                   tables=(_table(report.stability, STABILITY, "Stability per system", "stability"),),
                   intro="Flip rate: share of items whose correctness changes across runs. TARa: "
                         "share of items with the same output on every run. Run SD: standard "
                         "deviation of the per-run accuracies.")


def _cost_columns(records: Sequence[Record], prefix: str) -> tuple[Column, ...]:
    """Columns of the cost keys starting with ``prefix`` (usd or tokens), each with its bounds."""
    present = {k for r in records for k in r}
    columns = [Column("arm", "arm")]
    for key in COST_KEYS:
        if key.startswith(prefix) and key in present:
            columns += [Column(key, key.replace("_", " "), "sig"),
                        Column(f"{key}_lower", "lower", "sig"),
                        Column(f"{key}_upper", "upper", "sig")]
    if prefix == "usd":
        extra: tuple[tuple[str, ColumnKind], ...] = (("usd_estimated_share", "fixed"),
                                                     ("estimated_flag", "bool"))
        columns += [Column(k, k.replace("_", " "), kind) for k, kind in extra if k in present]
    return tuple(columns)


def _cost(report: BenchmarkReport, pct: str) -> Section:
    if not report.cost:
        return Section(title="Cost", missing="No cost: the judgments have no usd or tokens "
                       "columns.")
    tables = []
    for prefix, caption in (("usd", "Dollars per system"), ("tokens", "Tokens per system")):
        columns = _cost_columns(report.cost, prefix)
        if len(columns) > 1:
            tables.append(_table(report.cost, columns, caption, f"cost-{prefix}"))
    return Section(title="Cost", tables=tuple(tables),
                   intro=f"Dollars and tokens per item and per correct item, "
                         f"{_with(report, pct, 'BCa cluster-bootstrap ')}. Estimated share: the "
                         "part of the dollars resting on estimated token counts.")


def _frontier(report: BenchmarkReport) -> Section:
    if not report.frontier:
        return Section(title="Cost-accuracy frontier",
                       missing="No frontier: it needs dollar costs (a usd column).")
    accuracy = {r["arm"]: r for r in report.accuracy}
    cost = {r["arm"]: r for r in report.cost or ()}
    points = [FrontierPoint(
        arm=r["arm"], cost=r.get("usd_per_item"),
        cost_lower=cost.get(r["arm"], {}).get("usd_per_item_lower"),
        cost_upper=cost.get(r["arm"], {}).get("usd_per_item_upper"),
        accuracy=r.get("accuracy"), accuracy_lower=accuracy.get(r["arm"], {}).get("lower"),
        accuracy_upper=accuracy.get(r["arm"], {}).get("upper"),
        on_frontier=bool(r.get("on_frontier")), frontier_share=r.get("frontier_share"))
        for r in report.frontier]
    figure = frontier_figure(points, cost_title="usd per item",
                             caption="Cost against accuracy; arms on the frontier in colour")
    return Section(title="Cost-accuracy frontier", figures=(figure,),
                   tables=(_table(report.frontier, FRONTIER, "Frontier per system", "frontier"),),
                   intro="An arm is on the frontier when no other arm is both cheaper and more "
                         "accurate. Frontier share: how often it is over bootstrap resamples.")


def _failure_kinds(records: Sequence[Record]) -> list[str]:
    return list(dict.fromkeys(k for r in records for k in r if k not in FAILURE_FIXED))


def _failure_links(report: BenchmarkReport) -> dict[str, Callable[[Record], str | None]]:
    """Column key -> the viewer's query of the judgments a failure count counts: the report's
    judge and criterion, the arm, and the failure kinds (of the kind's column, or every kind
    the arm has for ``n_failures``), of the reportable rows (``reportable=yes``: the report
    counts no other). None when the report cannot name them exactly (failed pairwise rows
    of that judge and criterion left out, rows given without a judge), and for a kind's column
    whose name is ambiguous (a kind named like a fixed column is renamed ``failure_KIND``)."""
    if not report.failures_exact or report.judge is None or report.criterion is None:
        return {}
    scope = {"judge": report.judge, "criterion": report.criterion}
    kinds = {key: key for key in _failure_kinds(report.failures)
             if not (key.startswith("failure_") and key[len("failure_"):] in FAILURE_FIXED)}

    def query(record: Record, wanted: Sequence[str]) -> str | None:
        if not wanted or is_missing(record.get("arm")):
            return None
        return urllib.parse.urlencode([*scope.items(), ("arm", str(record["arm"])),
                                       *(("failure_kind", kind) for kind in wanted), REPORTED])

    counts = {r.get("arm"): r for r in report.failures}  # a table may join other columns

    def kinds_of(record: Record) -> list[str]:
        found = counts.get(record.get("arm"), {})
        return [kind for key, kind in kinds.items() if found.get(key)] \
            if found.get("n_failures") else []

    links: dict[str, Callable[[Record], str | None]] = {
        key: (lambda record, key=key, kind=kind: query(
            record, [kind] if counts.get(record.get("arm"), {}).get(key) else []))
        for key, kind in kinds.items()}
    if len(kinds) == len(_failure_kinds(report.failures)):  # every kind can be named
        links["n_failures"] = lambda record: query(record, kinds_of(record))
    return links


def _failures(report: BenchmarkReport) -> Section:
    if not report.failures:
        return Section(title="Failures", missing="No arms.")
    kinds = _failure_kinds(report.failures)
    columns = (Column("arm", "arm"), Column("wrong", "wrong runs", "int"),
               Column("n_failures", "failures", "int"),
               *(Column(k, k.replace("_", " "), "int") for k in kinds),
               Column("accuracy", "accuracy", "fixed"),
               Column("accuracy_without_parse_refusal", "accuracy without parse/refusal",
                      "fixed"))
    links = _failure_links(report)
    table = linked(_table(report.failures, columns, "Failures per system", "failures"),
                   report.failures, links)
    figures: tuple[Figure, ...] = ()
    if any(r.get("n_failures") for r in report.failures):
        figures = (stacked_bars([r["arm"] for r in report.failures],
                                [(k, [r.get(k, 0) for r in report.failures]) for k in kinds],
                                y_title="runs", caption="Failed runs per system by kind"),)
    intro = ("A failed run (parse error, refusal, timeout, API error) counts as wrong; the "
             "last column shows accuracy without parse errors and refusals, as a sensitivity "
             "check.")
    if links:
        intro += (f" A failure count links to those judgments of judge {report.judge}, "
                  f"criterion {report.criterion} in the viewer (assay view RUN --reports FOLDER).")
    return Section(title="Failures", figures=figures, tables=(table,), intro=intro)


def _variance(report: BenchmarkReport) -> Section:
    v = report.variance
    overall = {"arm": "all arms", **{k: v.get(k) for k in ("within", "between", "within_share")}}
    table = _table([overall, *v.get("per_arm", [])], VARIANCE,
                   "Variance on the probability scale", "variance")
    notes: tuple[str, ...] = ()
    if v.get("recommend_runs"):
        notes = (f"Run-to-run variance is a large share of the total: use "
                 f"runs = {v['recommend_runs']}.",)
    return Section(title="Variance components", tables=(table,), notes=notes,
                   intro="Within-item variance across runs against variance between items.")


def _ni(report: BenchmarkReport) -> Section:
    if not report.ni:
        return Section(title="Non-inferiority", missing="No registration was given: register "
                       "contrasts with 'assay register' to test non-inferiority.")
    intro = ""
    if report.registration:
        intro = (f"Registration {report.registration.get('hash')} made "
                 f"{report.registration.get('created_at')}.")
    return Section(title="Non-inferiority", intro=intro,
                   tables=(_table(report.ni, NI, "Registered non-inferiority contrasts", "ni"),))


def _highlights(report: BenchmarkReport, pct: str) -> tuple[Highlight, ...]:
    ranked = sorted(report.accuracy, key=lambda r: (is_missing(r.get("estimate")),
                                                    -(r.get("estimate") or 0.0)))
    rankings = Section(
        title="Benchmark accuracy (failures count as wrong)",
        intro=f"Arms by accuracy {_with(report, pct)} and rank "
        "intervals." if not report.descriptive else f"Arms by accuracy {_with(report, pct)}.",
        figures=(_accuracy_forest(report, ranked, pct),),
        tables=(_table(ranked, [c for c in ACCURACY if c.key != "standard_error"],
                       "Ranking by accuracy (failures count as wrong)", "ranking"),))
    if report.cost:
        keys = [c for c in (*_cost_columns(report.cost, "usd"), Column("tokens_per_item",
                                                                       "tokens per item", "sig"))
                if c.key in ("arm", "tokens_per_item") or c.key.startswith("usd_per")]
        cost = Section(title="Cost per system", tables=(_table(report.cost, keys, "Cost per system",
                                                            "cost"),))
    else:
        cost = Section(title="Cost per system", missing="The benchmark report has no cost: the "
                       "judgments have no usd or tokens columns.")
    stability = {r["arm"]: r for r in report.stability}
    joined = [{**f, **stability.get(f["arm"], {})} for f in report.failures]
    quality_notes = [f"{len(report.notes)} note(s) on the benchmark page."] if report.notes else []
    variance = report.variance
    if not is_missing(variance.get("within_share")):
        quality_notes.insert(0, f"Within-item (run-to-run) share of variance: "
                                f"{variance['within_share']:.3f}.")
    quality = Section(
        title="Benchmark failures and stability", notes=tuple(quality_notes),
        tables=(linked(_table(joined, (Column("arm", "arm"),
                                       Column("n_failures", "failed runs", "int"),
                                       Column("flip_rate", "flip rate", "fixed"),
                                       Column("tara", "TARa", "fixed")),
                              "Failures and stability per system", "quality"),
                       joined, {k: v for k, v in _failure_links(report).items()
                                if k == "n_failures"}),))
    return (Highlight("rankings", rankings, order=0), Highlight("cost", cost, order=0),
            Highlight("quality", quality, order=0))


def _clusters(report: Any) -> str:
    """C, with the effective number of clusters beside it when the sizes differ."""
    effective = getattr(report, "effective_clusters", None)
    if effective is None or not effective < report.n_clusters * (1.0 - 1e-9):
        return str(report.n_clusters)
    return f"{report.n_clusters} ({effective:.1f} effective)"
