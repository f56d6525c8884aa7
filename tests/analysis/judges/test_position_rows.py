"""The rows behind a judge's flip count: ``trial_pair_flips`` marks the judgments of each
trial pair ``position_records`` counts, with the same pairing and the same flip."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal

from assay.analysis.judges import position_records, trial_pair_flips


def _row(item, arm, opp, run, pos, score, cluster, judge="J"):
    return {"item": item, "cluster": cluster, "arm": arm, "opponent": opp, "run": run,
            "position": pos, "judge": judge, "criterion": "pref", "score": score}


def test_each_row_is_marked_with_its_trial_pairs_flip():
    # the hand-worked case of test_judge_report's flip-rate test: i1 runs 1-2 flip (run 1
    # stored from both sides), runs 3-4 do not; i2 (stored from B's side) runs 1-2 flip
    # (win vs tie), 3-4 do not; i3 run 2 failed, so runs 1-2 are no pair; 3-4 do not flip.
    # Judge K's scores are not pairwise verdicts (7): no pair of it is counted.
    frame = pd.DataFrame([
        _row("i1", "A", "B", 1, 1, 1.0, "c1"), _row("i1", "B", "A", 1, 2, 0.0, "c1"),
        _row("i1", "A", "B", 2, 2, 0.0, "c1"), _row("i1", "A", "B", 3, 1, 1.0, "c1"),
        _row("i1", "A", "B", 4, 2, 1.0, "c1"),
        _row("i2", "B", "A", 1, 2, 0.0, "c1"), _row("i2", "B", "A", 2, 1, 0.5, "c1"),
        _row("i2", "B", "A", 3, 2, 0.0, "c1"), _row("i2", "B", "A", 4, 1, 0.0, "c1"),
        _row("i3", "A", "B", 1, 1, 0.5, "c2"), _row("i3", "A", "B", 2, 2, None, "c2"),
        _row("i3", "A", "B", 3, 1, 0.0, "c2"), _row("i3", "A", "B", 4, 2, 0.0, "c2"),
        _row("i1", "A", "B", 1, 1, 7.0, "c1", judge="K"), _row("i1", "A", "B", 2, 2, 0.0, "c1", "K"),
        {**_row("i9", "A", None, 1, None, 1.0, "c1")},
    ]).sample(frac=1.0, random_state=3)  # any row order
    frame["pair_value"] = frame["score"]
    marks = trial_pair_flips(frame).sort_index()
    nan = np.nan
    assert_array_equal(marks.to_numpy(), [1, 1, 1, 0, 0, 1, 1, 0, 0, nan, nan, 0, 0, nan, nan, nan])
    (record,) = position_records(frame, conf=0.95, notes=[])
    assert record.n_flips == 2 and record.n == 5
