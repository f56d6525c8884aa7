"""The client against the stand-in server: retries, Retry-After, faults, structured output, cost.

Oracles: the server's own counters and clocks (requests received, arrival times, the most
requests it held at once, the bodies it got), and token counts and prices worked by hand
from the server's documented rule (ceil(characters / 4)).
"""

from __future__ import annotations

import asyncio
import json
import math
import time

import pytest

from assay.judge import ChatRequest, CostLimitExceeded, FatalAPIError, Price
from tests.judge.conftest import PairwiseVerdict, ScoreVerdict, score_requests


def ask(client, request):
    async def go():
        async with client:
            return await client.complete(request)
    return asyncio.run(go())


def ask_all(client, requests):
    async def go():
        async with client:
            return await asyncio.gather(*(client.complete(r) for r in requests))
    return asyncio.run(go())


REQ = score_requests(1)[0]


def test_good_reply_is_validated_and_priced_from_reported_usage(server, make_client):
    reply = ask(make_client(), REQ)
    assert reply.ok and isinstance(reply.verdict, ScoreVerdict)
    assert reply.text == json.dumps(reply.verdict.model_dump())
    # The server counts ceil(chars / 4) of the message contents joined by two newlines,
    # and of the content it sends back; the price is 2.5 $/M in and 10 $/M out.
    prompt = "\n\n".join(text for _, text in REQ.messages)
    p, c = math.ceil(len(prompt) / 4), math.ceil(len(reply.text) / 4)
    assert (reply.tokens_in, reply.tokens_out) == (p, c)
    assert reply.usd == pytest.approx((2.5 * p + 10.0 * c) / 1e6, rel=1e-12)
    assert reply.usd_provenance == "reported" and reply.attempts == 1 and not reply.cached
    assert server.stats.requests == 1


def test_missing_usage_is_estimated_from_characters(server, make_client):
    server.configure(script=["no_usage"])
    reply = ask(make_client(), REQ)
    assert reply.ok and reply.usd_provenance == "estimated"
    # What the client sent: the two messages and the JSON schema it put in response_format.
    sent = sum(len(t) for _, t in REQ.messages) + len(str(ScoreVerdict.model_json_schema()))
    assert reply.tokens_in == math.ceil(sent / 4)
    assert reply.tokens_out == math.ceil(len(reply.text) / 4)


def test_retry_after_seconds_is_honoured(server, make_client):
    server.configure(script=["rate_limit", "ok"], retry_after="1")
    reply = ask(make_client(), REQ)
    assert reply.ok and reply.attempts == 2
    gap = server.stats.arrivals[1] - server.stats.arrivals[0]
    assert 1.0 <= gap < 1.6


def test_retry_after_http_date_is_honoured(server, make_client):
    server.configure(script=["rate_limit", "ok"], retry_after="http-date+2")
    reply = ask(make_client(), REQ)
    assert reply.ok
    first, second = server.stats.arrivals[:2]
    # The date has whole seconds: the retry must not come before it, nor much after.
    date = math.floor(first + 2)
    assert date <= second + 0.01 and second - first < 2.6


def test_retry_after_ms_takes_precedence(server, make_client):
    server.configure(script=["rate_limit", "ok"], retry_after="30", retry_after_ms=200)
    reply = ask(make_client(), REQ)
    gap = server.stats.arrivals[1] - server.stats.arrivals[0]
    assert reply.ok and 0.2 <= gap < 0.8


def test_server_errors_are_retried_a_bounded_number_of_times(server, make_client):
    server.configure(rates={"server_error": 1.0})
    reply = ask(make_client(max_retries=3), REQ)
    assert reply.failure_kind == "api_error" and "500" in reply.error
    assert server.stats.requests == 4 and reply.attempts == 4
    assert reply.usd is None and reply.usd_provenance is None  # nothing came back, nothing billed


def test_hangs_time_out_and_are_retried(server, make_client):
    server.configure(script=["hang", "hang", "ok"])
    start = time.monotonic()
    reply = ask(make_client(timeout_s=0.3), REQ)
    assert reply.ok and reply.attempts == 3
    assert time.monotonic() - start >= 0.6

    server.reset()
    server.configure(rates={"hang": 1.0})
    reply = ask(make_client(timeout_s=0.2, max_retries=1), REQ)
    assert reply.failure_kind == "timeout" and server.stats.requests == 2


def test_malformed_body_is_retried(server, make_client):
    server.configure(script=["malformed_body", "ok"])
    reply = ask(make_client(), REQ)
    assert reply.ok and reply.attempts == 2 and server.stats.requests == 2


def test_truncated_json_is_asked_again_with_what_was_wrong(server, make_client):
    server.configure(script=["truncated", "ok"], record_bodies=True)
    reply = ask(make_client(), REQ)
    assert reply.ok and server.stats.requests == 2
    second = server.stats.bodies[1]["messages"]
    assert second[:2] == [{"role": r, "content": t} for r, t in REQ.messages]
    assert second[2]["role"] == "assistant" and second[3]["role"] == "user"
    assert "could not be used" in second[3]["content"]


