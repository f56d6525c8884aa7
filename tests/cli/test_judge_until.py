"""``assay judge --until``: a clear difference stops early and says so, none runs to the end,
a resume continues the same order without buying again, bad rules exit 2 in one line."""

from __future__ import annotations

import json
import os
import sqlite3
import sys

import pytest
import yaml

from tests.cli._judge_helpers import child_env, run, write_config
from tests.judge.conftest import sigkill_when

RUBRIC = {"kind": "rubric", "criteria": [{"name": "quality", "description": "Is it good?"}]}
N = 80


def write_many(folder, n=N):
    """BenchmarkQED's layout with n questions, in clusters of two (cluster_key doc)."""
    for method in ("short", "long"):
        (folder / "answers" / method).mkdir(parents=True, exist_ok=True)
        records = [{"question_id": f"q{i:03d}", "question": f"Question number {i}?", "doc": f"d{i // 2:03d}",
                    "answer": f"The {method} answer to question {i}."} for i in range(n)]
        (folder / "answers" / method / "health_answers.json").write_text(json.dumps(records),
                                                                         encoding="utf-8")
    config = write_config(folder, None, judges=[RUBRIC])  # url set below
    return config


def config_for(tmp_path, server, **sequential):
    write_many(tmp_path)
    config = write_config(tmp_path, server.url, judges=[RUBRIC])
    data = yaml.safe_load(config.read_text())
    data["inputs"]["cluster_key"] = "doc"
    if sequential:
        data["sequential"] = sequential
    config.write_text(yaml.safe_dump(data))
    return config


def judge(config, out, *options):
    return run(["judge", str(config), "--out", str(out), "--display", "plain", "--no-csv", *options])


def stored_keys(out):
    with sqlite3.connect(out / "judgments.sqlite") as conn:
        return {row[0] for row in conn.execute("SELECT key FROM judgments")}


