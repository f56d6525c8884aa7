"""Attribute coverage: ACR, rare-attribute recall (RAR) and surface bias (pairwise BLEU of prompts)."""

from __future__ import annotations

import json
import math
from itertools import product
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from assay.analysis.coverage import coverage_ratio, coverage_report, read_prompts
from assay.data.table import Judgments
from assay.errors import ConfigError, InputError
from assay.stats.bleu import mean_pairwise_bleu

from .conftest import make_table

# task t1: attributes size in {S, L} x tone in {formal, casual, neutral} -> |Omega| = 6
T1 = [("i1", {"size": "S", "tone": "formal"}, "nat"), ("i2", {"size": "S", "tone": "formal"}, "nat"),
      ("i3", {"size": "S", "tone": "formal"}, "nat"), ("i4", {"size": "L", "tone": "casual"}, "A"),
      ("i5", {"size": "S", "tone": "casual"}, "nat"), ("i6", {"size": "L", "tone": "neutral"}, None),
      ("i7", {"size": "L"}, "nat")]
T2 = [("k1", {"level": "1"}, "nat"), ("k2", {"level": "2"}, "nat")]


@pytest.fixture
def attributed() -> Judgments:
    rows = []
    for task, items in (("t1", T1), ("t2", T2)):
        for item, attrs, teacher in items:
            for arm in ("A", "B"):
                rows.append({"item": item, "arm": arm, "score": 0.5, "task": task,
                             "teacher": teacher, "attributes": json.dumps(attrs)})
    return make_table(rows, {"score": "range:0,1"})


def test_acr_and_rar_hand_worked(attributed: Judgments) -> None:
    report = coverage_report(attributed)
    t1 = next(r for r in report.rows if r.task == "t1")
    # covered: (S,formal) (L,casual) (S,casual) (L,neutral) -> 4 of 6; i7 lacks tone
    assert (t1.n_strata, t1.n_covered, t1.n_items, t1.n_items_unplaced) == (6, 4, 7, 1)
    assert_allclose(t1.acr, 4 / 6)
    assert_allclose(coverage_ratio(attributed, task_id="t1"), 4 / 6)
    # natural items: teacher not an arm (nat) or none -> i1 i2 i3 i5 i6 (+ unplaced i7);
    # natural counts (S,formal) 3, (S,casual) 1, (L,neutral) 1, others 0 -> 5 rare strata,
    # of which (S,casual) (L,neutral) (L,casual) occur in the benchmark: RAR = 3/5
    assert (t1.n_rare, t1.n_rare_covered, t1.n_natural_items) == (5, 3, 6)
    assert_allclose(t1.rar, 3 / 5)
    assert any("items written by A" in n for n in report.notes)
    # per teacher: nat covers (S,formal), (S,casual); A covers (L,casual)
    assert t1.acr_by_teacher == pytest.approx({"A": 1 / 6, "nat": 2 / 6})
    counts = {tuple(s.values.values()): (s.count, s.natural, s.rare) for s in t1.strata}
    assert counts[("S", "formal")] == (3, 3, False) and counts[("L", "formal")] == (0, 0, True)


def test_rar_with_named_natural_teachers(attributed: Judgments) -> None:
    # natural = teacher A or none: i4, i6 -> every stratum has < 3, all 6 rare, 4 covered
    t1 = next(r for r in coverage_report(attributed, natural_teachers=["A"]).rows if r.task == "t1")
    assert (t1.n_rare, t1.n_rare_covered) == (6, 4)


def test_no_rare_stratum_gives_nan_rar_with_a_note(attributed: Judgments) -> None:
    report = coverage_report(attributed, rare_threshold=1)
    t2 = next(r for r in report.rows if r.task == "t2")
    assert t2.n_rare == 0 and math.isnan(t2.rar)
    assert any("Task t2: no stratum" in n for n in report.notes)
    assert coverage_ratio(attributed, task_id="t2") == 1.0


def test_unknown_task_raises(attributed: Judgments) -> None:
    with pytest.raises(ConfigError, match="t1, t2"):
        coverage_ratio(attributed, task_id="nope")


def test_all_items_together() -> None:
    rows = [{"item": f"q{i}", "arm": "A", "score": 1.0, "attributes": json.dumps(a)}
            for i, a in enumerate([{"x": "1", "y": "a"}, {"x": "2", "y": "b"}, {"x": "1", "y": "b"}])]
    table = make_table(rows, {"score": "binary"})
    # Omega = {1,2} x {a,b}: 3 of 4 covered; no task column -> one row "all"
    assert_allclose(coverage_ratio(table), 3 / 4)
    assert [r.task for r in coverage_report(table).rows] == ["all"]


