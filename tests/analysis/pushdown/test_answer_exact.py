"""The engine's answer is the pandas answer to the last bit on tables that stress how the
question means are grouped and joined: systems that answered different questions, rows in
shuffled order (a different first appearance per system), weights, failures, a dev split,
several judges and criteria sharing the same answers (each answer's dollars counted once) and
pairwise rows (left out by the engine, named)."""

from __future__ import annotations

import numpy as np
import pytest

import assay
from assay.analysis.answer import answer
from assay.analysis.pushdown import engine_answer, open_table
from tests.analysis.pushdown._tables import SCALES, assert_same, rich_table, write


def _ragged(seed: int, *, weighted: bool, shuffled: bool, single: bool = False):
    """rich_table with a sixth of the questions of two systems gone (every row of them: the
    questions a system never answered), with ``shuffled`` the rows in random order, with
    ``weighted`` a weight per row; with ``single`` one judge's one criterion alone (a row per
    answer, as a benchmark export has), its dev split kept."""
    frame = rich_table(seed=seed, n_items=90, runs=3)
    if single:
        frame = frame[frame["criterion"] == "correct"].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    dropped = {(f"q{i}", arm) for arm in ("mid", "zeta") for i in range(90) if rng.random() < 1 / 6}
    gone = np.array([key in dropped for key in zip(frame["item"], frame["arm"], strict=True)])
    frame = frame[~gone].reset_index(drop=True)
    if shuffled:
        frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if weighted:  # win rates do not weight rows: the pairwise rows go
        frame = frame[frame["opponent"].isna()].reset_index(drop=True)
        frame["weight"] = rng.choice([1.0, 0.5, 3.0], len(frame))
    return frame


@pytest.mark.parametrize(("fmt", "weighted", "shuffled", "single"), [
    ("parquet", False, False, False), ("parquet", False, True, False),
    ("parquet", True, True, False), ("folder", False, False, False),
    ("folder", True, False, False),  # pandas reads a folder's files apart: not shuffled
    ("parquet", False, True, True), ("folder", True, False, True)])
def test_ragged_shuffled_tables_get_the_pandas_answer_exactly(weighted, shuffled, single, fmt,
                                                               tmp_path):
    frame = _ragged(5, weighted=weighted, shuffled=shuffled, single=single)
    path = write(frame, tmp_path, fmt)
    made = engine_answer(open_table(path, scales=SCALES)).to_dict()
    expected = answer(assay.load(path, scales=SCALES)).to_dict()
    reportable = frame["split"] != "dev"
    pairwise = int((frame["opponent"].notna() & reportable).sum())
    assert made["left_out"] == ([
        f"the win rates and position flips of {pairwise} pairwise judgments (rows with an "
        "opponent): made by the pandas engine only (--engine pandas)"] if pairwise else [])
    # what the engine leaves out, named above, taken out of the pandas answer
    expected["verdicts"] = [v for v in expected["verdicts"] if v["criterion"] != "pref"]
    expected["trust"] = [t for t in expected["trust"] if t["check"] == "failures"]
    expected["notes"] = [n for n in expected["notes"] if "pairwise" not in n
                         and not n.startswith("position:")]
    assert [v["criterion"] for v in made["verdicts"]] == ["correct"] + ["quality"] * (not single)
    assert {len(v["pairs"]) for v in made["verdicts"]} == {3}
    assert made["spend"]["systems"] and made["n_judgments"] == int(reportable.sum())
    # the dollars are summed by DuckDB in its own order; every other number to the last bit
    assert_same(made.pop("spend"), expected.pop("spend"), rel=1e-12)
    assert_same({**made, "left_out": []}, expected, rel=0.0)
