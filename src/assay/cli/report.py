"""``assay report`` and ``assay register``: reading a judgments table into reports.

Kept apart from :mod:`assay.cli` so the CLI module stays small; the commands are
registered on the same typer app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli._app import MapOption, ScaleOption, SetOption, _constants, _mapping, _scales, app, console
from assay.errors import AssayError, ConfigError

KINDS = ("all", "scores", "benchmark", "aggregate", "judges", "winrate")
FORMATS = ("text", "json", "html", "xlsx", "latex", "png")
TITLES = {
    "scores": "Scores per criterion, judge and arm",
    "benchmark": "Benchmark report",
    "aggregate": "Aggregation across runs and the judges' reliability (the results aggregator)",
    "judges": "Agreement between judges (CoEval)",
    "composite": "Composite score per arm (CoEval)",
    "robust": "Robust summary: trimmed means, leave-one-judge-out rankings (CoEval)",
    "coverage": "Coverage of item attributes (CoEval)",
    "calibration": "Calibration of judges against reference scores (CoEval)",
    "winrates": "Win rates of pairwise judgments (BenchmarkQED)",
    "assertions": "Assertion scores compared across arms: Friedman, Wilcoxon, clustered permutation "
    "(BenchmarkQED)",
    "systems": "Systems report: per-task scores, rank intervals, head-to-head, by attribute (CoEval)",
}


def parse_contrasts(text: str | None, arms: list[str]) -> list[tuple[str, str]] | None:
    """Read ``A-B,C-D`` (first minus second) where arm names may contain '-' themselves.

    Each contrast is split at the one '-' (or ' - ') that leaves a known arm on both sides.

    >>> parse_contrasts("gpt-4o-mini-gpt-4o, b-a", ["gpt-4o", "gpt-4o-mini", "a", "b"])
    [('gpt-4o-mini', 'gpt-4o'), ('b', 'a')]
    """
    if text is None or not text.strip():
        return None
    known = set(arms)
    pairs = []
    for part in text.split(","):
        part = part.strip()
        splits = [(part[:i].strip(), part[i + 1:].strip()) for i, ch in enumerate(part) if ch == "-"]
        fits = [(a, b) for a, b in splits if a in known and b in known]
        if len(fits) != 1:
            why = "matches no two arms" if not fits else "is ambiguous"
            raise ConfigError(f"--contrasts {part!r} {why}: write ARM1-ARM2 with arms from "
                              f"{', '.join(arms)}")
        pairs.append(fits[0])
    return pairs


def _formats(text: str) -> list[str]:
    formats = [f.strip() for f in text.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ConfigError(f"--format {text!r}: expected a comma-separated list of "
                          f"{', '.join(FORMATS)}")
    return formats


def _write(out: Path, name: str, text: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(text + "\n", encoding="utf-8")
    return path


@app.command("report")
def report_command(
    src: Annotated[list[Path], typer.Argument(help="Judgments files or run folders.")],
    kind: Annotated[str, typer.Option(
        help="all (every kind the data support) | scores | benchmark (hr_report) | "
        "aggregate (the results aggregator) | judges (CoEval) | winrate (BenchmarkQED).")] = "all",
    format_: Annotated[str, typer.Option(
        "--format", help="Comma-separated: text (to the terminal); json, html (a self-contained "
        "page per report plus index.html), xlsx (analysis.xlsx), latex (tables/*.tex and .csv "
        "with SUMMARY.md) and png (figures/*.png), written into --out.")] = "text",
    out: Annotated[Path, typer.Option(help="Folder for report files.")] = Path("assay-report"),
    judge: Annotated[str | None, typer.Option(
        help="Benchmark: the judge whose correctness scores to read.")] = None,
    criterion: Annotated[str | None, typer.Option(
        help="Benchmark: the correctness criterion (binary or range:0,1).")] = None,
    method: Annotated[str, typer.Option(
        help="Benchmark accuracy interval: auto | bootstrap | cluster_t | bayes | exact.")]
    = "auto",
    resamples: Annotated[int | None, typer.Option(
        "--B", help="Bootstrap resamples (benchmark: 2000, 5000 when confirmatory; "
        "aggregate: 10000).")] = None,
    conf: Annotated[float, typer.Option(help="Confidence level of every interval.")] = 0.95,
    k: Annotated[str, typer.Option(help="The k of pass^k, comma-separated.")] = "1,3,5",
    seed: Annotated[int | None, typer.Option(
        help="Seed of the private random stream (benchmark: 1, aggregate: 42).")] = None,
    contrasts: Annotated[str | None, typer.Option(
        help="Benchmark contrasts, first minus second: ARM1-ARM2,... (default: all pairs).")]
    = None,
    confirmatory: Annotated[bool | None, typer.Option(
        "--confirmatory/--exploratory",
        help="A confirmatory report refuses rows outside the test and final splits.")] = None,
    registration: Annotated[Path | None, typer.Option(
        help="Registration JSON from 'assay register': test its non-inferiority contrasts.")]
    = None,
    benchmark_name: Annotated[str | None, typer.Option(
        help="Aggregate: benchmark_config_name written to aggregated.json.")] = None,
    benchmark_version: Annotated[str | None, typer.Option(
        help="Aggregate: benchmark_version written to aggregated.json.")] = None,
    drift_window: Annotated[int, typer.Option(
        help="Judges: items per sliding window of the drift ICC.")] = 20,
    uncertainty_threshold: Annotated[list[str] | None, typer.Option(
        help="Judges: inter-judge sd above which a unit is flagged: a number on the [0, 1] "
        "scale (default 0.375) or CRITERION=VALUE on its raw scale (repeatable).")] = None,
    weights: Annotated[str | None, typer.Option(
        help="Judges: rubric weights for the weighted composite, e.g. quality=2,helpfulness=1.")]
    = None,
    trim: Annotated[float, typer.Option(help="Judges: trimmed-mean fraction per tail.")] = 0.1,
    calibrate: Annotated[bool, typer.Option(
        "--calibrate", help="Judges: fit OLS calibration against reference_score (off by "
        "default; cached in OUT/calibration_params.json).")] = False,
    refit_calibration: Annotated[bool, typer.Option(
        "--refit-calibration", help="Judges: refit even when calibration_params.json exists.")]
    = False,
    test: Annotated[str, typer.Option(
        help="Win rates: the paired test of 'win rate = 0.5': cluster_t | wilcoxon | auto.")]
    = "cluster_t",
    correction: Annotated[str, typer.Option(
        help="Win rates: holm (over every comparison shown) | holm-per-group.")] = "holm",
    alpha: Annotated[float, typer.Option(help="Win rates: level of the adjusted tests.")] = 0.05,
    partial_ok: Annotated[bool, typer.Option(
        "--partial-ok", help="The run is still in progress: HTML pages carry a banner and mark "
        "their statistics preliminary.")] = False,
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    exclude_self_judge: Annotated[bool, typer.Option(
        "--exclude-self-judge", help="Leave out rows where the judge is the arm judged.")] = False,
    exclude_self_teach: Annotated[bool, typer.Option(
        "--exclude-self-teach", help="Leave out rows where the item's generator is the arm.")]
    = False,
) -> None:
    """Turn judgments into reports: score means, the benchmark report, aggregation across runs,
    agreement between judges, win rates; as text, JSON or self-contained HTML.

    Example: assay report bench.parquet --kind benchmark --format text,json --out report/
    """
    from assay.data.io import load_many

    if kind not in KINDS:
        raise ConfigError(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    formats = _formats(format_)
    judgments = load_many(src, mapping=_mapping(map_), constants=_constants(set_),
                          scales=_scales(scale))
    if exclude_self_judge or exclude_self_teach:
        judgments = judgments.excluding(self_judging=exclude_self_judge,
                                        self_teaching=exclude_self_teach)
    options = dict(
        judge=judge, criterion=criterion, method=method, resamples=resamples, conf=conf,
        k=_ks(k), seed=seed, contrasts=contrasts, confirmatory=confirmatory,
        registration=registration, benchmark_name=benchmark_name,
        benchmark_version=benchmark_version, drift_window=drift_window,
        uncertainty_threshold=_thresholds(uncertainty_threshold), weights=_weights(weights),
        trim=trim, calibrate=calibrate, refit_calibration=refit_calibration, out=out, test=test,
        correction=correction, alpha=alpha)
    outputs: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in (KINDS[1:] if kind == "all" else (kind,)):
        try:
            outputs.update(BUILDERS[name](judgments, options))
        except AssayError as exc:
            if kind != "all":
                raise
            skipped[name] = str(exc)
            console.print(f"{name} report skipped: {exc}", markup=False, highlight=False,
                          soft_wrap=True)
    written: list[Path] = []
    for name, (title, result) in outputs.items():
        if "text" in formats:
            console.print(f"\n{title}", style="bold", highlight=False, markup=False)
            console.print(str(result), markup=False, highlight=False, soft_wrap=True)
        if "json" in formats:
            if name == "aggregate":
                from assay.report.files import write_aggregate_files

                written += write_aggregate_files(result, judgments, out)
            else:
                written.append(_write(out, f"{name}.json", result.to_json()))
            if name == "winrates":
                written += result.write_csvs(out)
    if "html" in formats:
        from assay.report.html import (
            interaction_page,
            judge_report_page,
            render_html,
            score_distribution_page,
        )

        table_pages = [judge_report_page(judgments, judges=outputs.get("judges", (None, None))[1],
                                         calibration=outputs.get("calibration", (None, None))[1]),
                       score_distribution_page(judgments)]
        interaction = interaction_page(judgments)
        if interaction is not None:
            table_pages.append(interaction)
        captions = {"benchmark": outputs["benchmark"][0]} if "benchmark" in outputs else None
        written += render_html([*(result for _, result in outputs.values()), *table_pages], out,
                               partial=partial_ok, captions=captions, skipped=skipped)
    results = [result for _, result in outputs.values()]
    if "xlsx" in formats:
        from assay.report.office import write_workbook

        written.append(write_workbook(results, judgments, out / "analysis.xlsx"))
    if "latex" in formats:
        from assay.report.office import write_paper_tables

        written += write_paper_tables(results, out / "tables")
    if "png" in formats:
        from assay.report.figures import write_figures

        written += write_figures(results, out / "figures")
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


def _ks(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--k {text!r}: expected whole numbers such as 1,3,5") from None


def _thresholds(options: list[str] | None) -> float | dict[str, float] | None:
    if not options:
        return None
    try:
        if len(options) == 1 and "=" not in options[0]:
            return float(options[0])
        pairs = [option.split("=", 1) for option in options]
        if any(len(p) != 2 for p in pairs):
            raise ValueError
        return {name.strip(): float(value) for name, value in pairs}
    except ValueError:
        raise ConfigError(f"--uncertainty-threshold {options!r}: expected a number or "
                          "CRITERION=NUMBER") from None


def _weights(text: str | None) -> dict[str, float] | None:
    if not text:
        return None
    try:
        pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
        return {name.strip(): float(value) for name, value in pairs}
    except ValueError:
        raise ConfigError(f"--weights {text!r}: expected CRITERION=NUMBER,...") from None


def _scores_kind(judgments: Any, o: dict[str, Any]) -> dict[str, Any]:
    from assay.analysis.scores import score_summary

    return {"scores": (TITLES["scores"], score_summary(judgments, conf=o["conf"]))}


def _benchmark_kind(judgments: Any, o: dict[str, Any]) -> dict[str, Any]:
    from assay.analysis.benchmark import Registration, benchmark_report, benchmark_rows, reference_hash

    registered = None
    if o["registration"] is not None:
        try:
            registered = Registration.from_json(o["registration"].read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"--registration {o['registration']}: cannot read it ({exc})") from None
    rows = benchmark_rows(judgments, judge=o["judge"], criterion=o["criterion"])
    report = benchmark_report(
        rows, contrasts=parse_contrasts(o["contrasts"], list(dict.fromkeys(rows["arm"]))),
        B=o["resamples"], conf=o["conf"], k=o["k"], seed=1 if o["seed"] is None else o["seed"],
        method=o["method"], confirmatory=o["confirmatory"], registration=registered,
        reference_hash=reference_hash(rows))
    title = (f"{TITLES['benchmark']} (judge {rows.attrs['judge']}, criterion "
             f"{rows.attrs['criterion']})")
    return {"benchmark": (title, report)}


def _aggregate_kind(judgments: Any, o: dict[str, Any]) -> dict[str, Any]:
    from assay.analysis.aggregate import aggregate

    report = aggregate(judgments, n_resamples=o["resamples"] or 10_000,
                       seed=42 if o["seed"] is None else o["seed"], conf=o["conf"],
                       benchmark_config_name=o["benchmark_name"],
                       benchmark_version=o["benchmark_version"])
    return {"aggregate": (TITLES["aggregate"], report)}


def _judges_kind(judgments: Any, o: dict[str, Any]) -> dict[str, Any]:
    from assay.analysis.composite import composite_score_by_student
    from assay.analysis.coverage import coverage_report
    from assay.analysis.judges import calibrate_judges, judge_agreement, robust_summary
    from assay.analysis.systems import systems_report

    seed = 1 if o["seed"] is None else o["seed"]
    results = {
        "judges": judge_agreement(judgments, conf=o["conf"], drift_window=o["drift_window"],
                                  uncertainty_threshold=o["uncertainty_threshold"]),
        "composite": composite_score_by_student(judgments, weights=o["weights"], conf=o["conf"]),
        "robust": robust_summary(judgments, trim=o["trim"], conf=o["conf"],
                                 B=o["resamples"] or 2000, seed=seed),
    }
    if "attributes" in judgments.frame:
        results["coverage"] = coverage_report(judgments, seed=seed)
    results["systems"] = systems_report(judgments, conf=o["conf"], B=o["resamples"] or 2000,
                                        seed=seed)
    if o["calibrate"]:
        results["calibration"] = calibrate_judges(judgments, out_dir=o["out"],
                                                  force=o["refit_calibration"])
    return {name: (TITLES[name], result) for name, result in results.items()}


def _winrate_kind(judgments: Any, o: dict[str, Any]) -> dict[str, Any]:
    """Win rates of the pairwise rows, and the assertion comparisons when an assertion judge
    scored two or more arms (``assertions.json``); either alone when the other has no data."""
    from assay.analysis.assertions import assertion_significance
    from assay.analysis.winrates import win_rates
    from assay.errors import DesignError

    out: dict[str, Any] = {}
    missing: DesignError | None = None
    try:
        out["winrates"] = (TITLES["winrates"], win_rates(
            judgments, test=o["test"], alpha=o["alpha"], correction=o["correction"], conf=o["conf"]))
    except DesignError as exc:
        missing = exc
    assertions = assertion_significance(
        judgments, alpha=o["alpha"], correction=o["correction"],
        n_resamples=o["resamples"] or 10_000, seed=42 if o["seed"] is None else o["seed"])
    if assertions.tests:
        out["assertions"] = (TITLES["assertions"], assertions)
    elif missing is not None:
        raise missing
    return out


BUILDERS = {"scores": _scores_kind, "benchmark": _benchmark_kind, "aggregate": _aggregate_kind,
            "judges": _judges_kind, "winrate": _winrate_kind}


@app.command("register")
def register_command(
    src: Annotated[Path, typer.Argument(
        help="The reference set the bench will be scored on: a judgments file or run folder "
        "whose (cluster, item) pairs are hashed.")],
    contrast: Annotated[list[str], typer.Option(
        help="NEW:REFERENCE:MARGIN[:exploratory][:cost], e.g. small:large:0.05 (repeatable).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Registration JSON to write.")],
    alpha: Annotated[float, typer.Option(help="One-sided level (family level under Holm).")]
    = 0.025,
    power: Annotated[float, typer.Option(help="Power the design MDD is computed for.")] = 0.8,
) -> None:
    """Register non-inferiority contrasts before the benchmark is scored.

    Example: assay register reference.parquet --contrast small:large:0.05 -o registration.json
    """
    from assay.analysis.benchmark import reference_hash, register_contrasts
    from assay.data.io import load

    specs = []
    for text in contrast:
        parts = text.split(":")
        flags = {p.strip().lower() for p in parts[3:]}
        if len(parts) < 3 or flags - {"exploratory", "cost"}:
            raise ConfigError(f"--contrast {text!r}: expected NEW:REFERENCE:MARGIN"
                              "[:exploratory][:cost]")
        try:
            margin = float(parts[2])
        except ValueError:
            raise ConfigError(f"--contrast {text!r}: MARGIN must be a number") from None
        specs.append({"new": parts[0], "reference": parts[1], "margin": margin,
                      "confirmatory": "exploratory" not in flags, "cost_test": "cost" in flags})
    frame = load(src).frame
    registration = register_contrasts(specs, reference_hash=reference_hash(frame), alpha=alpha,
                                      power=power)
    written = _write(out.parent, out.name, registration.to_json())
    console.print(f"registered {len(specs)} contrast(s), hash {registration.hash[:12]}..., "
                  f"reference {registration.reference_hash[:12]}...; wrote {written}",
                  markup=False, highlight=False, soft_wrap=True)
