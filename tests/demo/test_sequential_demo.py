"""``assay demo --until``: the simulated judges' verdicts replayed through ``assay judge
--until``'s loop (assay.demo.sequential).

Oracles: the simulated evaluation's own rows, read with pandas (the judgments the store must
hold for the clusters judged, and each comparison's cluster means worked from them, fed in
the run's order to the confidence sequence), and the server-free store's counts.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

import assay
from assay.demo.sequential import REPLAYED, run_sequential, sequential_lines
from assay.judge.sequential import stopping_rule
from assay.stats.sequential import paired_difference_cs
from tests.cli._subprocess import one_error_line, run_assay


def stored(folder):
    with sqlite3.connect(folder / "judgments.sqlite") as conn:
        return conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]


def by_hand(frame, clusters, judge, criterion, arm, opponent, top):
    """The comparison's observations worked from the simulated rows: per item arm minus
    opponent (quality /100, runs averaged; preference 2 x mean win - 1 over both directions),
    per cluster the mean over its items, in the run's order."""
    rows = frame[(frame["judge"] == judge) & frame["score"].notna()]
    if judge == "judge-pairwise":
        fwd = rows[(rows["arm"] == arm) & (rows["opponent"] == opponent)].assign(w=lambda f: f["score"])
        back = rows[(rows["arm"] == opponent) & (rows["opponent"] == arm)].assign(w=lambda f: 1 - f["score"])
        wins = pd.concat([fwd, back])
        per_item = 2 * wins.groupby("item")["w"].mean() - 1
    else:
        mean = rows.groupby(["arm", "item"])["score"].mean() / top
        per_item = (mean[arm] - mean[opponent]).dropna()
    cluster_of = frame.drop_duplicates("item").set_index("item")["cluster"]
    per_cluster = per_item.groupby(cluster_of[per_item.index].values).mean()
    return [per_cluster[c] for c in clusters if c in per_cluster.index]


def test_a_width_rule_stops_early_on_the_demos_design_and_a_rerun_resumes(demo_example, tmp_path):
    rule = stopping_rule(None, until="width=1.2")
    done = run_sequential(demo_example, tmp_path / "seq", rule)
    run = done.run
    assert run.stopped_early and run.clusters_total == 40 and run.clusters < 40
    record = json.loads((tmp_path / "seq" / "sequential.json").read_text())
    judged = record["order"][:run.clusters]
    frame = assay.load(demo_example).frame
    replayed = frame[frame["judge"].isin(list(REPLAYED)) & frame["score"].notna()]
    # the store holds every replayed judgment of the clusters judged, and nothing else
    want = int(replayed["cluster"].isin(judged).sum())
    assert stored(tmp_path / "seq") == want == run.summary.planned
    assert run.planned_total == len(replayed) and run.summary.calls == 0
    assert done.usd_not_spent == pytest.approx(replayed.loc[~replayed["cluster"].isin(judged), "usd"].sum())
    # the last look's intervals are the confidence sequence of the cluster means worked by hand
    for c in run.looks[-1].comparisons:
        top = 100.0 if c.comparison.criterion == "quality" else 1.0
        obs = by_hand(frame, judged, c.comparison.judge, c.comparison.criterion, c.comparison.arm,
                      c.comparison.opponent, top)
        cs = paired_difference_cs(np.clip(obs, -1, 1), conf=run.looks[-1].conf_each, method="betting")
        assert c.n_clusters == len(obs) == run.clusters
        assert (c.estimate, c.lower, c.upper) == pytest.approx((cs.estimate[-1], cs.lower[-1], cs.upper[-1]))
        assert c.width < 1.2
    assert any(c.width >= 1.2 for c in run.looks[-2].comparisons)  # it stopped at the first look that met it

    again = run_sequential(demo_example, tmp_path / "seq", rule)
    assert again.run.summary.done == 0 and again.run.looks == run.looks  # replayed from the store
    assert stored(tmp_path / "seq") == want


def test_the_lines_say_what_was_simulated_that_it_stopped_early_why_and_what_was_saved(demo_example,
                                                                                       tmp_path):
    lines = sequential_lines(demo_example, tmp_path, stopping_rule(None, until="width=1.2"))
    text = "\n".join(lines)
    assert lines[0].startswith("Sequential judging (assay judge --until width=1.2) on the demo's design, "
                               "SIMULATED")
    assert "replayed by offline judges (no model is called)" in lines[1]
    assert ("stopped early by the rule (--until width=1.2, conf 0.95, betting confidence sequence): every "
            "interval is narrower than 1.2 after look") in text
    assert "saved: " in text and "planned judgments not made" in text
    assert "priced the" in text and (tmp_path / "sequential" / "width-1.2" / "sequential.json").is_file()


def test_decided_is_not_reached_on_the_demos_design_and_says_nothing_was_saved(demo_example, tmp_path):
    """The demo's differences are too small for 40 documents at 95% familywise (bench/results/
    sequential.txt, part 2: stopped early in 0 of 40 orders)."""
    lines = sequential_lines(demo_example, tmp_path, stopping_rule(None, until="decided"))
    assert any(line.startswith("sequential (--until decided, conf 0.95, betting confidence sequence): judged "
                               "every cluster (40, 20 looks); the rule was not met: nothing was saved")
               for line in lines)
    assert not any("priced the" in line for line in lines)


def test_a_bad_rule_exits_2_in_one_line_before_anything_is_written(tmp_path):
    result = run_assay("demo", "--out", str(tmp_path / "demo"), "--until", "soon")
    assert result.returncode == 2
    assert "--until: expected decided or width=W" in one_error_line(result)
    assert not (tmp_path / "demo").exists()


def test_the_default_demo_says_nothing_of_sequential_judging(demo_run):
    assert "Sequential judging" not in demo_run.result.stdout
    assert not (demo_run.out / "sequential").exists()


@pytest.mark.slow  # a whole demo run (about 25 s alone, more on a busy machine)
def test_the_demo_with_until_prints_the_section_and_writes_it(tmp_path):
    out = tmp_path / "demo"
    result = run_assay("demo", "--out", str(out), "--until", "width=1.2", ASSAY_CACHE_DIR=str(tmp_path / "c"))
    assert result.returncode == 0, result.stderr
    written = (out / "sequential.txt").read_text().splitlines()
    printed = result.stdout
    assert written[0] in printed and all(line in printed for line in written)
    assert printed.index("Sequential judging") < printed.index("\nWritten into ")
    assert "sequential/, sequential.txt" in printed
