"""Interval methods of the coverage simulation, called on cluster sums as the report calls them.

Each method maps one replicate of a :class:`coverage_model.Chunk` to (estimate, lower, upper,
fallback) for its target: the accuracy of arm A (``accuracy`` methods) or the paired
difference A - B (``difference`` methods). ``fallback`` is 1 when the report's fallback
interval was used (Korn-Graubard at accuracy 0 or 1 or V = 0, or for a sparse arm; Tango on
effective items at V_d = 0; MOVER for a sparse pair). ``auto`` and ``auto_paired`` are the
intervals the report prints by default: they call the report's own rules
(``assay.analysis.benchmark``) on the replicate's design, and return the labels of the
branches they took (the ``method`` the report records, and what issue 12's run pre-test
would have said); ``auto_pretest`` and ``auto_paired_pretest`` are the rules of issue 12.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from coverage_model import Chunk
from scipy import stats

from assay.analysis.benchmark._accuracy import (
    fewer_df,
    run_effect_p,
    run_inclusive,
    run_material,
    two_way_bounds,
)
from assay.analysis.benchmark._contrasts import MOVER_METHOD, sparse_difference
from assay.analysis.benchmark._design import Design, choose_method, design_of, is_sparse
from assay.stats import (
    beta_binomial_bayes_interval,
    cluster_bootstrap_ratios,
    cluster_bootstrap_weights,
    cluster_t_interval,
    korn_graubard_interval,
    korn_graubard_jeffreys_interval,
    korn_graubard_midp_interval,
    korn_graubard_wilson_interval,
    mover_difference_interval,
    paired_difference_interval,
    ratio_estimate,
    run_inclusive_df,
    run_variance_component,
    studentised_bootstrap_interval,
    tango_effective_n,
    tango_interval,
    two_way_cluster_variance,
)

FloatArray = npt.NDArray[np.float64]
CONF = 0.95
Result = tuple[float, float, float, float]
Labelled = tuple[float, float, float, float, tuple[str, ...]]
"""A result with the labels of the branches its rule took (the grid tallies coverage per
label)."""


@dataclass(frozen=True)
class Context:
    """What a method needs beyond the data: resamples and the bootstrap's random stream."""

    B: int
    rng: np.random.Generator


def _kg(sums: FloatArray, sizes: FloatArray, r: float) -> tuple[float, float]:
    side = "greater" if r >= 1.0 else "less" if r <= 0.0 else "two-sided"
    res = korn_graubard_interval(sums, sizes, conf=CONF, alternative=side)
    return res.lower, res.upper


def _with_fallback(interval: Callable[[], tuple[float, float]], sums: FloatArray,
                   sizes: FloatArray) -> Result:
    full = ratio_estimate(sums, sizes)
    r, se = full.estimate, full.standard_error
    lower = upper = math.nan
    if 0.0 < r < 1.0 and se > 1e-12:
        lower, upper = interval()
    if math.isfinite(lower) and math.isfinite(upper):
        return r, lower, upper, 0.0
    lower, upper = _kg(sums, sizes, r)
    return r, lower, upper, 1.0


def cluster_t(chunk: Chunk, j: int, ctx: Context) -> Result:
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]

    def make() -> tuple[float, float]:
        res = cluster_t_interval(sums, sizes, conf=CONF)
        return res.lower, res.upper
    return _with_fallback(make, sums, sizes)


def cr2(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Logit CR2 t with Bell-McCaffrey df under the working ICC (Imbens-Kolesar)."""
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]

    def make() -> tuple[float, float]:
        res = cluster_t_interval(sums, sizes, conf=CONF, variance="CR2",
                                 sumsq=chunk.sumsq_a[j])
        return res.lower, res.upper
    return _with_fallback(make, sums, sizes)


def cr2_ind(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Logit CR2 t with Bell-McCaffrey df under independent items."""
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]

    def make() -> tuple[float, float]:
        res = cluster_t_interval(sums, sizes, conf=CONF, variance="CR2")
        return res.lower, res.upper
    return _with_fallback(make, sums, sizes)


def bootstrap(chunk: Chunk, j: int, ctx: Context) -> Result:
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]

    def make() -> tuple[float, float]:
        full = ratio_estimate(sums, sizes)
        weights = cluster_bootstrap_weights(sizes.size, ctx.B, rng=ctx.rng)
        boot = cluster_bootstrap_ratios(sums, sizes, weights)
        res = studentised_bootstrap_interval(full.estimate, full.standard_error,
                                             boot.estimates, boot.standard_errors,
                                             conf=CONF, bounds=(0.0, 1.0))
        return res.lower, res.upper
    return _with_fallback(make, sums, sizes)


