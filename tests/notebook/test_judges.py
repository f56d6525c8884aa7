"""The notebook functions against the test server, checked against ``assay judge`` on the same data.

Oracle: the CSVs the CLI writes for the same answers and judge (the server's verdicts are
deterministic in the prompt, so the same requests get the same verdicts), and the server's
own counters.
"""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import assay
from tests.cli._judge_helpers import PAIRWISE, run, write_answers, write_config

pytestmark = pytest.mark.slow  # a judge run each, some beside the CLI's: about 30 s on 2 busy cores
REFERENCE = {"kind": "reference", "label": "reference", "reference": "long", "generated": ["short"],
             "trials": 2, "criteria": ["correctness", "completeness"], "score_min": 1, "score_max": 10}


def frames(tmp_path):
    root = write_answers(tmp_path / "answers")
    return {m: pd.read_json(root / m / "health_answers.json", dtype={"question_id": str})
            for m in ("short", "long")}


def llm(server, tmp_path, **options):
    return assay.LLM(server.url, "judge-model", api_key_env=None, max_concurrency=4,
                     cache=tmp_path / "nb-cache.sqlite", params={},
                     prices={"judge-model": {"input": 2.5, "output": 10.0}},
                     options={"timeout_s": 5.0, "backoff_base_s": 0.01, "backoff_max_s": 0.1, **options})


def cli_csv(server, tmp_path, judges, name):
    config = write_config(tmp_path, server.url, judges=judges)
    assert run(["judge", str(config), "--out", str(tmp_path / "cli"), "--display", "plain"]) == 0
    return pd.read_csv(tmp_path / "cli" / name, keep_default_na=False, na_values=[""])


def test_pairwise_is_the_cli_win_rates_csv(server, tmp_path, capsys):
    answers = frames(tmp_path)
    got = assay.judge_pairwise(answers["short"], answers["long"], base_name="short", other_name="long",
                               criteria=["relevance", "diversity"], trials=2, question_set="health",
                               llm=llm(server, tmp_path), store=tmp_path / "nb")
    printed = capsys.readouterr().out
    prompt, completion = server.stats.usage
    assert f"tokens: {prompt:,} in, {completion:,} out" in printed and "12 calls" in printed
    assert server.stats.requests == 12
    want = cli_csv(server, tmp_path, [PAIRWISE], "win_rates.csv")
    assert server.stats.requests == 24  # the CLI's run has its own cache: asked again, same verdicts
    capsys.readouterr()
    assert list(got.columns) == ["score_id", "question", "answer_1_name", "answer_1", "answer_2_name",
                                 "answer_2", "criteria", "short_score", "long_score", "reasoning",
                                 "trial", "base_name", "other_name", "question_set", "judge"]
    assert len(got) == 12
    # score ids (judgment keys) included: the same judgments, in the same (plan) order, though the
    # two runs answered them concurrently in whatever order
    assert_frame_equal(got, want)

    # a second call resumes from the store: nothing asked, the same frame
    again = assay.judge_pairwise(answers["short"], answers["long"], base_name="short", other_name="long",
                                 criteria=["relevance", "diversity"], trials=2, question_set="health",
                                 llm=llm(server, tmp_path), store=tmp_path / "nb", verbose=False)
    assert server.stats.requests == 24 and capsys.readouterr().out == ""
    assert_frame_equal(again, got)


def test_the_summary_is_the_win_rate_report_of_the_store(server, tmp_path):
    answers = frames(tmp_path)
    scores = assay.judge_pairwise(answers["short"], answers["long"], base_name="short", other_name="long",
                                  criteria=["relevance"], trials=2, llm=llm(server, tmp_path),
                                  store=tmp_path / "nb", verbose=False)
    summary = assay.winrate_summary(scores)
    report = assay.win_rates(assay.load(tmp_path / "nb"), test="auto", correction="holm-per-group")
    report.write_csvs(tmp_path / "report")
    want = pd.read_csv(tmp_path / "report" / "winrates_sig_tests.csv", keep_default_na=False, na_values=[""])
    columns = ["criteria", "base_name", "other_name", "base_mean", "other_mean", "p_value", "test",
               "corrected_p_value", "n"]
    assert_frame_equal(summary[columns], want[columns])
    # by hand: the base's win rate is the mean of its question-level means
    by_question = scores.groupby("question")["short_score"].mean()
    assert summary["base_mean"].iloc[0] == pytest.approx(by_question.mean(), abs=1e-12)


def test_reference_and_its_summary_are_the_cli_csvs(server, tmp_path):
    answers = frames(tmp_path)
    got = assay.judge_reference(answers["long"], answers["short"], reference_name="long",
                                generated_name="short", criteria=["correctness", "completeness"], trials=2,
                                question_set="health", llm=llm(server, tmp_path), store=tmp_path / "nb",
                                verbose=False)
    assert_frame_equal(got, cli_csv(server, tmp_path, [REFERENCE], "reference_scores.csv"))
    summary = assay.reference_summary(got)
    want = pd.read_csv(tmp_path / "cli" / "reference_scores_summary.csv", keep_default_na=False,
                       na_values=[""])
    assert_frame_equal(summary, want, check_dtype=False)
    for _, row in summary.iterrows():  # by hand: mean and sample SD of the scores
        scores = got[got["criteria"] == row["criteria"]]["score"]
        assert row["mean"] == pytest.approx(scores.mean()) and row["std"] == pytest.approx(scores.std(ddof=0))