def test_off_schema_replies_end_as_parse_error_after_the_bound(server, make_client):
    server.configure(rates={"off_schema": 1.0})
    reply = ask(make_client(max_parse_retries=2), REQ)
    assert reply.failure_kind == "parse_error" and reply.verdict is None
    assert "Field required" in reply.error or "Extra inputs" in reply.error
    assert server.stats.requests == 3 and reply.attempts == 3
    assert reply.tokens_in > 0 and reply.usd > 0  # three paid replies


@pytest.mark.parametrize("fault", ["refusal", "refusal_text"])
def test_refusals_are_refusals_and_not_asked_again(server, make_client, fault):
    server.configure(rates={fault: 1.0})
    reply = ask(make_client(), REQ)
    assert reply.failure_kind == "refusal" and reply.verdict is None
    assert "can't help" in reply.text and server.stats.requests == 1


def test_json_schema_is_sent_strict_when_the_model_allows(server, make_client):
    server.configure(record_bodies=True)
    request = ChatRequest(key="p1", messages=(("user", "Which answer is better?"),),
                          response_model=PairwiseVerdict)
    client = make_client()
    reply = ask(client, request)
    rf = server.stats.bodies[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["schema"] == PairwiseVerdict.model_json_schema()
    assert reply.verdict.winner in (0, 1, 2) and client.structured_output is True


def test_server_without_json_schema_falls_back_to_text_once(server, make_client):
    server.configure(json_schema=False, record_bodies=True)
    client = make_client(max_concurrency=1)
    first, second = ask_all(client, score_requests(2))
    assert first.ok and second.ok and client.structured_output is False
    # The first request was refused (400) and sent again as text; the second went as text.
    assert server.stats.requests == 3
    bodies = server.stats.bodies
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    assert "response_format" not in bodies[2]
    assert "```json" in bodies[1]["messages"][-1]["content"]
    assert first.text.startswith("Here is my verdict.")  # JSON found inside prose


def test_json_schema_only_mode_does_not_fall_back(server, make_client):
    server.configure(json_schema=False)
    reply = ask(make_client(structured_output="json_schema"), REQ)
    assert reply.failure_kind == "api_error" and "400" in reply.error
    assert server.stats.requests == 1


def test_in_flight_never_exceeds_max_concurrency(server, make_client):
    server.configure(latency_s=0.02, jitter_s=0.01)
    for limit in (1, 5):
        server.reset(server.behaviour)
        client = make_client(max_concurrency=limit)
        replies = ask_all(client, score_requests(60, prefix=f"c{limit}-"))
        assert all(r.ok for r in replies)
        assert server.stats.max_in_flight == limit  # reached, never passed
        assert client.max_in_flight == limit


def test_identical_requests_in_flight_are_sent_once(server, make_client):
    server.configure(latency_s=0.05)
    base = score_requests(1)[0]
    copies = [ChatRequest(key=f"copy{i}", messages=base.messages, response_model=ScoreVerdict)
              for i in range(10)]
    client = make_client()
    replies = ask_all(client, copies)
    assert server.stats.requests == 1
    assert [r.key for r in replies] == [c.key for c in copies]
    assert len({r.text for r in replies}) == 1
    assert sum(not r.cached for r in replies) == 1 and client.stats.shared == 9


def test_sample_number_keeps_identical_prompts_apart(server, make_client):
    base = score_requests(1)[0]
    trials = [ChatRequest(key=f"t{i}", messages=base.messages, response_model=ScoreVerdict, sample=i)
              for i in range(3)]
    ask_all(make_client(), trials)
    assert server.stats.requests == 3


def test_unauthorised_is_fatal(server, make_client):
    server.configure(rates={"unauthorized": 1.0})
    with pytest.raises(FatalAPIError, match="401"):
        ask(make_client(), REQ)
    assert server.stats.requests == 1


def test_out_of_quota_is_fatal_not_retried(server, make_client):
    server.configure(rates={"quota": 1.0})
    with pytest.raises(FatalAPIError, match="quota"):
        ask(make_client(), REQ)
    assert server.stats.requests == 1


def test_cost_limit_stops_new_requests(server, make_client):
    client = make_client(max_concurrency=1, cost_limit_usd=1e-9, prices={"*": Price(input=1, output=1)})

    async def go():
        async with client:
            first = await client.complete(REQ)
            with pytest.raises(CostLimitExceeded):
                await client.complete(score_requests(2)[1])
            return first

    assert asyncio.run(go()).ok and server.stats.requests == 1


def test_missing_key_variable_is_a_config_error(make_client, monkeypatch):
    from assay.errors import ConfigError

    monkeypatch.delenv("ASSAY_TEST_NO_SUCH_KEY", raising=False)
    with pytest.raises(ConfigError, match="ASSAY_TEST_NO_SUCH_KEY"):
        make_client(api_key_env="ASSAY_TEST_NO_SUCH_KEY")
    with pytest.raises(ConfigError, match="price"):
        make_client(cost_limit_usd=1.0, prices={})


def test_reserved_parameters_are_refused(make_client):
    request = ChatRequest(key="r", messages=(("user", "x"),), params={"response_format": {}})
    with pytest.raises(ValueError, match="response_format"):
        ask(make_client(), request)
