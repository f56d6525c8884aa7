"""``assay plan [SRC...]``: how many questions, clusters, runs and trials a comparison needs, their
judge calls and cost, from a pilot table or from stated assumptions."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli._app import ScaleOption, app, check_out_folder, load_inputs, parse_formats
from assay.cli._terminal import say
from assay.errors import ConfigError

FORMATS = ("text", "json")


@app.command("plan")
def plan_command(
    src: Annotated[list[Path] | None, typer.Argument(
        help="A pilot: judgments files or run folders (as assay report reads them), pointwise "
        "or pairwise. Without one, the plan rests on --sd, --p or --win-rate and the other "
        "assumptions.")] = None,
    difference: Annotated[float | None, typer.Option(
        help="The difference to detect (two-sided test at level 1 - conf), in the score's "
        "[0, 1] units (the scale's map) or raw units for an interval scale; for a win rate, "
        "its distance from 1/2.")] = None,
    width: Annotated[float | None, typer.Option(
        help="Instead of --difference: the full width (upper - lower) of the interval.")] = None,
    power: Annotated[float, typer.Option(help="Power wanted at --difference.")] = 0.8,
    conf: Annotated[float, typer.Option(help="Confidence level (1 - the test's level).")] = 0.95,
    estimand: Annotated[str | None, typer.Option(
        help="difference: two systems' paired difference on the same questions; mean: one "
        "system's mean; win_rate: one system's win rate against another from counterbalanced "
        "pairwise judgments, against 1/2. Default win_rate for a pilot of pairwise judgments "
        "(or with --win-rate or --tie-rate), else difference.")] = None,
    arms: Annotated[str | None, typer.Option(
        help="The pilot's arms to plan for, A,B (a difference; for a win rate, A's against B) "
        "or A (a mean); default the pair (arm) whose scores vary most.")] = None,
    judge: Annotated[str | None, typer.Option(help="The pilot's judge to read.")] = None,
    criterion: Annotated[str | None, typer.Option(help="The pilot's criterion to read.")] = None,
    sd: Annotated[float | None, typer.Option(
        help="No pilot: SD of one system's score on one question (a scored outcome).")] = None,
    p: Annotated[float | None, typer.Option(
        "--p", help="No pilot: a binary outcome's rate (the first system's; the second at p + "
        "difference).")] = None,
    correlation: Annotated[float | None, typer.Option(
        help="No pilot: correlation between the two systems' scores on a question (default "
        "0, with a note).")] = None,
    win_rate: Annotated[float | None, typer.Option(
        help="No pilot, a win rate: the win rate its variance is taken at (default 1/2 + "
        "--difference, or 1/2 for --width).")] = None,
    tie_rate: Annotated[float | None, typer.Option(
        help="No pilot, a win rate: the share of verdicts that are ties (default 0, the "
        "largest variance).")] = None,
    icc: Annotated[float | None, typer.Option(
        help="Intra-cluster correlation of two single scores of one cluster (replaces the "
        "pilot's).")] = None,
    within_share: Annotated[float | None, typer.Option(
        help="Share of a score's variance that is within-question noise, what runs and trials "
        "average (replaces the pilot's).")] = None,
    run_sd: Annotated[float | None, typer.Option(
        help="SD of a run's shift shared by every question (replaces the pilot's).")] = None,
    cluster_size: Annotated[float | None, typer.Option(
        help="Questions per cluster (default the pilot's mean, else 1).")] = None,
    cluster_size_cv: Annotated[float | None, typer.Option(
        help="Coefficient of variation of cluster sizes (default the pilot's, else 0).")] = None,
    runs: Annotated[int, typer.Option(
        help="Runs of the chosen design: passes over every question, each with its own shift.")]
    = 1,
    trials: Annotated[int, typer.Option(
        help="Trials of the chosen design: repeated judgments per question and run (for a win "
        "rate, counterbalanced judgments: both orders, 2 calls).")] = 1,
    usd_per_call: Annotated[float | None, typer.Option(
        help="USD of one judge call (else from --config and tokens, or the pilot's run "
        "store).")] = None,
    calls_per_score: Annotated[float | None, typer.Option(
        help="Judge calls per score (default the pilot store's, else 1).")] = None,
    config: Annotated[Path | None, typer.Option(
        help="A judge config: its llm.prices and judge model price a call.")] = None,
    judge_model: Annotated[str | None, typer.Option(
        help="With --config: the model to price (default the first judge's, else llm.model).")]
    = None,
    tokens_in: Annotated[float | None, typer.Option(
        help="With --config: prompt tokens per call (default the pilot store's mean).")] = None,
    tokens_out: Annotated[float | None, typer.Option(
        help="With --config: completion tokens per call (default the pilot store's mean).")]
    = None,
    method: Annotated[str, typer.Option(
        help="t: the power of the t test the reports run (C - 1 df); normal: the normal "
        "approximation.")] = "t",
    format_: Annotated[str, typer.Option(
        "--format", help="Comma-separated: text (to the terminal) and json (plan.json in "
        "--out).")] = "text",
    out: Annotated[Path, typer.Option(help="Folder for plan.json.")] = Path("assay-plan"),
    scale: ScaleOption = None,
) -> None:
    """Plan an evaluation: the questions, clusters, runs and trials that detect a difference
    (or reach an interval's width), their judge calls and cost, and the trade-offs between
    more questions, more runs and more trials.

    Example: assay plan pilot/ --difference 0.05 --criterion correct --arms a,b

    Example: assay plan --difference 0.05 --p 0.7 --correlation 0.5 --icc 0.1 --cluster-size 5

    Example: assay plan pairwise-pilot/ --difference 0.05 --arms new,baseline

    Example: assay plan --estimand win_rate --difference 0.05 --tie-rate 0.2 --icc 0.1
    --cluster-size 10
    """
    from assay.analysis.plan import pilot_call_cost, pilot_components, plan_evaluation
    from assay.data.run_store import sources_judge_calls

    formats = parse_formats(format_, FORMATS)
    if estimand is not None and estimand not in ("difference", "mean", "win_rate"):
        raise ConfigError(f"--estimand {estimand!r}: expected difference, mean or win_rate")
    if method not in ("t", "normal"):
        raise ConfigError(f"--method {method!r}: expected t or normal")
    if (difference is None) == (width is None):
        raise ConfigError("give exactly one target: --difference D or --width W")
    for name, value in (("--difference", difference), ("--width", width), ("--sd", sd),
                        ("--p", p), ("--win-rate", win_rate), ("--tie-rate", tie_rate),
                        ("--usd-per-call", usd_per_call)):
        if value is not None and not math.isfinite(value):
            raise ConfigError(f"{name} {value}: expected a finite number")
    if "json" in formats:
        check_out_folder(out)
    arm_list = None if arms is None else [a.strip() for a in arms.split(",") if a.strip()]
    judgments = load_inputs(src, None, None, scale, None) if src else None
    if judgments is None and (judge or criterion or arms):
        raise ConfigError("--arms, --judge and --criterion choose from a pilot table: give one "
                          "(SRC)")
    calls = sources_judge_calls(judgments.sources) if judgments is not None else []
    pilot = None
    if config is not None and usd_per_call is None:
        usd_per_call, pilot = _price(
            config, judge_model, tokens_in, tokens_out, judgments, calls,
            dict(arms=arm_list, estimand=estimand, judge=judge, criterion=criterion),
            pilot_components, pilot_call_cost)
    try:
        plan = plan_evaluation(
            judgments, difference=difference, width=width, power=power, conf=conf,
            estimand=estimand,  # type: ignore[arg-type]
            arms=arm_list, judge=judge, criterion=criterion, sd=sd, p=p,
            correlation=correlation, win_rate=win_rate, tie_rate=tie_rate, icc=icc,
            within_share=within_share, run_sd=run_sd,
            cluster_size=cluster_size, size_cv=cluster_size_cv, runs=runs, trials=trials,
            calls=calls, usd_per_call=usd_per_call, calls_per_score=calls_per_score,
            method=method, pilot=pilot)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ConfigError(_option_words(str(exc))) from None
    if "text" in formats:
        say(str(plan))
    if "json" in formats:
        from assay.data.atomic import write_text

        out.mkdir(parents=True, exist_ok=True)
        path = out / "plan.json"
        write_text(path, plan.to_json() + "\n")
        say(f"wrote {path}")


def _option_words(message: str) -> str:
    """An analysis ValueError in the command line's words (``within_share`` -> ``--within-share``)."""
    for name in ("within_share", "win_rate", "tie_rate", "run_sd", "cluster_size", "size_cv",
                 "usd_per_call", "calls_per_score", "correlation", "difference", "width",
                 "power", "conf", "icc", "sd", "p"):
        flag = "--cluster-size-cv" if name == "size_cv" else "--" + name.replace("_", "-")
        if message.startswith(f"{name} must"):
            return flag + message[len(name):]
    message = message.replace("sd (a scored outcome) and p", "--sd (a scored outcome) and --p")
    message = message.replace("sd, p, correlation, win_rate and tie_rate",
                              "--sd, --p, --correlation, --win-rate and --tie-rate")
    message = message.replace("p and correlation describe", "--p and --correlation describe")
    message = message.replace("give win_rate (and tie_rate), or sd",
                              "give --win-rate (and --tie-rate), or --sd")
    message = message.replace("give sd (of a graded preference) or win_rate and tie_rate",
                              "give --sd (of a graded preference) or --win-rate and --tie-rate")
    message = message.replace("win_rate and tie_rate describe", "--win-rate and --tie-rate describe")
    message = message.replace("with the estimand win_rate", "with --estimand win_rate")
    return message


def _price(config: Path, model: str | None, tokens_in: float | None, tokens_out: float | None,
           judgments: Any, calls: list[dict[str, Any]], choice: dict[str, Any],
           pilot_components: Any, pilot_call_cost: Any) -> tuple[float, Any]:
    """USD of one judge call: the config's price of the judge model times the tokens; and the
    pilot's estimate when the tokens were read from it (None otherwise), so the plan does not
    read the pilot again."""
    from assay.judge.config import load_config
    from assay.llm.client_config import listed_cost
    from assay.llm.pricing import find_price

    cfg = load_config(config)
    if cfg.llm is None:
        raise ConfigError(f"--config {config}: no llm section, so no price")
    name = model or next((j.model for j in cfg.judges if j.model), None) or cfg.llm.model
    if find_price(cfg.llm.prices, name) is None:  # said before the tokens are looked for
        raise ConfigError(f"--config {config}: llm.prices has no price for model {name!r} "
                          "(add it, or '*')")
    pilot = None
    if (tokens_in is None or tokens_out is None) and judgments is not None and calls:
        pilot = pilot_components(judgments, **choice)
        cost = pilot_call_cost(judgments, calls, judge=pilot.judge, criterion=pilot.criterion)
        if cost is not None:
            tokens_in = cost.tokens_in if tokens_in is None else tokens_in
            tokens_out = cost.tokens_out if tokens_out is None else tokens_out
    if tokens_in is None or tokens_out is None or not (
            math.isfinite(tokens_in) and math.isfinite(tokens_out)
            and tokens_in >= 0 and tokens_out >= 0):
        raise ConfigError("--config prices a call by its tokens: give --tokens-in and "
                          "--tokens-out (no pilot run store holds them)")
    return float(listed_cost(cfg.llm, tokens_in, tokens_out, name)), pilot  # type: ignore[arg-type]
