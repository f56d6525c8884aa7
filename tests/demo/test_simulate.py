"""Tests of the seeded evaluation simulator (assay.demo.simulate)."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import assay.demo.simulate as simulate_module
from assay.demo.simulate import ORPHAN_RESPONSES, PLANTED, SimulationSummary, simulate_evaluation
from assay.errors import ConfigError

FILES = ("datapoints.jsonl", "responses.jsonl", "evaluations.jsonl", "criteria.json",
         "README.md")
DATAPOINT_KEYS = {"id", "task", "cluster", "prompt", "reference", "teacher", "split",
                  "attributes", "reference_score"}
RESPONSE_KEYS = {"id", "datapoint_id", "arm", "run", "text", "usd", "usd_provenance",
                 "tokens_in", "tokens_out", "latency_s", "failure_kind"}
EVALUATION_KEYS = {"id", "response_id", "judge", "scores", "opponent_response_id", "position",
                   "trial", "reasoning", "failure_kind", "evaluated_at"}
ARMS = ("atlas-7b", "beacon-13b", "cirrus-70b")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


class Folder:
    """A simulated run folder, read back."""

    def __init__(self, summary: SimulationSummary) -> None:
        self.summary = summary
        self.dir = summary.out_dir
        self.datapoints = read_jsonl(self.dir / "datapoints.jsonl")
        self.responses = read_jsonl(self.dir / "responses.jsonl")
        self.evaluations = read_jsonl(self.dir / "evaluations.jsonl")
        self.criteria = json.loads((self.dir / "criteria.json").read_text(encoding="utf-8"))
        self.dp_by_id = {d["id"]: d for d in self.datapoints}
        self.resp_by_id = {r["id"]: r for r in self.responses}

    def valid_responses(self) -> list[dict[str, Any]]:
        return [r for r in self.responses if r["datapoint_id"] in self.dp_by_id]

    def by_judge(self, judge: str) -> list[dict[str, Any]]:
        return [e for e in self.evaluations
                if e["judge"] == judge and e["response_id"] in self.resp_by_id]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Folder:
    return Folder(simulate_evaluation(tmp_path_factory.mktemp("sim") / "run"))


def score_problem(value: object, scale: str) -> bool:
    """Whether a non-null score is invalid on its scale (a loader's INVALID_SCORE_VALUE)."""
    kind, _, rest = scale.partition(":")
    if kind == "binary":
        return value not in (0, 1) or isinstance(value, bool)
    if kind == "range":
        low, high = (float(x) for x in rest.split(","))
        return not isinstance(value, (int, float)) or not low <= value <= high
    if kind == "ordinal":
        return value not in rest.split(",")
    raise AssertionError(scale)


def test_module_and_readme_say_simulated(folder: Folder) -> None:
    assert "SIMULATED" in (simulate_module.__doc__ or "")
    readme = (folder.dir / "README.md").read_text(encoding="utf-8")
    assert "SIMULATED" in readme and "simulated" in readme
    assert "simulate_evaluation" in readme and "seed 7" in readme
    for arm, accuracy in folder.summary.true_accuracy.items():
        assert f"| {arm} | {accuracy:.2f} |" in readme


def test_every_line_parses_with_exactly_the_documented_fields(folder: Folder) -> None:
    for record in folder.datapoints:
        assert set(record) == DATAPOINT_KEYS
        assert set(record["attributes"]) == {"difficulty", "domain"}
        assert record["reference_score"] is None or 0.0 <= record["reference_score"] <= 1.0
        assert isinstance(record["prompt"], str) and isinstance(record["reference"], str)
    for record in folder.responses:
        assert set(record) == RESPONSE_KEYS
        assert isinstance(record["run"], int) and isinstance(record["tokens_in"], int)
        assert isinstance(record["usd"], float) and record["usd"] >= 0.0
        assert record["usd_provenance"] in ("reported", "estimated")
        assert record["latency_s"] > 0.0
    for record in folder.evaluations:
        assert set(record) == EVALUATION_KEYS
        assert record["position"] in (1, 2, None) and isinstance(record["trial"], int)
        stamp = datetime.fromisoformat(record["evaluated_at"])
        assert stamp.utcoffset() is not None and stamp.utcoffset().total_seconds() == 0
    assert set(folder.criteria) == {"criteria", "judges", "rubrics"}
    assert folder.criteria["rubrics"] == {task: ["correct", "quality", "helpfulness"]
                                          for task in ("factoid_qa", "summarisation")}
    assert folder.criteria["judges"] == {
        "exact-match": ["correct"], "judge-lenient": ["quality"], "judge-strict": ["quality"],
        "judge-ordinal": ["helpfulness"], "judge-pairwise": ["preference"],
        "judge-biased": ["acceptable"], "human:annotator-1": ["acceptable"],
        "human:annotator-2": ["preference"]}
    assert {k: v["scale"] for k, v in folder.criteria["criteria"].items()} == {
        "correct": "binary", "quality": "range:0,100", "helpfulness": "ordinal:Low,Medium,High",
        "preference": "range:0,1", "acceptable": "binary"}


def test_same_seed_same_bytes_other_seed_other_bytes(folder: Folder, tmp_path: Path) -> None:
    np.random.seed(123)  # global random state must not matter
    random.seed(123)
    again = simulate_evaluation(tmp_path / "again")
    other = simulate_evaluation(tmp_path / "other", seed=8)
    for name in FILES:
        assert (tmp_path / "again" / name).read_bytes() == (folder.dir / name).read_bytes(), name
    for name in ("datapoints.jsonl", "responses.jsonl", "evaluations.jsonl", "README.md"):
        assert (tmp_path / "other" / name).read_bytes() != (folder.dir / name).read_bytes(), name
    assert again == SimulationSummary(**{**vars(folder.summary), "out_dir": tmp_path / "again",
                                         "paths": again.paths})
    assert other.true_accuracy == folder.summary.true_accuracy  # targets do not depend on seed


def test_counts(folder: Folder) -> None:
    s = folder.summary
    assert len(folder.datapoints) == s.n_datapoints == 200
    assert len({d["id"] for d in folder.datapoints}) == 200
    sizes = Counter(d["cluster"] for d in folder.datapoints)
    assert len(sizes) == s.n_clusters == 40
    assert min(sizes.values()) >= 2 and max(sizes.values()) <= 9 and len(set(sizes.values())) > 3
    tasks = Counter(d["task"] for d in folder.datapoints)
    assert set(tasks) == {"factoid_qa", "summarisation"}
    assert 0.5 <= tasks["factoid_qa"] / 200 <= 0.7
    assert Counter(d["split"] for d in folder.datapoints) == {"test": 180, "dev": 20}
    assert {d["teacher"] for d in folder.datapoints} == {"cirrus-70b", "dolomite-34b"}
    assert {d["attributes"]["difficulty"] for d in folder.datapoints} == {"easy", "medium", "hard"}
    assert 0 < sum(d["reference_score"] is not None for d in folder.datapoints) < 200

    assert len(folder.responses) == s.n_responses == 3 * 200 * 5 + ORPHAN_RESPONSES
    assert len(folder.resp_by_id) == len(folder.responses)
    cells = Counter((r["datapoint_id"], r["arm"], r["run"]) for r in folder.valid_responses())
    assert len(cells) == 3000 and set(cells.values()) == {1}
    assert len(folder.evaluations) == s.n_evaluations
    assert len({e["id"] for e in folder.evaluations}) == s.n_evaluations
    assert Counter(e["judge"] for e in folder.evaluations) == s.evaluations_by_judge
    assert s.counts["responses.jsonl"] == len(folder.responses)
    for judge in ("exact-match", "judge-lenient", "judge-strict", "judge-ordinal"):
        # every response (orphans included) is judged once by every pointwise judge
        assert Counter(e["response_id"] for e in folder.by_judge(judge)) == Counter(
            folder.resp_by_id.keys())
    assert len(folder.by_judge("judge-pairwise")) == 200 * 3 * 2
    assert {k: p.name for k, p in s.paths.items()} == {
        "datapoints": "datapoints.jsonl", "responses": "responses.jsonl",
        "evaluations": "evaluations.jsonl", "criteria": "criteria.json", "readme": "README.md"}


def test_planted_invalid_records_are_there_in_the_stated_numbers(folder: Folder) -> None:
    s = folder.summary
    criteria = folder.criteria["criteria"]
    judges = folder.criteria["judges"]
    found: dict[str, list[str]] = defaultdict(list)
    orphans = {r["id"] for r in folder.responses if r["datapoint_id"] not in folder.dp_by_id}
    assert sorted(orphans) == sorted(s.orphan_responses) and len(orphans) == ORPHAN_RESPONSES
    for e in folder.evaluations:
        if e["response_id"] not in folder.resp_by_id:
            found["MISSING_RESPONSE"].append(e["id"])
        elif e["response_id"] in orphans:
            found["MISSING_DATAPOINT"].append(e["id"])
        if any(c not in e["scores"] for c in judges[e["judge"]]):
            found["INCOMPLETE_SCORES"].append(e["id"])
        for criterion, value in e["scores"].items():
            if value is None:
                assert e["failure_kind"] is not None  # null only for a failed response
            elif score_problem(value, criteria[criterion]["scale"]):
                found["INVALID_SCORE_VALUE"].append(e["id"])
    assert {k: sorted(v) for k, v in found.items()} == {
        k: sorted(v) for k, v in s.planted.items()}
    assert s.planted_counts == {"MISSING_RESPONSE": 3, "MISSING_DATAPOINT": 8,
                                "INCOMPLETE_SCORES": 3, "INVALID_SCORE_VALUE": 3}
    assert {k: s.planted_counts[k] for k in PLANTED} == PLANTED
    bad_values = [next(iter(e["scores"].values())) for e in folder.evaluations
                  if e["id"] in s.planted["INVALID_SCORE_VALUE"]]
    assert sorted(map(str, bad_values)) == ["140", "140", "Excellent"]


def test_failures_are_marked_and_their_evaluations_null(folder: Folder) -> None:
    kinds = Counter(r["failure_kind"] for r in folder.responses if r["failure_kind"])
    assert set(kinds) == {"timeout", "api_error", "refusal", "parse_error"}
    assert dict(kinds) == {k: n for k, n in folder.summary.failures_by_kind.items() if n}
    assert sum(kinds.values()) < 0.05 * len(folder.responses)
    for r in folder.responses:
        if r["failure_kind"] in ("timeout", "api_error"):
            assert r["text"] is None and r["tokens_out"] == 0
            assert r["usd_provenance"] == "estimated"
        else:
            assert isinstance(r["text"], str) and r["text"]
    assert sum(r["usd_provenance"] == "estimated" for r in folder.responses) < 0.1 * 3002
    failed = {r["id"]: r["failure_kind"] for r in folder.responses if r["failure_kind"]}
    for e in folder.evaluations:
        if e["response_id"] in failed:
            assert e["failure_kind"] == failed[e["response_id"]]
            assert all(v is None for v in e["scores"].values())
        else:
            assert e["failure_kind"] is None


def test_true_accuracy_ordering_shows_in_exact_match(folder: Folder) -> None:
    assert folder.summary.true_accuracy == {"atlas-7b": 0.62, "beacon-13b": 0.71,
                                            "cirrus-70b": 0.8}
    correct: dict[str, list[float]] = defaultdict(list)
    for e in folder.by_judge("exact-match"):
        r = folder.resp_by_id[e["response_id"]]
        if r["datapoint_id"] in folder.dp_by_id:
            correct[r["arm"]].append(e["scores"]["correct"] or 0)  # a failure counts as wrong
    observed = {arm: float(np.mean(v)) for arm, v in correct.items()}
    assert observed["atlas-7b"] < observed["beacon-13b"] < observed["cirrus-70b"]
    for arm, accuracy in folder.summary.true_accuracy.items():
        assert abs(observed[arm] - accuracy) < 0.04


def test_runs_flip_and_items_cluster(folder: Folder) -> None:
    outcomes: dict[tuple[str, str], list[int]] = defaultdict(list)
    for e in folder.by_judge("exact-match"):
        r = folder.resp_by_id[e["response_id"]]
        if r["datapoint_id"] in folder.dp_by_id:
            outcomes[r["datapoint_id"], r["arm"]].append(e["scores"]["correct"] or 0)
    means = np.array([np.mean(v) for v in outcomes.values()])
    flip_rate = float(np.mean((means > 0) & (means < 1)))
    assert 0.15 < flip_rate < 0.6
    assert float(np.mean(means * (1 - means))) > 0.02
    # document effect: cluster means vary more than item means shuffled across clusters
    item_mean = defaultdict(list)
    for (dp, _), v in outcomes.items():
        item_mean[dp].extend(v)
    by_cluster = defaultdict(list)
    for dp, v in item_mean.items():
        by_cluster[folder.dp_by_id[dp]["cluster"]].append(np.mean(v))
    between = np.var([np.mean(v) for v in by_cluster.values()])
    all_items = np.concatenate([np.asarray(v) for v in by_cluster.values()])
    sizes = [len(v) for v in by_cluster.values()]
    rng = np.random.default_rng(0)
    shuffled = []
    for _ in range(200):
        perm, start, cluster_means = rng.permutation(all_items), 0, []
        for size in sizes:
            cluster_means.append(perm[start:start + size].mean())
            start += size
        shuffled.append(np.var(cluster_means))
    assert between > np.quantile(shuffled, 0.99)


def test_lenient_judge_scores_higher_than_strict(folder: Folder) -> None:
    def mean_quality(judge: str) -> float:
        values = [e["scores"].get("quality") for e in folder.by_judge(judge)]
        return float(np.mean([v for v in values if isinstance(v, int) and 0 <= v <= 100]))

    lenient, strict = mean_quality("judge-lenient"), mean_quality("judge-strict")
    assert lenient > strict + 5
    # quality follows correctness
    correct = {e["response_id"]: e["scores"].get("correct")
               for e in folder.by_judge("exact-match")}
    q = defaultdict(list)
    for e in folder.by_judge("judge-lenient"):
        value = e["scores"].get("quality")
        if isinstance(value, int) and value <= 100 and correct[e["response_id"]] is not None:
            q[correct[e["response_id"]]].append(value)
    assert np.mean(q[1]) > np.mean(q[0]) + 20
    labels = Counter(e["scores"].get("helpfulness") for e in folder.by_judge("judge-ordinal"))
    assert {"High", "Medium", "Low"} <= set(labels)


def test_pairwise_design_and_position_bias(folder: Folder) -> None:
    records = folder.by_judge("judge-pairwise")
    seen = Counter()
    by_position: dict[int, list[float]] = defaultdict(list)
    for e in records:
        mine, theirs = folder.resp_by_id[e["response_id"]], folder.resp_by_id[
            e["opponent_response_id"]]
        assert mine["run"] == theirs["run"] == 1
        assert mine["datapoint_id"] == theirs["datapoint_id"]
        assert ARMS.index(mine["arm"]) < ARMS.index(theirs["arm"])
        assert e["position"] == e["trial"]  # trial 1: shown first; trial 2: swapped
        seen[mine["datapoint_id"], mine["arm"], theirs["arm"], e["trial"]] += 1
        value = e["scores"]["preference"]
        assert value in (0.0, 0.5, 1.0) or (value is None and e["failure_kind"])
        if value is not None:
            by_position[e["position"]].append(value)
    assert len(seen) == 200 * 3 * 2 and set(seen.values()) == {1}
    assert np.mean(by_position[1]) - np.mean(by_position[2]) > 0.05


def test_answers_echo_references(folder: Folder) -> None:
    em = {e["response_id"]: e["scores"].get("correct") for e in folder.by_judge("exact-match")}
    factoid_hits = factoid_right = 0
    for r in folder.valid_responses():
        dp = folder.dp_by_id[r["datapoint_id"]]
        if dp["task"] == "factoid_qa" and em[r["id"]] == 1:
            factoid_right += 1
            factoid_hits += dp["reference"] in r["text"]
    assert factoid_right > 0 and factoid_hits == factoid_right


def test_small_designs(tmp_path: Path) -> None:
    s = simulate_evaluation(tmp_path / "small", seed=3, n_documents=5, n_questions=12,
                            arms=("a", "b"), runs=2)
    f = Folder(s)
    assert len(f.datapoints) == 12 and len({d["cluster"] for d in f.datapoints}) == 5
    assert len(f.valid_responses()) == 12 * 2 * 2
    assert len(f.by_judge("judge-pairwise")) == 12 * 1 * 2
    assert list(s.true_accuracy) == ["a", "b"]
    single = simulate_evaluation(tmp_path / "single", n_documents=2, n_questions=4,
                                 arms=["solo-1b"], runs=1)
    assert single.evaluations_by_judge.get("judge-pairwise", 0) == 0
    assert single.true_accuracy == {"solo-1b": 0.71}


@pytest.mark.parametrize("kwargs", [
    {"arms": ()}, {"arms": ("x", "x")}, {"runs": 0}, {"n_documents": 0},
    {"n_documents": 50, "n_questions": 40}, {"n_documents": 2, "n_questions": 30},
])
def test_bad_arguments(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        simulate_evaluation(tmp_path, **kwargs)
