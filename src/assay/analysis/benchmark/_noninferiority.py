"""Non-inferiority tests of registered contrasts (hr_report, "Non-inferiority")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.analysis.benchmark._accuracy import ZERO_SE
from assay.analysis.benchmark._contrasts import PairedData, tango_items
from assay.analysis.benchmark._data import BenchData
from assay.analysis.benchmark._errors import RegistrationMismatchError
from assay.analysis.benchmark._registration import RegisteredContrast, Registration
from assay.analysis.benchmark._resample import BcaInputs, ClusterResampler
from assay.errors import ConfigError, DesignError
from assay.stats.contrasts import (
    bisect_p_value,
    effective_pairs,
    holm_stepdown,
    mdd,
    tango_effective_n,
    tango_interval,
)

FloatArray = npt.NDArray[np.float64]
Record = dict[str, Any]

P_VALUE_FLOOR = 1e-6
"""Where the bisection for a p-value stops (hr_report)."""


def check_registration(registration: Registration, arms: tuple[str, ...],
                       reference_hash: str | None) -> None:
    """Refuse a changed registration, a bench of another reference, or unknown arms."""
    if not isinstance(registration, Registration):
        raise RegistrationMismatchError(
            f"registration must come from register_contrasts(), not "
            f"{type(registration).__name__}")
    registration.verify()
    registration.check_version()
    if reference_hash is None:
        raise RegistrationMismatchError(
            f"the registration names reference {registration.reference_hash!r}, and the bench "
            f"carries no reference hash (pass reference_hash= or set "
            f"frame.attrs['reference_hash'])")
    if str(reference_hash) != registration.reference_hash:
        raise RegistrationMismatchError(
            f"the registration names reference {registration.reference_hash!r}, and the bench "
            f"was scored on {reference_hash!r}")
    for contrast in registration.contrasts:
        for arm in (contrast.new, contrast.reference):
            if arm not in arms:
                raise RegistrationMismatchError(
                    f"registered contrast {contrast.label!r} names arm {arm!r}, which the bench "
                    f"does not have (arms: {', '.join(arms)})")


@dataclass(frozen=True)
class _Contrast:
    """One registered contrast with what its tests need at any one-sided level."""

    spec: RegisteredContrast
    new: int
    reference: int
    estimate: float
    standard_error: float
    df: float
    """Degrees of freedom of the paired t (Bell-McCaffrey; C - 1 with equal clusters)."""
    cost: BcaInputs | None

    def accuracy_lower(self, paired: PairedData, level: float) -> float:
        """One-sided lower bound of new minus reference at one-sided level ``level``.

        At level 0.5 (the top of the p-value search) the bound is the estimate itself. Under
        the auto rule the bound follows the contrasts' interval: the lower end of the MOVER
        (mid-p Korn-Graubard) interval at confidence 1 - 2 level for a sparse pair, of the CR2 t with
        the run component added when it is positive; else the paired CR2 t.
        """
        if level >= 0.5:
            return self.estimate
        if paired.auto:  # the contrasts' rule: a sparse pair, a run component
            sparse = paired.sparse_difference(self.new, self.reference, conf=1.0 - 2.0 * level)
            if sparse is not None:
                return float(sparse.lower)
            runs = paired.run_difference(self.new, self.reference, conf=1.0 - 2.0 * level)
            if runs is not None:
                return float(runs.interval.lower)
        if self.standard_error > ZERO_SE:
            return float(paired.difference(self.new, self.reference, conf=1.0 - level,
                                           alternative="greater").lower)
        tango, _ = tango_items(paired.item_accuracy[:, self.new],
                               paired.item_accuracy[:, self.reference], paired.n_clusters,
                               level=level)
        return float(tango.lower)

    def cost_upper(self, level: float) -> float:
        """One-sided BCa upper bound of the paired dollars per item at ``level``.

        When the paired difference is the same in every cluster, every resample gives the
        estimate, BCa is not defined, and the bound is the difference itself (with a note).
        """
        if self.cost is None:
            return float("nan")
        if level >= 0.5 or self.cost.constant:
            return self.cost.estimate
        return float(self.cost.interval(conf=1.0 - 2.0 * level).upper)

    def passes(self, paired: PairedData) -> Callable[[float], bool]:
        def at(level: float) -> bool:
            if not self.accuracy_lower(paired, level) > -self.spec.margin:
                return False
            return not self.spec.cost_test or self.cost_upper(level) < 0.0
        return at


def ni_section(data: BenchData, paired: PairedData, registration: Registration,
               resampler: ClusterResampler) -> tuple[list[Record], list[str]]:
    """Test every registered contrast; Holm's step-down over the confirmatory ones."""
    alpha = registration.alpha
    contrasts = [_prepare(data, paired, spec, resampler) for spec in registration.contrasts]
    floor_cost = max(P_VALUE_FLOOR, 1.0 / (resampler.n_resamples + 1))
    floors = [floor_cost if c.spec.cost_test else P_VALUE_FLOOR for c in contrasts]
    p_values = [float(bisect_p_value(c.passes(paired), floor=floor))
                for c, floor in zip(contrasts, floors, strict=True)]

    confirmatory = [i for i, c in enumerate(contrasts) if c.spec.confirmatory]
    levels = {i: alpha for i in range(len(contrasts))}
    holm_passed: dict[int, bool] = {}
    if confirmatory:
        conf_p = np.array([p_values[i] for i in confirmatory])
        order = np.argsort(conf_p, kind="stable")
        for rank, position in enumerate(order):
            levels[confirmatory[position]] = alpha / (len(confirmatory) - rank)
        decisions = holm_stepdown(conf_p, alpha=alpha)
        holm_passed = {confirmatory[j]: bool(decisions[j]) for j in range(len(confirmatory))}

    records: list[Record] = []
    notes: list[str] = []
    for i, c in enumerate(contrasts):
        spec, level = c.spec, levels[i]
        lower = c.accuracy_lower(paired, level)
        accuracy_holds = lower > -spec.margin
        cost_upper = c.cost_upper(level) if spec.cost_test else None
        cost_holds = (cost_upper < 0.0) if cost_upper is not None else None
        verdict_ok = holm_passed[i] if spec.confirmatory else \
            accuracy_holds and (cost_holds is not False)
        mdd_level = alpha / len(confirmatory) if spec.confirmatory else alpha
        achieved = (float(mdd(c.standard_error, c.df, alpha=mdd_level,
                              power=registration.power))
                    if c.standard_error > ZERO_SE else None)
        tango_lower, tango_upper, n_eff = _tango_check(paired, c, level)
        records.append({
            "label": spec.label, "new": spec.new, "reference": spec.reference,
            "margin": spec.margin, "confirmatory": spec.confirmatory, "level": level,
            "estimate": c.estimate, "standard_error": c.standard_error, "lower": lower,
            "accuracy_holds": accuracy_holds, "cost_test": spec.cost_test,
            "cost_diff": None if c.cost is None else c.cost.estimate,
            "cost_upper": cost_upper, "cost_holds": cost_holds,
            "verdict": "passed" if verdict_ok else "failed",
            "mdd_design": spec.mdd_design, "mdd_achieved": achieved,
            "tango_lower": tango_lower, "tango_upper": tango_upper,
            "tango_agrees": bool((tango_lower > -spec.margin) == accuracy_holds),
            "n_eff": n_eff, "p_value": p_values[i]})
        if spec.cost_test and c.cost is not None and c.cost.constant:
            notes.append(f"The paired dollars per item of {spec.label} are the same in every "
                         "cluster, so every resample gives the same difference: its cost bound "
                         "is that difference.")
        if not records[-1]["tango_agrees"]:
            notes.append(f"Tango's score interval on {n_eff:.1f} effective pairs reaches the "
                         f"other accuracy conclusion for {spec.label} (lower end "
                         f"{tango_lower:.3g} against -{spec.margin:g}); it is a cross-check and "
                         "does not enter the verdict.")
        if p_values[i] <= floors[i]:
            what = ("1 / (B + 1), the smallest level the resamples of its cost bound resolve"
                    if spec.cost_test else "where the search stops")
            notes.append(f"The p-value of {spec.label} is at its floor {floors[i]:.2g} "
                         f"({what}): read it as at most {floors[i]:.2g}.")
        if verdict_ok and achieved is not None and achieved > spec.margin:
            notes.append(
                f"{spec.label} passed its registered test although its achieved MDD "
                f"({achieved:.3g}) exceeds the margin ({spec.margin:g}): the verdict stands, "
                "and the data were less informative than the design assumed.")
    return records, notes


