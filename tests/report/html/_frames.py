"""Small inputs for the HTML tests: a benchmark frame, a report object with only to_dict()."""

from __future__ import annotations

import numpy as np
import pandas as pd


def small_bench(runs: int) -> pd.DataFrame:
    """Seed 003's design: 12 documents of 3 questions, two arms, no cost columns."""
    rng = np.random.default_rng(3)
    return pd.DataFrame([
        {"cluster": f"doc{i // 3}", "item": f"q{i}", "arm": arm, "run": run,
         "correct": bool(rng.random() < p)}
        for i in range(36) for arm, p in (("short", 0.6), ("long", 0.75))
        for run in range(1, runs + 1)])


class WinRates:
    """Stands in for an analysis with no page builder: only to_dict(), in DESIGN's shapes."""

    def __init__(self, n_records: int = 2) -> None:
        self.n_records = n_records

    def to_dict(self) -> dict[str, object]:
        records = [{"judge": "j", "arm": f"a{i}", "opponent": "b", "win_rate": 0.25 + i / 100,
                    "lower": 0.125, "upper": 0.5, "n": 40, "significant": i == 0,
                    "tasks": ["x"]} for i in range(self.n_records)]
        return {"conf": 0.95, "correction": "holm", "records": records, "aa": [],
                "by_judge": {"j": {"n": 3, "flip_rate": 0.5}}, "totals": {"wins": 7, "ties": 2},
                "notes": ["Holm over 2 comparisons."]}
