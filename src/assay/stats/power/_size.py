"""Power of a planned design and the clusters it needs: for a difference to detect, or for an
interval's width."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from assay.stats._validate import _check_conf, _check_positive
from assay.stats.power._variance import VarianceComponents, design_variance

__all__ = ["design_df", "design_power", "size_for_difference", "size_for_width"]

Method = Literal["t", "normal"]
_MAX_CLUSTERS = 10**7


@dataclass(frozen=True)
class DesignSize:
    """A design and what it reaches."""

    clusters: int
    """C, clusters of questions."""
    questions: int
    """n = ceil(C m), the questions."""
    runs: int
    trials: int
    variance: float
    """V, the variance of the mean (difference) of the design."""
    standard_error: float
    df: float
    """Degrees of freedom of the t the test or interval uses (inf for ``method = "normal"``)."""
    power: float
    """The planned power at ``difference`` (NaN for a width target)."""
    width: float
    """The expected full width 2 t sqrt(V) of the interval at `conf`."""
    reachable: bool
    """False when no number of questions reaches the target at these runs (the run shift
    alone is too large); the counts are then those of the largest design tried."""
    method: str


def _check_method(method: str) -> str:
    if method not in ("t", "normal"):
        raise ValueError(f"method must be 't' or 'normal', got {method!r}")
    return method


def design_df(components: VarianceComponents, *, clusters: float, cluster_size: float = 1.0,
              size_cv: float = 0.0, runs: int = 1, trials: int = 1) -> float:
    r"""Degrees of freedom of the t of a planned design.

    Parameters
    ----------
    components, clusters, cluster_size, size_cv, runs, trials
        As :func:`~assay.stats.power.design_variance`.

    Returns
    -------
    float
        C - 1 without a run component; with one, Satterthwaite's
        (V_1 + V_run)^2 / (V_1^2 / (C - 1) + V_run^2 / (R - 1)) (R - 1 = 0 gives 0 df:
        one run cannot estimate its own shift).

    Notes
    -----
    The tests assay prints are cluster-robust t tests on C - 1 degrees of freedom (CR2 with
    equal clusters, Bell and McCaffrey [1]_) and, with a run component, the run-inclusive
    interval of the benchmark report, whose df are those of
    :func:`assay.stats.run_inclusive_df` [2]_. The planner uses the same df, so the power it
    states is that of the test the user will run.

    References
    ----------
    .. [1] Bell, R. M. and McCaffrey, D. F. (2002). Bias reduction in standard errors for
           linear regression with multi-stage samples. Survey Methodology 28(2), 169-181.
    .. [2] Satterthwaite, F. E. (1946). An approximate distribution of estimates of
           variance components. Biometrics Bulletin 2(6), 110-114.

    Examples
    --------
    >>> from assay.stats.power import variance_components
    >>> design_df(variance_components(0.25), clusters=30)
    29.0
    """
    c = _check_positive(clusters, "clusters")
    v_run = components.run / int(runs)
    if v_run <= 0.0:
        return max(c - 1.0, 0.0)
    if int(runs) < 2:
        return 0.0
    v_1 = design_variance(components, clusters=c, cluster_size=cluster_size, size_cv=size_cv,
                          runs=runs, trials=trials) - v_run
    total = v_1 + v_run
    return total * total / (v_1 * v_1 / max(c - 1.0, 1e-12) + v_run * v_run / (int(runs) - 1.0))


def design_power(difference: float, variance: float, df: float, *, conf: float = 0.95,
                 method: Method = "t") -> float:
    r"""Power of the two-sided test of no difference at level 1 - conf.

    Parameters
    ----------
    difference : float
        D, the true difference (or mean minus its null value); its sign does not matter.
    variance : float
        V > 0, the variance of the estimate (:func:`~assay.stats.power.design_variance`).
    df : float
        nu, the t's degrees of freedom; ignored for ``method = "normal"``.
    conf : float, default 0.95
        1 - alpha.
    method : {"t", "normal"}, default "t"
        ``"t"``: the noncentral t, P(|T| > t_{nu, 1 - alpha/2}) with T ~ t'(nu, D / sqrt(V));
        ``"normal"``: Phi(D / sqrt(V) - z_{1 - alpha/2}) + Phi(-D / sqrt(V) - z_{1 - alpha/2}).

    Returns
    -------
    float
        The power in [alpha, 1]; NaN when nu <= 0 for the t.

    Notes
    -----
    The normal form inverts to Miller's [1]_ sample size n = (z_{1-alpha/2} + z_{power})^2
    V_1 / D^2 (Sec. 5, "power analysis"), V_1 the variance of one question's score; the t
    form is the exact power of the t test when the variance estimate is a scaled chi-square
    on nu df (Cohen [2]_ ch. 2; statsmodels' ``TTestPower`` computes it so).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.
    .. [2] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.

    Examples
    --------
    D / sqrt(V) = 2.8016 (= 1.95996 + 0.84162) gives 80% power under the normal:

    >>> round(design_power(2.8016, 1.0, math.inf, method="normal"), 4)
    0.8
    """
    from scipy import stats

    alpha = 1.0 - _check_conf(conf)
    v = _check_positive(variance, "variance")
    delta = abs(float(difference)) / math.sqrt(v)
    if _check_method(method) == "normal" or math.isinf(df):
        z = float(stats.norm.ppf(1.0 - alpha / 2.0))
        return float(stats.norm.cdf(delta - z) + stats.norm.cdf(-delta - z))
    if not df > 0.0:
        return math.nan
    t = float(stats.t.ppf(1.0 - alpha / 2.0, df))
    return float(stats.nct.sf(t, df, delta) + stats.nct.cdf(-t, df, delta))


def _evaluate(components: VarianceComponents, clusters: int, *, cluster_size: float,
              size_cv: float, runs: int, trials: int, difference: float | None, conf: float,
              method: str, reachable: bool = True) -> DesignSize:
    from scipy import stats

    v = design_variance(components, clusters=clusters, cluster_size=cluster_size,
                        size_cv=size_cv, runs=runs, trials=trials)
    df = (math.inf if method == "normal" else
          design_df(components, clusters=clusters, cluster_size=cluster_size, size_cv=size_cv,
                    runs=runs, trials=trials))
    crit = (float(stats.norm.ppf((1.0 + conf) / 2.0)) if math.isinf(df) else
            float(stats.t.ppf((1.0 + conf) / 2.0, df)) if df > 0 else math.inf)
    power = (math.nan if difference is None or not v > 0 else
             design_power(difference, v, df, conf=conf, method=method))  # type: ignore[arg-type]
    return DesignSize(clusters=int(clusters), questions=math.ceil(clusters * cluster_size - 1e-9),
                      runs=int(runs), trials=int(trials), variance=v,
                      standard_error=math.sqrt(v), df=df, power=power,
                      width=2.0 * crit * math.sqrt(v), reachable=reachable,
                      method=f"{method}_cluster" if method == "t" else "normal")


def _smallest(test: Callable[[int], bool], start: int) -> int | None:
    """The smallest C >= start with test(C), test being monotone in C; None when even
    _MAX_CLUSTERS fails."""
    low = max(int(start), 2)
    if test(low):
        return low
    high = low * 2
    while not test(high):
        if high >= _MAX_CLUSTERS:
            return None
        low, high = high, min(high * 2, _MAX_CLUSTERS)
    while high - low > 1:
        mid = (low + high) // 2
        if test(mid):
            high = mid
        else:
            low = mid
    return high


def _solve(components: VarianceComponents, test: Callable[[int], bool], bound2: float,
           z2: float, *, difference: float | None, conf: float, method: str,
           cluster_size: float, size_cv: float, runs: int, trials: int) -> DesignSize:
    """The design at the fewest clusters passing `test`, searched from the normal
    approximation's n = z^2 V_1 / (bound^2 - z^2 V_run) questions (bound = D or W; none when
    that room is <= 0, then the unreachable design at the largest size), shared by
    :func:`size_for_difference` and :func:`size_for_width`."""
    kw = dict(cluster_size=cluster_size, size_cv=size_cv, runs=runs, trials=trials)
    v_run = components.run / int(runs)
    v_1 = design_variance(components, clusters=1.0, **kw) * cluster_size - v_run * cluster_size
    room = bound2 - z2 * v_run
    start = 2 if room <= 0 else max(math.ceil(z2 * v_1 / room / cluster_size - 1e-9), 2)
    found = _smallest(test, start) if room > 0 else None
    if found is None:
        return _evaluate(components, _MAX_CLUSTERS, difference=difference, conf=conf,
                         method=method, reachable=False, **kw)
    return _evaluate(components, found, difference=difference, conf=conf, method=method, **kw)


def size_for_difference(components: VarianceComponents, difference: float, *,
                        power: float = 0.8, conf: float = 0.95, cluster_size: float = 1.0,
                        size_cv: float = 0.0, runs: int = 1, trials: int = 1,
                        method: Method = "t") -> DesignSize:
    r"""The fewest clusters whose two-sided test detects `difference` with `power`.

    Parameters
    ----------
    components : VarianceComponents
        The variance of one (paired-difference) score, split.
    difference : float
        D != 0, the difference to detect.
    power : float, default 0.8
        The power wanted, in (0, 1).
    conf : float, default 0.95
        1 - alpha, two-sided.
    cluster_size, size_cv, runs, trials
        The design's other counts, as :func:`~assay.stats.power.design_variance`.
    method : {"t", "normal"}, default "t"
        The power of the t test on :func:`design_df` df (what assay's reports run), or the
        normal approximation.

    Returns
    -------
    DesignSize
        The design at the smallest C (at least 2) reaching `power`; ``reachable`` False when
        the run shift alone keeps every C below it.

    Raises
    ------
    ValueError
        A zero difference, `power` or `conf` outside (0, 1), or bad counts.

    Notes
    -----
    With z = z_{1-alpha/2} + z_{power}, per-question variance V_1 = tau^2 m (1 + cv^2) +
    sigma_q^2 + sigma_w^2 / (R K) and run part V_run = sigma_run^2 / R, the normal
    approximation (Miller [1]_, Sec. 5) needs

    .. math:: n = \frac{z^2 V_1}{D^2 - z^2 V_{run}} \text{ questions}, \quad C = \lceil n / m \rceil,

    and none when D^2 <= z^2 V_run (then only more runs help). The t version starts there
    and takes the smallest C whose noncentral-t power (:func:`design_power`) reaches the
    target; for one question per cluster and no runs it is the one-sample t test's sample
    size (statsmodels ``TTestPower().solve_power``, checked in ``tests/stats/power``).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.

    Examples
    --------
    sigma^2 = 0.5 (a paired difference), D = 0.1, unclustered: n = 7.849 x 0.5 / 0.01 =
    392.4, so 393 questions under the normal:

    >>> from assay.stats.power import variance_components
    >>> size_for_difference(variance_components(0.5), 0.1, method="normal").questions
    393
    """
    from scipy import stats

    d = abs(float(difference))
    if not (math.isfinite(d) and d > 0.0):
        raise ValueError(f"difference must be non-zero and finite, got {difference!r}")
    target = _check_conf(power, "power")
    level = _check_conf(conf)
    _check_method(method)
    kw = dict(cluster_size=cluster_size, size_cv=size_cv, runs=runs, trials=trials)
    z = float(stats.norm.ppf(1.0 - (1.0 - level) / 2.0) + stats.norm.ppf(target))

    def enough(c: int) -> bool:
        res = _evaluate(components, c, difference=d, conf=level, method=method, **kw)
        return bool(res.power >= target)

    return _solve(components, enough, d * d, z * z, difference=d, conf=level, method=method,
                  **kw)


def size_for_width(components: VarianceComponents, width: float, *, conf: float = 0.95,
                   cluster_size: float = 1.0, size_cv: float = 0.0, runs: int = 1,
                   trials: int = 1, method: Method = "t") -> DesignSize:
    r"""The fewest clusters whose interval's expected full width is at most `width`.

    Parameters
    ----------
    components : VarianceComponents
        The variance of one score, split.
    width : float
        W > 0, the full width (upper - lower) wanted.
    conf : float, default 0.95
        The interval's level.
    cluster_size, size_cv, runs, trials, method
        As :func:`size_for_difference`.

    Returns
    -------
    DesignSize
        The smallest C (at least 2) with 2 t_{nu, (1+conf)/2} sqrt(V) <= W.

    Notes
    -----
    Under the normal, n = (2 z_{(1+conf)/2})^2 V_1 / (W^2 - (2 z)^2 V_run) (Miller [1]_, Sec.
    5, with the half-width in place of D / (z_a + z_b)). The width is that of the interval
    at the planned variance: a replicate's width varies around it with its estimated
    variance, so about half of the runs of the plan come out wider than W.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.

    Examples
    --------
    p = 0.5 (sigma^2 = 0.25), W = 0.1: n = (2 x 1.959964)^2 x 0.25 / 0.01 = 384.1, so 385:

    >>> from assay.stats.power import variance_components
    >>> size_for_width(variance_components(0.25), 0.1, method="normal").questions
    385
    """
    from scipy import stats

    w = _check_positive(width, "width")
    level = _check_conf(conf)
    _check_method(method)
    kw = dict(cluster_size=cluster_size, size_cv=size_cv, runs=runs, trials=trials)
    z2 = (2.0 * float(stats.norm.ppf((1.0 + level) / 2.0))) ** 2

    def narrow(c: int) -> bool:
        return bool(_evaluate(components, c, difference=None, conf=level, method=method,
                              **kw).width <= w)

    return _solve(components, narrow, w * w, z2, difference=None, conf=level, method=method,
                  **kw)
