"""``until=`` of the notebook functions against the test server: sequential judging as
``assay judge --until`` runs it (a clear difference stops early, says so, and a second call
with the same store buys nothing), and a bad rule is the CLI's one-line error.

Oracle: the server's own request counter, the run folder's store and ``sequential.json``, and
differences worked by hand (an answer the server scores 1 against one it scores 0).
"""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

import assay
from assay.errors import ConfigError

pytestmark = pytest.mark.slow  # a judge run or two each
N = 40


def frames(n=N):
    return {m: pd.DataFrame({"question_id": [f"q{i:03d}" for i in range(n)],
                             "question": [f"Question number {i}?" for i in range(n)],
                             "answer": [f"The {m} answer to question {i}." for i in range(n)]})
            for m in ("short", "long")}


def model(server):
    # no response cache: a second call buys nothing because of the store, not a cache
    return assay.LLM(server.url, "judge-model", api_key_env=None, max_concurrency=4, cache="off", params={},
                     prices={"judge-model": {"input": 2.5, "output": 10.0}},
                     options={"timeout_s": 5.0, "backoff_base_s": 0.01, "backoff_max_s": 0.1})


def assertions(n=N):
    return pd.DataFrame({"question_id": [f"q{i:03d}" for i in range(n)],
                         "assertions": [[{"statement": f"The answer names the point of question {i}.",
                                          "rank": 1}] for i in range(n)]})


def stored(folder):
    with sqlite3.connect(folder / "judgments.sqlite") as conn:
        return conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]


def test_a_clear_difference_stops_early_says_so_and_a_second_call_resumes(server, tmp_path, capsys):
    server.configure(score_by={"The long answer": 1, "The short answer": 0})
    answers, store = frames(), tmp_path / "nb"
    got = assay.judge_assertions(answers, assertions(), trials=1, question_set="health", llm=model(server),
                                 store=store, until="decided")
    printed = capsys.readouterr().out
    run = got.attrs["sequential"]
    assert run.stopped_early and run.clusters < N and run.clusters_total == N
    assert run.planned_total == 2 * N  # a question: one assertion, two methods
    judged = 2 * run.clusters
    # every question of the clusters judged, both methods; nothing else asked or stored
    assert server.stats.requests == judged == stored(store) == run.summary.planned
    assert len(got) == judged and set(got["arm"]) == {"short", "long"}
    last = run.looks[-1].comparisons[0]
    assert last.comparison.label == "judge-model/assertion assertion: long - short"
    assert last.estimate == pytest.approx(1.0) and last.lower > 0  # 1 - 0 on every question
    assert ("stopped early by the rule (--until decided, conf 0.95, betting confidence sequence): every "
            "comparison is decided (its interval excludes 0)") in printed
    assert f"saved: {2 * N - judged} of {2 * N} planned judgments not made ({judged} in the" in printed
    assert f"{judged} judged (0 failed, 0 from cache), 0 already stored, {judged} calls" in printed
    record = json.loads((store / "sequential.json").read_text())
    assert record["until"] == "decided" and record["ended"] == "stopped early: decided"
    assert (store / "assay.yaml").read_text().count("until: decided") == 1  # the CLI resumes it as is

    again = assay.judge_assertions(answers, assertions(), trials=1, question_set="health",
                                   llm=model(server), store=store, until="decided", verbose=False)
    assert server.stats.requests == judged and stored(store) == judged  # nothing asked again
    assert again.attrs["sequential"].clusters == run.clusters and again.attrs["sequential"].summary.calls == 0
    assert again.attrs["sequential"].looks == run.looks  # the same looks, replayed from the store
    pd.testing.assert_frame_equal(again, got)


def test_a_width_rule_on_the_pairwise_judge(server, tmp_path, capsys):
    answers, store = frames(), tmp_path / "nb"
    got = assay.judge_pairwise(answers["short"], answers["long"], base_name="short", other_name="long",
                               criteria=["relevance"], trials=2, question_set="health", llm=model(server),
                               store=store, until="width=1.5")
    printed = capsys.readouterr().out
    run = got.attrs["sequential"]
    assert run.stopped_early and all(c.width < 1.5 for c in run.looks[-1].comparisons)
    # it stops at the first look that meets the rule (a look every 2 of the 40 clusters: a twentieth)
    assert len(run.looks) >= 2 and run.looks[-2].comparisons[0].width >= 1.5
    assert [x.clusters for x in run.looks] == [2 * (k + 1) for k in range(len(run.looks))]
    assert [c.comparison.label for c in run.looks[-1].comparisons] == [
        "judge-model relevance: long - short"]
    # two trials of each question judged; the frame has exactly those
    assert server.stats.requests == 2 * run.clusters == len(got) == stored(store)
    assert "every interval is narrower than 1.5" in printed


@pytest.mark.parametrize("until", ["soon", "width=0", "width=3"])
def test_a_bad_rule_is_the_clis_error_before_anything_is_written(server, tmp_path, until):
    answers = frames(4)
    with pytest.raises(ConfigError, match=r"^--until: expected decided or width=W with W in \(0, 2\]"):
        assay.judge_pairwise(answers["short"], answers["long"], llm=model(server), store=tmp_path / "nb",
                             until=until)
    assert not (tmp_path / "nb").exists() and server.stats.requests == 0


def test_without_until_nothing_changes(server, tmp_path):
    answers = frames(4)
    got = assay.judge_pairwise(answers["short"], answers["long"], criteria=["relevance"], trials=2,
                               llm=model(server), store=tmp_path / "nb", verbose=False)
    assert "sequential" not in got.attrs and not (tmp_path / "nb" / "sequential.json").exists()
    assert len(got) == 8 and "sequential" not in (tmp_path / "nb" / "assay.yaml").read_text()
