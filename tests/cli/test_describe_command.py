"""``assay describe CONFIG``: the plan before money, as text and as one HTML page.

Expected figures are worked by hand from the fixture: 3 questions x 2 criteria x 2 trials
= 12 pairwise judgments, one call each; 250 tokens out a call; $2.50 / $10 per million
tokens in / out; 4 requests in flight.
"""

from __future__ import annotations

import re

from tests.cli._judge_helpers import run, write_config


def _describe(*argv: str) -> int:
    return run(["describe", *map(str, argv)])


def test_describe_prints_calls_tokens_cost_and_time(tmp_path, capsys):
    config = write_config(tmp_path, "http://127.0.0.1:9/v1")  # nothing listens: nothing is sent
    assert _describe(config, "--seconds-per-call", "60") == 0
    out = capsys.readouterr().out
    assert "2 systems (short, long), 3 items, 6 answers to judge" in out
    model = re.search(r"^  judge-model\s+(\d+)\s+([\d,]+)\s+([\d,]+)\s+\$([\d.]+)$", out, re.M)
    assert model is not None, out
    calls, tokens_in, tokens_out, usd = (int(model[1]), int(model[2].replace(",", "")),
                                          int(model[3].replace(",", "")), float(model[4]))
    assert (calls, tokens_out) == (12, 12 * 250)
    assert tokens_in > 0
    # the cost is the price times the estimated tokens (to the 4 decimals printed)
    assert abs(usd - (tokens_in * 2.5 + tokens_out * 10.0) / 1e6) < 5e-5
    # 12 calls x 60 s / 4 in flight = 180 s
    assert "Time: about 3 min at 4 requests in flight and 60 s a request" in out


def test_describe_names_an_unknown_cost_and_never_prints_zero(tmp_path, capsys):
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", prices={})
    assert _describe(config) == 0
    out = capsys.readouterr().out
    assert "estimated cost unknown: judge-model has no price in the config" in out
    assert "$0.0000" not in out


def test_describe_runs_the_checks_of_the_run(tmp_path, capsys):
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", prices={}, cost_limit_usd=5.0)
    assert _describe(config) == 2
    assert "cost_limit_usd needs a price" in capsys.readouterr().err


def test_describe_refuses_a_non_positive_time_per_call(tmp_path, capsys):
    config = write_config(tmp_path, "http://127.0.0.1:9/v1")
    assert _describe(config, "--seconds-per-call", "0") == 2
    assert "--seconds-per-call" in capsys.readouterr().err


def test_describe_writes_one_html_page_that_opens_offline(tmp_path, capsys, tab):
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", judges=[
        {"kind": "pairwise", "base": "short", "others": ["long"], "trials": 2,
         "criteria": ["relevance", "diversity"], "label": "<b>bold</b>"}])
    out = tmp_path / "plan" / "plan.html"
    assert _describe(config, "--out", out) == 0
    tab.load(out, offline=True)
    assert tab.problems() == []
    text = tab.evaluate("document.body.innerText")
    assert "Plan of judge.yaml" in text
    assert "<b>bold</b>" in text  # shown as text, not markup
    assert tab.evaluate("document.querySelectorAll('b').length") == 0
    assert out.stat().st_size < 500_000  # no chart, so no plotly.js inlined


def test_describe_counts_the_baselines_calls_and_cost(tmp_path, capsys):
    """A config with ``baselines:`` (G-Eval through the config's llm) makes calls of its own at
    ``assay run``'s baselines step; describe left them out of the calls and the cost. G-Eval:
    one logprob call per answer (6) and, where the endpoint returns no logprobs, 20 samples
    per answer at most (120)."""
    import yaml

    from assay.judge.config import load_config
    from assay.judge.inputs import load_inputs
    from assay.llm import estimate_tokens
    from assay.pipeline.baselines import as_baselines_config, describe_baselines
    from assay.pipeline.geval import GEvalTarget, geval_prompt

    config = write_config(tmp_path, "http://127.0.0.1:9/v1")
    assert _describe(config) == 0
    plain = capsys.readouterr().out
    assert "Total: 12 calls" in plain
    data = yaml.safe_load(config.read_text())
    data["baselines"] = {"methods": ["geval"]}
    config.write_text(yaml.safe_dump(data))
    assert _describe(config) == 0
    out = capsys.readouterr().out
    assert "Total: 138 calls" in out, out
    row = re.search(r"^  geval\s+judge-model\s+6\s+120\s+([\d,]+)\s+([\d,]+)\s+\$([\d.]+)$",
                    out, re.M)
    assert row is not None, out
    cfg = load_config(config)
    inputs = load_inputs(cfg)
    prompts = [geval_prompt(as_baselines_config(cfg).geval, a.question, a.text)
               for arm in inputs.arms for a in inputs.answers[arm].values()]
    tokens_in = 21 * sum(estimate_tokens(p) for p in prompts)  # 1 + 20 calls each
    tokens_out = 126 * 5  # max_tokens 5 a call
    assert (int(row[1].replace(",", "")), int(row[2].replace(",", ""))) == (tokens_in, tokens_out)
    assert abs(float(row[3]) - (tokens_in * 2.5 + tokens_out * 10.0) / 1e6) < 5e-5
    total = float(re.search(r"estimated cost \$([\d.,]+)", out)[1])
    before = float(re.search(r"estimated cost \$([\d.,]+)", plain)[1])
    assert abs(total - before - float(row[3])) < 2e-4
    (line,) = describe_baselines(as_baselines_config(cfg),
                                 [GEvalTarget("r", "q", "a", "t", "Q", "A")],
                                 stored={})
    assert (line.calls, line.followups) == (1, 20)
