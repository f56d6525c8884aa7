"""Cross-check of ``coverage_wild.WildRestricted`` against PyPI's ``wildboottest`` (a port of
Stata's boottest), run by hand:

    pip install wildboottest numba    # not dependencies of assay
    PYTHONPATH=src python bench/wild_crosscheck.py

For a few designs (G = 6 with all 2^6 Rademacher draws, G = 12 and 40 with 999 Webb draws,
and the grid's ``uneq-3big`` sizes) it fits the intercept-only model of the item values
y_i - mu0 in ``wildboottest.WildboottestCL`` (WCR, CRV1, ``bootstrap_type="11"``), hands it
the same weight matrix, and prints both p-values, the ratio t*/t of both (wildboottest's
small-sample factor cancels in it) and the largest difference of the ratios. Ties |t*| = |t|
(the draws v = +-1 of a full enumeration reproduce the data) are counted apart, since which
side of a tie a float lands on decides them in either implementation.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from coverage_wild import WildRestricted, webb_weights

try:
    from wildboottest.wildboottest import WildboottestCL
except ImportError:  # pragma: no cover - a hand-run script
    print("wildboottest is not installed: pip install wildboottest numba")
    raise SystemExit(2) from None


def theirs(y: np.ndarray, cluster: np.ndarray, mu0: float,
           weights: np.ndarray) -> tuple[float, np.ndarray, float]:
    wb = WildboottestCL(X=np.ones((y.size, 1)), Y=y - mu0, cluster=cluster,
                        R=np.array([1.0]), B=weights.shape[0], seed=1)
    wb.get_scores(bootstrap_type="11", impose_null=True)
    wb.v, wb.B = weights.T.copy(), weights.shape[0]
    wb.get_numer()
    wb.get_denom()
    wb.get_tboot()
    wb.get_vcov()
    wb.get_tstat()
    wb.get_pvalue()
    return (float(np.ravel(wb.t_stat)[0]), np.ravel(wb.t_boot),
            float(np.ravel(wb.pvalue)[0]))


def main() -> int:
    rng = np.random.default_rng(7)
    designs = [("G=6 random sizes, 2^6 Rademacher", rng.integers(1, 30, size=6), "rad"),
               ("G=12 random sizes, 999 Webb", rng.integers(1, 30, size=12), "webb"),
               ("G=40 random sizes, 999 Webb", rng.integers(1, 30, size=40), "webb"),
               ("uneq-3big sizes, 999 Webb", np.array([100, 60, 40] + [1] * 37), "webb")]
    worst = 0.0
    print(f"{'design':<36} {'mu0':>7} {'p mine':>8} {'p wbt':>8} {'ties':>4} "
          f"{'max |ratio diff|':>16}")
    for label, sizes, kind in designs:
        sizes = sizes.astype(float)
        n = int(sizes.sum())
        cluster = np.repeat(np.arange(sizes.size), sizes.astype(int))
        y = (rng.random(n) < 0.7) * rng.random(n)
        sums = np.bincount(cluster, weights=y)
        weights = (np.array(list(itertools.product([-1.0, 1.0], repeat=sizes.size)))
                   if kind == "rad" else webb_weights(999, sizes.size, rng))
        mine = WildRestricted(sums, sizes, weights)
        for shift in (-0.1, -0.03, 0.02, 0.08):
            mu0 = mine.r + shift
            t, t_boot, p = theirs(y, cluster, mu0, weights)
            ratio_theirs, ratio_mine = t_boot / t, mine.t_star(mu0) / mine.t(mu0)
            diff = float(np.max(np.abs(ratio_theirs - ratio_mine)))
            worst = max(worst, diff)
            ties = int(np.sum(np.isclose(np.abs(ratio_mine), 1.0, rtol=0, atol=1e-9)))
            print(f"{label:<36} {mu0:>7.4f} {mine.p_value(mu0):>8.5f} {p:>8.5f} {ties:>4} "
                  f"{diff:>16.2e}")
    print(f"largest difference of t*/t over all draws: {worst:.2e}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
