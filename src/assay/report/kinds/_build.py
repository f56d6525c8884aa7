"""How each report kind is made from a judgments table, and whether the table supports it.

A builder takes the table and the report's options and returns a :class:`Made` (the
analysis result and a caption), or raises an :class:`~assay.errors.AssayError` saying why
the data do not give this report. A support check answers before any work with the reason
the report cannot be made (naming the fix), or None. The analyses are imported when a
report is built, so listing the kinds (``assay report --help``) loads neither pandas nor
scipy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import DesignError
from assay.report.kinds import _options as opt

if TYPE_CHECKING:
    from assay.data.table import Judgments


@dataclass(frozen=True)
class Made:
    """One report made: the analysis result, and a line that says what it was made from."""

    result: Any
    caption: str = ""


def answer(judgments: Judgments, options: opt.AnswerOptions) -> Made:
    """The answer (the registry adds the other reports the data support, as it knows them)."""
    from assay.analysis.answer import answer as answer_of
    from assay.data.run_store import sources_judge_calls

    calls = sources_judge_calls(judgments.sources)
    return Made(answer_of(judgments, conf=options.conf, calls=calls))


def scores(judgments: Judgments, options: opt.ScoresOptions) -> Made:
    from assay.analysis.scores import score_summary

    return Made(score_summary(judgments, conf=options.conf))


def cost(judgments: Judgments, options: opt.CostOptions) -> Made:
    """The judges' spend from the run stores among the sources, and the systems' cost."""
    from assay.analysis.cost import cost_summary
    from assay.data.run_store import run_stores, sources_judge_calls

    stores = run_stores(judgments.sources)
    calls = sources_judge_calls(stores)
    caption = f"judges' calls from {', '.join(stores)}" if stores else ""
    return Made(cost_summary(judgments, calls), caption)


def benchmark(judgments: Judgments, options: opt.BenchmarkOptions) -> Made:
    from assay.analysis.benchmark import benchmark_report, benchmark_rows, reference_hash

    rows = benchmark_rows(judgments, judge=options.judge, criterion=options.criterion)
    report = benchmark_report(
        rows, contrasts=parse_contrasts(options.contrasts, list(dict.fromkeys(rows["arm"]))),
        B=options.resamples, conf=options.conf, k=list(options.k), seed=options.seed,
        method=options.method, confirmatory=options.confirmatory,
        registration=options.registration, reference_hash=reference_hash(rows))
    return Made(report, f"judge {rows.attrs['judge']}, criterion {rows.attrs['criterion']}")


def aggregate(judgments: Judgments, options: opt.AggregateOptions) -> Made:
    from assay.analysis.aggregate import aggregate as aggregate_runs

    return Made(aggregate_runs(judgments, n_resamples=options.resamples, seed=options.seed,
                               conf=options.conf, benchmark_config_name=options.benchmark_name,
                               benchmark_version=options.benchmark_version))


def agreement(judgments: Judgments, options: opt.AgreementOptions) -> Made:
    from assay.analysis.judges import judge_agreement

    return Made(judge_agreement(judgments, conf=options.conf, drift_window=options.drift_window,
                                uncertainty_threshold=options.uncertainty_threshold))


def human(judgments: Judgments, options: opt.HumanOptions) -> Made:
    from assay.analysis.human import human_calibrated

    return Made(human_calibrated(judgments, conf=options.conf))


def human_support(judgments: Judgments) -> str | None:
    """Why the human-calibrated estimates cannot be made (no criterion with human labels and
    a judge's scores on a scale with a map to [0, 1]), or None."""
    from assay.analysis.human import human_support as support

    return support(judgments)


def composite(judgments: Judgments, options: opt.CompositeOptions) -> Made:
    from assay.analysis.composite import composite_score_by_student

    return Made(composite_score_by_student(judgments, weights=options.weights, conf=options.conf))


def robust(judgments: Judgments, options: opt.RobustOptions) -> Made:
    from assay.analysis.judges import robust_summary

    return Made(robust_summary(judgments, trim=options.trim, conf=options.conf,
                               B=options.resamples, seed=options.seed))


def coverage(judgments: Judgments, options: opt.CoverageOptions) -> Made:
    from assay.analysis.coverage import coverage_report

    return Made(coverage_report(judgments, seed=options.seed,
                                attribute_space=options.attribute_space))


def systems(judgments: Judgments, options: opt.SystemsOptions) -> Made:
    from assay.analysis.systems import systems_report

    return Made(systems_report(judgments, conf=options.conf, B=options.resamples,
                               seed=options.seed, attribute_space=options.attribute_space))


def calibration(judgments: Judgments, options: opt.CalibrationOptions) -> Made:
    from assay.analysis.judges import calibrate_judges

    return Made(calibrate_judges(judgments, out_dir=options.out, force=options.refit_calibration))


def winrates(judgments: Judgments, options: opt.WinratesOptions) -> Made:
    from assay.analysis.winrates import win_rates

    return Made(win_rates(judgments, test=options.test, alpha=options.alpha,
                          correction=options.correction, conf=options.conf))


def leaderboard(judgments: Judgments, options: opt.LeaderboardOptions) -> Made:
    from assay.analysis.leaderboard import leaderboard as leaderboard_report

    return Made(leaderboard_report(judgments, conf=options.conf, B=options.resamples,
                                   seed=options.seed, anchor=options.anchor_pair()))


def assertions(judgments: Judgments, options: opt.AssertionsOptions) -> Made:
    from assay.analysis.assertions import assertion_significance

    result = assertion_significance(judgments, alpha=options.alpha, correction=options.correction,
                                    n_resamples=options.resamples, seed=options.seed)
    if not result.tests:
        raise DesignError("no assertion judge scored two or more arms on the same items")
    return Made(result)


def teacher(judgments: Judgments, options: opt.TeacherOptions) -> Made:
    from assay.analysis.coverage import teacher_report

    return Made(teacher_report(judgments, conf=options.conf,
                               attribute_space=options.attribute_space,
                               benchmark_teachers=options.benchmark_teachers))


def interaction(judgments: Judgments, options: opt.InteractionOptions) -> Made:
    from assay.analysis.coverage import interaction_matrix

    result = interaction_matrix(judgments, conf=options.conf)
    if result is None:
        raise DesignError("no item has a teacher: the interaction matrix crosses the models "
                          "that wrote the items with the systems")
    return Made(result)


def interaction_support(judgments: Judgments) -> str | None:
    """Why the interaction matrix cannot be made (no teacher named), or None."""
    frame = judgments.frame
    if "teacher" in frame and frame["teacher"].notna().any():
        return None
    return "no teacher values (the column naming the model that wrote each item)"


def calibration_curves(judgments: Judgments, options: opt.CurvesOptions) -> Made:
    from assay.analysis.judges import calibration_curves as curves

    return Made(curves(judgments, conf=options.conf))


def sampling(judgments: Judgments, options: opt.SamplingOptions) -> Made:
    from assay.analysis.coverage import sampling_ablation

    return Made(sampling_ablation(judgments, seed=options.seed,
                                  attribute_space=options.attribute_space))


def ensemble(judgments: Judgments, options: opt.EnsembleOptions) -> Made:
    from assay.analysis.judges import ensemble_weights

    return Made(ensemble_weights(judgments))


def factors(judgments: Judgments, options: opt.FactorsOptions) -> Made:
    from assay.analysis.systems import factor_breakdown

    return Made(factor_breakdown(judgments, conf=options.conf))


def teacher_support(judgments: Judgments) -> str | None:
    """Why the teacher report cannot be made (neither teacher nor attributes), or None."""
    if "teacher" in judgments.frame or "attributes" in judgments.frame:
        return None
    return "the table has neither a teacher nor an attributes column"


def reference_support(judgments: Judgments) -> str | None:
    """Why the calibration curves cannot be made (no reference scores), or None."""
    frame = judgments.frame
    if "reference_score" in frame and frame["reference_score"].notna().any():
        return None
    return ("no reference_score values (assay native-scores RUN fills them from a "
            "benchmark-native metric)")


def pointwise_support(judgments: Judgments) -> str | None:
    """Why the composite-based reports (composite, robust, systems) cannot be made, or None.

    They need valid pointwise units: scores of one answer on a scale with a map to [0, 1].
    The reason names what was left out and the declaration that brings it in.
    """
    from assay.analysis.composite import pointwise_units

    if not pointwise_units(judgments).frame.empty:
        return None
    frame = judgments.frame
    pairwise = frame["opponent"].notna() if "opponent" in frame else None
    fixes = []
    for criterion in dict.fromkeys(map(str, frame["criterion"])):
        rows = frame["criterion"] == criterion
        if pairwise is not None:
            rows &= ~pairwise
        if not rows.any():
            continue
        kind = judgments.scale(criterion).kind
        if kind in ("interval", "nominal"):
            fixes.append(f"criterion {criterion!r} has an {kind} scale with no map to [0, 1]: "
                         f"declare `--scale {criterion}=range:MIN,MAX` to put its scores in "
                         "the composite")
    if pairwise is not None and pairwise.all():
        fixes.append("every row is a pairwise preference, which is not a score of one answer "
                     "(see the winrates report)")
    reason = "no valid pointwise units (scores of one answer on a scale with a map to [0, 1])"
    return f"{reason}: {'; '.join(fixes)}" if fixes else reason


def agreement_support(judgments: Judgments) -> str | None:
    """Why agreement between judges cannot be measured (one judge per criterion and no
    pairwise trials, whose position flips the report also measures), or None."""
    frame = judgments.frame
    judges = frame.groupby("criterion", sort=False)["judge"].nunique()
    if (judges >= 2).any():
        return None
    if "opponent" in frame and frame["opponent"].notna().any():
        return None  # one judge, but its pairwise trials' position flips are the report's too
    return ("every criterion is scored by one judge only: there is no agreement between "
            "judges to measure")


def ensemble_support(judgments: Judgments) -> str | None:
    """Why the ensemble weights cannot be made (no pointwise units, or one judge), or None."""
    from assay.analysis.composite import pointwise_units

    units = pointwise_units(judgments).frame
    if units.empty:
        return pointwise_support(judgments)
    judges = sorted(map(str, units["judge"].unique()))
    if len(judges) < 2:
        return f"one judge ({judges[0]}): ensemble weights need two or more"
    return None


def cost_support(judgments: Judgments) -> str | None:
    """Why the cost report cannot be made (no cost column with a value, no run store)."""
    from assay.data.run_store import run_stores

    frame = judgments.frame
    if any(c in frame and frame[c].notna().any() for c in ("usd", "tokens_in", "tokens_out")):
        return None
    if run_stores(judgments.sources):
        return None
    return ("no cost to report: the judgments carry no usd or tokens column with a value, and "
            "no run store holds the judges' calls (assay report RUN_FOLDER)")


def benchmark_support(judgments: Judgments) -> str | None:
    """Why the benchmark report cannot be made (no binary or range:0,1 criterion), or None."""
    from assay.analysis.benchmark._selection import choose_correctness, correctness_candidates
    from assay.errors import ConfigError

    if correctness_candidates(judgments):
        return None
    try:
        choose_correctness([], None, None)
    except ConfigError as exc:
        return str(exc)
    return None  # pragma: no cover  (choose_correctness of no candidates always raises)


def pairwise_support(judgments: Judgments) -> str | None:
    """Why the win-rate reports cannot be made (no rows with an opponent), or None."""
    frame = judgments.frame
    if "opponent" in frame and frame["opponent"].notna().any():
        return None
    return ("the table has no pairwise rows (rows with an 'opponent'): win rates need "
            "judgments of one arm against another")


def assertions_support(judgments: Judgments) -> str | None:
    """Why the assertion comparisons cannot be made (no assertion criterion), or None."""
    if judgments.frame["criterion"].isin(["assertion", "global_assertion"]).any():
        return None
    return "no assertion judge scored two or more arms on the same items"


def coverage_support(judgments: Judgments) -> str | None:
    """Why the coverage report cannot be made (no ``attributes`` column), or None."""
    if "attributes" in judgments.frame:
        return None
    return "the table has no attributes column (coverage counts the items per attribute value)"


def parse_contrasts(text: str | None, arms: list[str]) -> list[tuple[str, str]] | None:
    """Read ``A-B,C-D`` (first minus second) where arm names may contain '-' themselves.

    Each contrast is split at the one '-' (or ' - ') that leaves a known arm on both sides.

    >>> parse_contrasts("gpt-4o-mini-gpt-4o, b-a", ["gpt-4o", "gpt-4o-mini", "a", "b"])
    [('gpt-4o-mini', 'gpt-4o'), ('b', 'a')]
    """
    from assay.errors import ConfigError

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


def write_json(name: str, result: Any, judgments: Judgments, out: Path) -> list[Path]:
    """``out/NAME.json`` from the result's ``to_json()``."""
    return [write_text(out / f"{name}.json", result.to_json())]


def write_aggregate_json(name: str, result: Any, judgments: Judgments, out: Path) -> list[Path]:
    """The results aggregator's files: results.json, aggregated.json, summary.txt."""
    from assay.report.files import write_aggregate_files

    return list(write_aggregate_files(result, judgments, out))


def write_winrates_json(name: str, result: Any, judgments: Judgments, out: Path) -> list[Path]:
    """winrates.json and BenchmarkQED's CSV files (win_rates.csv, the significance tests)."""
    return [*write_json(name, result, judgments, out), *result.write_csvs(out)]


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` and a final newline to ``path``, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
    return path
