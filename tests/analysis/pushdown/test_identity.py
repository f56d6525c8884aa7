"""The engine's reports equal the pandas path's (1e-9) on every input layout it reads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import assay
from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.pushdown import engine_benchmark_report, engine_score_summary, open_table
from assay.analysis.scores import score_summary
from tests.analysis.pushdown._tables import SCALES, assert_same, rich_table, write


@pytest.fixture(scope="module")
def frame():
    return rich_table()


@pytest.fixture(scope="module")
def loaded(frame, tmp_path_factory):
    path = write(frame, tmp_path_factory.mktemp("pandas"), "parquet")
    return assay.load(path, scales=SCALES)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl", "folder", "hive"])
def test_benchmark_and_scores_equal_the_pandas_path(fmt, frame, loaded, tmp_path):
    table = open_table(write(frame, tmp_path, fmt), scales=SCALES)
    if fmt == "hive":  # the rows come in the order of the files: judge=claude, then judge=gpt
        ordered = pd.concat([frame[frame["judge"] == "claude"], frame[frame["judge"] == "gpt"]])
        loaded = assay.load(write(ordered, tmp_path, "parquet"), scales=SCALES)
    report, judge, criterion = engine_benchmark_report(table, B=200, seed=5)
    assert (judge, criterion) == ("gpt", "correct")
    expected = benchmark_report(benchmark_rows(loaded), B=200, seed=5)
    assert report.failures[0]["n_failures"] > 0 and report.cost is not None
    assert_same(report.to_dict(), expected.to_dict())
    assert_same(engine_score_summary(table).to_dict(), score_summary(loaded).to_dict())


@pytest.mark.parametrize("method", ["cluster_t", "bootstrap", "exact"])
def test_every_interval_method_equals_the_pandas_path(method, frame, loaded, tmp_path):
    table = open_table(write(frame, tmp_path, "parquet"), scales=SCALES)
    report, _, _ = engine_benchmark_report(table, B=300, method=method, k=(1, 2))
    expected = benchmark_report(benchmark_rows(loaded), B=300, method=method, k=(1, 2))
    assert_same(report.to_dict(), expected.to_dict())


def test_confirmatory_refuses_the_dev_rows_as_pandas_does(frame, loaded, tmp_path):
    table = open_table(write(frame, tmp_path, "parquet"), scales=SCALES)
    with pytest.raises(assay.errors.DesignError) as engine:
        engine_benchmark_report(table, B=200, confirmatory=True)
    with pytest.raises(assay.errors.DesignError) as pandas:
        benchmark_report(benchmark_rows(loaded), B=200, confirmatory=True)
    assert str(engine.value) == str(pandas.value)
    assert "outside the test and final splits" in str(engine.value)


def test_an_unbalanced_design_names_the_same_cells(frame, tmp_path):
    cut = frame[~((frame["item"] == "q5") & (frame["arm"] == "mid") & (frame["run"] == 3))]
    path = write(cut.reset_index(drop=True), tmp_path, "parquet")
    with pytest.raises(assay.errors.DesignError) as engine:
        engine_benchmark_report(open_table(path, scales=SCALES), B=200)
    with pytest.raises(assay.errors.DesignError) as pandas:
        benchmark_report(benchmark_rows(assay.load(path, scales=SCALES)), B=200)
    assert str(engine.value) == str(pandas.value)
    assert "item q5" in str(engine.value) and "arm mid, run 3" in str(engine.value)


def test_exported_tables_merge_into_one_dataset_with_their_stored_scales(frame, tmp_path):
    """Tables saved by assay (``assay import table RUN -o runA.parquet``: the run folder's store
    exported with its scales) stack into one folder that the engine reads as one table."""
    folder = tmp_path / "merged"
    halves = {"A": frame[frame["arm"] != "mid"], "B": frame[frame["arm"] == "mid"]}
    for name, part in halves.items():
        written = tmp_path / f"run{name}.parquet"
        part.to_parquet(written, index=False)
        assay.load(written, scales=SCALES).save(folder / f"run{name}.parquet")
    engine = engine_score_summary(open_table(folder))  # the scales come from the files
    stacked = assay.load_many([folder / "runA.parquet", folder / "runB.parquet"])
    assert_same(engine.to_dict(), score_summary(stacked).to_dict())
    # pref is undeclared: its 0/1 verdicts are read as binary, and saved as such
    assert {r.scale for r in engine.rows} == {"binary", "range:1,5"}


def test_files_that_store_different_scales_are_refused(frame, tmp_path):
    folder = tmp_path / "merged"
    for name, scale in (("a", "range:1,5"), ("b", "range:0,10")):
        written = tmp_path / f"{name}.parquet"
        frame.to_parquet(written, index=False)
        scales = dict(SCALES, quality=assay.Scale.parse(scale))
        assay.load(written, scales=scales).save(folder / f"{name}.parquet")
    with pytest.raises(assay.errors.InputError, match="differ from those of"):
        open_table(folder)


def test_row_weights_weight_the_scores_and_the_benchmark_refuses_them(frame, tmp_path):
    weighted = frame.assign(weight=np.where(frame["run"] == 1, 3.0, 1.0))
    path = write(weighted, tmp_path, "parquet")
    table = open_table(path, scales=SCALES)
    loaded = assay.load(path, scales=SCALES)
    engine = engine_score_summary(table).to_dict()
    assert_same(engine, score_summary(loaded).to_dict())
    assert engine != engine_score_summary(open_table(write(frame, tmp_path / "..", "csv"),
                                                     scales=SCALES)).to_dict()
    with pytest.raises(assay.errors.DesignError) as info:
        engine_benchmark_report(table, B=200)
    with pytest.raises(assay.errors.DesignError) as pandas:
        benchmark_report(benchmark_rows(loaded), B=200)
    assert str(info.value) == str(pandas.value)


def test_a_table_of_several_tasks_is_left_to_pandas_for_its_per_task_breakdown(frame, tmp_path):
    tasked = frame.assign(task=np.where(frame["item"].str[1:].astype(int) % 2 == 0, "a", "b"))
    table = open_table(write(tasked, tmp_path, "parquet"), scales=SCALES)
    with pytest.raises(assay.errors.ConfigError, match=r"per-task breakdown.*--engine pandas"):
        engine_benchmark_report(table, B=200)
