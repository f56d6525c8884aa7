"""``assay report SRC...``: a judgments table into the reports of the registry.

Which reports exist, their options and their renderers are declared once in
:mod:`assay.report.kinds`; this module parses the flags into each report's options
dataclass, builds the reports and writes the formats asked for. Which engine reads the
table (pandas, DuckDB, Spark or ibis) and the reports made through the engine are in
:mod:`assay.cli._report_engine`.
"""

# No ``from __future__ import annotations``: typer reads this command's 41 parameters from
# their annotations, evaluating each string twice when annotations are strings (some 20 ms
# for ``assay report``); as objects they are made once, at import.

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from assay.cli._app import (
    MapOption,
    MissingOption,
    ScaleOption,
    SetOption,
    app,
    check_out_folder,
    console,
    load_inputs,
    parse_formats,
)
from assay.errors import ConfigError, InputError

_KINDS = "<the report kinds>"
REPORT_HELP = (
    "Turn judgments into reports: which system is better and by how much, score means, the "
    "benchmark report, aggregation across runs, agreement between judges, win rates; as text, "
    "JSON, HTML, Excel, LaTeX or PNG.\n\n"
    "With no --kind it prints the answer: the systems ranked with intervals in the data's own "
    "units, every pair compared (paired difference, interval, Holm-adjusted p), what says "
    "whether to trust the judges, the cost, and one line naming the other reports the data "
    "support (--kind list says why the others are not made).\n\n"
    "Every report of a group is made or skipped on its own: a report the data do not support "
    "is skipped with its reason (printed, in skipped.json and on the HTML dashboard).\n\n"
    "\b\nReports and groups (--kind):\n" + _KINDS + "\n\n"
    "Example: assay report bench.parquet --kind benchmark --format text,json --out report/")


class _ReportCommand(TyperCommand):
    """The click command of ``assay report``: its help lists the report kinds, read from the
    registry when the command is made; ``assay --help``, which shows the help's first
    sentence only, does not import the registry (some 20 ms)."""

    def __init__(self, *, help: str | None = None, **attrs: Any) -> None:
        from assay.report.kinds import kinds_help

        super().__init__(help=(help or "").replace(_KINDS, kinds_help()), **attrs)


