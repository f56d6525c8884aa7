"""Tables for the aggregation tests: the demo simulator's run folder and hand-made tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assay.analysis.aggregate import AggregateReport, aggregate
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import judgments_from_records


def make_table(records: Iterable[Mapping[str, Any]],
               scales: Mapping[str, str] | None = None) -> Judgments:
    """A validated judgments table from plain records (judgments column names)."""
    rows = [dict(r) for r in records]
    return judgments_from_records(
        rows, list(range(1, len(rows) + 1)), path="<test>", sources=["<test>"],
        scales={k: Scale.parse(v) for k, v in (scales or {}).items()})


def seed_like_records(*, runs: int = 5, seed: int = 3, spread: float = 1.0,
                      evaluators: tuple[str, ...] = ("gpt-4", "claude-3-opus-20240229"),
                      metrics: tuple[str, ...] = ("clarity", "distractor_quality"),
                      ) -> list[dict[str, Any]]:
    """Seed 000's example design: 3 quizzes of 4 questions, 2 metrics, 2 evaluators, 5 runs.

    Scores on 0-100: question quality + evaluator offset + run shift * ``spread`` + noise.
    """
    rng = np.random.default_rng(seed)
    quizzes = ("python_quiz_1", "python_quiz_2", "advanced_python")
    quality = {(q, i): rng.normal(75, 8) for q in quizzes for i in range(4)}
    offset = {e: 3.0 * j for j, e in enumerate(evaluators)}
    records = []
    for metric in metrics:
        for e in evaluators:
            shifts = rng.normal(0, spread, size=runs)
            for run in range(1, runs + 1):
                for (quiz, i), q in quality.items():
                    score = float(np.clip(q + offset[e] + shifts[run - 1] + rng.normal(0, 3),
                                          0, 100))
                    records.append({"item": f"{quiz}-q{i + 1:02d}", "cluster": quiz,
                                    "task": quiz, "arm": "benchmark-20250512-123456",
                                    "run": run, "judge": e, "criterion": metric,
                                    "score": round(score, 1)})
    return records


@pytest.fixture(scope="session")
def demo_dir(demo_example: Path) -> Path:
    return demo_example


@pytest.fixture(scope="session")
def demo_judgments(demo_table_five_judges: Judgments) -> Judgments:
    return demo_table_five_judges


@pytest.fixture(scope="session")
def demo_report(demo_judgments: Judgments) -> AggregateReport:
    return aggregate(demo_judgments, benchmark_config_name="demo", benchmark_version="1.0")


@pytest.fixture(scope="session")
def seed_like_judgments() -> Judgments:
    return make_table(seed_like_records(),
                      {"clarity": "range:0,100", "distractor_quality": "range:0,100"})
