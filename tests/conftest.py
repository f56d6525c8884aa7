"""Shared fixtures: paths to the real evaluation data in ../shared/data when present."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.report.html._cdp import CANDIDATES, Chromium, Tab, find_chromium

# CI runs the same examples every time (a red CI then means the change, not the draw);
# by hand, hypothesis explores new examples on each run.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The default run (``pytest``, or folders) is spread over one worker per core with
    pytest-xdist, a test file per worker at a time (``--dist loadfile``: a module's fixtures are
    built once). ``-n N`` chooses the workers, ``-n 0`` or ``-p no:xdist`` runs in one process;
    a run of named files or tests stays in one process (workers would cost more than they save).
    """
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is not None or config.option.tx or config.option.usepdb:
        return
    if config.option.collectonly or any(not Path(arg.split("::")[0]).is_dir()
                                        for arg in config.args):
        return
    workers = int(config.hook.pytest_xdist_auto_num_workers(config=config))
    if workers < 2:
        return
    config.option.numprocesses = workers
    if config.option.dist == "no":
        config.option.dist = "loadfile"
    config.option.tx = ["popen"] * workers
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
def demo_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's simulated run folder (seed 7), written once per session (per worker under
    pytest -n) for every test and fixture that reads it. Read only: copy it to change it."""
    from assay.demo.simulate import simulate_evaluation

    folder = tmp_path_factory.mktemp("demo-example") / "example"
    simulate_evaluation(folder, seed=7)
    return folder


@pytest.fixture(scope="session")
def demo_table(demo_example: Path) -> Any:
    """The judgments of :func:`demo_example`, loaded once. Read only, like every shared table."""
    import assay

    return assay.load(demo_example)


@pytest.fixture(scope="session")
def demo_table_five_judges(demo_table: Any) -> Any:
    """:func:`demo_table` without the biased judge and the human labels the demo gained for
    the human-calibrated estimates (``assay.demo._humans``): the five judges whose figures
    the analyses' tests quote (one criterion judged on run 1 only, or by humans, would
    change what they enumerate, not what they check). Read only."""
    from dataclasses import replace

    from assay.demo._humans import ADDED_JUDGES

    frame = demo_table.frame
    return replace(demo_table, frame=frame[~frame["judge"].isin(ADDED_JUDGES)]
                   .reset_index(drop=True))


@dataclass(frozen=True)
class DemoRun:
    result: subprocess.CompletedProcess[str]
    out: Path
    """The folder given to ``--out``."""


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``assay demo --out DIR`` of this tree, run once per session (per worker) for every test
    that reads its output: the command-line tests, and the viewer's over the demo's pages
    (about 20 s). Its index goes to a cache folder of its own. Read only."""
    from tests.cli._subprocess import run_assay

    root = tmp_path_factory.mktemp("cli-demo")
    out = root / "demo"
    return DemoRun(run_assay("demo", "--out", str(out), ASSAY_CACHE_DIR=str(root / "cache")), out)


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

