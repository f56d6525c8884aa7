"""Issue 26, session 5 (run I): the restricted wild cluster bootstrap for flagged designs.

The methods here are registered for ``coverage_simulation`` beside ``coverage_methods``'
(this module imports that one, never the reverse: no import circle).

The estimate is the ratio r = sum_c S_c / N (S_c the cluster sums of item accuracies or of
item differences, N = sum_c n_c), the OLS intercept of the item values on a constant. The
wild cluster bootstrap with the null imposed (WCR; Cameron, Gelbach and Miller 2008;
MacKinnon, Nielsen and Webb 2023, "Cluster-robust inference: a guide to empirical
practice", J. Econometrics 232, sections 3.4 and 6; Roodman, MacKinnon, Nielsen and Webb
2019, boottest) tests H0: mu = mu0 with

* restricted residuals  u_c = S_c - n_c mu0 (the intercept-only model under H0);
* bootstrap sums        S*_c = n_c mu0 + v_c u_c, v_c Webb's six-point weights
  (+-sqrt(1/2), +-1, +-sqrt(3/2), each with chance 1/6), one B x G matrix per replicate;
* statistics            t = (r - mu0) N / sqrt(sum_c (S_c - n_c r)^2) and
  t*_b = (r*_b - mu0) N / sqrt(sum_c (S*_bc - n_c r*_b)^2), the CR1 t (its factor
  G (N - 1) / ((G - 1) (N - 1)) cancels between t and t*);
* p-value               p(mu0) = #{b : |t*_b| > |t|} / B (strict, as ``wildboottest``).

Every sum is a quadratic in mu0 over fixed B-vectors (V S, V n, V^2 S^2, ...), so p(mu0) costs
O(B) once the weights are drawn. The 95% interval is {mu0 : p(mu0) > 0.05}, its ends found
by bisection from r (where t = 0) outwards, the same weights for every mu0 (as boottest).

Variants measured in run I (none adopted; docs/statistics.md, "Issue 26, session 5 (b)"): the
jackknife (CV3) variance in t and t* (:class:`WildRestrictedCV3`), the logit-scale statistic
(:class:`WildRestrictedLogit`), Mammen's two-point weights, the hull of the flagged CR2 t and
the WCR interval (``auto_hull``), and the flagged CR2 t on the Bell-McCaffrey df at a share
of the working ICC (``auto_cr2_mid*``).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from coverage_methods import (
    CONF,
    Chunk,
    Context,
    Labelled,
    Method,
    Result,
    _design,
    auto_paired_run,
    auto_run,
)
from scipy import special, stats

from assay.analysis.benchmark._design import choose_method
from assay.stats import (
    bell_mccaffrey_df,
    cluster_t_interval,
    korn_graubard_interval,
    paired_difference_interval,
    working_icc,
)

FloatArray = npt.NDArray[np.float64]

WEBB = np.sqrt(np.array([1.5, 1.0, 0.5, 0.5, 1.0, 1.5])) * np.array([-1, -1, -1, 1, 1, 1])


MAMMEN = np.array([(1 - math.sqrt(5)) / 2, (1 + math.sqrt(5)) / 2])
MAMMEN_P = (math.sqrt(5) + 1) / (2 * math.sqrt(5))
"""Mammen's two-point weights (mean 0, variance 1, third moment 1): the first with chance
MAMMEN_P. Not symmetric, so the WCR t* can be skewed as the data's t is."""


def mammen_weights(B: int, G: int, rng: np.random.Generator) -> FloatArray:
    """B x G matrix of Mammen's two-point weights."""
    out: FloatArray = np.where(rng.random((B, G)) < MAMMEN_P, MAMMEN[0], MAMMEN[1])
    return out


def webb_weights(B: int, G: int, rng: np.random.Generator) -> FloatArray:
    """B x G matrix of Webb's six-point weights."""
    out: FloatArray = WEBB[rng.integers(0, 6, size=(B, G))]
    return out


