"""Score a table of judgments: load a CSV, print the score summary and the benchmark
report, and write the HTML pages.

    python examples/score_a_table.py [OUT_DIR]

The table is made here (a seeded simulation: 60 questions in 12 documents, two systems,
five trials each, one exact-match judge), so the example runs anywhere, offline; with your
own file, start at ``assay.load``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import assay


def make_table(path: Path, *, seed: int = 3) -> Path:
    """A long table: a row per (question, system, trial), the judge's 0/1 verdict as score."""
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(60):
        document = f"doc-{item // 5:02d}"
        difficulty = rng.normal()
        for system, skill in (("small", 0.2), ("large", 1.0)):
            p = 1.0 / (1.0 + np.exp(-(skill - difficulty)))
            for trial in range(1, 6):
                rows.append({"item": f"q{item:03d}", "cluster": document, "arm": system,
                             "run": trial, "judge": "exact-match", "criterion": "correct",
                             "score": float(rng.random() < p)})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    table = assay.load(make_table(out / "judgments.csv"),
                       scales={"correct": assay.Scale.parse("binary")})
    print(assay.score_summary(table))
    report = assay.benchmark_report(table, B=500, seed=1)
    print(report)
    pages = assay.render_html([report], out / "html")
    print(f"Open {pages[0]}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("example-out"))
