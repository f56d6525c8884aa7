"""The variance of an evaluation's mean score, or of two systems' mean difference, for a
planned design: questions in clusters, runs shared by every question, trials per question.

Miller (2024) writes every ingredient of an evaluation's standard error as a variance
component; this module adds them up for a design that has not been run yet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay.stats._validate import _check_positive, _check_probability

__all__ = ["design_variance", "paired_variance", "preference_variance", "variance_components"]


@dataclass(frozen=True)
class VarianceComponents:
    """The variance of one score (one question, one run, one trial), split by where it comes
    from. For a comparison of two systems, of one paired difference of their scores."""

    cluster: float
    """tau^2: the part shared by every question of a cluster (a document, a topic)."""
    question: float
    """sigma_q^2: the part of one question's true mean not shared with its cluster."""
    within: float
    """sigma_w^2: one trial's variance around its question's true mean (the conditional
    variance a resample or a repeated judgment averages away)."""
    run: float = 0.0
    """sigma_run^2: the variance of a run's shift, shared by every question of the run (one
    seed, one model snapshot); averaged by runs only."""

    @property
    def total(self) -> float:
        """tau^2 + sigma_q^2 + sigma_w^2, the variance of one score in one run."""
        return self.cluster + self.question + self.within

    @property
    def icc(self) -> float:
        """tau^2 / total: the correlation of two single scores of one cluster."""
        return self.cluster / self.total if self.total > 0 else math.nan


def variance_components(variance: float, *, icc: float = 0.0, within_share: float = 0.0,
                        run_variance: float = 0.0) -> VarianceComponents:
    r"""Variance components from stated assumptions: a score's variance and its shares.

    Parameters
    ----------
    variance : float
        sigma^2 >= 0, the variance of one score in one run: sd^2 of a scored outcome,
        p (1 - p) of a binary one, or of a paired difference (:func:`paired_variance`).
    icc : float, default 0.0
        rho in [0, 1], the intra-cluster correlation of two single scores of one cluster.
    within_share : float, default 0.0
        w in [0, 1 - rho], the share of sigma^2 that is within-question (trial) noise.
    run_variance : float, default 0.0
        sigma_run^2 >= 0, the variance of a run's shift shared by every question.

    Returns
    -------
    VarianceComponents
        tau^2 = rho sigma^2, sigma_w^2 = w sigma^2, sigma_q^2 = (1 - rho - w) sigma^2.

    Raises
    ------
    ValueError
        A negative or non-finite variance, or shares outside [0, 1] summing above 1.

    Notes
    -----
    The shares are of a single score's variance, as Miller [1]_ splits it (Sec. 3): the
    cluster part (his intra-cluster correlation when there is no within part), the
    question part and the conditional variance a trial averages away. A pilot estimates
    them instead (:func:`assay.analysis.plan.pilot_components`).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> c = variance_components(0.25, icc=0.2, within_share=0.4)
    >>> round(c.cluster, 10), round(c.question, 10), round(c.within, 10)
    (0.05, 0.1, 0.1)
    """
    total = _check_positive(variance, "variance", allow_zero=True)
    rho = _check_probability(icc, "icc")
    w = _check_probability(within_share, "within_share")
    if rho + w > 1.0 + 1e-12:
        raise ValueError(f"icc + within_share must be at most 1, got {rho} + {w}")
    return VarianceComponents(cluster=rho * total, question=max(1.0 - rho - w, 0.0) * total,
                              within=w * total,
                              run=_check_positive(run_variance, "run_variance", allow_zero=True))


