"""Sentence BLEU and mean pairwise BLEU: sacreBLEU's published test vectors, hand-worked values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.stats.bleu import bleu_from_counts, mean_pairwise_bleu, sentence_bleu

# --- sacreBLEU's published test vectors (github.com/mjpost/sacrebleu, test/test_sentence_bleu.py
# and test/test_bleu.py), written out here; sacreBLEU reports 0-100, assay 0-1. -------------------

# Issue #98 example. sacreBLEU's default tokeniser '13a' splits the final ';' off; the strings
# below are that tokenisation written out, so whitespace splitting reproduces it.
REF_98_13A = "producţia de zahăr brut se exprimă în zahăr alb ;"
SYS_98_13A = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb ;"
REF_98 = "producţia de zahăr brut se exprimă în zahăr alb;"
SYS_98 = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"


@pytest.mark.parametrize(("smooth", "value", "expected"), [
    ("exp", None, 8.493), ("none", None, 0.0), ("floor", None, 4.51688), ("floor", 0.1, 4.51688),
    ("floor", 0.5, 10.10), ("add-k", None, 14.882), ("add-k", 1, 14.882), ("add-k", 2, 21.389)])
def test_sacrebleu_sentence_vectors_13a(smooth: str, value: float | None, expected: float) -> None:
    res = sentence_bleu(SYS_98_13A, [REF_98_13A], smooth=smooth, smooth_value=value)  # type: ignore[arg-type]
    assert abs(100 * res.score - expected) < 1e-3


def test_sacrebleu_sentence_vector_no_tokeniser() -> None:
    # sacreBLEU tokenize='none', smooth 'exp': 7.347
    assert abs(100 * sentence_bleu(SYS_98, [REF_98], smooth="exp").score - 7.347) < 1e-3


@pytest.mark.parametrize("smooth", ["exp", "none", "floor", "add-k"])
def test_sacrebleu_zero_bleu_vector(smooth: str) -> None:
    # issue #141: no n-gram in common gives 0 whatever the smoothing
    assert sentence_bleu("this is a cat", ["okay thanks"], smooth=smooth).score == 0.0  # type: ignore[arg-type]


def test_sacrebleu_statistics_and_offset_vector() -> None:
    res = sentence_bleu("am I am a character sequence", ["I am a symbol string sequence a a"])
    assert res.matches == (4, 2, 1, 0)
    assert res.totals == (6, 5, 4, 3)
    assert_allclose(res.score, 0.1555722182, atol=1e-8)  # floor 0.1
    assert sentence_bleu("am I am a character sequence", ["I am a symbol string sequence a a"],
                         smooth_value=0.0).score == 0.0


@pytest.mark.parametrize(("hyp", "ref", "expected"), [
    ("test", "a test", 0.3678794411714425), ("a test", "a test", 1.0),
    ("a little test", "a test", 0.03218297948685433), ("this is a test", "this is a test", 1.0),
    ("this is a fest", "this is a test", 0.223606797749979)])
def test_sacrebleu_effective_order_and_raw_vectors(hyp: str, ref: str, expected: float) -> None:
    # sacreBLEU's raw_corpus_bleu: floor smoothing 0.01, effective order, no tokeniser
    assert_allclose(sentence_bleu(hyp, [ref], smooth_value=0.01).score, expected, atol=1e-8)


def test_sacrebleu_scoring_vector() -> None:
    assert_allclose(bleu_from_counts([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score, 0.8375922397,
                    atol=1e-8)


@pytest.mark.parametrize(("matches", "totals", "hyp_len", "ref_len", "offset"), [
    ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0), ([0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0), ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.1), ([0, 0, 0, 0], [0, 0, 0, 0], 1, 5, 0.01)])
def test_sacrebleu_degenerate_statistics(matches: list[int], totals: list[int], hyp_len: int,
                                         ref_len: int, offset: float) -> None:
    # sacreBLEU's test_degenerate_statistics: all 0 with floor smoothing
    assert bleu_from_counts(matches, totals, hyp_len, ref_len, smooth="floor",
                            smooth_value=offset).score == 0.0


# --- hand-worked values --------------------------------------------------------------------------

def test_hand_worked_cat_on_mat() -> None:
    # hyp "the cat sat on the mat", ref "the cat is on the mat" (6 tokens each, BP = 1):
    # 1-grams: the x2, cat, on, mat match -> 5/6; 2-grams: the cat, on the, the mat -> 3/5;
    # 3-grams: on the mat -> 1/4; 4-grams: none of 3 -> floor 0.1/3 = 1/30.
    # BLEU = (5/6 * 3/5 * 1/4 * 1/30)^(1/4) = (1/240)^(1/4) = 0.2540663...
    res = sentence_bleu("the cat sat on the mat", ["the cat is on the mat"])
    assert res.matches == (5, 3, 1, 0)
    assert_allclose(res.score, 240 ** -0.25, rtol=1e-12)
    # exp smoothing: the first zero order gets 1/(2 * 3) -> (1/8 * 1/6)^(1/4) = 48^(-1/4)
    assert_allclose(sentence_bleu("the cat sat on the mat", ["the cat is on the mat"],
                                  smooth="exp").score, 48 ** -0.25, rtol=1e-12)
    # add-k (k = 1, orders >= 2): (5/6 * 4/6 * 2/5 * 1/4)^(1/4) = (1/18)^(1/4)
    assert_allclose(sentence_bleu("the cat sat on the mat", ["the cat is on the mat"],
                                  smooth="add-k").score, 18 ** -0.25, rtol=1e-12)


def test_hand_worked_multi_reference_clipping() -> None:
    # hyp "the the the"; refs "the cat" and "the the dog": "the" clips at 2 (its largest count in
    # one reference) -> 2/3; "the the" x2 clips at 1 -> 1/2; "the the the" -> floor 0.1/1;
    # no 4-grams, so effective order 3; closest reference length 3 -> BP 1.
    res = sentence_bleu("the the the", ["the cat", "the the dog"])
    assert res.matches == (2, 1, 0, 0)
    assert res.order == 3
    assert_allclose(res.score, (2 / 3 * 1 / 2 * 0.1) ** (1 / 3), rtol=1e-12)


def test_closest_reference_length_tie_takes_the_shorter() -> None:
    # c = 3, references of length 2 and 4 are both 1 away: r = 2, so BP = 1 (c > r)
    res = sentence_bleu("a b c", ["a b", "a b c d"])
    assert res.ref_len == 2
    assert res.brevity_penalty == 1.0
    # a hypothesis of 2 against a reference of 4: BP = exp(1 - 4/2)
    assert_allclose(sentence_bleu("a b", ["a b c d"]).brevity_penalty, math.exp(-1.0))


def test_without_effective_order_a_short_hypothesis_scores_zero() -> None:
    assert sentence_bleu("a test", ["a test"], effective_order=False).score == 0.0
    assert sentence_bleu("a test", ["a test"]).score == 1.0


def test_lowercase_and_token_lists() -> None:
    assert sentence_bleu("The Cat", ["the cat"]).score < 1.0
    assert sentence_bleu("The Cat", ["the cat"], lowercase=True).score == 1.0
    assert sentence_bleu(["the", "cat"], [["the", "cat"]]).score == 1.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"smooth": "bogus"}, "smooth"), ({"max_order": 0}, "max_order"),
    ({"smooth_value": -1.0}, "smooth_value")])
def test_bad_options_raise(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sentence_bleu("a b", ["a b"], **kwargs)  # type: ignore[arg-type]


def test_bad_counts_raise() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        bleu_from_counts([2], [1], 1, 1)
    with pytest.raises(ValueError, match="length"):
        bleu_from_counts([1, 0], [1], 1, 1)
    with pytest.raises(ValueError, match="references"):
        sentence_bleu("a", [])


# --- mean pairwise BLEU (surface bias) -----------------------------------------------------------

def test_mean_pairwise_is_the_mean_over_ordered_pairs_of_sentence_bleu() -> None:
    texts = ["the cat sat on the mat", "the cat is on the mat", "a dog ran in the park today"]
    expected = [sentence_bleu(texts[i].lower(), [texts[j].lower()]).score
                for i in range(3) for j in range(3) if i != j]
    res = mean_pairwise_bleu(texts)
    assert res.n_pairs == 6 and res.n_pairs_total == 6 and res.method == "all_pairs"
    assert_allclose(res.estimate, sum(expected) / 6, rtol=1e-12)


def test_mean_pairwise_hand_worked() -> None:
    # "a b c" vs "a b": matches 2, 1; as hypothesis "a b c" (3 tokens): p = 2/3, 1/2, and 0 -> 0.1/1
    # with effective order 3, BP 1: (1/30)^(1/3). As hypothesis "a b" (2 tokens, ref 3):
    # p = 1, 1 -> 1, BP = exp(1 - 3/2). Mean of the two.
    res = mean_pairwise_bleu(["a b c", "a b"])
    assert_allclose(res.estimate, ((1 / 30) ** (1 / 3) + math.exp(-0.5)) / 2, rtol=1e-12)


def test_identical_texts_have_surface_bias_one_and_too_few_texts_nan() -> None:
    assert mean_pairwise_bleu(["same words here", "same words here"]).estimate == 1.0
    res = mean_pairwise_bleu(["only one"])
    assert math.isnan(res.estimate) and res.n_pairs == 0


def test_sampled_pairs_are_seeded() -> None:
    texts = [f"prompt number {i} about topic {i % 3}" for i in range(12)]
    a = mean_pairwise_bleu(texts, max_pairs=10, rng=5)
    b = mean_pairwise_bleu(texts, max_pairs=10, rng=5)
    assert a == b
    assert a.method == "sampled_pairs" and a.n_pairs == 20 and a.n_pairs_total == 132
    with pytest.raises(ValueError, match="rng"):
        mean_pairwise_bleu(texts, max_pairs=10)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=7),
                min_size=2, max_size=6), st.randoms())
def test_mean_pairwise_does_not_depend_on_order(texts: list[list[str]], rnd: object) -> None:
    shuffled = list(texts)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert_allclose(mean_pairwise_bleu(shuffled).estimate, mean_pairwise_bleu(texts).estimate,
                    rtol=1e-12, atol=1e-15)
    assert 0.0 <= mean_pairwise_bleu(texts).estimate <= 1.0
