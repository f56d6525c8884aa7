"""The human-calibrated estimates on the demo's simulated run: ``assay report --kind human``,
the default report's "What humans would say", and the Python API, checked against counts
made here from the run folder's JSONL files (not through assay's loader)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import assay
from assay.analysis import human_calibrated
from assay.analysis.answer import answer
from assay.cli import main


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _raw_acceptable(folder: Path) -> dict[str, dict[str, dict[str, float]]]:
    """judge kind -> arm -> item -> mean acceptable score, from the files, test split only."""
    points = {d["id"]: d for d in _lines(folder / "datapoints.jsonl")}
    responses = {r["id"]: r for r in _lines(folder / "responses.jsonl")}
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for ev in _lines(folder / "evaluations.jsonl"):
        score = (ev.get("scores") or {}).get("acceptable")
        response = responses.get(ev["response_id"])
        if score is None or response is None or response["datapoint_id"] not in points:
            continue
        if points[response["datapoint_id"]]["split"] != "test":
            continue
        who = "human" if ev["judge"].startswith("human:") else ev["judge"]
        out[who][response["arm"]][response["datapoint_id"]] = float(score)
    return out


def test_kind_human_on_the_demo_from_the_cli(demo_example, tmp_path, capsys):
    code, out, err = run(["report", str(demo_example), "--kind", "human", "--format",
                          "text,json", "--out", str(tmp_path / "r")], capsys)
    assert code == 0, err
    assert "Human-calibrated estimates (PPI++, clustered)" in out
    assert "acceptable, judge judge-biased" in out and "preference, judge judge-pairwise" in out
    assert "beacon-13b vs cirrus-70b" in out
    data = json.loads((tmp_path / "r" / "human.json").read_text())
    raw = _raw_acceptable(demo_example)
    arms = {r["arm"]: r for r in data["arms"] if r["judge"] == "judge-biased"}
    assert set(arms) == {"atlas-7b", "beacon-13b", "cirrus-70b"}
    for arm, rec in arms.items():
        judge, human = raw["judge-biased"][arm], raw["human"][arm]
        labelled = [i for i in human if i in judge]
        assert rec["n"] == len(labelled) and rec["n_unlabelled"] == len(judge) - len(labelled)
        assert rec["judge_estimate"] == pytest.approx(np.mean(list(judge.values())), abs=1e-12)
        assert rec["human_estimate"] == pytest.approx(np.mean([human[i] for i in labelled]),
                                                      abs=1e-12)
    # the demo's point: the judge favours beacon-13b; alone it puts beacon-13b far above
    # what the humans' labels allow, and ahead of cirrus-70b, which the humans do not confirm
    beacon = arms["beacon-13b"]
    assert beacon["judge_estimate"] > beacon["upper"]
    pair = next(r for r in data["pairs"] if (r["arm"], r["opponent"], r["judge"])
                == ("beacon-13b", "cirrus-70b", "judge-biased"))
    assert pair["judge_lower"] > 0 and pair["lower"] < 0 < pair["upper"]
    assert len(data["win_rates"]) == 3
    assert all(0 <= r["lower"] < r["estimate"] < r["upper"] <= 1 for r in data["win_rates"])


def test_the_default_report_on_the_demo_says_what_humans_would_say(demo_example, capsys):
    code, out, err = run(["report", str(demo_example)], capsys)
    assert code == 0, err
    block = out[out.index("What humans would say"):out.index("Can the judges be trusted:")]
    assert "acceptable (mean human label on [0, 1]), judge judge-biased:" in block
    assert "preference (human win rate, ties half), judge judge-pairwise:" in block
    assert "beacon-13b - cirrus-70b" in block and "worth" in block
    assert "--kind human" in out  # named among the reports the data support, or in the block


def test_the_python_api_on_the_demo(demo_example):
    judgments = assay.load(demo_example)
    report = human_calibrated(judgments)
    lines = answer(judgments).humans
    assert [(h.kind, h.arm, h.opponent) for h in lines] == (
        [("system", r.arm, None) for r in report.arms]
        + [("pair", r.arm, r.opponent) for r in report.pairs]
        + [("win_rate", r.arm, r.opponent) for r in report.win_rates])
    assert [h.estimate for h in lines] == [r.estimate for r in
                                           [*report.arms, *report.pairs, *report.win_rates]]


def test_a_table_without_human_labels_names_why(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_text("item,arm,score\nq1,a,1\nq2,a,0\nq1,b,0\nq2,b,1\n", encoding="utf-8")
    code, out, err = run(["report", str(path)], capsys)
    assert code == 0, err
    assert "What humans would say: no human labels" in out
    code, out, err = run(["report", str(path), "--kind", "human"], capsys)
    assert code == 2 and "no human labels" in err and "Traceback" not in err
