"""Sampling items over the strata of declared target attributes: random, frequency-weighted
(proportional allocation) and stratified (equal allocation).

CoEval samples its datapoints over attribute strata and compares the three designs in its
Table 7 (ACR/RAR and the ranking's stability). The allocations here are the textbook ones
(Cochran 1977, *Sampling Techniques*, 3rd ed., sections 5.5 and 5A.1):

- ``random``: a simple random sample of ``n`` items without replacement; strata get what
  falls to them.
- ``frequency``: proportional allocation, ``n_h = n N_h / N`` rounded by largest remainder
  (Hamilton's method), so every stratum keeps its share of the population.
- ``stratified``: equal allocation, ``n_h = n / H`` with strata smaller than their share
  taking all their items and the rest shared again among the others, which maximises the
  number of strata covered (every stratum is sampled when ``n >= H``).

Within a stratum the items are a simple random sample (numpy's PCG64 with ``seed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Strategy = Literal["random", "frequency", "stratified"]
STRATEGIES: tuple[Strategy, ...] = ("random", "frequency", "stratified")


def proportional_allocation(sizes: Sequence[int], n: int) -> list[int]:
    """``n`` split over strata in proportion to their sizes, by largest remainder.

    Ties of remainders go to the earlier stratum.

    >>> proportional_allocation([50, 30, 20], 7)
    [4, 2, 1]
    >>> proportional_allocation([1, 1, 1], 2)
    [1, 1, 0]
    """
    total = sum(sizes)
    if n <= 0 or total == 0:
        return [0] * len(sizes)
    n = min(n, total)
    quotas = [n * s / total for s in sizes]
    out = [int(q) for q in quotas]
    order = sorted(range(len(sizes)), key=lambda h: (-(quotas[h] - out[h]), h))
    for h in order[: n - sum(out)]:
        out[h] += 1
    return out


def equal_allocation(sizes: Sequence[int], n: int) -> list[int]:
    """``n`` split equally over strata, a stratum smaller than its share giving all its items
    and the rest shared again among the others (earlier strata take a remainder first).

    >>> equal_allocation([10, 2, 10], 12)
    [5, 2, 5]
    >>> equal_allocation([10, 2, 10], 7)
    [3, 2, 2]
    """
    out = [0] * len(sizes)
    left = min(n, sum(sizes))
    open_ = [h for h, s in enumerate(sizes) if s > 0]
    while left > 0 and open_:
        share, extra = divmod(left, len(open_))
        for rank, h in enumerate(open_):
            take = min(sizes[h] - out[h], share + (1 if rank < extra else 0))
            out[h] += take
            left -= take
        open_ = [h for h in open_ if out[h] < sizes[h]]
    return out


def sample_indices(strata: Sequence[str], n: int, strategy: Strategy, seed: int) -> list[int]:
    """Indices of the items sampled (in their original order) from items labelled ``strata``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: expected one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if n < 1:
        raise ValueError(f"sample size: expected at least 1, got {n}")
    rng = np.random.Generator(np.random.PCG64(seed))
    count = len(strata)
    if strategy == "random" or n >= count:
        chosen = rng.choice(count, size=min(n, count), replace=False) if n < count else np.arange(count)
        return sorted(int(i) for i in chosen)
    labels = sorted(set(strata))
    members = {label: [i for i, s in enumerate(strata) if s == label] for label in labels}
    sizes = [len(members[label]) for label in labels]
    allocate = proportional_allocation if strategy == "frequency" else equal_allocation
    picked: list[int] = []
    for label, take in zip(labels, allocate(sizes, n), strict=True):
        if take:
            picked.extend(int(i) for i in rng.choice(members[label], size=take, replace=False))
    return sorted(picked)