def paired_variance(variance_a: float, variance_b: float, *, correlation: float = 0.0) -> float:
    r"""Variance of the difference of two systems' scores on the same question.

    Parameters
    ----------
    variance_a, variance_b : float
        Var(a), Var(b) >= 0, each system's score variance.
    correlation : float, default 0.0
        r in [-1, 1], the correlation between the two systems' scores on a question.

    Returns
    -------
    float
        Var(a - b) = Var(a) + Var(b) - 2 r sqrt(Var(a) Var(b)), floored at 0.

    Raises
    ------
    ValueError
        A negative or non-finite variance, or `correlation` outside [-1, 1].

    Notes
    -----
    Pairing (every system scored on the same questions) is what makes a comparison cheap:
    Miller [1]_ (Sec. 4, "paired differences") shows that the variance of the mean
    difference is Var(a) + Var(b) - 2 Cov(a, b), and the correlation between frontier
    models' question scores is commonly 0.3 to 0.7.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.

    Examples
    --------
    Two binary systems at 0.7 and 0.6 with r = 0.5: 0.21 + 0.24 - 2 (0.5) sqrt(0.0504)
    = 0.45 - 0.224499 = 0.225501:

    >>> round(paired_variance(0.21, 0.24, correlation=0.5), 6)
    0.225501
    """
    va = _check_positive(variance_a, "variance_a", allow_zero=True)
    vb = _check_positive(variance_b, "variance_b", allow_zero=True)
    try:
        r = float(correlation)
    except (TypeError, ValueError):
        raise ValueError(f"correlation must be a number in [-1, 1], got {correlation!r}") from None
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"correlation must be in [-1, 1], got {correlation!r}")
    return max(va + vb - 2.0 * r * math.sqrt(va * vb), 0.0)


def preference_variance(win_rate: float, *, tie_rate: float = 0.0) -> float:
    r"""Variance of one pairwise preference score (1 win, 1/2 tie, 0 loss) at a win rate.

    Parameters
    ----------
    win_rate : float
        P in [0, 1], the expected score, P(win) + P(tie) / 2 (ties count half).
    tie_rate : float, default 0.0
        t, the share of verdicts that are ties; at most 2 min(P, 1 - P), so that
        P(win) = P - t / 2 and P(loss) = 1 - P - t / 2 are not negative.

    Returns
    -------
    float
        Var(s) = P (1 - P) - t / 4.

    Raises
    ------
    ValueError
        `win_rate` outside [0, 1], or `tie_rate` negative or above 2 min(P, 1 - P).

    Notes
    -----
    With w = P(win), t = P(tie): E[s] = w + t / 2 = P and E[s^2] = w + t / 4, so
    Var(s) = w + t / 4 - P^2 = P - t / 4 - P^2 = P (1 - P) - t / 4: a tie is worth half a
    win (the convention of AlpacaEval [2]_ and BenchmarkQED), and each tie takes a quarter
    off the binary variance P (1 - P). It is the variance over questions and trials of one
    verdict, the sigma^2 Miller [1]_ splits into its cluster, question and within parts
    (:func:`variance_components`). A counterbalanced judgment averages the two orders,
    s = (s_1 + s_2) / 2; by Cauchy-Schwarz Var(s) <= (Var(s_1) + Var(s_2)) / 2, which with a
    position bias b (order means P + b and P - b) and the mean tie rate t is
    P (1 - P) - b^2 - t / 4: this value bounds the counterbalanced judgment's variance from
    above, equal to it when both orders agree on every question (a pilot estimates it
    instead: :func:`assay.analysis.plan.pilot_components`).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.
    .. [2] Dubois, Y., Galambosi, B., Liang, P. and Hashimoto, T. B. (2024).
           Length-controlled AlpacaEval: a simple way to debias automatic evaluators.
           arXiv:2404.04475.

    Examples
    --------
    P = 0.6 with 20% ties: w = 0.5, E[s^2] = 0.5 + 0.2 / 4 = 0.55, Var = 0.55 - 0.36 = 0.19
    = 0.24 - 0.05:

    >>> round(preference_variance(0.6, tie_rate=0.2), 10)
    0.19
    """
    p = _check_probability(win_rate, "win_rate")
    t = _check_probability(tie_rate, "tie_rate")
    if t > 2.0 * min(p, 1.0 - p) + 1e-12:
        raise ValueError(f"tie_rate must be at most 2 min(win_rate, 1 - win_rate) = "
                         f"{2.0 * min(p, 1.0 - p):g} (so that neither wins nor losses are "
                         f"negative), got {tie_rate!r}")
    return max(p * (1.0 - p) - t / 4.0, 0.0)


