"""The leaderboard analysis: pairwise rows of a judgments table to Bradley-Terry ratings and
length-controlled win rates, and its report kind."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.analysis.leaderboard import leaderboard
from assay.errors import ConfigError, DesignError
from tests.cli.conftest import run_assay


def _rows(pairs: list[tuple[str, str, str, int, float | None]]) -> pd.DataFrame:
    return pd.DataFrame([dict(item=i, arm=a, opponent=o, position=p, score=s, judge="j",
                              criterion="pref") for i, a, o, p, s in pairs])


def test_ratings_from_the_table_match_the_hand_computation() -> None:
    # a beats b on q1 in both orders and on q2 in one; b wins q2's other order: 3 to 1
    frame = _rows([("q1", "a", "b", 1, 1.0), ("q1", "a", "b", 2, 1.0),
                   ("q2", "a", "b", 1, 1.0), ("q2", "a", "b", 2, 0.0)])
    report = leaderboard(frame, B=50)
    by_arm = {r.arm: r for r in report.ratings}
    assert by_arm["a"].rating - by_arm["b"].rating == pytest.approx(400 * math.log10(3))
    assert by_arm["a"].rank == 1 and by_arm["b"].rank == 2
    assert by_arm["a"].n_wins == 3 and by_arm["b"].n_wins == 1
    assert by_arm["a"].n_clusters == 2


def test_rows_stored_from_the_other_side_and_failures() -> None:
    """A row stored as (b vs a, score 0) is a's win; a failed judgment is no battle."""
    frame = _rows([("q1", "a", "b", 1, 1.0), ("q1", "b", "a", 1, 0.0),
                   ("q2", "a", "b", 1, 0.5), ("q2", "a", "b", 2, None),
                   ("q3", "b", "a", 2, 1.0)])
    report = leaderboard(frame, B=50)
    by_arm = {r.arm: r for r in report.ratings}
    # a: 1 + 1 + 0.5 = 2.5 wins; b: 0.5 + 1 = 1.5
    assert by_arm["a"].n_wins == 2.5 and by_arm["b"].n_wins == 1.5
    assert by_arm["a"].n_battles == 4 and by_arm["a"].n_failed == 1
    assert by_arm["a"].rating - by_arm["b"].rating == pytest.approx(400 * math.log10(2.5 / 1.5))


def test_length_controlled_from_tokens_out() -> None:
    rng = np.random.default_rng(3)
    rows = []
    for q in range(60):
        la, lb = rng.integers(100, 900), 500
        p = 1 / (1 + np.exp(-(0.2 + 1.5 * np.tanh((la - lb) / 300))))
        rows.append(dict(item=f"q{q}", arm="m", opponent="base", position=1,
                         score=float(rng.random() < p), tokens_out=la, judge="j", criterion="c"))
        rows.append(dict(item=f"q{q}", arm="base", opponent=None, position=None, score=np.nan,
                         tokens_out=lb, judge="j", criterion="len"))
    frame = pd.DataFrame(rows)
    report = leaderboard(frame[frame["opponent"].notna() | frame["tokens_out"].notna()], B=20)
    [lc] = report.length_controlled
    assert (lc.arm, lc.opponent, lc.n) == ("m", "base", 60)
    assert lc.length_coefficient > 0 and lc.lower < lc.lc_win_rate < lc.upper
    data = json.loads(report.to_json())
    assert data["length_controlled"][0]["lc_win_rate"] == lc.lc_win_rate
    assert "Length-controlled" in report.to_text()


def test_separated_preferences_get_a_note_and_no_length_controlled_win_rate() -> None:
    # Issue 26 (4): quasi-complete separation by length reported converged=True with an LC
    # of 100% beside a raw 70% and no interval, without a word.
    rows = [dict(item=f"q{i}", arm="m", opponent="base", position=1, score=s, judge="j",
                 criterion="c", tokens_out=la)
            for i, (s, la) in enumerate([(1.0, 600), (0.5, 300), (0.0, 200), (1.0, 900),
                                         (1.0, 700)])]
    rows += [dict(item=f"q{i}", arm="base", opponent=None, position=None, score=np.nan,
                  judge="j", criterion="len", tokens_out=lb)
             for i, lb in enumerate([400, 500, 600, 300, 500])]
    report = leaderboard(pd.DataFrame(rows), B=20)
    [lc] = report.length_controlled
    assert lc.separated and not lc.converged and math.isnan(lc.lc_win_rate)
    assert lc.win_rate == pytest.approx(0.7)
    assert any("m vs base (j, c): the preferences separate" in n and "0.7" in n
               for n in report.notes)
    data = json.loads(report.to_json())["length_controlled"][0]
    assert data["lc_win_rate"] is None and data["converged"] is False and data["separated"]