def test_differential_tables(server, tmp_path):
    answers = frames(tmp_path)
    common = {"base_name": "short", "other_name": "long", "criteria": ["relevance", "diversity"], "trials": 2,
              "question_set": "health", "llm": llm(server, tmp_path), "store": tmp_path / "nb",
              "verbose": False}
    joint = assay.judge_differential(answers["short"], answers["long"], mode="joint", **common)
    separate = assay.judge_differential(answers["short"], answers["long"], mode="separate", **common)
    original = assay.judge_pairwise(answers["short"], answers["long"], **common)
    assert len(joint) == len(separate) == len(original) == 12
    assert set(joint["judge"]) != set(separate["judge"])

    table = assay.joint_vs_separate(joint, separate)
    assert list(table["criteria"]) == ["relevance", "diversity", "ALL"]
    keys = ["question", "criteria", "trial"]
    both = joint.merge(separate, on=keys, suffixes=("_j", "_s"))
    agree = both["short_score_j"] == both["short_score_s"]
    overall = table[table["criteria"] == "ALL"].iloc[0]
    assert overall["n_trials"] == 12 and overall["agreement_rate"] == pytest.approx(agree.mean())
    assert overall["n"] == 6  # 3 questions x 2 criteria
    assert overall["joint_mean_wr"] == pytest.approx(
        joint.groupby(["question", "criteria"])["short_score"].mean().mean())

    shown = assay.disagreements(joint, separate, n=None)
    assert len(shown) == int((~agree).sum())
    assert list(shown.columns[-4:]) == ["joint_verdict", "joint_reasoning", "separate_verdict",
                                        "separate_reasoning"]
    if len(shown):
        assert shown["joint_verdict"].iloc[0] != shown["separate_verdict"].iloc[0]

    side = assay.original_vs_differential(original, joint)
    assert len(side) == 2  # one row per criterion (one question set: its rows are the ALL rows)
    orig = assay.winrate_summary(original).set_index(["question_set", "criteria"])
    for _, row in side.iterrows():
        want = orig.loc[(row["question set"], row["criteria"]), "other_mean"]
        assert row["long WR (orig)"] == pytest.approx(want)
        assert row["long WR Δ (diff-orig)"] == pytest.approx(row["long WR (diff)"] - row["long WR (orig)"])


def test_assertions_frames(server, tmp_path):
    answers = frames(tmp_path)
    ids = list(answers["short"]["question_id"])
    assertions = pd.DataFrame({"question_id": ids, "assertions": [
        [{"statement": f"The answer names point {k} of {q}.", "rank": k + 1} for k in range(2)]
        for q in ids]})
    got = assay.judge_assertions(answers, assertions, trials=1, question_set="health",
                                 llm=llm(server, tmp_path), store=tmp_path / "nb", verbose=False)
    assert server.stats.requests == 3 * 2 * 2  # questions x assertions x methods
    assert len(got) == 3 * 2 * 2 and set(got["arm"]) == {"short", "long"}
    summary = pd.read_csv(tmp_path / "nb" / "assertion_scores_by_question.csv")
    assert len(summary) == 6
    assert (tmp_path / "nb" / "significance_summary.csv").is_file()
    written = json.loads((tmp_path / "nb" / "inputs" / "health_assertions.json").read_text(encoding="utf-8"))
    assert written[0]["assertions"][0]["statement"].startswith("The answer names point 0")


def test_runs_inside_a_running_event_loop(server, tmp_path):
    answers = frames(tmp_path)

    async def cell():  # what a Jupyter cell is: code run while an event loop runs
        return assay.judge_pairwise(answers["short"], answers["long"], criteria=["relevance"], trials=2,
                                    llm=llm(server, tmp_path), store=tmp_path / "nb", verbose=False)

    assert len(asyncio.run(cell())) == 6


def test_the_key_comes_from_the_working_folders_env(server, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_NB_KEY", "")  # recorded, so the value .env sets is removed after
    monkeypatch.delenv("ASSAY_NB_KEY")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("# judge key\nexport ASSAY_NB_KEY='sk-nb-0123456789'\n", encoding="utf-8")
    answers = frames(tmp_path)
    model = assay.LLM(server.url, "judge-model", api_key_env="ASSAY_NB_KEY", cache="off", params={})
    assay.judge_pairwise(answers["short"], answers["long"], criteria=["relevance"], trials=2, llm=model,
                         store=tmp_path / "nb", verbose=False)
    assert server.stats.authorizations == {"Bearer sk-nb-0123456789"}
    for path in (tmp_path / "nb").rglob("*"):
        assert not path.is_file() or b"sk-nb-0123456789" not in path.read_bytes(), path