def design_variance(components: VarianceComponents, *, clusters: float, cluster_size: float = 1.0,
                    size_cv: float = 0.0, runs: int = 1, trials: int = 1) -> float:
    r"""Variance of the mean score of a planned design.

    Parameters
    ----------
    components : VarianceComponents
        The variance of one score, split (:func:`variance_components`, or a pilot's).
    clusters : float
        C > 0, clusters of questions.
    cluster_size : float, default 1.0
        m >= 1, the mean number of questions per cluster (n = C m questions).
    size_cv : float, default 0.0
        cv >= 0, the coefficient of variation of the cluster sizes (population SD / mean).
    runs : int, default 1
        R >= 1, runs: passes over every question, each with its own shared shift.
    trials : int, default 1
        K >= 1, trials per question and run (repeated judgments or resamples).

    Returns
    -------
    float
        V = [tau^2 m (1 + cv^2) + sigma_q^2 + sigma_w^2 / (R K)] / n + sigma_run^2 / R.

    Raises
    ------
    ValueError
        A non-positive count or a negative `size_cv`.

    Notes
    -----
    A question's score averaged over its R K trials has variance sigma_q^2 + sigma_w^2 /
    (R K) around its cluster's mean (Miller [1]_, Sec. 3.2: resampling divides the
    conditional variance by K, not the between-question variance); questions of one
    cluster share tau^2, so a cluster of n_c questions contributes n_c^2 tau^2 + n_c (...)
    to the variance of their sum. Summing over clusters and dividing by n^2,

    .. math:: V = \frac{\tau^2 \sum_c n_c^2 / n + \sigma_q^2 + \sigma_w^2/(RK)}{n}
              + \frac{\sigma^2_{run}}{R},

    and sum_c n_c^2 / n = m (1 + cv^2) for sizes of mean m and coefficient of variation cv
    (Eldridge, Ashby and Kerry [2]_). With equal sizes and no within or run part this is
    Miller's clustered variance sigma^2 (1 + (m - 1) rho) / n, the design effect
    1 + (m - 1) rho of Kish [3]_. A run's shift is shared by every question, so more
    questions never average it away (Miller, Sec. 3.3; the run component of
    :func:`assay.stats.run_variance_component`).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to
           language model evaluations. arXiv:2411.00640.
    .. [2] Eldridge, S. M., Ashby, D. and Kerry, S. (2006). Sample size for cluster
           randomized trials: effect of coefficient of variation of cluster size and
           analysis method. International Journal of Epidemiology 35(5), 1292-1300.
    .. [3] Kish, L. (1965). Survey Sampling. Wiley, Sec. 5.4.

    Examples
    --------
    sigma^2 = 0.25, rho = 0.1, 20 clusters of 5: V = 0.25 (1 + 4 x 0.1) / 100 = 0.0035:

    >>> c = variance_components(0.25, icc=0.1)
    >>> round(design_variance(c, clusters=20, cluster_size=5), 10)
    0.0035
    """
    c = _check_positive(clusters, "clusters", allow_zero=True)
    m = _check_positive(cluster_size, "cluster_size", allow_zero=True)
    cv = _check_positive(size_cv, "size_cv", allow_zero=True)
    if c <= 0.0 or m < 1.0:
        raise ValueError(f"clusters must be > 0 and cluster_size >= 1, got {clusters}, "
                         f"{cluster_size}")
    r, k = int(runs), int(trials)
    if r < 1 or k < 1:
        raise ValueError(f"runs and trials must be at least 1, got {runs}, {trials}")
    n = c * m
    per_question = (components.cluster * m * (1.0 + cv * cv) + components.question
                    + components.within / (r * k))
    return per_question / n + components.run / r