@app.command("report", help=REPORT_HELP, cls=_ReportCommand)
def report_command(
    src: Annotated[list[Path], typer.Argument(
        help="Judgments files or run folders (a table name with --engine ibis://...).")],
    kind: Annotated[str | None, typer.Option(
        help="Reports and groups to make, comma-separated (listed above): each report the data "
        "do not support is skipped with its reason (skipped.json, a card in index.html). "
        "Default: the answer (the systems ranked, every pair compared, the judges' trust, the "
        "cost) on the terminal, and with --format json/html/... the files of every report the "
        "data support as well. 'list': each report, made or not, and why.")]
    = None,
    format_: Annotated[str, typer.Option(
        "--format", help="Comma-separated: text (to the terminal); json, html (a page per "
        "report plus index.html and plotly.min.js; one file with --single-file), xlsx "
        "(analysis.xlsx), latex (tables/*.tex and .csv with SUMMARY.md) and png "
        "(figures/*.png), written into --out.")] = "text",
    out: Annotated[Path, typer.Option(help="Folder for report files.")] = Path("assay-report"),
    judge: Annotated[str | None, typer.Option(
        help="Benchmark: the judge whose correctness scores to read.")] = None,
    criterion: Annotated[str | None, typer.Option(
        help="Benchmark: the correctness criterion (binary or range:0,1).")] = None,
    method: Annotated[str, typer.Option(
        help="Benchmark accuracy interval: auto | bootstrap | cluster_t | bayes | exact. auto is "
        "descriptive (no intervals) below 5 runs per item; a named method gives intervals over "
        "items at any number of runs.")]
    = "auto",
    resamples: Annotated[int | None, typer.Option(
        "--resamples", "--B", metavar="N", help="Bootstrap resamples (benchmark: 2000, 5000 "
        "when confirmatory; aggregate: 10000). --B is the old spelling.")] = None,
    conf: Annotated[float, typer.Option(help="Confidence level of every interval.")] = 0.95,
    k: Annotated[str, typer.Option(
        "--pass-k", "--k", metavar="K,...", help="The k of pass^k (every one of k runs of an item "
        "correct), comma-separated. --k is the old spelling.")] = "1,3,5",
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
    attribute_space: Annotated[Path | None, typer.Option(
        "--attribute-space", help="Coverage and systems: JSON file of the target attributes and "
        'their values, e.g. {"attributes": {"difficulty": ["easy", "medium", "hard"]}} '
        '(optionally "task_attributes": {TASK: {...}}): coverage strata come from these only, '
        "and a value never sampled counts as a gap. Default: the run folder's criteria.json, "
        "else keys inferred from the data (never identifiers).")] = None,
    benchmark_teachers: Annotated[str | None, typer.Option(
        "--benchmark-teachers", help="Teachers: comma-separated teachers that are benchmark "
        "sources (dataset loaders), not models, e.g. mmlu,xsum. A CoEval run's config.yaml "
        "models with 'interface: benchmark' are read as such too.")] = None,
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
    anchor: Annotated[str | None, typer.Option(
        help="Leaderboard: pin one arm's Bradley-Terry rating, ARM=RATING (Chatbot Arena pins "
        "mixtral-8x7b-instruct-v0.1=1114); default: the ratings average 1000.")] = None,
    partial_ok: Annotated[bool, typer.Option(
        "--partial-ok", help="The run is still in progress: HTML pages carry a banner and mark "
        "their statistics preliminary.")] = False,
    single_file: Annotated[bool, typer.Option(
        "--single-file", help="HTML: one index.html holding every page as a tab, plotly.js "
        "inside, to send as one file.")] = False,
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    missing: MissingOption = None,
    exclude_self_judge: Annotated[bool, typer.Option(
        "--exclude-self-judge", help="Leave out rows where the judge is the arm judged.")] = False,
    exclude_self_teach: Annotated[bool, typer.Option(
        "--exclude-self-teach", help="Leave out rows where the item's generator is the arm.")]
    = False,
    engine: Annotated[str, typer.Option(
        help="auto | duckdb | spark | pandas | ibis://BACKEND-URL. DuckDB reads Parquet, CSV or "
        "JSONL (a file, a folder, a glob, a hive-partitioned dataset) and reduces the rows to "
        "sums where they lie, for the answer (pairwise win rates and agreement between judges "
        "left out, each named), the scores and the benchmark reports; auto takes it "
        "for a folder, a glob or a file above 64 MiB, pandas otherwise. spark runs the same "
        "queries on a Spark session over Parquet (pip install 'assay[spark]', Java 17). "
        "ibis://BACKEND-URL runs them in a database or warehouse (pip install 'assay[ibis]'): "
        "SRC is then a table name there, e.g. assay report judgments --engine "
        "ibis://duckdb:///path/db.duckdb (a password in the URL is never printed). The engine "
        "used is printed. (auto also summarises a small Parquet file asked for --kind scores "
        "alone in DuckDB, quietly: the same numbers, without loading pandas.)")] = "auto",
    spark_master: Annotated[str, typer.Option(
        help="--engine spark: the Spark master (local[2]: two local cores; spark://HOST:7077, "
        "yarn...).")] = "local[2]",
) -> None:
    """Turn judgments into reports (see REPORT_HELP)."""
    from assay.cli._app import _scales
    from assay.cli._report_engine import ENGINE_NAMES, choose_engine, engine_outcome
    from assay.report.kinds import (
        FORMATS,
        KINDS,
        build_reports,
        options_from,
        resolve_kinds,
        write_reports,
    )

    formats = parse_formats(format_, FORMATS)
    listing = kind is not None and kind.strip().lower() == "list"
    answer_first = kind is None  # the answer on the terminal, and every report in the files
    opted = {"--calibrate"} if calibrate else set()
    kinds = resolve_kinds("all" if listing or answer_first else str(kind), opted_in=opted)
    if formats != ["text"]:
        check_out_folder(out)
    registered = None
    if registration is not None:
        from assay.analysis.benchmark import Registration  # scipy.stats: only when asked
        from assay.data.lines import json_file

        try:
            registered = Registration.from_dict(json_file(registration))
        except OSError as exc:
            raise ConfigError(f"--registration {registration}: cannot read it ({exc})") from None
        except InputError as exc:
            raise ConfigError(f"--registration {exc}") from None
    space = None
    if attribute_space is not None:
        from assay.analysis.coverage import read_attribute_space

        space = read_attribute_space(attribute_space)
    values: dict[str, Any] = dict(
        judge=judge, criterion=criterion, method=method, resamples=resamples, conf=conf,
        k=tuple(_ks(k)), seed=seed, contrasts=contrasts, confirmatory=confirmatory,
        registration=registered, benchmark_name=benchmark_name,
        benchmark_version=benchmark_version, drift_window=drift_window,
        uncertainty_threshold=_thresholds(uncertainty_threshold), weights=_weights(weights),
        trim=trim, attribute_space=space, out=out, refit_calibration=refit_calibration, test=test,
        correction=correction, alpha=alpha, anchor=anchor,
        benchmark_teachers=tuple(t.strip() for t in (benchmark_teachers or "").split(",")
                                 if t.strip()))
    options = {kind.name: options_from(kind.options, values) for kind in kinds}
    from assay.cli._terminal import status

    scales = _scales(scale)
    table_options = _table_options(map_, set_, missing, exclude_self_judge, exclude_self_teach)
    chosen, line = choose_engine(engine, src, [k.name for k in kinds], formats, scales=scales,
                                 table_options=table_options)
    if answer_first:  # the answer on the terminal; the files of every report besides
        kinds = resolve_kinds("answer" if formats == ["text"] else "answer,all", opted_in=opted)
        options = {kind.name: options_from(kind.options, values) for kind in kinds}
    if line is not None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    from assay.data.run_store import sequential_note

    for folder in src:
        note = sequential_note(folder)
        if note is not None:
            console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    judgments = None
    outcome = None
    if chosen == "small":  # numbers of the pandas path, without loading pandas (no options)
        from assay.analysis.pushdown import small_score_summary
        from assay.report.kinds import Made, Outcome

        read_notes: list[str] = []
        summary = small_score_summary(src[0], scales=scales, conf=options["scores"].conf,
                                      read_notes=read_notes)
        outcome = None if summary is None else Outcome({"scores": Made(summary)}, {})
        for note in read_notes if summary is not None else ():
            console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    if chosen in ENGINE_NAMES:
        with status("reducing " + ", ".join(map(str, src)) + f" in {ENGINE_NAMES[chosen]}"):
            outcome = engine_outcome(src[0], kinds, options, scales, engine=chosen,
                                     spark_master=spark_master,
                                     ibis_url=engine if chosen == "ibis" else None,
                                     table_options=table_options)
    elif outcome is None:
        with status("reading " + ", ".join(map(str, src))):
            judgments = load_inputs(src, map_, set_, scale, missing)
        _say_importers(src)
        for note in judgments.read_notes:
            console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
        if exclude_self_judge or exclude_self_teach:
            judgments = judgments.excluding(self_judging=exclude_self_judge,
                                            self_teaching=exclude_self_teach)
        with status("making the reports") as show:
            outcome = build_reports(judgments, kinds, options,
                                    progress=lambda kind: show(f"making the {kind.name} report"))
    if listing:
        _list_kinds(outcome)
        return
    if not outcome.made:
        reasons = "; ".join(f"{name}: {reason}" for name, reason in outcome.skipped.items())
        raise ConfigError(reasons if len(outcome.skipped) == 1 else
                          f"no report could be made ({reasons})")
    if "text" in formats:
        for name, made in outcome.made.items():
            if answer_first and "answer" in outcome.made and name != "answer":
                continue  # the answer names the other reports; the files hold them
            title = KINDS[name].title + (f" ({made.caption})" if made.caption else "")
            console.print(f"\n{title}", style="bold", highlight=False, markup=False)
            console.print(str(made.result), markup=False, highlight=False, soft_wrap=True)
    with status("writing " + ", ".join(f for f in formats if f != "text")):
        written = write_reports(outcome, judgments, formats, out, partial=partial_ok,
                                single_file=single_file)
    for name, reason in outcome.skipped.items():
        if answer_first and "answer" in outcome.made:
            break  # the answer counts them; --kind list says why
        console.print(f"{name} report skipped: {reason}", markup=False, highlight=False,
                      soft_wrap=True)
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


