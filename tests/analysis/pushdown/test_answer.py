"""The default report (the answer) made by DuckDB is the pandas path's: the same text, the same
JSON (1e-9), the reports-not-made line as silent, what humans would say (PPI++) included; what
an engine does not make (pairwise win rates, agreement between judges) is one named line each.
Spark: the same queries, same numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import assay
from assay.analysis.answer import answer
from assay.analysis.pushdown import engine_answer, engine_table_facts, open_table
from assay.analysis.pushdown._table import ENGINE_SCALES
from assay.cli import main
from assay.report.kinds._available import table_facts
from assay.report.kinds._registry import with_available
from tests.analysis.pushdown._tables import HUMAN_SCALES, assert_same, humans_table
from tests.cli.test_answer_first import _table as new_users_table

CANONICAL = {"question_id": "item", "model": "arm", "topic": "cluster"}


def _report(path: Path, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
            *extra: str) -> tuple[list[str], dict]:
    """The text of ``assay report PATH --engine ENGINE`` (its engine line left out) and the
    answer.json it writes."""
    out = tmp_path / f"out-{engine}"
    for args in (["report", str(path), "--engine", engine, *extra],
                 ["report", str(path), "--engine", engine, "--format", "json", "--out",
                  str(out), *extra]):
        with pytest.raises(SystemExit) as info:
            main(args)
        text = capsys.readouterr()
        assert info.value.code in (0, None), text.err
        if "--format" not in args:
            lines = text.out.splitlines()
    assert lines[0] == f"engine: {engine} (asked for with --engine {engine})"
    return lines[1:], json.loads((out / "answer.json").read_text())


def _boundaries_table(weighted: bool) -> pd.DataFrame:
    """5 systems x 40 questions in 8 topics x 10 runs of 0/1 scores, with dollars: means of
    k/400, half of them on a rounding boundary of 3 decimals (0.0125), and with ``weighted``
    a weight per row."""
    rng = np.random.default_rng(11)
    rows = []
    for q in range(40):
        for a in range(5):
            for run in range(1, 11):
                rows.append({"item": f"q{q}", "cluster": f"t{q % 8}", "arm": f"arm{a}",
                             "run": run, "score": float(rng.random() < 0.6 + 0.02 * a),
                             "usd": 0.0005 + 0.0001 * a})
    frame = pd.DataFrame(rows)
    if weighted:
        frame["weight"] = rng.choice([1.0, 2.0, 3.0], len(frame))
    return frame


@pytest.mark.parametrize("kind", ["binary", "one_to_ten"])
def test_a_new_users_csv_gets_the_same_answer_from_duckdb(kind, tmp_path, capsys):
    path = tmp_path / "s.csv"
    new_users_table(kind).rename(columns=CANONICAL).to_csv(path, index=False)
    text, data = _report(path, "duckdb", tmp_path, capsys)
    expected_text, expected = _report(path, "pandas", tmp_path, capsys)
    assert text == expected_text
    assert_same(data, expected)
    assert not any("skipped" in line for line in text)
    assert "also available: --kind scores" in text[-1] and "--kind list says why" in text[-1]


@pytest.mark.parametrize("weighted", [False, True])
def test_figures_on_rounding_boundaries_print_the_same_digits(weighted, tmp_path, capsys):
    path = tmp_path / "b.parquet"
    _boundaries_table(weighted).to_parquet(path)
    text, data = _report(path, "duckdb", tmp_path, capsys)
    expected_text, expected = _report(path, "pandas", tmp_path, capsys)
    assert text == expected_text
    assert_same(data, expected)
    assert data["spend"]["systems"] and len(data["verdicts"][0]["pairs"]) == 10


def test_the_demo_table_gets_the_same_answer_but_the_parts_named_left_out(demo_table, tmp_path,
                                                                          capsys):
    path = tmp_path / "demo.parquet"
    demo_table.frame.to_parquet(path)  # its scales read from the data again, on both paths
    text, data = _report(path, "duckdb", tmp_path, capsys)
    expected_text, expected = _report(path, "pandas", tmp_path, capsys)
    left_out = [line for line in text if line.startswith("not made here: ")]
    assert left_out == [
        "not made here: the win rates and position flips of 1176 pairwise judgments (rows with "
        "an opponent): made by the pandas engine only (--engine pandas)",
        "not made here: the agreement between the judges of 'acceptable', 'preference', "
        "'quality' (and with human labels): measured by the pandas engine only "
        "(--engine pandas)"]
    # the pandas answer without those parts is the engine's, line for line and number for number
    pairwise = {"preference"}
    expected["verdicts"] = [v for v in expected["verdicts"] if v["criterion"] not in pairwise]
    expected["trust"] = [t for t in expected["trust"] if t["check"] == "failures"]
    expected["notes"] = [n for n in expected["notes"] if "pairwise" not in n
                         and not n.startswith("position:")]
    assert len(expected["verdicts"]) == 6 and expected["humans"]
    assert_same({**data, "left_out": []}, expected)  # what humans would say included
    kept = list(expected_text)
    for judge in ("judge-pairwise; failures left out", "human:annotator-2"):
        start = kept.index(f"preference: share of comparisons won (ties count half); judge "
                           f"{judge}")
        kept = kept[:start] + kept[start + 9:]
    assert "What humans would say (the judge corrected by human labels; 95% intervals):" in kept
    kept = [line for line in kept if "swap places" not in line and "agreement between" not in line
            and "against human labels" not in line
            and "pairwise rows" not in line and not line.startswith("note: position:")]
    assert [line for line in text if line not in left_out] == kept


def _humans(made) -> dict:
    data = made.to_dict()
    return {"humans": data["humans"], "humans_note": data["humans_note"]}


def test_two_humans_and_preferences_shown_both_ways_give_the_pandas_human_block(tmp_path):
    path = tmp_path / "h.parquet"
    humans_table().to_parquet(path, index=False)
    made = engine_answer(open_table(path, scales=HUMAN_SCALES))
    expected = answer(assay.load(path, scales=HUMAN_SCALES))
    assert_same(_humans(made), _humans(expected))
    # every system and pair of `ok`, every pair of `pref`; the labelled items as the table
    # has them (items 0-29 of ok, 0-24 of pref), the interval criterion and dev rows not
    assert [(h.kind, h.criterion, h.arm, h.opponent, h.n_labelled) for h in made.humans] == [
        *(("system", "ok", a, None, 30) for a in "ABC"),
        ("pair", "ok", "A", "B", 30), ("pair", "ok", "A", "C", 30), ("pair", "ok", "B", "C", 30),
        ("win_rate", "pref", "A", "B", 25), ("win_rate", "pref", "B", "C", 25)]
    assert all(h.lower < h.estimate < h.upper for h in made.humans)


def test_the_demo_tables_human_block_is_the_pandas_one_win_rates_too(demo_table, tmp_path):
    path = tmp_path / "demo.parquet"
    demo_table.frame.to_parquet(path)
    # the demo's own scales but the labelled one the engines refuse (helpfulness, read from
    # its scores on both paths): the preference on its 0-1 range gives the win rates
    scales = {c: s for c, s in demo_table.scales.items() if s.kind in ENGINE_SCALES}
    made = engine_answer(open_table(path, scales=scales))
    expected = answer(assay.load(path, scales=scales))
    assert_same(_humans(made), _humans(expected))
    frame = demo_table.frame
    labels = frame[(frame["judge"] == "human:annotator-1") & frame["reportable"]]
    kinds = [(h.kind, h.arm, h.n_labelled) for h in made.humans]
    assert kinds[:3] == [("system", arm, labels.loc[labels["arm"] == arm, "item"].nunique())
                         for arm in ("atlas-7b", "beacon-13b", "cirrus-70b")]
    assert [k for k, _, _ in kinds] == ["system"] * 3 + ["pair"] * 3 + ["win_rate"] * 3


def test_a_table_without_human_labels_or_with_them_on_an_interval_says_why(tmp_path):
    frame = humans_table()
    path = tmp_path / "h.parquet"
    frame[~frame["judge"].str.startswith("human")].to_parquet(path, index=False)
    made, expected = engine_answer(open_table(path)), answer(assay.load(path))
    assert made.humans == () and made.humans_note == expected.humans_note
    assert made.humans_note.startswith("no human labels:")
    frame[frame["criterion"] == "len"].to_parquet(path, index=False)  # an interval: no map
    made, expected = engine_answer(open_table(path)), answer(assay.load(path))
    assert made.humans == () and made.humans_note == expected.humans_note
    assert "no human labels" in made.humans_note


def test_the_facts_of_an_engine_table_are_those_of_the_loaded_table(demo_table, tmp_path):
    path = tmp_path / "demo.parquet"
    demo_table.frame.to_parquet(path)
    loaded = assay.load(path)
    facts, expected = engine_table_facts(open_table(path)), table_facts(loaded)
    assert facts.columns >= {"attributes", "teacher", "reference_score"}
    assert {**vars(facts), "columns": None} == {**vars(expected), "columns": None}


@pytest.mark.spark
@pytest.mark.slow
def test_spark_gives_the_same_answer(spark, tmp_path):
    path = tmp_path / "s.parquet"
    new_users_table("binary").rename(columns=CANONICAL).to_parquet(path)
    table = open_table(path, engine=spark)
    made = with_available(engine_answer(table), engine_table_facts(table))
    loaded = assay.load(path)
    expected = with_available(answer(loaded), table_facts(loaded))
    assert_same(made.to_dict(), expected.to_dict())


@pytest.mark.spark
@pytest.mark.slow
def test_spark_gives_the_same_human_block(spark, tmp_path):
    path = tmp_path / "h.parquet"
    humans_table().to_parquet(path, index=False)
    made = engine_answer(open_table(path, scales=HUMAN_SCALES, engine=spark))
    expected = answer(assay.load(path, scales=HUMAN_SCALES))
    assert len(made.humans) == 8
    assert_same(_humans(made), _humans(expected))
