"""The design of a benchmark as the intervals see it, and the choice of the accuracy method.

The auto rule of hr_report counts items and clusters. Counts miss how much of the data sits
in the largest clusters: 40 clusters of which 3 hold 200 of 237 items behave like 2 or 3
clusters. The rule here reads the effective number of clusters G* (Carter, Schnepel and
Steigerwald 2017) at the working intra-cluster correlation of the item accuracies, which
is C when the clusters have one size, so balanced designs are chosen for as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from assay.stats.intervals import effective_clusters, working_icc

FloatArray = npt.NDArray[np.float64]
Method = Literal["auto", "bootstrap", "cluster_t", "bayes", "exact"]

MIN_ITEMS = 300
"""Items the bootstrap needs under ``method="auto"``."""
MIN_CLUSTERS = 30
"""Effective clusters the bootstrap needs under ``method="auto"``."""
MIN_RUNS = 5
"""Runs below which the report is descriptive only."""
FEW_EFFECTIVE = 8.0
"""Below this many effective clusters, in a design whose cluster sizes differ (G* < 0.8 C),
the report flags the design: every interval then rests on a few large clusters, the C - 1
df rule covered 73-91% in the coverage grid, the bootstrap 71-92% and Korn-Graubard 80-94%,
and only the CR2 t held (94-99% with the df of the working ICC, 93-97% with those of the
independence working model, which the auto rule takes: :data:`FLAGGED_COVERAGE`)."""
FLAGGED_COVERAGE = ("93.45-97.05% (accuracy) and 93.05-95.15% (differences) in 8 flagged cells "
                    "on 2,000 replicates each, where the df of the working ICC and the former "
                    "hull with the Bayes interval covered up to 99-100%")
"""The grid's figures for the auto rule of a flagged design (bench/results/coverage_grid.txt)."""
UNEQUAL_SHARE = 0.8
SPARSE_CLUSTERS = 10
"""An arm whose rarer outcome (right answers near 0, wrong ones near 1) sits in fewer than
this many clusters, and in fewer than half of them, is sparse: at accuracy 0.02 over 30
clusters (about 4 clusters with a right answer) the logit t covered 92% and the bootstrap 84%
in the coverage grid, Korn-Graubard 99%. Under the auto rule its interval is Korn-Graubard."""


@dataclass(frozen=True)
class Design:
    """Counts and the effective number of clusters of a benchmark."""

    n_items: int
    n_clusters: int
    n_runs: int
    icc: float
    """Working intra-cluster correlation of item accuracies (the largest over the arms)."""
    effective_clusters: float
    """G* at ``icc``; C when every cluster has the same size."""

    @property
    def unequal(self) -> bool:
        """Whether the cluster sizes differ enough to matter (G* below 0.8 C)."""
        return self.effective_clusters < UNEQUAL_SHARE * self.n_clusters

    @property
    def flagged(self) -> bool:
        """Few effective clusters of unequal size: no interval holds its level."""
        return self.unequal and self.effective_clusters < FEW_EFFECTIVE

    def size_words(self) -> str:
        size = f"{self.n_items} items in {self.n_clusters} clusters"
        if self.effective_clusters < self.n_clusters * (1.0 - 1e-9):
            size += f" ({self.effective_clusters:.1f} effective)"
        return size


def design_of(sums: FloatArray, sumsq: FloatArray, sizes: FloatArray, n_runs: int) -> Design:
    """The design of cluster sums (C, A) and sums of squares (C, A) of item accuracies."""
    n_clusters = int(sizes.size)
    if n_clusters < 2:
        return Design(int(sizes.sum()), n_clusters, n_runs, 0.0, float(n_clusters))
    icc = max(working_icc(sums[:, a], sumsq[:, a], sizes) for a in range(sums.shape[1]))
    return Design(int(sizes.sum()), n_clusters, n_runs, float(icc),
                  effective_clusters(sizes, icc=icc))


@dataclass(frozen=True)
class MethodChoice:
    """The accuracy interval method of a report and why it was chosen."""

    method: str
    """``bootstrap``, ``cluster_t``, ``bayes``, ``exact`` or ``descriptive``."""
    reason: str
    """Why, in words."""
    descriptive: bool
    """Fewer than 5 runs: point estimates only."""
    below_thresholds: bool
    """Fewer than 300 items or 30 effective clusters."""
    flagged: bool = False
    """Few effective clusters of unequal size (see :data:`FEW_EFFECTIVE`)."""
    widened: bool = False
    """The auto rule widens the intervals of a flagged design."""
    auto: bool = False
    """Chosen by the auto rule: sparse arms and material run components change the
    interval (see :func:`rare_clusters` and ``_accuracy``); a named method is kept."""


INTERVALS_HINT = ('an interval over items is valid at any number of runs: name a method '
                  '(--method cluster_t, or method="cluster_t") to get one')
"""How a descriptive report says intervals are obtained."""


