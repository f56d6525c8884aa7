"""Reading verdicts from text, Retry-After, jitter and the adaptive limit, as pure functions.

Oracles: json.dumps (the text a verdict came from), email.utils.formatdate (HTTP dates),
and values worked by hand.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from assay.llm import (
    AdaptiveLimiter,
    full_jitter,
    json_candidates,
    looks_like_refusal,
    parse_verdict,
    response_format,
    retry_after_seconds,
)
from tests.judge.conftest import PairwiseVerdict


class Optional_(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: int
    note: str = ""


def test_strict_only_when_every_field_is_required():
    assert response_format(PairwiseVerdict)["json_schema"]["strict"] is True
    assert response_format(Optional_)["json_schema"]["strict"] is False


@pytest.mark.parametrize("text, winner", [
    ('{"reasoning": "a", "winner": 1}', 1),
    ('Verdict:\n```json\n{"reasoning": "a", "winner": 2}\n```\nDone.', 2),
    ('I think {"reasoning": "b {braces} inside", "winner": 0} is fair.', 0),
    ('{"note": 1} then {"reasoning": "c", "winner": 2}', 2),
])
def test_verdict_is_found_in_text(text, winner):
    assert parse_verdict(text, PairwiseVerdict).verdict.winner == winner


@pytest.mark.parametrize("text, kind, fragment", [
    ("", "parse_error", "empty"),
    ('{"reasoning": "a", "winner": 3}', "parse_error", "winner"),
    ('{"reasoning": "a", "winner": 1, "extra": 0}', "parse_error", "extra"),
    ('{"reasoning": "a", "win', "parse_error", "no JSON object"),
    ("Answer 1 is better.", "parse_error", "no JSON object"),
    ("I'm sorry, but I can't evaluate this.", "refusal", "declined"),
    ("As an AI, I cannot take sides.", "refusal", "declined"),
])
def test_unusable_replies_say_why(text, kind, fragment):
    outcome = parse_verdict(text, PairwiseVerdict)
    assert outcome.verdict is None and outcome.failure_kind == kind and fragment in outcome.error


def test_refusal_words_need_no_json_and_a_leading_refusal():
    assert looks_like_refusal("Sorry, I cannot help.")
    assert not looks_like_refusal("Answer 2 is better; sorry to answer 1.")
    # A verdict whose reasoning apologises is still a verdict.
    text = '{"reasoning": "I am sorry to say answer 1 is weak", "winner": 2}'
    assert parse_verdict(text, PairwiseVerdict).verdict.winner == 2


prose = st.text(alphabet=st.characters(blacklist_characters="{}`", codec="utf-8"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(before=prose, after=prose, reasoning=st.text(max_size=30), winner=st.sampled_from([0, 1, 2]))
def test_any_verdict_wrapped_in_prose_is_recovered(before, after, reasoning, winner):
    verdict = PairwiseVerdict(reasoning=reasoning, winner=winner)
    text = f"{before}{json.dumps(verdict.model_dump())}{after}"
    assert parse_verdict(text, PairwiseVerdict).verdict == verdict


def test_json_candidates_skip_arrays_and_broken_objects():
    assert json_candidates('[1, 2] {"a": 1} {"b": ') == [{"a": 1}]


def test_retry_after_forms():
    assert retry_after_seconds({"Retry-After": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "0.5"}) == 0.5
    assert retry_after_seconds({"Retry-After": "3", "retry-after-ms": "120"}) == pytest.approx(0.12)
    now = 1_700_000_000.0
    ahead = email.utils.formatdate(now + 7, usegmt=True)
    assert retry_after_seconds({"Retry-After": ahead}, now=now) == pytest.approx(7.0)
    past = email.utils.formatdate(now - 60, usegmt=True)
    assert retry_after_seconds({"Retry-After": past}, now=now) == 0.0
    for bad in ({}, {"Retry-After": "-1"}, {"Retry-After": "tomorrow"}, {"retry-after-ms": "x"}):
        assert retry_after_seconds(bad) is None


def test_full_jitter_stays_under_the_exponential_cap():
    rng = random.Random(0)
    draws = [full_jitter(3, base=0.5, cap=60, rng=rng) for _ in range(2000)]
    # cap at attempt 3: min(60, 0.5 * 2**3) = 4; uniform draws fill [0, 4)
    assert 0 <= min(draws) < 0.05 and 3.95 < max(draws) <= 4.0
    assert max(full_jitter(20, base=0.5, cap=2.0, rng=rng) for _ in range(200)) <= 2.0


def test_adaptive_limit_halves_on_429_and_climbs_back():
    async def go():
        limiter = AdaptiveLimiter(8, cooldown_s=10.0)
        limiter.on_rate_limit(None)
        cut = limiter.limit
        limiter.on_rate_limit(None)  # within the cooldown: no second cut
        after = limiter.limit
        limiter.on_success()
        # additive increase: 4 + 1/4 = 4.25, then 4.25 + 1/4.25 = 4.4852941...
        one = limiter.limit
        limiter.on_success()
        return cut, after, one, limiter.limit

    cut, after, one, two = asyncio.run(go())
    assert (cut, after, one) == (4.0, 4.0, 4.25)
    assert two == pytest.approx(4.25 + 1 / 4.25, rel=1e-15)


def test_limiter_gate_holds_requests_until_retry_after():
    async def go():
        limiter = AdaptiveLimiter(2)
        loop = asyncio.get_running_loop()
        start = loop.time()
        limiter.on_rate_limit(0.15)
        await limiter.wait_gate()
        return loop.time() - start

    assert asyncio.run(go()) >= 0.15


def test_limiter_bounds_concurrent_holders():
    async def go():
        limiter = AdaptiveLimiter(3)
        active, peak = 0, 0

        async def hold():
            nonlocal active, peak
            async with limiter:
                active += 1
                peak = max(peak, active)
                await asyncio.sleep(0.005)
                active -= 1

        await asyncio.gather(*(hold() for _ in range(30)))
        return peak, limiter.max_in_flight

    assert asyncio.run(go()) == (3, 3)


def test_limiter_rejects_zero():
    with pytest.raises(ValueError, match="max_concurrency"):
        AdaptiveLimiter(0)


def test_limiter_serves_waiters_in_order_and_a_cancelled_waiter_frees_its_slot():
    async def go():
        limiter = AdaptiveLimiter(1)
        order: list[int] = []
        release = asyncio.Event()

        async def hold(n: int) -> None:
            async with limiter:
                order.append(n)
                if n == 0:
                    await release.wait()

        first = asyncio.create_task(hold(0))
        await asyncio.sleep(0)
        waiters = [asyncio.create_task(hold(n)) for n in (1, 2, 3)]
        await asyncio.sleep(0)
        waiters[0].cancel()  # waiting: leaves the queue without a slot
        release.set()
        await asyncio.gather(first, *waiters[1:])
        cancelled = waiters[0].cancelled()
        # a waiter woken with the slot and cancelled before it runs gives the slot back
        async with limiter:
            late = asyncio.create_task(hold(9))
            await asyncio.sleep(0)
        late.cancel()  # woken (slot handed over) but not yet run
        await asyncio.gather(late, return_exceptions=True)
        return order, cancelled, limiter.in_flight, limiter.max_in_flight

    order, cancelled, in_flight, peak = asyncio.run(go())
    assert order == [0, 2, 3] and cancelled
    assert in_flight == 0 and peak == 1