def _table_options(map_: list[str] | None, set_: list[str] | None, missing: list[str] | None,
                   self_judging: bool, self_teaching: bool) -> Any:
    """The table options of the command line, parsed (a bad one is one line, exit 2)."""
    from assay.analysis.pushdown._options import TableOptions
    from assay.cli._app import _constants, _mapping, _missing

    return TableOptions(mapping=_mapping(map_), constants=_constants(set_),
                        missing=_missing(missing), exclude_self_judging=self_judging,
                        exclude_self_teaching=self_teaching)


def _list_kinds(outcome: Any) -> None:
    """``--kind list``: each report, made or not made and why, one line each."""
    from assay.report.kinds import KINDS, REPORTS

    width = max(len(kind.name) for kind in REPORTS)
    for kind in REPORTS:
        if kind.name in outcome.made:
            line = f"made      {KINDS[kind.name].brief}"
        elif kind.name in outcome.skipped:
            line = f"not made  {outcome.skipped[kind.name]}"
        elif kind.name == "answer":
            line = "made      " + kind.brief
        else:
            line = f"not made  asks for {kind.opt_in}" if kind.opt_in else "not made"
        console.print(f"{kind.name:<{width}}  {line}", markup=False, highlight=False,
                      soft_wrap=True)


def _say_importers(sources: list[Path]) -> None:
    """One line per file of a folder of result files: the importer that read it."""
    from assay.data.engine import UNREAD_KEYS
    from assay.data.importers import folder_formats
    from assay.data.importers._detect import unread_partition_keys
    from assay.data.io import is_results_folder

    for source in sources:
        if is_results_folder(source):
            for file, fmt in folder_formats(source).items():
                console.print(f"read {file} as {fmt}", markup=False, highlight=False,
                              soft_wrap=True)
            unread = unread_partition_keys(source)
            if unread:
                console.print(f"note: {source}: {UNREAD_KEYS.format(keys=', '.join(unread))}",
                              markup=False, highlight=False, soft_wrap=True)


def _ks(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--pass-k {text!r}: expected whole numbers such as 1,3,5") from None


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
