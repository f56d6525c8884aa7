"""Offline metric judges against hand-worked values and a brute-force LCS oracle."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.judge.judges import bleu, exact_match, lcs_length, normalize_answer, rouge_l, token_f1


def test_normalisation_drops_case_punctuation_and_articles():
    assert normalize_answer("An Apple, the PEAR; a fig.") == "apple pear fig"


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        ("Paris", "paris!", 1.0),  # normalised both are "paris"
        ("The Paris", "Paris", 1.0),  # the article goes
        ("Paris, France", "Paris", 0.0),
        ("", "", 1.0),
    ],
)
def test_exact_match(prediction, reference, expected):
    assert exact_match(prediction, reference) == expected


def test_token_f1_hand_worked():
    # prediction tokens: cat sat on mat (4); reference: cat on mat (3); common 3
    # P = 3/4, R = 3/3, F1 = 2 * 0.75 * 1 / 1.75 = 6/7
    assert_allclose(token_f1("The cat sat on the mat.", "A cat on a mat"), 6 / 7, rtol=1e-15)
    # repeated tokens count as a multiset: pred "a a a b" -> "b" after dropping articles... use digits
    # pred 1 1 2 (3 tokens), ref 1 2 2 (3): common min(2,1) + min(1,2) = 2 -> F1 = 4/6
    assert_allclose(token_f1("1 1 2", "1 2 2"), 2 / 3, rtol=1e-15)
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("", "cat") == 0.0 and token_f1("the", "a") == 1.0  # both empty after normalising


def test_rouge_l_hand_worked():
    # pred: police killed the gunman (4); ref: police kill the gunman (4); LCS police the gunman = 3
    # P = R = 3/4, F = 3/4 (Lin 2004's example, without stemming)
    assert_allclose(rouge_l("police killed the gunman", "police kill the gunman"), 0.75, rtol=1e-15)
    # pred: the gunman kill police (4) vs the same ref: LCS "the gunman" = 2 -> F = 1/2
    assert_allclose(rouge_l("the gunman kill police", "police kill the gunman"), 0.5, rtol=1e-15)
    # 7 vs 6 tokens, LCS 6: P = 6/7, R = 1, F = 2 (6/7) / (13/7) = 12/13
    assert_allclose(
        rouge_l("the cat was found under the bed", "the cat was under the bed"), 12 / 13, rtol=1e-15
    )
    assert rouge_l("", "cat") == 0.0 and rouge_l("dog", "cat") == 0.0


def _lcs_brute(a: list[str], b: list[str]) -> int:
    """Oracle: the longest subsequence of a that is also a subsequence of b, by enumeration."""

    def is_subsequence(sub: tuple[str, ...], seq: list[str]) -> bool:
        it = iter(seq)
        return all(any(x == y for y in it) for x in sub)

    for k in range(len(a), 0, -1):
        if any(is_subsequence(sub, b) for sub in combinations(a, k)):
            return k
    return 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=7), st.lists(st.sampled_from("abcd"), max_size=7))
def test_lcs_matches_brute_force(a, b):
    assert lcs_length(a, b) == _lcs_brute(a, b)
    assert lcs_length(a, b) == lcs_length(b, a)


def test_bleu_identity_and_disjoint():
    assert_allclose(bleu("the cat sat on the mat", "The cat sat on the mat"), 1.0, rtol=1e-12)
    assert bleu("alpha beta", "gamma delta") == 0.0


def test_bleu_hand_worked_unigram_brevity():
    # hypothesis "the cat" vs reference "the cat sat": p1 = 2/2, p2 = 1/1 (effective order 2),
    # brevity penalty exp(1 - 3/2) = e^-0.5, BLEU = e^-0.5 * sqrt(1 * 1)
    assert_allclose(bleu("the cat", "the cat sat"), 0.6065306597126334, rtol=1e-12)
