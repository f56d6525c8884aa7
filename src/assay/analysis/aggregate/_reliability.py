"""Inter-rater reliability of one criterion across its judges, and the results aggregator's bands.

A unit is what every judge scored alike: an (item, arm, run), with the opponent and the
position for a pairwise criterion. Only units every judge scored enter the statistics (the
two-way ANOVA of the ICC needs a complete design); the others are counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assay.data.schema import Scale
from assay.stats.agreement import (
    PairwiseAgreement,
    ReliabilityResult,
    icc_agreement,
    mean_absolute_difference,
    mean_spearman,
)

UNIT_COLUMNS: tuple[str, ...] = ("item", "arm", "opponent", "position", "run")
"""The columns that identify a unit (those the table has)."""
SMALL_DF = 10.0
"""Below this Satterthwaite v the ICC interval is dominated by the judges' mean differences."""


def icc_band(icc: float) -> str | None:
    """The results aggregator's band of an ICC: Poor < 0.5 <= Moderate < 0.75 <= Good < 0.9 <= Excellent.

    >>> icc_band(0.5), icc_band(0.749), icc_band(0.9), icc_band(-0.2)
    ('Moderate', 'Moderate', 'Excellent', 'Poor')
    """
    if math.isnan(icc):
        return None
    if icc < 0.5:
        return "Poor"
    if icc < 0.75:
        return "Moderate"
    return "Good" if icc < 0.9 else "Excellent"


def mad_band(mad_points: float | None) -> str | None:
    """The results aggregator's band of a MAD on a 0-100 scale: < 3 Excellent, < 5 Good,
    < 10 Moderate, else Poor.

    >>> mad_band(2.99), mad_band(3.0), mad_band(9.99), mad_band(10.0), mad_band(None)
    ('Excellent', 'Good', 'Moderate', 'Poor', None)
    """
    if mad_points is None or math.isnan(mad_points):
        return None
    if mad_points < 3:
        return "Excellent"
    if mad_points < 5:
        return "Good"
    return "Moderate" if mad_points < 10 else "Poor"


def rho_band(rho: float) -> str | None:
    """The results aggregator's band of Spearman's rho: < 0 Negative, <= 0.5 Weak, <= 0.8 Moderate to good,
    > 0.8 Excellent.

    >>> rho_band(-0.1), rho_band(0.5), rho_band(0.8), rho_band(0.81)
    ('Negative', 'Weak', 'Moderate to good', 'Excellent')
    """
    if math.isnan(rho):
        return None
    if rho < 0:
        return "Negative"
    if rho <= 0.5:
        return "Weak"
    return "Moderate to good" if rho <= 0.8 else "Excellent"


def scale_width(scale: Scale) -> float | None:
    """Width of a criterion's declared scale (max - min), or None when it has none (interval).

    The results aggregator's MAD bands and its "std dev > 5" rule are in points of a 0-100 scale; a score
    on another declared scale is read as percent of its width before the band is applied.

    >>> scale_width(Scale.parse("range:0,100")), scale_width(Scale.parse("ordinal:L,M,H"))
    (100.0, 2.0)
    """
    if scale.kind == "range" and scale.minimum is not None and scale.maximum is not None:
        return scale.maximum - scale.minimum
    if scale.kind == "binary":
        return 1.0
    if scale.kind in ("ordinal", "nominal"):
        return float(len(scale.levels) - 1)
    return None


def on_points_scale(value: float, width: float | None) -> float:
    """``value`` in points of a 0-100 scale: 100 * value / width, or as is without a width."""
    return value if width is None else 100.0 * value / width


@dataclass(frozen=True, eq=False)
class CriterionReliability:
    """Agreement of the judges of one criterion over the units every one of them scored."""

    criterion: str
    scale: str
    """The criterion's scale spelling; MAD is in its units."""
    judges: tuple[str, ...]
    """The raters, in the order of the matrices."""
    num_units: int
    """Units every judge scored (rows of the ratings matrix)."""
    num_units_incomplete: int
    """Units some judge scored but not every one: left out."""
    icc: ReliabilityResult | None
    """ICC(2,1) = ICC(A,1) with its McGraw-Wong interval; None with fewer than 2 units."""
    mad: PairwiseAgreement | None
    """Mean absolute difference on the score scale, per pair and averaged."""
    spearman: PairwiseAgreement | None
    """Spearman's rho per pair and its mean over pairs."""
    mad_points: float | None
    """MAD in points of a 0-100 scale (percent of the scale's width), what the band reads;
    the MAD itself for an interval scale."""
    icc_band: str | None
    mad_band: str | None
    """None for an interval scale: the results aggregator's bands are in points of a 0-100 scale."""
    rho_band: str | None
    notes: tuple[str, ...]

    @property
    def num_raters(self) -> int:
        return len(self.judges)