def choose_method(method: Method, design: Design) -> MethodChoice:
    """Pick the accuracy interval method (hr_report, "Intervals", on effective clusters).

    Below 5 runs ``"auto"`` gives the descriptive report hr_report specifies; a method named
    explicitly is honoured at any number of runs, since its interval treats clusters of
    items as the sampling units and runs are averaged within each item first.

    >>> choose_method("auto", Design(36, 12, 5, 0.1, 12.0)).reason
    '36 items in 12 clusters fall short of 300 items and 30 clusters'
    >>> choose_method("auto", Design(400, 40, 5, 0.1, 40.0)).method
    'bootstrap'
    >>> choice = choose_method("auto", Design(237, 40, 5, 0.08, 2.5))
    >>> choice.method, choice.flagged, choice.reason
    ('cluster_t', True, '237 items in 40 clusters (2.5 effective) fall short of 300 items and 30 clusters')
    >>> few = Design(36, 12, 1, 0.1, 12.0)
    >>> choose_method("auto", few).descriptive, choose_method("cluster_t", few).method
    (True, 'cluster_t')
    """
    below = design.n_items < MIN_ITEMS or design.effective_clusters < MIN_CLUSTERS
    size = design.size_words()
    if design.n_runs < MIN_RUNS and method == "auto":
        return MethodChoice("descriptive", f"{design.n_runs} run(s) per item, fewer than "
                            f"{MIN_RUNS}: point estimates only; {INTERVALS_HINT}", True, below)
    if design.n_runs < MIN_RUNS:
        return MethodChoice(method, f'method = "{method}" was asked for; {size}, {design.n_runs} '
                            "run(s) per item (averaged within each item)", False, below,
                            design.flagged)
    if method == "auto":
        if below:
            return MethodChoice("cluster_t", f"{size} fall short of {MIN_ITEMS} items and "
                                f"{MIN_CLUSTERS} clusters", False, below, design.flagged,
                                design.flagged, auto=True)
        return MethodChoice("bootstrap", f"{size} reach {MIN_ITEMS} items and {MIN_CLUSTERS} "
                            "clusters", False, below, design.flagged, auto=True)
    return MethodChoice(method, f'method = "{method}" was asked for; {size}', False, below,
                        design.flagged)


def rare_clusters(sums: FloatArray, sizes: FloatArray) -> int:
    """Clusters holding the rarer outcome of an arm: a right answer when its accuracy is
    at most 1/2, a wrong one above (S_c the cluster sums of item accuracies)."""
    total = float(sizes.sum())
    if float(sums.sum()) <= total / 2.0:
        return int(np.count_nonzero(sums > 1e-9 * sizes))
    return int(np.count_nonzero(sums < sizes * (1.0 - 1e-9)))


def is_sparse(sums: FloatArray, sizes: FloatArray) -> bool:
    """Whether the rarer outcome sits in too few clusters for a t or bootstrap interval:
    fewer than :data:`SPARSE_CLUSTERS` and fewer than half of them.

    >>> sizes = np.full(30, 5.0)
    >>> is_sparse(np.r_[np.full(4, 1.0), np.zeros(26)], sizes)
    True
    >>> is_sparse(np.full(4, 2.0), np.full(4, 10.0))
    False
    """
    m = rare_clusters(sums, sizes)
    return m < SPARSE_CLUSTERS and 2 * m < sizes.size


def flag_note(design: Design, choice: MethodChoice, *, binary: bool) -> str:
    """What a flagged design means and what the report does about it.

    ``binary`` is kept for callers; the auto rule treats binary and graded scores alike.
    """
    head = (f"The {design.n_clusters} clusters count as {design.effective_clusters:.1f} "
            f"effective clusters (their sizes differ; working ICC {design.icc:.2f}): every "
            "interval rests on a few large clusters. In assay's coverage simulation of such "
            "designs the t with C - 1 df covered 73-91%, the bootstrap 71-92% and "
            "Korn-Graubard 80-94%.")
    if not choice.widened:
        return (head + f' The method asked for ("{choice.method}") is kept; read its '
                "intervals as optimistic, or use the default.")
    return (head + " The intervals are the CR2 t with the Bell-McCaffrey degrees of freedom "
            "of the independence working model (Pustejovsky and Tipton 2018), which covered "
            f"{FLAGGED_COVERAGE} there; they are wide because the design is, not to be safe.")


def _flag_note(design: Design, what: str) -> str | None:
    """The note of a flagged design (None if it is not flagged), in the same words for a
    mean (:func:`design_flag_note`) and a paired difference (``_mean_rule.paired_design``)."""
    if not design.flagged:
        return None
    return (
        f"{what}: the {design.n_clusters} clusters count as {design.effective_clusters:.1f} "
        f"effective clusters (their sizes differ; working ICC {design.icc:.2f}), so the "
        "interval rests on a few large clusters. As in the benchmark report, which flags the "
        "same design, the interval is the CR2 t with the Bell-McCaffrey degrees of freedom of "
        f"the independence working model, which covered {FLAGGED_COVERAGE} in assay's coverage "
        "simulation.")


def design_flag_note(sums: FloatArray, sumsq: FloatArray, sizes: FloatArray, *,
                     what: str) -> tuple[Design, str | None]:
    """The benchmark's design rule applied to one mean over clusters (S_c, sums of squares
    and n_c of its item values), and the note of a flagged design, for the other reports.

    The scores, win-rate and compare reports read the same G* and the same flag
    (:attr:`Design.flagged`) as the benchmark report, so one design is flagged in all of
    them or in none.
    """
    design = design_of(sums.reshape(-1, 1), sumsq.reshape(-1, 1), sizes, 1)
    return design, _flag_note(design, what)
