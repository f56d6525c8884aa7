"""score_expectation (G-Eval's score): hand-worked values."""

from __future__ import annotations

import math

import pytest

from assay.stats import score_expectation


def test_hand_worked_expectation_renormalised_over_valid_tokens():
    # Table for one position: "3" 0.5, "4" 0.3, "5" 0.1, and a non-score token 0.1 left out.
    # mass = 0.9; estimate = (3 * 0.5 + 4 * 0.3 + 5 * 0.1) / 0.9 = (1.5 + 1.2 + 0.5) / 0.9
    # = 3.2 / 0.9 = 3.5555...
    lp = [-math.inf, -math.inf, math.log(0.5), math.log(0.3), math.log(0.1)]
    r = score_expectation([1, 2, 3, 4, 5], lp)
    assert r.estimate == pytest.approx(3.2 / 0.9, rel=1e-12)
    assert r.mass == pytest.approx(0.9, rel=1e-12) and r.n == 3


def test_one_token_and_none():
    assert score_expectation([1, 2, 3], [-math.inf, 0.0, -math.inf]).estimate == 2.0
    empty = score_expectation([1, 2], [-math.inf, -math.inf])
    assert math.isnan(empty.estimate) and empty.mass == 0.0 and empty.n == 0


def test_tiny_probabilities_do_not_underflow():
    # both at log p = -800 (exp underflows to 0): equal weights, estimate 1.5
    assert score_expectation([1, 2], [-800.0, -800.0]).estimate == pytest.approx(1.5)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="logprobs"):
        score_expectation([1, 2], [0.5, -1.0])
    with pytest.raises(ValueError, match="one value per score"):
        score_expectation([1, 2], [-1.0])