def test_rank_intervals_from_few_clusters_say_so() -> None:
    # Issue 26 (3): a rank interval 1-1 from a bootstrap over 3 clusters, with no word, and a
    # heading "(3 questions)" counting clusters.
    frame = _rows([(f"q{i}", "a", "b", p, 1.0) for i in range(6) for p in (1, 2)])
    frame["cluster"] = [f"c{i // 4}" for i in range(12)]
    report = leaderboard(frame, B=50)
    assert {r.n_clusters for r in report.ratings} == {3}
    assert any("bootstrap over 3 clusters of questions" in n and "not a guarantee" in n
               for n in report.notes)
    text = report.to_text()
    assert "(3 clusters of questions)" in text and "(3 questions)" not in text


def test_rank_intervals_read_effective_clusters_as_the_benchmark_does() -> None:
    # Issue 26 (3): 40 clusters pass a count of 30, but three of them hold 300 of the 337
    # questions, each with its own win rate: G* is about 3, where the benchmark's rule asks
    # 30 effective clusters of a bootstrap. Before, the count passed and nothing was said.
    rng = np.random.default_rng(7)
    sizes = [100, 100, 100] + [1] * 37
    p_win = [0.9, 0.2, 0.6, *rng.uniform(0.2, 0.8, 37)]
    pairs, item = [], 0
    cluster_of = []
    for c, (size, p) in enumerate(zip(sizes, p_win, strict=True)):
        for _ in range(size):
            for position in (1, 2):
                pairs.append((f"q{item}", "a", "b", position, float(rng.random() < p)))
                cluster_of.append(f"c{c}")
            item += 1
    frame = _rows(pairs)
    frame["cluster"] = cluster_of
    report = leaderboard(frame, B=50)
    [rating] = {r.effective_clusters for r in report.ratings}
    assert rating is not None and rating < 8
    assert {r.n_clusters for r in report.ratings} == {40}
    assert any("bootstrap over 40 clusters of questions (" in n and "effective" in n
               and "not a guarantee" in n for n in report.notes)
    assert any("count as" in n and "effective clusters" in n for n in report.notes)
    assert f"(40 clusters of questions, {rating:.1f} effective)" in report.to_text()
    # balanced clusters of 10 questions, 400 questions in 40: the rule passes, no note
    frame = _rows([(f"q{i}", "a", "b", p, float(rng.random() < 0.6))
                   for i in range(400) for p in (1, 2)])
    frame["cluster"] = [f"c{i // 20}" for i in range(800)]
    quiet = leaderboard(frame, B=50)
    assert not any("not a guarantee" in n for n in quiet.notes)


def test_options_and_design_errors() -> None:
    frame = _rows([("q1", "a", "b", 1, 1.0), ("q2", "a", "b", 1, 0.0)])
    with pytest.raises(ConfigError, match="anchor 'zz'"):
        leaderboard(frame, B=10, anchor=("zz", 1000.0))
    pinned = leaderboard(frame, B=10, anchor=("b", 1114.0))
    assert {r.arm: r.rating for r in pinned.ratings}["b"] == pytest.approx(1114.0)
    with pytest.raises(DesignError, match="pairwise"):
        leaderboard(frame.drop(columns=["opponent"]), B=10)


def test_report_kind_from_the_command_line(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    strength = {"a": 0.7, "b": 0.0, "c": -0.5}
    rows = []
    for q in range(20):
        for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
            for pos in (1, 2):
                p = 1 / (1 + np.exp(-(strength[x] - strength[y])))
                rows.append(dict(item=f"q{q}", arm=x, opponent=y, position=pos,
                                 score=float(rng.random() < p), judge="j", criterion="pref"))
    src = tmp_path / "battles.csv"
    pd.DataFrame(rows).to_csv(src, index=False)
    out = tmp_path / "out"
    done = run_assay("report", str(src), "--kind", "leaderboard", "--format", "text,json",
                     "--out", str(out), "--B", "100", "--anchor", "c=1000")
    assert done.returncode == 0, done.stderr
    assert "Bradley-Terry ratings" in done.stdout and "c pinned at 1000" in done.stdout
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["ratings"][0]["arm"] == "a"
    assert data["n_resamples"] == 100 and data["anchor"] == ["c", 1000.0]
    bad = run_assay("report", str(src), "--kind", "leaderboard", "--anchor", "c")
    assert bad.returncode == 2
    assert "--anchor 'c': expected ARM=RATING" in bad.stderr and "Traceback" not in bad.stderr
