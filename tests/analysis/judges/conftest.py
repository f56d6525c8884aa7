"""The demo simulator's run folder, loaded once, and a small hand-made judgments table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.data.table import Judgments
from tests.stats.agreement.conftest import alpha_closed_form, demo_judgments, pingouin_icc  # noqa: F401


@pytest.fixture(scope="session")
def demo_folder(demo_example: Path) -> Path:
    return demo_example


@pytest.fixture(scope="session")
def demo(demo_table_five_judges: Judgments) -> Judgments:
    return demo_table_five_judges


def make_table(rows: list[dict[str, object]], scales: dict[str, str]) -> Judgments:
    """A Judgments table from records (defaults filled as the loader would)."""
    frame = pd.DataFrame(rows)
    frame["cluster"] = frame.get("cluster", frame["item"])
    for column, default in (("run", 1), ("judge", "j"), ("criterion", "score")):
        if column not in frame:
            frame[column] = default
    if "reportable" not in frame:
        frame["reportable"] = True
    return Judgments(frame=frame, scales={k: Scale.parse(v) for k, v in scales.items()})
