"""Shared fixtures: paths to the real evaluation data in ../shared/data when present."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.report.html._cdp import CANDIDATES, Chromium, Tab, find_chromium

# CI runs the same examples every time (a red CI then means the change, not the draw);
# by hand, hypothesis explores new examples on each run.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

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


@pytest.fixture(scope="session")
def browser() -> Iterator[Chromium]:
    """One headless Chromium for every browser test of the session."""
    binary = find_chromium()
    if binary is None:
        pytest.skip(f"no Chromium binary found (looked for $ASSAY_CHROMIUM and "
                    f"{', '.join(CANDIDATES)} on the PATH); install Debian's chromium to run the "
                    "browser tests")
    chromium = Chromium(binary)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def tab(browser: Chromium) -> Iterator[Tab]:
    page = browser.new_tab()
    try:
        yield page
    finally:
        page.close()