def test_a_clear_difference_stops_early_and_says_so(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    assert judge(config, out) == 0
    printed = capsys.readouterr()
    assert ("stopped early by the rule (--until decided, conf 0.95, betting confidence sequence)"
            in printed.out)
    record = json.loads((out / "sequential.json").read_text())
    clusters = record["looks"][-1]["clusters"]
    assert record["ended"] == "stopped early: decided" and clusters < N // 2
    assert record["method"] == "betting"
    # every judged cluster's two items, both arms: 2 x 2 judgments a cluster; nothing else bought
    assert server.stats.requests == 4 * clusters == len(stored_keys(out))
    assert f"saved: {2 * N - 4 * clusters} of {2 * N} planned judgments not made" in printed.out
    assert f"stored {4 * clusters} of {4 * clusters} planned judgments" in printed.out
    last = record["looks"][-1]["comparisons"][0]
    assert last["lower"] > 0 or last["upper"] < 0
    assert abs(abs(last["estimate"]) - 0.6) < 1e-9  # 90 vs 30 on range:0,100
    # the order: judged clusters are a seeded random set, each with both of its items
    assert record["order"][:clusters] != sorted(record["order"])[:clusters]
    # and the report of the run folder says so
    assert run(["report", str(out), "--kind", "scores"]) == 0
    assert (f"judged sequentially (--until decided, conf 0.95, betting confidence sequence) and stopped "
            f"early after {clusters} of {N // 2} clusters: the intervals below are fixed-n "
            "intervals") in capsys.readouterr().out


def test_no_difference_runs_to_the_end(server, tmp_path, capsys):
    server.configure(score_by={"answer to question": 50.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=10)
    out = tmp_path / "run"
    assert judge(config, out) == 0
    printed = capsys.readouterr().out
    assert "judged every cluster (40, 4 looks); the rule was not met: nothing was saved" in printed
    assert "stopped early" not in printed
    assert server.stats.requests == 2 * N
    assert f"stored {2 * N} of {2 * N} planned judgments" in printed


def test_a_width_rule_stops_when_every_interval_is_narrow(server, tmp_path, capsys):
    server.configure(score_by={"answer to question": 50.0})  # no difference: only the width can stop it
    config = config_for(tmp_path, server, clusters_per_look=2)
    out = tmp_path / "run"
    assert judge(config, out, "--until", "width=0.8") == 0
    printed = capsys.readouterr().out
    assert ("stopped early by the rule (--until width=0.8, conf 0.95, betting confidence sequence): every "
            "interval is narrower "
            "than 0.8") in printed
    record = json.loads((out / "sequential.json").read_text())
    last = record["looks"][-1]["comparisons"][0]
    assert last["upper"] - last["lower"] < 0.8
    earlier = record["looks"][-2]["comparisons"][0]
    assert earlier["upper"] - earlier["lower"] >= 0.8


def test_a_resume_continues_the_same_order_and_buys_nothing_twice(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    # the first attempt dies after 5 looks' worth of judgments (a cost limit stands in for Ctrl-C)
    data = yaml.safe_load(config.read_text())
    data["llm"]["cost_limit_usd"] = 0.0009
    partial = tmp_path / "partial.yaml"
    partial.write_text(yaml.safe_dump(data))
    assert judge(partial, out) == 3
    first = stored_keys(out)
    first_order = json.loads((out / "sequential.json").read_text())["order"]
    assert 0 < len(first) < 4 * 14
    bought = server.stats.requests
    capsys.readouterr()
    assert judge(config, out) == 0
    record = json.loads((out / "sequential.json").read_text())
    assert record["order"] == first_order
    clusters = record["looks"][-1]["clusters"]
    assert first <= stored_keys(out) and len(stored_keys(out)) == 4 * clusters
    assert server.stats.requests - bought == 4 * clusters - len(first)  # nothing asked twice
    # and the run stopped at the same look as one uninterrupted run
    fresh = tmp_path / "fresh"
    assert judge(config, fresh) == 0
    assert json.loads((fresh / "sequential.json").read_text())["looks"][-1]["clusters"] == clusters


def test_a_resume_with_another_seed_is_refused(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    assert judge(config, out) == 0
    data = yaml.safe_load(config.read_text())
    data["sequential"]["seed"] = 5
    config.write_text(yaml.safe_dump(data))
    capsys.readouterr()
    assert judge(config, out) == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "judged sequentially with seed 0; a resume must keep it" in line


def test_the_empirical_bernstein_sequence_by_name(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2, method="empirical_bernstein")
    out = tmp_path / "run"
    assert judge(config, out) == 0
    printed = capsys.readouterr().out
    assert "(--until decided, conf 0.95, empirical_bernstein confidence sequence)" in printed
    record = json.loads((out / "sequential.json").read_text())
    assert record["method"] == "empirical_bernstein"
    # the wider sequence needs more clusters than the betting one on the same answers
    bet_config = config_for(tmp_path / "b", server, until="decided", clusters_per_look=2)
    assert judge(bet_config, tmp_path / "bet") == 0
    bet = json.loads((tmp_path / "bet" / "sequential.json").read_text())
    assert bet["looks"][-1]["clusters"] < record["looks"][-1]["clusters"]


def test_a_resume_with_another_method_is_refused(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    assert judge(config, out) == 0
    data = yaml.safe_load(config.read_text())
    data["sequential"]["method"] = "empirical_bernstein"
    config.write_text(yaml.safe_dump(data))
    capsys.readouterr()
    assert judge(config, out) == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "judged sequentially with method 'betting'; a resume must keep it" in line


def test_a_record_from_before_the_method_key_was_empirical_bernstein(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    assert judge(config, out) == 0
    path = out / "sequential.json"
    record = json.loads(path.read_text())
    del record["method"]
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert judge(config, out) == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "judged sequentially with method 'empirical_bernstein'; a resume must keep it" in line


@pytest.mark.parametrize(("options", "words"), [
    (["--until", "soon"], "--until: expected decided or width=W"),
    (["--until", "width=0"], "--until: expected decided or width=W"),
    (["--until", "width=abc"], "--until: expected decided or width=W"),
    (["--until", "decided", "--conf", "1.5"], "--conf: expected a level in (0, 1)"),
    (["--conf", "0.9"], "--conf: applies to a sequential run"),
])
def test_bad_rules_exit_2_in_one_line(server, tmp_path, capsys, options, words):
    config = config_for(tmp_path, server)
    assert judge(config, tmp_path / "run", *options) == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert words in line
    assert server.stats.requests == 0


def test_a_bad_config_rule_exits_2(server, tmp_path, capsys):
    config = config_for(tmp_path, server, until="later")
    assert judge(config, tmp_path / "run") == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "sequential.until: expected decided or width=W" in line


def test_the_dry_run_names_the_rule(server, tmp_path, capsys):
    config = config_for(tmp_path, server, until="decided", seed=3)
    assert judge(config, tmp_path / "run", "--dry-run") == 0
    assert ("sequential (--until decided, conf 0.95, betting confidence sequence): 40 clusters in a "
            "random order (seed 3), a look every 2") in capsys.readouterr().out


def test_the_order_is_the_seeds(server, tmp_path):
    from assay.judge.config import load_config
    from assay.judge.inputs import load_inputs
    from assay.judge.plan import build_plan
    from assay.judge.sequential import cluster_order

    config = config_for(tmp_path, server)
    plan = build_plan(load_config(config), load_inputs(load_config(config)))
    order = cluster_order(plan, 0)
    assert sorted(order) == [f"d{i:03d}" for i in range(N // 2)]
    assert cluster_order(plan, 0) == order and cluster_order(plan, 1) != order


def test_failed_judgments_are_no_observations_and_still_exit_3(server, tmp_path, capsys):
    server.configure(rates={"refusal": 1.0})
    config = config_for(tmp_path, server, until="decided", clusters_per_look=20)
    out = tmp_path / "run"
    assert judge(config, out) == 3
    printed = capsys.readouterr()
    record = json.loads((out / "sequential.json").read_text())
    assert [look["comparisons"][0]["n_clusters"] for look in record["looks"]] == [0, 0]
    assert record["looks"][-1]["comparisons"][0]["estimate"] is None
    assert "judged every cluster (40, 2 looks); the rule was not met" in printed.out
    assert f"{2 * N} of {2 * N} planned judgments are stored as failed" in printed.err


def test_a_killed_run_resumes_the_same_order_without_buying_twice(server, tmp_path):
    """SIGKILL in the middle of the looks (no clean stop at all), then the same command."""
    server.configure(score_by={"The long answer": 90.0, "The short answer": 30.0}, latency_s=0.02)
    config = config_for(tmp_path, server, until="decided", clusters_per_look=2)
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "assay", "judge", str(config), "--out", str(out), "--display", "plain",
            "--no-csv", "--no-cache"]

    def some_looks() -> bool:
        try:
            return len(stored_keys(out)) >= 20
        except sqlite3.Error:
            return False

    saved = dict(os.environ)
    os.environ.update(child_env(tmp_path))
    try:
        sigkill_when(argv, some_looks)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    before = stored_keys(out)
    bought = server.stats.requests
    order = json.loads((out / "sequential.json").read_text())["order"]
    assert 20 <= len(before) < 4 * 28
    assert judge(config, out, "--no-cache") == 0
    record = json.loads((out / "sequential.json").read_text())
    assert record["order"] == order and record["ended"] == "stopped early: decided"
    clusters = record["looks"][-1]["clusters"]
    after = stored_keys(out)
    assert before <= after and len(after) == 4 * clusters
    # only the judgments not stored were asked (those in flight at the kill were paid once, lost)
    assert server.stats.requests - bought == len(after) - len(before)