class WildRestricted:
    """p(mu0) of the WCR test of the intercept of cluster sums (see the module docstring)."""

    def __init__(self, sums: FloatArray, sizes: FloatArray, weights: FloatArray) -> None:
        s, n, v = np.asarray(sums, float), np.asarray(sizes, float), np.asarray(weights, float)
        self.N = float(n.sum())
        self.r = float(s.sum()) / self.N
        e = s - n * self.r
        self.scale = math.sqrt(float(e @ e))
        v2 = v * v
        self.vs, self.vn = v @ s, v @ n
        self.v2ss, self.v2sn, self.v2nn = v2 @ (s * s), v2 @ (s * n), v2 @ (n * n)
        self.vns, self.vnn = v @ (n * s), v @ (n * n)
        self.nn = float(n @ n)

    def t(self, mu0: float) -> float:
        return (self.r - mu0) * self.N / self.scale

    def t_star(self, mu0: float) -> FloatArray:
        num = self.vs - mu0 * self.vn            # sum_c v_c u_c = N (r* - mu0)
        d = num / self.N
        sum_vu2 = self.v2ss - 2.0 * mu0 * self.v2sn + mu0 * mu0 * self.v2nn
        sum_vnu = self.vns - mu0 * self.vnn
        denom = sum_vu2 - 2.0 * d * sum_vnu + d * d * self.nn
        out: FloatArray = num / np.sqrt(np.maximum(denom, 1e-300))
        return out

    def p_value(self, mu0: float) -> float:
        return float(np.mean(np.abs(self.t_star(mu0)) > abs(self.t(mu0))))

    def bound(self, side: float, alpha: float, *, tol: float = 1e-7) -> float:
        """The end of {mu0 : p(mu0) > alpha} on `side` (-1 lower, +1 upper) by bisection."""
        step = self.scale / self.N            # the CR1 standard error's order
        inside, outside = self.r, self.r + side * step
        for _ in range(60):
            if self.p_value(outside) <= alpha:
                break
            inside, outside = outside, self.r + 2.0 * (outside - self.r)
        else:
            return side * math.inf
        while abs(outside - inside) > tol:
            mid = 0.5 * (inside + outside)
            inside, outside = (mid, outside) if self.p_value(mid) > alpha else (inside, mid)
        return 0.5 * (inside + outside)


class WildRestrictedLogit(WildRestricted):
    """Exploration: the same bootstrap sums, the statistic on the logit scale,
    t_L = (logit r - logit mu0) r (1 - r) N / sqrt(sum_c e_c^2) (the delta-method t of the
    logit), t*_L the same of r*; a draw with r* outside (0, 1) counts as |t*_L| = inf.
    mu0 is searched in (0, 1)."""

    def t(self, mu0: float) -> float:
        r = self.r
        return (math.log(r / (1 - r)) - math.log(mu0 / (1 - mu0))) * r * (1 - r) * self.N \
            / self.scale

    def t_star(self, mu0: float) -> FloatArray:
        num = self.vs - mu0 * self.vn
        d = num / self.N
        sum_vu2 = self.v2ss - 2.0 * mu0 * self.v2sn + mu0 * mu0 * self.v2nn
        denom = np.maximum(sum_vu2 - 2.0 * d * (self.vns - mu0 * self.vnn) + d * d * self.nn,
                           1e-300)
        rs = mu0 + d
        ok = (rs > 0.0) & (rs < 1.0)
        rc = np.where(ok, rs, 0.5)
        out: FloatArray = np.where(
            ok, (np.log(rc / (1 - rc)) - math.log(mu0 / (1 - mu0))) * rc * (1 - rc) * self.N
            / np.sqrt(denom), np.inf)
        return out

    def bound(self, side: float, alpha: float, *, tol: float = 1e-7) -> float:
        edge = 0.0 if side < 0 else 1.0
        inside, outside = self.r, self.r + side * self.scale / self.N
        for _ in range(60):
            if not 0.0 < outside < 1.0:
                outside = edge - side * 1e-9
                if self.p_value(outside) > alpha:
                    return edge
                break
            if self.p_value(outside) <= alpha:
                break
            inside, outside = outside, self.r + 2.0 * (outside - self.r)
        while abs(outside - inside) > tol:
            mid = 0.5 * (inside + outside)
            inside, outside = (mid, outside) if self.p_value(mid) > alpha else (inside, mid)
        return 0.5 * (inside + outside)