def criterion_reliability(frame: pd.DataFrame, criterion: str, scale: Scale, *,
                          conf: float) -> CriterionReliability:
    """Agreement of the judges in ``frame`` (scored rows of one criterion, 2+ judges)."""
    keys = [c for c in UNIT_COLUMNS if c in frame.columns]
    units = frame[keys].copy()
    for column in ("opponent", "position"):
        if column in units:
            units[column] = units[column].astype(object).where(units[column].notna(), "")
    units["judge"] = frame["judge"].to_numpy()
    units["score"] = frame["score"].to_numpy(dtype=np.float64)
    all_judges = [str(j) for j in pd.unique(units["judge"])]
    wide = units.set_index([*keys, "judge"])["score"].unstack("judge")[all_judges]
    notes: list[str] = []
    judges = tuple(_rater_set(wide.notna()))
    dropped = [j for j in all_judges if j not in judges]
    if dropped:
        notes.append(f"Fewer than 2 units of {criterion!r} were scored by all of its judges "
                     f"({', '.join(all_judges)}); the reliability is over the judges who scored "
                     f"the same units ({', '.join(judges)}), leaving out {', '.join(dropped)}.")
        wide = wide[list(judges)].dropna(how="all")
    complete = wide.dropna(how="any")
    ratings = complete.to_numpy(dtype=np.float64)
    incomplete = len(wide) - len(complete)
    if incomplete:
        notes.append(f"{incomplete} of {len(wide)} units of {criterion!r} were not scored by "
                     f"every judge ({', '.join(judges)}) and are left out of its reliability.")
    width = scale_width(scale)
    if len(complete) < 2:
        notes.append(f"Fewer than 2 units of {criterion!r} were scored by every judge: no "
                     "inter-rater reliability.")
        return CriterionReliability(
            criterion=criterion, scale=scale.spelling(), judges=judges,
            num_units=len(complete), num_units_incomplete=incomplete, icc=None, mad=None,
            spearman=None, mad_points=None, icc_band=None, mad_band=None, rho_band=None,
            notes=tuple(notes))
    icc = icc_agreement(ratings, conf=conf)
    mad = mean_absolute_difference(ratings)
    spearman = mean_spearman(ratings)
    if icc.reason:
        notes.append(f"ICC of {criterion!r}: {icc.reason}.")
    elif icc.df < SMALL_DF:
        notes.append(f"The ICC interval of {criterion!r} is wide although {len(complete)} units "
                     f"were scored: absolute agreement includes the judges' systematic "
                     f"differences, which {len(judges)} judges estimate from {len(judges) - 1} "
                     f"degree(s) of freedom (Satterthwaite v = {icc.df:.1f}).")
    if spearman.reason:
        constant = [judges[j] for j in range(len(judges)) if np.isnan(spearman.matrix[j, j])]
        notes.append(f"Spearman's rho of {criterion!r} is undefined: "
                     f"{', '.join(constant)} gave every unit the same score, so their ranks "
                     "carry no order.")
    if scale.kind == "ordinal":
        notes.append(f"{criterion!r} is ordinal: ICC and MAD treat its levels 0..{len(scale.levels) - 1}"
                     " as equally spaced (the judges report has kappa and Krippendorff's alpha).")
    mad_points = on_points_scale(mad.estimate, width)
    return CriterionReliability(
        criterion=criterion, scale=scale.spelling(), judges=judges, num_units=len(complete),
        num_units_incomplete=incomplete, icc=icc, mad=mad, spearman=spearman,
        mad_points=mad_points,
        icc_band=icc_band(icc.estimate), mad_band=mad_band(mad_points) if width else None,
        rho_band=rho_band(spearman.estimate), notes=tuple(notes))


def _rater_set(scored: pd.DataFrame) -> list[str]:
    """The judges whose common units enter the reliability.

    All judges, when at least 2 units were scored by every one of them. Otherwise the
    judge whose removal leaves the most common units is dropped, one at a time, until 2
    units are common or 2 judges remain (ties: the judge listed last goes first). This
    keeps, for example, the AlpacaEval annotators that judged the same pairs and drops the
    one that compared the model with another baseline.
    """
    judges = list(scored.columns)
    while len(judges) > 2 and int(scored[judges].all(axis=1).sum()) < 2:
        gains = [(int(scored[[j for j in judges if j != out]].all(axis=1).sum()), i)
                 for i, out in enumerate(judges)]
        _, position = max(gains)
        del judges[position]
    return [str(j) for j in judges]
