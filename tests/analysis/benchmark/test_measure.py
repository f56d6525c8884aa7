"""The cost section's cluster sums are the same whatever batches the rows come in."""

from __future__ import annotations

import numpy as np
import pytest

from assay.analysis.benchmark._measure import MeasureAccumulator


def test_batches_add_up_to_one_pass_and_count_by_hand():
    cluster = np.array([0, 0, 1, 1, 1, 0])
    arm = np.array([0, 1, 0, 1, 1, 0])
    usd = np.array([0.5, np.nan, 0.25, 1.0, np.nan, 2.0])
    score = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    estimated = np.array([False, True, True, False, False, True])
    whole = MeasureAccumulator(2, 2, estimated=True)
    whole.add(cluster, arm, usd, score, estimated)
    parts = MeasureAccumulator(2, 2, estimated=True)
    for rows in (slice(0, 4), slice(4, 6)):
        parts.add(cluster[rows], arm[rows], usd[rows], score[rows], estimated[rows])
    a, b = whole.result(), parts.result()
    for name in ("total", "known_runs", "correct_runs", "n_unknown", "estimated"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # By hand: cluster 0 arm 0 knows 0.5 and 2.0 (both correct); arm 1's second run and
    # cluster 0 arm 1's only run are unknown; arm 0's estimated dollars are 0.25 + 2.0.
    np.testing.assert_array_equal(a.total, [[2.5, 0.0], [0.25, 1.0]])
    np.testing.assert_array_equal(a.known_runs, [[2, 0], [1, 1]])
    np.testing.assert_array_equal(a.correct_runs, [[2, 0], [0, 1]])
    np.testing.assert_array_equal(a.n_unknown, [0, 2])
    np.testing.assert_array_equal(a.estimated, [2.25, 0.0])
    np.testing.assert_array_equal(a.per_item(), [2.75 / 3, 1.0])


def test_an_accumulator_of_estimated_dollars_needs_the_flags():
    accumulator = MeasureAccumulator(1, 1, estimated=True)
    with pytest.raises(ValueError, match="pass the flags"):
        accumulator.add(np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1), np.ones(1))