class WildRestrictedCV3(WildRestricted):
    """Exploration: the same bootstrap sums, the t on the jackknife (CV3) variance in both t
    and t* (``wildboottest``'s ``bootstrap_type="13"``; MacKinnon, Nielsen and Webb 2023,
    section 5): with r_(-g) = (T - S_g) / (N - n_g), V3 = (G - 1) / G sum_g (r_(-g) - r)^2,
    and the same of the bootstrap sums S*_g = n_g mu0 + v_g u_g."""

    def __init__(self, sums: FloatArray, sizes: FloatArray, weights: FloatArray) -> None:
        super().__init__(sums, sizes, weights)
        self.s, self.n, self.v = (np.asarray(sums, float), np.asarray(sizes, float),
                                  np.asarray(weights, float))
        loo = (self.s.sum() - self.s) / (self.N - self.n) - self.r
        self.se3 = math.sqrt(float(loo @ loo))

    def t(self, mu0: float) -> float:
        return (self.r - mu0) / self.se3

    def t_star(self, mu0: float) -> FloatArray:
        d = self.v * (self.s - self.n * mu0)
        tot = d.sum(axis=1)
        loo = (tot[:, None] - d) / (self.N - self.n) - (tot / self.N)[:, None]
        out: FloatArray = (tot / self.N) / np.sqrt(np.maximum((loo * loo).sum(axis=1), 1e-300))
        return out


def wild_interval(sums: FloatArray, sizes: FloatArray, weights: FloatArray, *,
                  conf: float = CONF, logit: bool = False,
                  cv3: bool = False) -> tuple[float, float, float]:
    """(r, lower, upper) of the WCR interval by test inversion (``logit``: of
    :class:`WildRestrictedLogit`); NaN ends when the residuals are all 0 (r at 0 or 1, or
    no between-cluster variation)."""
    kind = WildRestrictedLogit if logit else WildRestrictedCV3 if cv3 else WildRestricted
    w = kind(sums, sizes, weights)
    if not w.scale > 1e-12 * w.N:
        return w.r, math.nan, math.nan
    alpha = 1.0 - conf
    return w.r, w.bound(-1.0, alpha), w.bound(1.0, alpha)


def wild(chunk: Chunk, j: int, ctx: Context, *, logit: bool = False,
         cv3: bool = False, mammen: bool = False) -> Result:
    """WCR (Webb) on the raw accuracy of arm A (``logit``: the logit statistic), in every
    replicate, cut to [0, 1]; Korn-Graubard where its residuals are all 0."""
    sums, sizes = chunk.sums_a[j], chunk.sizes[j]
    draw = mammen_weights if mammen else webb_weights
    r, lo, hi = wild_interval(sums, sizes, draw(ctx.B, sizes.size, ctx.rng),
                              logit=logit, cv3=cv3)
    if math.isfinite(lo) and math.isfinite(hi):
        return r, max(lo, 0.0), min(hi, 1.0), 0.0
    side = "greater" if r >= 1.0 else "less" if r <= 0.0 else "two-sided"
    kg = korn_graubard_interval(sums, sizes, conf=CONF, alternative=side)
    return r, kg.lower, kg.upper, 1.0


