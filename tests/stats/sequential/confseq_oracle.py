"""Makes the confseq reference figures of test_bernstein.py (not collected: no ``test_`` prefix).

confseq 0.0.11 compiles C++ against Boost with pybind11 2.6, which does not build on
Python 3.11; it builds with a newer pybind11 and the Boost headers, in a venv of its own::

    apt-get install -y libboost-dev
    python -m venv /tmp/csvenv
    /tmp/csvenv/bin/pip install "pybind11>=2.10" cmake scikit-build setuptools wheel "numpy<2" scipy
    /tmp/csvenv/bin/pip download confseq==0.0.11 --no-deps -d /tmp/cs && tar xzf /tmp/cs/*.tar.gz -C /tmp/cs
    /tmp/csvenv/bin/pip install --no-build-isolation /tmp/cs/confseq-0.0.11
    /tmp/csvenv/bin/python tests/stats/sequential/confseq_oracle.py

It prints ORACLE, pasted into test_bernstein.py: for each dataset of :func:`datasets` (which
the test imports, so both sides see the same numbers), the two-sided PrPl-EB sequence
(``predmix_empbern_twosided_cs``) at a few times, with and without the running intersection.
Figures made with confseq 0.0.11, numpy 1.26 (confseq uses np.float_, gone in numpy 2) on Python 3.11.
"""

from __future__ import annotations

import numpy as np

TIMES = (0, 1, 4, 9, 29, 99, 299)
"""0-based positions of the sequence kept in the table."""
CASES = (("bernoulli", 0.05, 0.5, False), ("bernoulli", 0.05, 0.5, True),
         ("beta", 0.1, 0.5, True), ("beta", 0.05, 0.75, False), ("skewed", 0.05, 0.5, True),
         ("differences", 0.05, 0.5, True))
"""(dataset, alpha, truncation, running_intersection)."""


def datasets() -> dict[str, np.ndarray]:
    """name -> observations in [0, 1] (300 each), seeded."""
    rng = np.random.default_rng(20240101)
    out = {
        "bernoulli": (rng.random(300) < 0.3).astype(float),
        "beta": rng.beta(2.0, 5.0, 300),
        "skewed": rng.random(300) ** 4,
    }
    d = np.clip(np.round(rng.normal(0.15, 0.5, 300) * 4) / 4, -1, 1)  # per-item differences
    out["differences"] = (d + 1) / 2
    return out


def main() -> None:
    from confseq.predmix import predmix_empbern_twosided_cs

    data = datasets()
    rows = []
    for name, alpha, trunc, ri in CASES:
        lower, upper = predmix_empbern_twosided_cs(data[name], alpha=alpha, truncation=trunc,
                                                   running_intersection=ri)
        rows.append((name, alpha, trunc, ri, [float(lower[t]) for t in TIMES],
                     [float(upper[t]) for t in TIMES]))
    print("ORACLE = [")
    for row in rows:
        print(f"    {row!r},")
    print("]")


if __name__ == "__main__":
    main()