def test_surface_bias_from_given_prompts(attributed: Judgments) -> None:
    prompts = {"k1": "A b c", "k2": "a b"}
    report = coverage_report(attributed, prompts=prompts)
    t2 = next(r for r in report.rows if r.task == "t2")
    # lower-cased: "a b c" vs "a b" -> ((1/30)^(1/3) + exp(-1/2)) / 2 (see the BLEU tests)
    assert_allclose(t2.surface_bias, ((1 / 30) ** (1 / 3) + math.exp(-0.5)) / 2, rtol=1e-12)
    assert (t2.n_prompts, t2.n_prompt_pairs) == (2, 2)
    t1 = next(r for r in report.rows if r.task == "t1")
    assert t1.n_prompts == 0 and math.isnan(t1.surface_bias)
    assert any("Task t1: 7 of 7 items have no prompt text" in n for n in report.notes)


def test_table_without_prompts_says_so(attributed: Judgments) -> None:
    report = coverage_report(attributed)
    assert all(math.isnan(r.surface_bias) for r in report.rows)
    assert any("No prompt texts" in n for n in report.notes)


def _independent_demo_coverage(folder: Path, demo: Judgments, task: str) -> tuple[float, float,
                                                                                  float]:
    items = demo.frame.drop_duplicates("item")
    items = items[items["task"] == task]
    attrs = [json.loads(a) for a in items["attributes"]]
    keys = sorted({k for a in attrs for k in a})
    omega = list(product(*[sorted({a[k] for a in attrs}) for k in keys]))
    seen = pd.Series([tuple(a[k] for k in keys) for a in attrs])
    natural = seen[(items["teacher"] != "cirrus-70b").to_numpy()]  # cirrus-70b is also an arm
    rare = [w for w in omega if (natural == w).sum() < 3]
    acr = len(set(seen)) / len(omega)
    rar = sum((seen == w).any() for w in rare) / len(rare)
    records = [json.loads(line) for line in (folder / "datapoints.jsonl").read_text().splitlines()]
    wanted = set(items["item"])
    prompts = [r["prompt"] for r in records if r["id"] in wanted]
    return acr, rar, mean_pairwise_bleu(prompts).estimate


def test_demo_coverage_against_a_direct_computation(demo_folder: Path, demo: Judgments) -> None:
    report = coverage_report(demo, max_pairs=None)
    assert [r.task for r in report.rows] == ["factoid_qa", "summarisation"]
    for row in report.rows:
        acr, rar, bias = _independent_demo_coverage(demo_folder, demo, row.task)
        assert_allclose([row.acr, row.rar], [acr, rar])
        assert_allclose(row.surface_bias, bias, rtol=1e-12)
        assert row.n_prompts == row.n_items
    # summaries of one document share its sentences; factoid questions are short and varied
    bias = {r.task: r.surface_bias for r in report.rows}
    assert bias["summarisation"] > bias["factoid_qa"]
    assert report.to_json()


def test_read_prompts_errors_and_folders(tmp_path: Path) -> None:
    (tmp_path / "datapoints").mkdir()
    (tmp_path / "datapoints" / "a.jsonl").write_text(
        '{"id": "x", "prompt": "hello there"}\n\n{"id": "y"}\n', encoding="utf-8")
    assert read_prompts(tmp_path) == {"x": "hello there"}
    (tmp_path / "datapoints.jsonl").write_text('{"id": "z", "prompt": "p"}\nnot json\n',
                                               encoding="utf-8")
    with pytest.raises(InputError, match="row 2"):
        read_prompts(tmp_path)


def test_surface_bias_of_a_table_saved_from_a_run_store(tmp_path: Path) -> None:
    """An ``assay run`` folder holds the store and datapoints.jsonl; the store's rows keep no
    question, so a table saved from the folder (``assay import table RUN -o t.parquet``) had
    no prompts ("n/a (0 prompts)"). The store's reader now gives each row its prompt."""
    import json

    from assay import load
    from assay.llm import ChatRequest, Reply, RunStore
    from assay.stats.bleu import mean_pairwise_bleu

    run = tmp_path / "run"
    prompts = ["what is the capital of france", "name the capital city of spain",
               "how tall is mount everest"]
    with RunStore(run, config={"judge": "m"}) as store:
        for i in range(6):
            row = {"item": f"q{i // 2}", "arm": "ab"[i % 2], "judge": "j", "criterion": "c",
                   "score": float(i % 2), "task": "t",
                   "attributes": json.dumps({"d": "easy" if i < 4 else "hard"})}
            store.put(ChatRequest(key=f"k{i}", messages=(("user", "hi"),)),
                      Reply(f"k{i}", None, "t"), [row])
    (run / "datapoints.jsonl").write_text("".join(
        json.dumps({"id": f"q{j}", "task": "t", "prompt": p}) + "\n"
        for j, p in enumerate(prompts)), encoding="utf-8")
    saved = tmp_path / "t.parquet"
    load(run).save(saved)
    (row,) = coverage_report(load(saved)).rows
    assert row.n_prompts == 3
    assert_allclose(row.surface_bias, mean_pairwise_bleu(prompts).estimate, rtol=1e-12)
