"""Makes the ppi_py reference figures of test_mean.py (not collected: no ``test_`` prefix).

Run in a venv of its own, never the project's (ppi-python pulls numba, scikit-learn,
statsmodels and gdown)::

    python -m venv /tmp/ppivenv
    /tmp/ppivenv/bin/pip install ppi-python==0.2.3 numpy
    /tmp/ppivenv/bin/python tests/stats/ppi/ppi_py_oracle.py

It prints ORACLE, pasted into test_mean.py. The datasets come from :func:`datasets`, which
test_mean.py imports, so both sides see the same numbers (only ``Generator.random`` is used,
whose stream numpy keeps stable). Figures made with ppi-python 0.2.3, numpy 2.4.6,
scipy 1.17.1, statsmodels 0.15.0 on Python 3.
"""

from __future__ import annotations

import numpy as np

ALPHAS = (0.05, 0.1)


def datasets() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """name -> (y, f_labelled, f_unlabelled), seeded."""
    out = {}
    rng = np.random.default_rng(20231103)
    # binary: a judge right 80% of the time, generous on its errors
    n, big_n = 60, 600
    truth = (rng.random(n + big_n) < 0.6).astype(float)
    flip = rng.random(n + big_n) < np.where(truth == 1, 0.1, 0.3)
    judge = np.where(flip, 1 - truth, truth)
    out["binary"] = (truth[:n], judge[:n], judge[n:])
    # ordinal labels on [0, 1] (five levels), a noisy judge rounded to the same levels
    n, big_n = 40, 300
    level = np.floor(rng.random(n + big_n) * 5) / 4
    noisy = np.clip(np.round((level + (rng.random(n + big_n) - 0.5) * 0.6) * 4) / 4, 0, 1)
    out["ordinal"] = (level[:n], noisy[:n], noisy[n:])
    # a judge that tells nothing: lambda clipped at 0
    n, big_n = 30, 200
    y = (rng.random(n) < 0.5).astype(float)
    f = rng.random(n + big_n)
    f[:n] = 1 - 0.9 * y + 0.1 * f[:n]  # anti-correlated with the labels
    out["clipped_at_0"] = (y, f[:n], f[n:])
    # a judge on half the scale: Cov/Var near 2, lambda clipped at 1
    n, big_n = 50, 2000
    y = rng.random(n + big_n)
    f = 0.5 * y + 0.02 * rng.random(n + big_n)
    out["clipped_at_1"] = (y[:n], f[:n], f[n:])
    # pairwise preferences: A/B/tie -> 1/0/0.5 per pair, humans and a judge that agrees
    # with them 70% of the time and otherwise leans to A (the win rate of a pair's first)
    n, big_n = 45, 400
    u = rng.random(n + big_n)
    human = np.where(u < 0.45, 1.0, np.where(u < 0.65, 0.5, 0.0))
    agree = rng.random(n + big_n) < 0.7
    lean = np.where(rng.random(n + big_n) < 0.6, 1.0, np.where(rng.random(n + big_n) < 0.5,
                                                              0.5, 0.0))
    verdict = np.where(agree, human, lean)
    out["preference"] = (human[:n], verdict[:n], verdict[n:])
    return out


def main() -> None:
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
    from ppi_py.ppi import _calc_lam_glm

    print("ORACLE = {")
    for name, (y, f, fu) in datasets().items():
        # the lambda ppi_mean_ci tunes (lam=None), recomputed as it does
        d = 1
        y2, f2, fu2 = y.reshape(-1, 1), f.reshape(-1, 1), fu.reshape(-1, 1)
        est1 = ppi_mean_pointestimate(y2, f2, fu2, lam=1)
        lam = _calc_lam_glm(y2 - est1, f2 - est1, fu2 - est1, np.eye(d), clip=True)
        estimate = float(np.ravel(ppi_mean_pointestimate(y, f, fu, lam=None))[0])
        for alpha in ALPHAS:
            lower, upper = ppi_mean_ci(y, f, fu, alpha=alpha, lam=None)
            print(f"    ({name!r}, {alpha!r}): ({estimate!r}, {float(np.ravel(lower)[0])!r}, "
                  f"{float(np.ravel(upper)[0])!r}, {float(lam)!r}),")
    print("}")


if __name__ == "__main__":
    main()