def exact(chunk: Chunk, j: int, ctx: Context) -> Result:
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]
    res = korn_graubard_interval(sums, sizes, conf=CONF)
    return res.estimate, res.lower, res.upper, 0.0


def bayes(chunk: Chunk, j: int, ctx: Context) -> Result:
    correct = chunk.runs_a[j].sum(axis=1)
    res = beta_binomial_bayes_interval(np.rint(correct), chunk.sizes[j] * chunk.runs,
                                       conf=CONF)
    return res.estimate, res.lower, res.upper, 0.0


def _tango(chunk: Chunk, j: int) -> tuple[float, float]:
    n_items = float(chunk.sizes[j].sum())
    level = (1.0 - CONF) / 2.0
    n_eff = float(tango_effective_n(n_items, chunk.sizes.shape[1], level))
    res = tango_interval(float(chunk.q10[j].sum() / n_items),
                         float(chunk.q01[j].sum() / n_items), n_eff, conf=CONF)
    return res.lower, res.upper


def paired(chunk: Chunk, j: int, ctx: Context) -> Result:
    res = paired_difference_interval(chunk.diff_sums[j], chunk.sizes[j], conf=CONF)
    if math.isfinite(res.lower):
        return res.estimate, res.lower, res.upper, 0.0
    lower, upper = _tango(chunk, j)
    return res.estimate, lower, upper, 1.0


def paired_cr2(chunk: Chunk, j: int, ctx: Context) -> Result:
    res = paired_difference_interval(chunk.diff_sums[j], chunk.sizes[j], conf=CONF,
                                     variance="CR2", sumsq=chunk.sumsq_d[j])
    if math.isfinite(res.lower):
        return res.estimate, res.lower, res.upper, 0.0
    lower, upper = _tango(chunk, j)
    return res.estimate, lower, upper, 1.0


def paired_cr2_ind(chunk: Chunk, j: int, ctx: Context) -> Result:
    """CR2 t of the difference with Bell-McCaffrey df under independent items."""
    res = paired_difference_interval(chunk.diff_sums[j], chunk.sizes[j], conf=CONF,
                                     variance="CR2")
    if math.isfinite(res.lower):
        return res.estimate, res.lower, res.upper, 0.0
    lower, upper = _tango(chunk, j)
    return res.estimate, lower, upper, 1.0


def auto_v0(chunk: Chunk, j: int, ctx: Context) -> Result:
    """The rule before CR2: the bootstrap from 300 items and 30 clusters, else cluster_t."""
    sizes = chunk.sizes[j]
    if sizes.sum() >= 300 and sizes.size >= 30:
        return bootstrap(chunk, j, ctx)
    return cluster_t(chunk, j, ctx)


def _design(chunk: Chunk, j: int) -> Design:
    return design_of(np.column_stack([chunk.sums_a[j], chunk.sums_b[j]]),
                     np.column_stack([chunk.sumsq_a[j], chunk.sumsq_b[j]]), chunk.sizes[j],
                     chunk.runs)


