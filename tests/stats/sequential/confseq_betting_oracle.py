"""Makes the confseq reference figures of test_betting.py (not collected: no ``test_`` prefix).

confseq 0.0.11 built as confseq_oracle.py says (its venv /tmp/csvenv); then::

    /tmp/csvenv/bin/python tests/stats/sequential/confseq_betting_oracle.py

It prints ORACLE, pasted into test_betting.py: for each case, the hedged-capital betting
CS ``confseq.betting.betting_cs`` (its defaults: theta 1/2, trunc_scale 1/2, m_trunc, the
predictable plug-in bets ``lambda_predmix_eb`` at alpha/2) on the datasets of
confseq_oracle.py (which the test imports) at a few times. Figures made with confseq 0.0.11,
numpy 1.26, Python 3.11.
"""

from __future__ import annotations

import sys
from pathlib import Path

TIMES = (0, 1, 4, 9, 29, 99, 299)
"""0-based positions of the sequence kept in the table."""
CASES = (("bernoulli", 0.05, 1000, False), ("bernoulli", 0.05, 1000, True),
         ("beta", 0.1, 1000, True), ("beta", 0.05, 400, False), ("skewed", 0.05, 1000, True),
         ("differences", 0.05, 1000, True), ("differences", 0.05 / 6, 1000, True))
"""(dataset, alpha, breaks, running_intersection)."""


def main() -> None:
    from confseq.betting import betting_cs

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from confseq_oracle import datasets

    data = datasets()
    print("ORACLE = [")
    for name, alpha, breaks, ri in CASES:
        lower, upper = betting_cs(data[name], alpha=alpha, breaks=breaks, running_intersection=ri)
        lows, ups = [float(lower[t]) for t in TIMES], [float(upper[t]) for t in TIMES]
        print(f"    ({name!r}, {alpha!r}, {breaks!r}, {ri!r},\n     {lows!r},\n     {ups!r}),")
    print("]")


if __name__ == "__main__":
    main()