def _prepare(data: BenchData, paired: PairedData, spec: RegisteredContrast,
             resampler: ClusterResampler) -> _Contrast:
    new, reference = data.arms.index(spec.new), data.arms.index(spec.reference)
    two_sided = paired.difference(new, reference, conf=0.95)
    cost = None
    if data.usd is not None and data.usd_runs is None:
        raise ConfigError("a registered cost test reads the dollars of every run, which only "
                          "the pandas path keeps: use --engine pandas")
    if data.usd_runs is not None:
        usd = data.usd_runs[:, [new, reference], :]
        if np.isnan(usd).any():
            if spec.cost_test:
                raise DesignError(f"contrast {spec.label!r} tests cost, and "
                                  f"{int(np.isnan(usd).sum())} of its runs have no usd")
        else:
            per_item = usd.mean(axis=2)
            cost = BcaInputs.of(resampler, data.cluster_sums(per_item[:, 0] - per_item[:, 1]))
    elif spec.cost_test:
        raise DesignError(f"contrast {spec.label!r} tests cost, and the bench has no usd column")
    return _Contrast(spec, new, reference, float(two_sided.estimate),
                     float(two_sided.standard_error),
                     float(two_sided.df or paired.n_clusters - 1), cost)


def _tango_check(paired: PairedData, c: _Contrast, level: float) -> tuple[float, float, float]:
    """Tango's interval on the effective pairs, at the level the contrast was tested at."""
    p_new = paired.item_accuracy[:, c.new]
    p_ref = paired.item_accuracy[:, c.reference]
    q10 = float(np.mean(p_new * (1.0 - p_ref)))
    q01 = float(np.mean((1.0 - p_new) * p_ref))
    n_items = p_new.size
    if c.standard_error > ZERO_SE:
        n_eff = float(effective_pairs(q10, q01, c.estimate, c.standard_error, n_items))
    else:
        n_eff = float(tango_effective_n(n_items, paired.n_clusters, level))
    if not n_eff > 0.0:
        return float("nan"), float("nan"), n_eff
    result = tango_interval(q10, q01, n_eff, conf=1.0 - 2.0 * level, alternative="two-sided")
    return float(result.lower), float(result.upper), n_eff