def paired_wild(chunk: Chunk, j: int, ctx: Context, *, cv3: bool = False,
                mammen: bool = False) -> Result:
    """WCR (Webb) on the paired difference A - B, in every replicate, cut to [-1, 1];
    at D_c = d n_c for every cluster the point (a degenerate interval)."""
    sums, sizes = chunk.diff_sums[j], chunk.sizes[j]
    draw = mammen_weights if mammen else webb_weights
    r, lo, hi = wild_interval(sums, sizes, draw(ctx.B, sizes.size, ctx.rng), cv3=cv3)
    if math.isfinite(lo) and math.isfinite(hi):
        return r, max(lo, -1.0), min(hi, 1.0), 0.0
    return r, r, r, 1.0


def auto_wild(chunk: Chunk, j: int, ctx: Context, *, logit: bool = False,
              cv3: bool = False, mammen: bool = False) -> Labelled:
    """``auto`` with its flagged branch (the CR2 t on the independence model's df) replaced
    by ``wild``; where the residuals are all 0 (r at 0 or 1) the report's own fallback
    (Korn-Graubard on G* - 1 design df, as ``auto``); every other branch unchanged."""
    if not choose_method("auto", _design(chunk, j)).widened:
        return auto_run(chunk, j, ctx)
    out = wild(chunk, j, ctx, logit=logit, cv3=cv3, mammen=mammen)
    if out[3]:
        return auto_run(chunk, j, ctx)
    return (*out, ("wild_cluster_restricted_" + ("mammen" if mammen else "webb")
                   + ("_logit" if logit else "") + ("_cv3" if cv3 else ""),))


