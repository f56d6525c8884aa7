"""The options of each report kind: one frozen dataclass per report, checked when made.

A report's options are the settings of its analysis that a user may change (``assay report``
flags of the same name). Each class validates its values on construction and raises
:class:`~assay.errors.ConfigError` naming the flag, so a bad option stops the command before
any analysis runs instead of skipping one report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.analysis.benchmark import Registration
    from assay.analysis.coverage import AttributeSpace

Method = Literal["auto", "bootstrap", "cluster_t", "bayes", "exact"]
Test = Literal["cluster_t", "wilcoxon", "auto"]
Correction = Literal["holm", "holm-per-group"]


def _check_conf(conf: float) -> None:
    if not (isinstance(conf, (int, float)) and 0.0 < conf < 1.0):
        raise ConfigError(f"--conf {conf!r}: expected a level in (0, 1), e.g. 0.95")


def _check_resamples(resamples: int | None) -> None:
    if resamples is not None and int(resamples) < 2:
        raise ConfigError(f"--resamples {resamples!r}: expected at least 2 resamples")


def _check_tests(alpha: float, correction: str) -> None:
    """The level and the multiplicity correction of adjusted tests."""
    if not (isinstance(alpha, (int, float)) and 0.0 < alpha < 1.0):
        raise ConfigError(f"--alpha {alpha!r}: expected a level in (0, 1)")
    _check_choice("--correction", correction, ("holm", "holm-per-group"))


def _check_choice(flag: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{flag} {value!r}: expected one of {', '.join(choices)}")


@dataclass(frozen=True)
class CostOptions:
    """Options of the cost summary (none: it counts what the data and the run store hold)."""


@dataclass(frozen=True)
class AnswerOptions:
    """Options of the answer (``assay report``'s default)."""

    conf: float = 0.95
    """Level of every interval; 1 - conf is the level of the adjusted tests."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class ScoresOptions:
    """Options of the score summary."""

    conf: float = 0.95
    """Level of every interval."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class BenchmarkOptions:
    """Options of the benchmark report (hr_report's design)."""

    judge: str | None = None
    """The judge whose correctness scores to read; None: the only one."""
    criterion: str | None = None
    """The correctness criterion (binary or range:0,1); None: the only one."""
    method: Method = "auto"
    """Accuracy interval method."""
    resamples: int | None = None
    """Bootstrap resamples; None: 2000, or 5000 when confirmatory."""
    conf: float = 0.95
    k: tuple[int, ...] = (1, 3, 5)
    """The k of pass^k."""
    seed: int = 1
    contrasts: str | None = None
    """``ARM1-ARM2,...`` (first minus second); None: every pair."""
    confirmatory: bool | None = None
    """A confirmatory report refuses rows outside the test and final splits."""
    registration: Registration | None = None
    """Registered non-inferiority contrasts (verified when the options are made)."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_resamples(self.resamples)
        _check_choice("--method", self.method, ("auto", "bootstrap", "cluster_t", "bayes", "exact"))
        if not self.k or any(int(k) < 1 for k in self.k):
            raise ConfigError(f"--pass-k {','.join(map(str, self.k))!r}: expected whole numbers >= 1")
        if self.registration is not None:
            self.registration.verify()
            self.registration.check_version()


@dataclass(frozen=True)
class AggregateOptions:
    """Options of the aggregation across runs (the results aggregator)."""

    resamples: int = 10_000
    seed: int = 42
    conf: float = 0.95
    benchmark_name: str | None = None
    """``benchmark_config_name`` written to aggregated.json."""
    benchmark_version: str | None = None
    """``benchmark_version`` written to aggregated.json."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_resamples(self.resamples)


@dataclass(frozen=True)
class HumanOptions:
    """Options of the human-calibrated estimates (PPI++)."""

    conf: float = 0.95

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class AgreementOptions:
    """Options of the agreement between judges (CoEval)."""

    conf: float = 0.95
    drift_window: int = 20
    """Items per sliding window of the drift ICC."""
    uncertainty_threshold: float | dict[str, float] | None = None
    """Inter-judge sd above which a unit is flagged: on [0, 1], or per criterion on its raw
    scale."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        if int(self.drift_window) < 2:
            raise ConfigError(f"--drift-window {self.drift_window!r}: expected at least 2 items")


@dataclass(frozen=True)
class CompositeOptions:
    """Options of the composite score per arm (CoEval)."""

    conf: float = 0.95
    weights: dict[str, float] | None = None
    """Rubric weights of the weighted composite."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        for name, weight in (self.weights or {}).items():
            if not math.isfinite(weight) or weight < 0:
                raise ConfigError(f"--weights: the weight of {name!r} must be finite and "
                                  f"non-negative, got {weight!r}")


@dataclass(frozen=True)
class RobustOptions:
    """Options of the robust summary (CoEval)."""

    conf: float = 0.95
    trim: float = 0.1
    """Trimmed-mean fraction per tail, in [0, 0.5)."""
    resamples: int = 2000
    seed: int = 1

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_resamples(self.resamples)
        if not 0.0 <= self.trim < 0.5:
            raise ConfigError(f"--trim {self.trim!r}: expected a fraction in [0, 0.5)")


@dataclass(frozen=True)
class CoverageOptions:
    """Options of the coverage of item attributes (CoEval)."""

    seed: int = 1
    attribute_space: AttributeSpace | None = None
    """The declared target attributes (``--attribute-space``); None: a run folder's
    criteria.json, else inferred."""


@dataclass(frozen=True)
class SystemsOptions:
    """Options of the systems report (CoEval)."""

    conf: float = 0.95
    resamples: int = 2000
    seed: int = 1
    attribute_space: AttributeSpace | None = None
    """The target attributes of the performance by attribute (as for coverage)."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_resamples(self.resamples)


@dataclass(frozen=True)
class CalibrationOptions:
    """Options of the judges' calibration against reference scores (CoEval)."""

    out: Path | None = None
    """Folder of ``calibration_params.json`` (read back when present); None: not cached."""
    refit_calibration: bool = False
    """Refit even when calibration_params.json exists."""


@dataclass(frozen=True)
class WinratesOptions:
    """Options of the win rates of pairwise judgments (BenchmarkQED)."""

    test: Test = "cluster_t"
    correction: Correction = "holm"
    alpha: float = 0.05
    conf: float = 0.95

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_choice("--test", self.test, ("cluster_t", "wilcoxon", "auto"))
        _check_tests(self.alpha, self.correction)


@dataclass(frozen=True)
class LeaderboardOptions:
    """Options of the leaderboard (Bradley-Terry ratings, length-controlled win rates)."""

    conf: float = 0.95
    resamples: int = 1000
    """Bootstrap resamples of the ratings."""
    seed: int = 1
    anchor: str | None = None
    """``ARM=RATING``: pin that arm's rating; None: the ratings average 1000."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)
        _check_resamples(self.resamples)
        if self.anchor is not None:
            arm, sep, value = self.anchor.rpartition("=")
            try:
                ok = bool(sep and arm.strip()) and math.isfinite(float(value))
            except ValueError:
                ok = False
            if not ok:
                raise ConfigError(f"--anchor {self.anchor!r}: expected ARM=RATING, e.g. "
                                  "mixtral-8x7b-instruct-v0.1=1114")

    def anchor_pair(self) -> tuple[str, float] | None:
        """``(arm, rating)`` of ``anchor``, or None."""
        if self.anchor is None:
            return None
        arm, _, value = self.anchor.rpartition("=")
        return arm.strip(), float(value)


@dataclass(frozen=True)
class AssertionsOptions:
    """Options of the assertion comparisons across arms (BenchmarkQED)."""

    alpha: float = 0.05
    correction: Correction = "holm"
    resamples: int = 10_000
    seed: int = 42

    def __post_init__(self) -> None:
        _check_resamples(self.resamples)
        _check_tests(self.alpha, self.correction)


@dataclass(frozen=True)
class InteractionOptions:
    """Options of the question writer x system interaction matrix (CoEval)."""

    conf: float = 0.95

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class TeacherOptions:
    """Options of the teacher report (CoEval)."""

    conf: float = 0.95
    attribute_space: AttributeSpace | None = None
    """The declared target attributes (as for coverage); the nuanced ones are the others."""
    benchmark_teachers: tuple[str, ...] = ()
    """Teachers that are benchmark sources, not models (``--benchmark-teachers``)."""

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class CurvesOptions:
    """Options of the calibration curves (CoEval)."""

    conf: float = 0.95

    def __post_init__(self) -> None:
        _check_conf(self.conf)


@dataclass(frozen=True)
class SamplingOptions:
    """Options of Table 7, the sampling ablation (CoEval): 20 samples per design."""

    seed: int = 42
    attribute_space: AttributeSpace | None = None


@dataclass(frozen=True)
class EnsembleOptions:
    """Options of the robust ensemble weights (none yet: the outlier limit is 0.15)."""


@dataclass(frozen=True)
class FactorsOptions:
    """Options of the per-(system, task, factor) scores and percentile bands (CoEval)."""

    conf: float = 0.95

    def __post_init__(self) -> None:
        _check_conf(self.conf)


def options_from(cls: type[Any], values: dict[str, Any]) -> Any:
    """An instance of the options class ``cls`` from the ``values`` it declares a field for.

    A value of None keeps the field's default, so one set of command-line values (where
    None means "not given") serves every report; names ``cls`` has no field for are
    ignored.

    >>> options_from(RobustOptions, {"trim": 0.2, "seed": None, "weights": {"a": 1.0}})
    RobustOptions(conf=0.95, trim=0.2, resamples=2000, seed=1)
    """
    names = {f.name for f in fields(cls)}
    return cls(**{name: value for name, value in values.items()
                  if name in names and value is not None})