def two_way(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Cluster x run interval on min(C, R) - 1 df, raw scale cut to [0, 1] (always)."""
    res = two_way_cluster_variance(chunk.runs_a[j], chunk.sizes[j])
    lower, upper = two_way_bounds(res, conf=CONF)
    return res.estimate, lower, upper, 0.0


def paired_two_way(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Cluster x run interval of the difference A - B (always)."""
    res = two_way_cluster_variance(chunk.runs_a[j] - chunk.runs_b[j], chunk.sizes[j])
    lower, upper = two_way_bounds(res, conf=CONF, low=-1.0)
    return res.estimate, lower, upper, 0.0


def paired_mover(chunk: Chunk, j: int, ctx: Context) -> Result:
    """MOVER from the arms' intervals on the Korn-Graubard n* with their residual correlation
    (the report's ``sparse_difference``: mid-p since run F, Clopper-Pearson before)."""
    sums_a, sums_b = chunk.sums_a[j], chunk.sums_b[j]
    res = sparse_difference(sums_a, sums_b, chunk.sizes[j], conf=CONF, force=True)
    assert res is not None
    return res.estimate, res.lower, res.upper, 0.0


def kg_wilson(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Wilson on the Korn-Graubard effective n (``korn_graubard_wilson_interval``), in every
    replicate: one method whether the arm is sparse or not (no run component)."""
    res = korn_graubard_wilson_interval(chunk.sums_a[j], chunk.sizes[j], conf=CONF)
    return res.estimate, res.lower, res.upper, 0.0


def kg_wilson_run(chunk: Chunk, j: int, ctx: Context) -> Result:
    """Exploration: ``kg_wilson`` with the run component added, in every replicate:
    n* = r(1 - r) / (V + V_run) (t_{N-1,q} / t_{nu,q})^2 capped at N, V the Korn-Graubard
    (ratio) variance, V_run from ``run_variance_component``, nu Satterthwaite's
    (``run_inclusive_df`` on C - 1 df); at V_run = 0 it is ``kg_wilson``."""
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]
    base = korn_graubard_wilson_interval(sums, sizes, conf=CONF)
    comp = run_variance_component(chunk.runs_a[j], sizes)
    r, v, total = base.estimate, base.standard_error ** 2, float(sizes.sum())
    if not (comp.variance > 0.0 and 0.0 < r < 1.0):
        return r, base.lower, base.upper, 0.0
    nu = run_inclusive_df(v, float(sizes.size - 1), comp.variance, chunk.runs)
    q = (1.0 + CONF) / 2.0
    n_eff = min(r * (1 - r) / (v + comp.variance)
                * (stats.t.ppf(q, total - 1) / stats.t.ppf(q, nu)) ** 2, total)
    z = stats.norm.ppf(q)
    a = z * z / n_eff
    centre = (r + a / 2) / (1 + a)
    half = z * math.sqrt(r * (1 - r) / n_eff + a / (4 * n_eff)) / (1 + a)
    return r, max(centre - half, 0.0), min(centre + half, 1.0), 0.0


def _mover_of(ia: Any, ib: Any, sums_a: FloatArray, sums_b: FloatArray,
              sizes: FloatArray) -> tuple[float, float, float]:
    """MOVER of the arms' intervals ``ia``, ``ib`` with the residual correlation of the
    cluster sums (as ``sparse_difference``), clipped to [-1, 1]."""
    e_a, e_b = sums_a - ia.estimate * sizes, sums_b - ib.estimate * sizes
    scale = math.sqrt(float(e_a @ e_a) * float(e_b @ e_b))
    rho = min(max(float(e_a @ e_b) / scale, -1.0), 1.0) if scale > 0.0 else 0.0
    res = mover_difference_interval((ia.estimate, ia.lower, ia.upper),
                                    (ib.estimate, ib.lower, ib.upper),
                                    correlation=rho, conf=CONF)
    return res.estimate, max(res.lower, -1.0), min(res.upper, 1.0)


def _mover_wilson(sums_a: FloatArray, sums_b: FloatArray, sizes: FloatArray) -> Result:
    kg_a = korn_graubard_wilson_interval(sums_a, sizes, conf=CONF)
    kg_b = korn_graubard_wilson_interval(sums_b, sizes, conf=CONF)
    return (*_mover_of(kg_a, kg_b, sums_a, sums_b, sizes), 0.0)


def paired_mover_wilson(chunk: Chunk, j: int, ctx: Context) -> Result:
    """MOVER (as ``paired_mover``) from the arms' Korn-Graubard Wilson intervals, in every
    replicate."""
    return _mover_wilson(chunk.sums_a[j], chunk.sums_b[j], chunk.sizes[j])


def auto_kg_wilson(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """Exploration (not the report's rule): ``auto`` with its sparse branch's Clopper-Pearson
    on the Korn-Graubard n* replaced by Wilson on the same n* (the switch kept)."""
    out = auto_run(chunk, j, ctx)
    if out[4][0] in ("korn_graubard_clopper_pearson", "korn_graubard_fallback") and \
            not choose_method("auto", _design(chunk, j)).widened:
        return (*kg_wilson(chunk, j, ctx)[:3], 1.0, ("korn_graubard_wilson",))
    return out


def auto_paired_kg_wilson(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """Exploration: ``auto_paired`` with its sparse MOVER built on Wilson intervals."""
    out = auto_paired_run(chunk, j, ctx)
    if out[4][0] == MOVER_METHOD:
        return (*paired_mover_wilson(chunk, j, ctx)[:3], 1.0, ("mover_korn_graubard_wilson",))
    return out




SPARSE_VARIANTS = {"midp": korn_graubard_midp_interval,
                   "jeffreys": korn_graubard_jeffreys_interval}
"""Run F (issue 26, session 4): binomial intervals on the Korn-Graubard n* tried in the
sparse branch in place of Clopper-Pearson (the mid-p one is now the report's for a sparse
pair; ``auto_paired_kg_cp`` keeps the rule before, Clopper-Pearson, to compare)."""


def _midp_if_sparse(sums: FloatArray, sizes: FloatArray, *, conf: float):
    """Mid-p on n* for a sparse arm (``is_sparse``), Clopper-Pearson on n* for the other."""
    return (korn_graubard_midp_interval if is_sparse(sums, sizes)
            else korn_graubard_interval)(sums, sizes, conf=conf)


PAIRED_VARIANTS = {**SPARSE_VARIANTS, "cp": korn_graubard_interval,
                   "midp_sparse_arm": _midp_if_sparse}


def _auto_sparse_variant(kind: str) -> Callable[[Chunk, int, Context], Labelled]:
    interval = SPARSE_VARIANTS[kind]

    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        """``auto`` with only its sparse branch (two-sided Korn-Graubard Clopper-Pearson, in
        a design not flagged, 0 < r < 1) on the variant's interval on the same n*; the
        fallback at r = 0 or 1 and every other branch unchanged."""
        out = auto_run(chunk, j, ctx)
        if out[4][0] != "korn_graubard_clopper_pearson":
            return out
        res = interval(chunk.sums_a[j], chunk.sizes[j], conf=CONF)
        return res.estimate, res.lower, res.upper, 1.0, (res.method,)
    return run


def auto_sparse_cr2(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """Diagnostic (run F5): ``auto`` with its two-sided sparse branch given the logit CR2 t
    (Bell-McCaffrey df at the working ICC, as ``cr2``) instead: does any interval centred on
    r cover in the replicates the sparse test picks?"""
    out = auto_run(chunk, j, ctx)
    if out[4][0] != "korn_graubard_clopper_pearson":
        return out
    res = cluster_t_interval(chunk.sums_a[j], chunk.sizes[j], conf=CONF, variance="CR2",
                             sumsq=chunk.sumsq_a[j])
    return res.estimate, res.lower, res.upper, 1.0, ("sparse_as_logit_cluster_robust_t",)


def _auto_paired_sparse_variant(kind: str) -> Callable[[Chunk, int, Context], Labelled]:
    interval = PAIRED_VARIANTS[kind]

    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        """``auto_paired`` with its sparse MOVER built on the arms' variant intervals (the
        residual correlation as ``sparse_difference``)."""
        out = auto_paired_run(chunk, j, ctx)
        if out[4][0] != MOVER_METHOD:
            return out
        sums_a, sums_b, sizes = chunk.sums_a[j], chunk.sums_b[j], chunk.sizes[j]
        ia = interval(sums_a, sizes, conf=CONF)
        ib = interval(sums_b, sizes, conf=CONF)
        return (*_mover_of(ia, ib, sums_a, sums_b, sizes), 1.0, (f"mover_kg_{kind}",))
    return run


def _arm_runs_material(chunk: Chunk, j: int) -> bool:
    cells = chunk.runs_a[j]
    res = two_way_cluster_variance(cells, chunk.sizes[j])
    return run_material(res, run_effect_p(cells, chunk.sizes[j]))


def _pair_runs_material(chunk: Chunk, j: int) -> bool:
    cells = chunk.runs_a[j] - chunk.runs_b[j]
    res = two_way_cluster_variance(cells, chunk.sizes[j])
    return run_material(res, run_effect_p(cells, chunk.sizes[j]))


def _runtest(material: bool) -> str:
    return "run pre-test " + ("fired" if material else "quiet")


def auto_pretest(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """The accuracy rule of issue 12 (the report's default before issue 26), kept to compare
    (``auto_pretest``): the hull in a
    flagged design, Korn-Graubard for a sparse arm, the two-way interval on min(C, R) - 1 df
    when the run pre-test fires (run_material), else the bootstrap or the logit CR2 t.
    Labels: the method the report records, and what the run pre-test said."""
    design = _design(chunk, j)
    choice = choose_method("auto", design)
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]
    r = float(sums.sum() / sizes.sum())
    labels: tuple[str, ...] = ()
    if not choice.widened and 0.0 < r < 1.0:
        if is_sparse(sums, sizes):
            res = korn_graubard_interval(sums, sizes, conf=CONF)
            return r, res.lower, res.upper, 1.0, ("korn_graubard_clopper_pearson",)
        material = _arm_runs_material(chunk, j)
        labels = (_runtest(material),)
        if material:
            return (*two_way(chunk, j, ctx), ("two_way_cluster_run_t", *labels))
    if choice.method == "bootstrap":
        out = bootstrap(chunk, j, ctx)
        name = "korn_graubard_fallback" if out[3] else "studentised_cluster_bootstrap"
        return (*out, (name, *labels))

    def make() -> tuple[float, float]:
        res = cluster_t_interval(sums, sizes, conf=CONF, variance="CR2",
                                 sumsq=chunk.sumsq_a[j])
        if not choice.widened:
            return res.lower, res.upper
        hull = beta_binomial_bayes_interval(np.rint(chunk.runs_a[j].sum(axis=1)),
                                            sizes * chunk.runs, conf=CONF)
        return min(res.lower, hull.lower), max(res.upper, hull.upper)
    out = _with_fallback(make, sums, sizes)
    name = "korn_graubard_fallback" if out[3] else \
        "cr2_bayes_hull" if choice.widened else "logit_cluster_robust_t"
    return (*out, (name, *labels))


def auto_paired_pretest(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """The paired-difference rule of issue 12 (the report's default before issue 26), kept to
    compare (``auto_paired_pretest``)."""
    design = _design(chunk, j)
    choice = choose_method("auto", design)
    sizes = chunk.sizes[j]
    labels: tuple[str, ...] = ()
    if not choice.widened:
        sparse = sparse_difference(chunk.sums_a[j], chunk.sums_b[j], sizes, conf=CONF)
        if sparse is not None:
            return sparse.estimate, sparse.lower, sparse.upper, 1.0, (sparse.method,)
        material = _pair_runs_material(chunk, j)
        labels = (_runtest(material),)
        if material:
            return (*paired_two_way(chunk, j, ctx), ("two_way_cluster_run_t", *labels))
    res = paired_difference_interval(chunk.diff_sums[j], sizes, conf=CONF,
                                     variance="CR2", sumsq=chunk.sumsq_d[j])
    if not math.isfinite(res.lower):
        lower, upper = _tango(chunk, j)
        return res.estimate, lower, upper, 1.0, ("tango_items", *labels)
    if choice.widened and res.df is not None:
        t_crit = float(stats.t.ppf(0.5 + CONF / 2.0, fewer_df(res.df,
                                                              design.effective_clusters)))
        d, se = res.estimate, res.standard_error
        return (d, max(d - t_crit * se, -1.0), min(d + t_crit * se, 1.0), 0.0,
                ("cluster_robust_t_fewer_df",))
    return res.estimate, res.lower, res.upper, 0.0, ("cluster_robust_t", *labels)


def auto_run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """What the report prints by default for an arm's accuracy (``auto``; issue 26's rule,
    with no run pre-test): as
    auto_pretest, but the logit CR2 t with the run component added (``run_inclusive``, V_run
    from ``run_variance_component``, Satterthwaite df) whenever V_run > 0, and the one-way
    interval (bootstrap or CR2 t) at V_run = 0, its limit; in a flagged design the logit
    CR2 t on the independence working model's df (``cr2_ind``), its fallback Korn-Graubard
    on G* - 1 design df. Labels: the method, and what the run pre-test would have said (a
    diagnostic: the rule does not read it)."""
    design = _design(chunk, j)
    choice = choose_method("auto", design)
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]
    r = float(sums.sum() / sizes.sum())
    if choice.widened:
        out = cr2_ind(chunk, j, ctx)
        if out[3]:  # the report's fallback in a flagged design: G* - 1 design df
            side = "greater" if r >= 1.0 else "less" if r <= 0.0 else "two-sided"
            kg = korn_graubard_interval(sums, sizes, conf=CONF, alternative=side,
                                        design_df=max(design.effective_clusters - 1.0, 1.0))
            return r, kg.lower, kg.upper, 1.0, ("korn_graubard_fallback",)
        return (*out, ("logit_cluster_robust_t_independent_df",))
    if not 0.0 < r < 1.0 or is_sparse(sums, sizes):
        return auto_pretest(chunk, j, ctx)
    labels = (_runtest(_arm_runs_material(chunk, j)),)
    cr2_res = cluster_t_interval(sums, sizes, conf=CONF, variance="CR2", sumsq=chunk.sumsq_a[j])
    if cr2_res.standard_error > 1e-12 and cr2_res.df is not None:
        comp = run_variance_component(chunk.runs_a[j], sizes)
        ri = run_inclusive(r, cr2_res.standard_error ** 2, cr2_res.df, comp, chunk.runs,
                           conf=CONF, logit=True)
        if ri is not None:
            return r, ri.lower, ri.upper, 0.0, ("logit_cluster_run_t", *labels)
    out = auto_pretest(chunk, j, ctx)
    return (*out[:4], (out[4][0], *labels))


def auto_paired_run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """What the report prints by default for the paired difference (``auto_paired``; issue
    26's rule): as auto_paired_pretest, with the
    CR2 t of a design not flagged widened by the run component (``run_inclusive``) whenever
    it is positive, instead of the run pre-test's two-way interval; in a flagged design the
    CR2 t on the independence working model's df (``paired_cr2_ind``)."""
    design = _design(chunk, j)
    choice = choose_method("auto", design)
    sizes = chunk.sizes[j]
    if choice.widened:
        out = paired_cr2_ind(chunk, j, ctx)
        return (*out, ("tango_items" if out[3] else "cluster_robust_t_independent_df",))
    if sparse_difference(chunk.sums_a[j], chunk.sums_b[j], sizes, conf=CONF) is not None:
        return auto_paired_pretest(chunk, j, ctx)
    labels = (_runtest(_pair_runs_material(chunk, j)),)
    res = paired_difference_interval(chunk.diff_sums[j], sizes, conf=CONF,
                                     variance="CR2", sumsq=chunk.sumsq_d[j])
    if math.isfinite(res.lower) and res.df is not None:
        comp = run_variance_component(chunk.runs_a[j] - chunk.runs_b[j], sizes)
        ri = run_inclusive(res.estimate, res.standard_error ** 2, res.df, comp, chunk.runs,
                           conf=CONF, logit=False, low=-1.0)
        if ri is not None:
            return res.estimate, ri.lower, ri.upper, 0.0, ("cluster_run_t", *labels)
    out = auto_paired_pretest(chunk, j, ctx)
    return (*out[:4], (out[4][0], *labels))


@dataclass(frozen=True)
class Method:
    name: str
    target: str
    """``accuracy`` (arm A) or ``difference`` (A - B)."""
    run: Callable[[Chunk, int, Context], Result | Labelled]
    slow: bool = False


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("cluster_t", "accuracy", cluster_t),
    Method("bootstrap", "accuracy", bootstrap, slow=True),
    Method("exact", "accuracy", exact),
    Method("bayes", "accuracy", bayes, slow=True),
    Method("auto_v0", "accuracy", auto_v0, slow=True),
    Method("cr2", "accuracy", cr2),
    Method("cr2_ind", "accuracy", cr2_ind),
    Method("two_way", "accuracy", two_way),
    Method("auto", "accuracy", auto_run, slow=True),
    Method("paired", "difference", paired),
    Method("paired_cr2", "difference", paired_cr2),
    Method("paired_cr2_ind", "difference", paired_cr2_ind),
    Method("paired_two_way", "difference", paired_two_way),
    Method("paired_mover", "difference", paired_mover),
    Method("auto_paired", "difference", auto_paired_run),
    Method("auto_pretest", "accuracy", auto_pretest, slow=True),
    Method("auto_paired_pretest", "difference", auto_paired_pretest),
    Method("kg_wilson", "accuracy", kg_wilson),
    Method("kg_wilson_run", "accuracy", kg_wilson_run),
    Method("paired_mover_wilson", "difference", paired_mover_wilson),
    Method("auto_kg_wilson", "accuracy", auto_kg_wilson, slow=True),
    Method("auto_paired_kg_wilson", "difference", auto_paired_kg_wilson),
    *(Method(f"auto_kg_{k}", "accuracy", _auto_sparse_variant(k), slow=True)
      for k in SPARSE_VARIANTS),
    Method("auto_sparse_cr2", "accuracy", auto_sparse_cr2, slow=True),
    *(Method(f"auto_paired_kg_{k}", "difference", _auto_paired_sparse_variant(k))
      for k in PAIRED_VARIANTS),
)}

