"""Shared fixtures: paths to the real evaluation data in ../shared/data when present."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
ALPACA = SHARED_DATA / "alpaca_eval"


@pytest.fixture
def alpaca_results() -> Path:
    if not (ALPACA / "results").is_dir():
        pytest.skip(f"real AlpacaEval data not found at {ALPACA} (only in the project's workspace)")
    return ALPACA / "results"


@pytest.fixture
def alpaca_leaderboards() -> Path:
    if not (ALPACA / "leaderboards").is_dir():
        pytest.skip(f"AlpacaEval leaderboards not found at {ALPACA}")
    return ALPACA / "leaderboards"
