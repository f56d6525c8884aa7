"""``assay judge CONFIG.yaml``: run the config's judges into a run folder (a rerun resumes).

Registered on the ``assay`` typer app (imported by :mod:`assay.cli`). The plan and the
run's lines are printed by :mod:`assay.cli._judge_output`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from assay.cli._app import app, console
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.judge.plan import Plan
    from assay.judge.sequential import StoppingRule

DEFAULT_CONFIG_NAME = "assay.yaml"
EXIT_OK, EXIT_USER_ERROR, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 2, 3, 130
"""The exit statuses of ``assay judge`` (see its ``--help``)."""


@app.command("judge")
def judge_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            help="The config (YAML). With --init: the folder to write assay.yaml and an example "
            "input set into (default: the current folder), or the config file to write."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="The run folder (created; a rerun resumes). Default: runs/<config name>."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check everything the run checks (inputs, prompts, prices for a cost limit) and "
            "print the plan (calls per judge, estimated tokens and cost); send nothing. Needs no "
            "API key: a missing one is a note (the run refuses without it).",
        ),
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Ask again the judgments stored as failed.")
    ] = False,
    init: Annotated[bool, typer.Option(
        "--init", help="Write a commented example config (every key: docs/config.md) and a tiny "
        "example input set beside it, then exit: the config runs as written.")] = False,
    max_concurrency: Annotated[
        int | None,
        typer.Option("--max-concurrency", metavar="N", min=1,
                     help="Requests in flight at most (overrides the config's llm.max_concurrency)."),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", metavar="N", min=1,
                     help="Judge only the first N items of each question set (a smoke run; a later "
                     "run without --limit resumes and adds the rest)."),
    ] = None,
    judges: Annotated[
        str | None,
        typer.Option("--judges", metavar="NAME,...",
                     help="Run only these judges of the config (names as --dry-run lists them)."),
    ] = None,
    display: Annotated[
        str,
        typer.Option(
            "--display", help="Progress: rich (a live bar) or plain (a line every few seconds, for CI)."
        ),
    ] = "rich",
    csv: Annotated[
        bool,
        typer.Option(
            "--csv/--no-csv",
            help="Also write BenchmarkQED's CSVs (win_rates.csv, reference_scores*.csv, differential scores, "
            "assertion and hierarchical summaries, chunk coverage).",
        ),
    ] = True,
    cache: Annotated[
        str | None,
        typer.Option(
            "--cache",
            metavar="WHERE",
            help="The response cache (replies already received for the same endpoint, model, prompt and "
            "parameters are not paid again): run (responses.sqlite in the run folder, the default), shared "
            "(one per user: $ASSAY_CACHE_DIR, else ~/.cache/assay), off, or a file. Overrides the "
            "config's cache key. See: assay cache info RUN.",
        ),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Keep no response cache: every judgment not stored is asked.")
    ] = False,
    max_failures: Annotated[
        int | None,
        typer.Option(
            "--max-failures", metavar="N", min=1,
            help="Stop (exit 3) once N judgments of this run have failed; a rerun resumes.",
        ),
    ] = None,
    significance: Annotated[
        bool | None,
        typer.Option("--significance/--no-significance",
                     help="Write (or not) the assertion judges' significance_summary.csv (overrides the "
                     "config's significance.enabled; default on)."),
    ] = None,
    permutations: Annotated[
        int | None,
        typer.Option("--permutations", metavar="N", min=0,
                     help="Sign patterns of each clustered permutation test (overrides "
                     "significance.permutations; default 10000; 0: no permutation tests)."),
    ] = None,
    permutation_seed: Annotated[
        int | None,
        typer.Option("--permutation-seed", metavar="SEED",
                     help="Seed of the permutation tests (overrides significance.seed; default 42)."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="RULE",
                     help="Judge the clusters in a seeded random order, look at the stored results after "
                     "each batch and stop once the rule is met: decided (every comparison's interval "
                     "excludes 0) or width=W (every interval narrower than W, on the [-1, 1] scale of "
                     "a difference of normalised scores), with anytime-valid confidence sequences. "
                     "Stopping by the rule is success (exit 0), named in the output. Overrides the "
                     "config's sequential.until."),
    ] = None,
    conf: Annotated[
        float | None,
        typer.Option("--conf", metavar="LEVEL",
                     help="Level of the --until confidence sequences, familywise over the comparisons "
                     "(overrides sequential.conf; default 0.95)."),
    ] = None,
    allow_failures: Annotated[
        float,
        typer.Option(
            "--allow-failures", metavar="RATE",
            help="Exit 0 although up to this fraction of the planned judgments is stored as failed "
            "(e.g. 0.02); default 0: any failed judgment makes the exit status 3.",
        ),
    ] = 0.0,
) -> None:
    """Judge answers with the config's judges into a run folder; a rerun skips what is stored.

    A server that cannot be reached (connection refused, unknown host) or refuses the key,
    model or permission (HTTP 401, 403, 404) stops the run at once. Ctrl-C stops it too:
    what is stored stays, and the same command resumes. One process at a time judges into
    a run folder (a second one is refused, naming the first).

    Exit status: 0 every planned judgment is stored and good (or the failed ones are within
    --allow-failures); 2 a user error (config, inputs, prompts, API key, an endpoint that
    cannot be used, a run folder in use); 3 the run finished with failed judgments, left a
    planned judgment unstored (a batch that expired or lost result lines: the notes say
    which), or stopped early (the cost limit, --max-failures); 130 interrupted (Ctrl-C).
    The run ends with "stored S of P planned judgments", counted from the run store. With
    --until, the plan is the clusters judged: a run the rule stopped early exits 0 when
    those are all stored and good, and says it stopped early, why, and what it did not buy.

    Example: assay judge --init exp1; assay judge exp1/assay.yaml --dry-run --limit 2
    """
    from assay.judge.config import load_config
    from assay.judge.example import EXAMPLE_CONFIG

    if display not in ("rich", "plain"):
        raise ConfigError(f"--display: expected rich or plain, got {display!r}")
    if not 0.0 <= allow_failures <= 1.0:
        raise ConfigError(f"--allow-failures: expected a fraction in [0, 1] (0.05 for 5%), "
                          f"got {allow_failures:g}")
    if no_cache and cache is not None:
        raise ConfigError("--cache and --no-cache: give one of them")
    setting = "off" if no_cache else _cache_setting(cache)
    if init:
        _init(config or Path("."), EXAMPLE_CONFIG)
        return
    if config is None:
        raise ConfigError("CONFIG: give the config file (or --init to write an example)")
    import gc

    # Until the plan is built and frozen, what is made lives to the end (the config, the inputs,
    # the modules, the plan): a collection would only walk it (pandas' import and the plan's
    # objects triggered two full ones, 0.1 ms of CPU per call of a 1,440-call run).
    collecting = gc.isenabled()
    gc.disable()
    try:
        from assay.config.dotenv import dotenv_paths, load_dotenv
        from assay.judge.inputs import first_items, load_inputs
        from assay.judge.plan import build_plan, preflight, select_judges
        from assay.llm import _phases
        from assay.pipeline.generate import generated_inputs

        load_dotenv(dotenv_paths(config))  # keys from .env, never over a variable already set
        folder = out if out is not None else Path("runs") / config.stem
        cfg = generated_inputs(load_config(config), folder)
        tests = {key: value for key, value in (("enabled", significance), ("permutations", permutations),
                                               ("seed", permutation_seed)) if value is not None}
        if tests:
            cfg = cfg.model_copy(update={"significance": cfg.significance.model_copy(update=tests)})
        if max_concurrency is not None and cfg.llm is not None:
            cfg = cfg.model_copy(update={"llm": cfg.llm.model_copy(
                update={"max_concurrency": max_concurrency})})
        _phases.mark("start-up")  # the interpreter, the imports, the config (ASSAY_PROFILE_PHASES)
        inputs = load_inputs(cfg)
        if limit is not None:
            inputs = first_items(inputs, limit)
        memo = None
        if not dry_run:  # a dry run writes nothing, the memo neither
            from assay.judge._readable import memo_path
            from assay.llm import cache_path

            chosen = cfg.cache if setting is None else setting
            memo = memo_path(chosen, cache_path(chosen, folder, base_dir=cfg.base_dir))
        plan = build_plan(cfg, inputs, memo=memo)
        if judges is not None:
            plan = select_judges(plan, [name.strip() for name in judges.split(",") if name.strip()])
        from assay.judge.sequential import comparisons, stopping_rule

        rule = stopping_rule(cfg.sequential, until=until, conf=conf)
        if rule is not None:
            comparisons(plan)  # refuses a plan it cannot watch, before anything is sent
        _phases.mark("plan")
        gc.freeze()  # the modules and the plan live to the end: the collector need not walk them again
    finally:
        if collecting:
            gc.enable()
    if dry_run:
        from assay.cli._judge_output import print_plan
        from assay.judge.plan import missing_credentials

        problems = preflight(plan, credentials=False)  # nothing is sent: no key is needed
        if problems:
            raise ConfigError("; ".join(problems))
        print_plan(plan, folder, cache=setting, missing=missing_credentials(plan), rule=rule)
        return
    resume = _resume_command(config, folder, cache=cache, no_cache=no_cache, limit=limit, judges=judges,
                             until=until, conf=conf)
    try:
        code = _judge(plan, folder, cache=setting, retry_failed=retry_failed, display=display,
                      csv=csv, max_failures=max_failures, allow_failures=allow_failures, resume=resume,
                      rule=rule)
        if memo is not None and plan.readable_digest is not None and memo.is_file():
            from assay.judge._readable import remember_readable

            remember_readable(memo, plan.readable_digest)  # the next run of these shapes reads none
    except KeyboardInterrupt:
        from assay.cli._judge_output import print_interrupted

        print_interrupted(plan, folder, resume)
        raise SystemExit(EXIT_INTERRUPTED) from None
    if code:
        raise typer.Exit(code)


def _judge(plan: Plan, folder: Path, *, cache: str | None, retry_failed: bool, display: str, csv: bool,
           max_failures: int | None, allow_failures: float, resume: str,
           rule: StoppingRule | None = None) -> int:
    """Run the plan, write the CSVs, print what happened; return the exit status."""
    from assay.cli._judge_output import print_sequential, print_summary, run_with_progress
    from assay.llm import FatalAPIError, RunSummary, _phases

    mode: Literal["rich", "plain"] = "plain" if display == "plain" else "rich"
    try:
        summary = run_with_progress(plan, folder, retry_failed=retry_failed, display=mode, cache=cache,
                                    max_failures=max_failures, rule=rule)
    except FatalAPIError as exc:
        from assay.cli._judge_output import stored_counts

        stored, failed = stored_counts(plan, folder)
        raise FatalAPIError(f"{exc}; the run stopped: {stored} of {len(plan.keys)} planned judgments are "
                            f"stored ({failed} failed); fix it, then resume: {resume}") from None
    _phases.mark("calls")  # the run store's writes are charged to "store"
    if csv and plan.inputs is not None:
        from assay.judge.qed_files import write_assertion_csvs, write_qed_csvs

        write_qed_csvs(plan, plan.inputs, folder)
        write_assertion_csvs(plan, folder)
    if not isinstance(summary, RunSummary):
        print_sequential(summary)
        summary = summary.summary
    code = print_summary(plan, summary, folder, allow_failures=allow_failures, resume=resume)
    _phases.mark("output")
    return code


def _init(target: Path, example: str) -> None:
    """``--init TARGET``: a folder gets ``assay.yaml`` and the example answers; a ``.yaml`` or
    ``.yml`` path is the config, with the example answers in its folder."""
    from assay.judge.example import write_example_inputs

    config = target if target.suffix.lower() in (".yaml", ".yml") else target / DEFAULT_CONFIG_NAME
    if config.exists():
        raise ConfigError(f"{config}: already exists; --init does not overwrite a file")
    if config.parent.exists() and not config.parent.is_dir():
        raise ConfigError(f"--init {target}: {config.parent} is a file, not a folder")
    config.parent.mkdir(parents=True, exist_ok=True)
    written = write_example_inputs(config.parent)
    config.write_text(example, encoding="utf-8")
    console.print(f"wrote {config} and {len(written)} example answer files in "
                  f"{written[0].parents[1]}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"next: set OPENAI_API_KEY (or edit the llm section), then run: assay judge {config} "
                  "--dry-run", markup=False, highlight=False, soft_wrap=True)


def _cache_setting(cache: str | None) -> str | None:
    """``--cache`` as :func:`~assay.llm.cache.cache_path` takes it (a path made absolute:
    it was given relative to the working folder, the config's ``cache`` to the config's)."""
    if cache is None or cache in ("run", "shared", "off"):
        return cache
    if not cache.strip():
        raise ConfigError("--cache: expected run, shared, off or a file path")
    return str(Path(cache).expanduser().resolve())


def _resume_command(config: Path, folder: Path, *, cache: str | None, no_cache: bool,
                    limit: int | None = None, judges: str | None = None, until: str | None = None,
                    conf: float | None = None) -> str:
    """The command that resumes this run: the same plan (``--limit`` and ``--judges`` kept, so
    resuming a smoke run does not judge everything)."""
    words = ["assay", "judge", str(config), "--out", str(folder)]
    if limit is not None:
        words += ["--limit", str(limit)]
    if judges is not None:
        words += ["--judges", judges]
    if until is not None:
        words += ["--until", until]
    if conf is not None:
        words += ["--conf", f"{conf:g}"]
    if no_cache:
        words.append("--no-cache")
    elif cache is not None:
        words += ["--cache", cache]
    return " ".join(shlex.quote(w) for w in words)
