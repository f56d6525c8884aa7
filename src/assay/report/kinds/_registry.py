"""The registry of report kinds: what ``assay report --kind`` and ``assay demo`` can make.

Each :class:`ReportKind` declares its name (what ``--kind`` takes), its title, its typed
options, the function that builds it from a judgments table, whether the data support it,
and the formats that render it. Groups (``all``, ``judges``, ``winrate``) name several
reports. :func:`build_reports` makes every report of a selection on its own: one the data
do not support is skipped with its reason, and never stops its siblings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import AssayError, ConfigError, did_you_mean
from assay.report.kinds import _build as build
from assay.report.kinds._options import (
    AggregateOptions,
    AgreementOptions,
    AnswerOptions,
    AssertionsOptions,
    BenchmarkOptions,
    CalibrationOptions,
    CompositeOptions,
    CostOptions,
    CoverageOptions,
    CurvesOptions,
    EnsembleOptions,
    FactorsOptions,
    HumanOptions,
    InteractionOptions,
    LeaderboardOptions,
    RobustOptions,
    SamplingOptions,
    ScoresOptions,
    SystemsOptions,
    TeacherOptions,
    WinratesOptions,
)

if TYPE_CHECKING:
    from assay.data.table import Judgments

FORMATS = ("text", "json", "html", "xlsx", "latex", "png")
"""Every output format of ``assay report``."""

JsonWriter = Callable[[str, Any, "Judgments", Path], list[Path]]


@dataclass(frozen=True)
class ReportKind:
    """One report ``assay report`` can make."""

    name: str
    """What ``--kind`` takes, and the key of its skipped record."""
    title: str
    """Its heading: what the report shows (and whose method it follows)."""
    brief: str
    """A few words for ``assay report --help``."""
    options: type
    """Its options dataclass; ``options()`` gives the defaults."""
    build: Callable[[Judgments, Any], build.Made]
    """``build(judgments, options) -> Made``; raises an AssayError when the data do not
    give the report."""
    formats: frozenset[str]
    """The formats that render it (text, json and html render every report)."""
    files: str
    """The files it writes, for the help (``scores.json``)."""
    stem: str = ""
    """Its file name without suffix (``judges`` for the agreement report); the name when
    empty."""
    supports: Callable[[Judgments], str | None] = field(default=lambda judgments: None)
    """Why the table cannot give this report (naming the fix), or None; checked before
    building."""
    opt_in: str = ""
    """A flag that groups need before they include it (``--calibrate``); empty: always."""
    write_json: JsonWriter = build.write_json
    """Writes its JSON files into a folder."""

    @property
    def file_stem(self) -> str:
        return self.stem or self.name


def _answer(judgments: Judgments, options: AnswerOptions) -> build.Made:
    """The answer, with the other reports the data support (from the table's facts, as the
    engines name them too): it reads :data:`REPORTS`, so it lives beside it."""
    from assay.report.kinds._available import table_facts

    made = build.answer(judgments, options)
    return build.Made(with_available(made.result, table_facts(judgments)), made.caption)


def with_available(answer: Any, facts: Any) -> Any:
    """The answer with the other reports the facts of its table support
    (:class:`~assay.report.kinds._available.TableFacts`), and the count of the others."""
    from assay.report.kinds._available import supported

    others = [kind for kind in REPORTS if kind.name != "answer" and not kind.opt_in]
    available = supported(others, facts)
    return replace(answer, available=available, n_unsupported=len(others) - len(available))


_BASIC = frozenset({"text", "json", "html"})

REPORTS: tuple[ReportKind, ...] = (
    ReportKind(
        "answer", "Which system is better, by how much, and can the judges be trusted",
        "the systems ranked, every pair compared, the judges' trust, the cost (the default)",
        AnswerOptions, _answer, _BASIC, "answer.json"),
    ReportKind(
        "scores", "Scores per criterion, judge and arm",
        "mean score per criterion, judge and arm",
        ScoresOptions, build.scores, _BASIC | {"xlsx"}, "scores.json"),
    ReportKind(
        "cost", "Cost and tokens: the judges' spend per judge, arm and criterion; the systems' "
        "own cost", "judges' spend and tokens; the systems' own cost",
        CostOptions, build.cost, _BASIC | {"xlsx"}, "cost.json", supports=build.cost_support),
    ReportKind(
        "benchmark", "Benchmark report", "accuracy, paired contrasts, pass^k, cost",
        BenchmarkOptions, build.benchmark, _BASIC | {"xlsx", "latex", "png"}, "benchmark.json",
        supports=build.benchmark_support),
    ReportKind(
        "aggregate",
        "Aggregation across runs and the judges' reliability",
        "means across runs, inter-rater reliability",
        AggregateOptions, build.aggregate, _BASIC | {"png"},
        "results.json, aggregated.json, summary.txt", write_json=build.write_aggregate_json),
    ReportKind(
        "agreement", "Agreement between judges",
        "agreement between judges: ICC, alpha, kappa, drift",
        AgreementOptions, build.agreement, _BASIC | {"xlsx", "latex"}, "judges.json",
        stem="judges", supports=build.agreement_support),
    ReportKind(
        "human", "Human-calibrated estimates: the human metric from judge scores and a few "
        "human labels (PPI++, clustered)",
        "PPI++ human metric per system, pair and win rate, beside judge-only and humans-only",
        HumanOptions, build.human, _BASIC, "human.json", supports=build.human_support),
    ReportKind(
        "composite", "Composite score per system", "composite score per system",
        CompositeOptions, build.composite, _BASIC | {"xlsx", "latex", "png"}, "composite.json",
        supports=build.pointwise_support),
    ReportKind(
        "robust", "Robust summary: trimmed means, leave-one-judge-out rankings",
        "trimmed means, leave-one-judge-out rankings",
        RobustOptions, build.robust, _BASIC | {"xlsx", "latex"}, "robust.json",
        supports=build.pointwise_support),
    ReportKind(
        "coverage", "Coverage of item attributes", "coverage of item attributes",
        CoverageOptions, build.coverage, _BASIC | {"xlsx", "latex"}, "coverage.json",
        supports=build.coverage_support),
    ReportKind(
        "systems",
        "Systems report: per-task scores, rank intervals, head-to-head, by attribute",
        "per-task scores, rank intervals, head-to-head",
        SystemsOptions, build.systems, _BASIC, "systems.json", supports=build.pointwise_support),
    ReportKind(
        "calibration", "Calibration of judges against reference scores",
        "judges calibrated against reference scores",
        CalibrationOptions, build.calibration, _BASIC | {"xlsx", "latex"},
        "calibration.json, calibration_params.json", opt_in="--calibrate"),
    ReportKind(
        "teacher", "Question writers: coverage, diversity and quality of each writer's "
        "questions", "coverage, diversity, question quality per model that wrote them",
        TeacherOptions, build.teacher, _BASIC | {"xlsx"}, "teachers.json", stem="teachers",
        supports=build.teacher_support),
    ReportKind(
        "interaction", "Interaction matrix: composite score per question writer and system",
        "composite score per (question writer, system), row and column effects",
        InteractionOptions, build.interaction, _BASIC, "interaction.json",
        supports=build.interaction_support),
    ReportKind(
        "calibration-curves", "Calibration curves: judge score against the native metric, "
        "binned", "judge score vs native metric, binned",
        CurvesOptions, build.calibration_curves, _BASIC, "calibration_curves.json",
        stem="calibration_curves", supports=build.reference_support),
    ReportKind(
        "sampling", "Sampling designs compared: random vs frequency-weighted vs stratified",
        "sampling designs' coverage (ACR/RAR), ranking stability",
        SamplingOptions, build.sampling, _BASIC | {"latex"}, "sampling.json",
        supports=build.coverage_support),
    ReportKind(
        "ensemble", "Robust ensemble weights and outlier judges",
        "judges weighted by agreement, outlier judges named",
        EnsembleOptions, build.ensemble, _BASIC, "ensemble.json",
        supports=build.ensemble_support),
    ReportKind(
        "factors", "Scores per system, task and rubric factor; percentile bands",
        "per-(system, task, factor) scores, heatmap, percentile bands",
        FactorsOptions, build.factors, _BASIC | {"xlsx"}, "factors.json",
        supports=build.pointwise_support),
    ReportKind(
        "winrates", "Win rates of pairwise judgments",
        "win rates of pairwise judgments",
        WinratesOptions, build.winrates, _BASIC | {"xlsx"},
        "winrates.json, win_rates.csv, winrates_sig_tests.csv, winrates_cluster_tests.csv",
        write_json=build.write_winrates_json, supports=build.pairwise_support),
    ReportKind(
        "leaderboard", "Leaderboard: Bradley-Terry ratings with rank intervals (Chatbot Arena), "
        "length-controlled win rates (AlpacaEval 2.0)",
        "Bradley-Terry ratings, rank intervals, length-controlled win rates",
        LeaderboardOptions, build.leaderboard, _BASIC, "leaderboard.json",
        supports=build.pairwise_support),
    ReportKind(
        "assertions", "Assertion scores compared across arms: Friedman, Wilcoxon, clustered "
        "permutation", "assertion scores compared across arms",
        AssertionsOptions, build.assertions, _BASIC, "assertions.json",
        supports=build.assertions_support),
)
"""Every report, in the order reports are made and shown."""

KINDS: dict[str, ReportKind] = {kind.name: kind for kind in REPORTS}


GROUPS: dict[str, tuple[str, ...]] = {
    "all": tuple(name for name in KINDS if name != "answer"),
    "judges": ("agreement", "composite", "robust", "coverage", "systems", "calibration"),
    "winrate": ("winrates", "leaderboard", "assertions"),
    "student": ("composite", "systems", "factors"),
    "judge": ("agreement", "calibration-curves", "ensemble", "calibration"),
}
"""Names that select several reports; ``all`` is every report the data support but the
answer (``assay report``'s default, which names them). ``student``
and ``judge`` are CoEval's student and judge reports (``teacher`` is a report itself)."""

ALIASES: dict[str, str] = {
    "teacher-report": "teacher", "teacher_report": "teacher",
    "interaction-matrix": "interaction", "interaction_matrix": "interaction",
    "student-report": "student", "student_report": "student",
    "judge-report": "judge", "judge_report": "judge",
    "judge-consistency": "agreement", "consistency": "agreement",
    "coverage-summary": "coverage",
    "robust-summary": "robust", "robust_summary": "robust",
    "score-distribution": "scores", "score_dist": "scores",
    "summary-report": "composite",
    "complete-report": "all",
    "table7": "sampling", "sampling-ablation": "sampling",
}
"""CoEval's report names (``coeval analyze NAME`` and ``analyzer.main --report NAME``) ->
the report or group that makes it."""


def resolve_kinds(text: str, *, opted_in: Iterable[str] = ()) -> list[ReportKind]:
    """The reports ``--kind TEXT`` selects: report names and groups, comma-separated.

    A group leaves out the reports that need a flag not in ``opted_in``
    (``--calibrate``); a report named on its own is always made. CoEval's report names
    (:data:`ALIASES`) stand for the report or group that makes them.

    >>> [k.name for k in resolve_kinds("winrate,scores")]
    ['scores', 'winrates', 'leaderboard', 'assertions']
    >>> [k.name for k in resolve_kinds("judge-report", opted_in={"--calibrate"})]
    ['agreement', 'calibration', 'calibration-curves', 'ensemble']
    """
    flags = set(opted_in)
    chosen: set[str] = set()
    for part in (p.strip().lower() for p in text.split(",")):
        part = ALIASES.get(part, part)
        if part in GROUPS:
            chosen.update(n for n in GROUPS[part] if not KINDS[n].opt_in or KINDS[n].opt_in in flags)
        elif part in KINDS:
            chosen.add(part)
        else:
            raise ConfigError(f"--kind {part!r}: expected a report ({', '.join(KINDS)}) or a "
                              f"group ({', '.join(GROUPS)}), listed by assay report --help"
                              f"{did_you_mean(part, [*KINDS, *GROUPS, *ALIASES])}")
    return [kind for kind in REPORTS if kind.name in chosen]


@dataclass(frozen=True)
class Outcome:
    """The reports made and the reports skipped, in registry order."""

    made: dict[str, build.Made]
    """Report name -> what was made."""
    skipped: dict[str, str]
    """Report name -> why it was not made."""

    def results(self, fmt: str | None = None) -> list[Any]:
        """The results made, or only those of reports that render to ``fmt``."""
        return [made.result for name, made in self.made.items()
                if fmt is None or fmt in KINDS[name].formats]

    def skipped_records(self) -> list[dict[str, str]]:
        """``[{"report", "title", "reason"}]``, the content of ``skipped.json``."""
        return [{"report": name, "title": KINDS[name].title, "reason": reason}
                for name, reason in self.skipped.items()]


def build_reports(judgments: Judgments, kinds: Iterable[ReportKind],
                  options: Mapping[str, Any] | None = None, *,
                  progress: Callable[[ReportKind], None] | None = None) -> Outcome:
    """Make each report of ``kinds`` on its own; skip, with the reason, those the data do not give.

    Parameters
    ----------
    judgments : Judgments
    kinds : iterable of ReportKind
        From :func:`resolve_kinds` or :data:`REPORTS`.
    options : mapping, optional
        Report name -> its options instance; a report without one gets its defaults.
    progress : callable, optional
        Called with each report's kind before it is built (a progress display).

    Returns
    -------
    Outcome
        A report whose support check fails, or whose build raises an
        :class:`~assay.errors.AssayError`, is in ``skipped`` with the message; every other
        error propagates. Raises nothing for a report the data do not give: whether an
        empty outcome is an error is the caller's to say.
    """
    options = dict(options or {})
    made: dict[str, build.Made] = {}
    skipped: dict[str, str] = {}
    reasons: dict[Any, str | None] = {}
    for kind in kinds:
        given = options.get(kind.name)
        if given is not None and not isinstance(given, kind.options):
            raise TypeError(f"options of {kind.name!r} must be {kind.options.__name__}, "
                            f"got {type(given).__name__}")
        if kind.supports not in reasons:
            reasons[kind.supports] = kind.supports(judgments)
        reason = reasons[kind.supports]
        if reason is not None:
            skipped[kind.name] = reason
            continue
        if progress is not None:
            progress(kind)
        try:
            made[kind.name] = kind.build(judgments, given if given is not None else kind.options())
        except AssayError as exc:
            skipped[kind.name] = str(exc)
    return Outcome(made, skipped)


def kinds_help() -> str:
    """One line per report (its name and what it shows) and per group (its reports)."""
    width = max(len(name) for name in [*KINDS, *GROUPS])
    lines = []
    for kind in REPORTS:
        lines.append(f"{kind.name:<{width}}  {kind.brief}")
    for name, members in GROUPS.items():
        what = ", ".join(f"{m} (with {KINDS[m].opt_in})" if KINDS[m].opt_in else m
                         for m in members)
        lines.append(f"{name:<{width}}  group: {'every report' if name == 'all' else what}")
    lines.append("CoEval's names also work: " + ", ".join(
        f"{alias} = {target}" for alias, target in ALIASES.items() if "_" not in alias) + ".")
    return "\n".join(lines)