def auto_wild_logit(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """``auto_wild`` with the logit statistic (:class:`WildRestrictedLogit`)."""
    return auto_wild(chunk, j, ctx, logit=True)


def auto_paired_wild(chunk: Chunk, j: int, ctx: Context, *, cv3: bool = False,
                     mammen: bool = False) -> Labelled:
    """``auto_paired`` with its flagged branch replaced by ``paired_wild``; where every
    cluster's difference is d n_c, the report's own fallback (Tango on effective items)."""
    if not choose_method("auto", _design(chunk, j)).widened:
        return auto_paired_run(chunk, j, ctx)
    out = paired_wild(chunk, j, ctx, cv3=cv3, mammen=mammen)
    if out[3]:
        return auto_paired_run(chunk, j, ctx)
    return (*out, ("wild_cluster_restricted_" + ("mammen" if mammen else "webb")
                   + ("_cv3" if cv3 else ""),))


def _hull(out: Labelled, flagged_label: str, w: Result) -> Labelled:
    """The hull of the rule's interval ``out`` and the WCR interval ``w`` where the rule took
    its flagged branch (``flagged_label``) and the WCR has no fallback; else ``out``."""
    if out[4][0] != flagged_label or w[3]:
        return out
    return out[0], min(out[1], w[1]), max(out[2], w[2]), 0.0, ("hull_cr2_wild",)


def auto_hull(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """Exploration: ``auto`` with its flagged branch the hull of its CR2 t (independence
    df) and ``wild``: at least as wide as the rule now, so covering at least as often."""
    out = auto_run(chunk, j, ctx)
    if out[4][0] != "logit_cluster_robust_t_independent_df":
        return out
    return _hull(out, "logit_cluster_robust_t_independent_df", wild(chunk, j, ctx))


def auto_paired_hull(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """Exploration: ``auto_paired`` with its flagged branch the hull of its CR2 t and
    ``paired_wild``."""
    out = auto_paired_run(chunk, j, ctx)
    if out[4][0] != "cluster_robust_t_independent_df":
        return out
    return _hull(out, "cluster_robust_t_independent_df", paired_wild(chunk, j, ctx))


def _flag_label(chunk: Chunk, j: int) -> tuple[str, ...]:
    return ("flagged" if choose_method("auto", _design(chunk, j)).widened else "not flagged",)


def wild_everywhere(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """``wild`` in every replicate, labelled by what the flag would have said (no switch)."""
    return (*wild(chunk, j, ctx), _flag_label(chunk, j))


def paired_wild_everywhere(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """``paired_wild`` in every replicate, labelled by the flag (no switch)."""
    return (*paired_wild(chunk, j, ctx), _flag_label(chunk, j))


def _mid_df(sizes: FloatArray, sums: FloatArray, sumsq: FloatArray, share: float) -> float:
    """Bell-McCaffrey df at `share` times the working ICC: between the independence model's
    (share 0, the flagged rule now) and the working ICC's (share 1)."""
    return bell_mccaffrey_df(sizes, icc=share * working_icc(sums, sumsq, sizes))


def _cr2_mid(share: float):
    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        """Exploration: ``auto`` with its flagged branch's logit CR2 t on the df of
        `share` x the working ICC (``_mid_df``) instead of the independence model's."""
        out = auto_run(chunk, j, ctx)
        if out[4][0] != "logit_cluster_robust_t_independent_df":
            return out
        sums, sizes = chunk.sums_a[j], chunk.sizes[j]
        res = cluster_t_interval(sums, sizes, conf=CONF, variance="CR2")
        r = res.estimate
        df = _mid_df(sizes, sums, chunk.sumsq_a[j], share)
        half = stats.t.ppf(0.5 + CONF / 2, df) * res.standard_error / (r * (1 - r))
        return (r, float(special.expit(special.logit(r) - half)),
                float(special.expit(special.logit(r) + half)), 0.0, (f"cr2_df_icc_x{share}",))
    return run


def _paired_cr2_mid(share: float):
    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        """Exploration: ``auto_paired`` with its flagged branch's CR2 t on the df of
        `share` x the working ICC of the item differences."""
        out = auto_paired_run(chunk, j, ctx)
        if out[4][0] != "cluster_robust_t_independent_df":
            return out
        sums, sizes = chunk.diff_sums[j], chunk.sizes[j]
        res = paired_difference_interval(sums, sizes, conf=CONF, variance="CR2")
        df = _mid_df(sizes, sums, chunk.sumsq_d[j], share)
        half = stats.t.ppf(0.5 + CONF / 2, df) * res.standard_error
        d = res.estimate
        return d, max(d - half, -1.0), min(d + half, 1.0), 0.0, (f"cr2_df_icc_x{share}",)
    return run


WILD_METHODS: dict[str, Method] = {m.name: m for m in (
    Method("wild", "accuracy", wild_everywhere, slow=True),
    Method("paired_wild", "difference", paired_wild_everywhere, slow=True),
    Method("auto_wild", "accuracy", auto_wild, slow=True),
    Method("auto_wild_logit", "accuracy", auto_wild_logit, slow=True),
    Method("auto_hull", "accuracy", auto_hull, slow=True),
    Method("auto_wild_mammen", "accuracy",
           lambda c, j, x: auto_wild(c, j, x, mammen=True), slow=True),
    Method("auto_paired_wild_mammen", "difference",
           lambda c, j, x: auto_paired_wild(c, j, x, mammen=True), slow=True),
    Method("auto_paired_hull", "difference", auto_paired_hull, slow=True),
    Method("auto_wild_cv3", "accuracy", lambda c, j, x: auto_wild(c, j, x, cv3=True), slow=True),
    Method("auto_paired_wild_cv3", "difference",
           lambda c, j, x: auto_paired_wild(c, j, x, cv3=True), slow=True),
    *(Method(f"auto_cr2_mid{k}", "accuracy", _cr2_mid(k), slow=True) for k in (0.25, 0.5)),
    *(Method(f"auto_paired_cr2_mid{k}", "difference", _paired_cr2_mid(k))
      for k in (0.25, 0.5)),
    Method("auto_paired_wild", "difference", auto_paired_wild, slow=True),
)}
