"""Hive partition keys (``KEY=VALUE`` folders) are read alike by DuckDB, pandas (and Spark).

A key naming a column the files lack becomes that column; a key naming a column they have
must agree with it (a disagreement names the file and row); any other key is not read,
and the report says so.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import assay
from assay.analysis.pushdown import engine_score_summary, open_table
from assay.analysis.scores import score_summary
from tests.analysis.pushdown._tables import SCALES, assert_same, problems, rich_table


def partitioned(frame: pd.DataFrame, root: Path, keys: list[str], *,
                drop: tuple[str, ...] = ()) -> Path:
    """``frame`` in folders KEY=VALUE/... (each key a column of ``frame``), one file each."""
    for values, part in frame.groupby(keys, sort=True):
        values = values if isinstance(values, tuple) else (values,)
        folder = root.joinpath(*(f"{k}={v}" for k, v in zip(keys, values, strict=True)))
        folder.mkdir(parents=True)
        part.drop(columns=list(drop)).to_parquet(folder / "p.parquet", index=False)
    return root


def ordered(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return pd.concat([part for _, part in frame.groupby(keys, sort=True)])


@pytest.fixture(scope="module")
def frame():
    return rich_table(n_items=30, runs=3)


@pytest.mark.parametrize("key", ["judge", "run"])
def test_a_key_that_is_a_column_of_the_files_is_compared_to_it(key, frame, tmp_path):
    folder = partitioned(frame, tmp_path / "d", [key])  # judge=gpt/... and a judge column
    flat = assay.load(_flat(ordered(frame, [key]), tmp_path), scales=SCALES)
    expected = score_summary(flat).to_dict()
    assert_same(engine_score_summary(open_table(folder, scales=SCALES)).to_dict(), expected)
    if key == "judge":  # pandas checks each file of a folder alone: one run per file is refused
        assert_same(score_summary(assay.load(folder, scales=SCALES)).to_dict(), expected)


def test_a_key_that_disagrees_with_its_column_names_the_file_and_row(frame, tmp_path):
    folder = partitioned(frame, tmp_path / "d", ["judge"])
    file = folder / "judge=gpt" / "p.parquet"
    part = pd.read_parquet(file)
    part.loc[4, "judge"] = "claude"
    part.to_parquet(file, index=False)
    engine = problems(lambda: open_table(folder, scales=SCALES))
    pandas = problems(lambda: assay.load(folder, scales=SCALES))
    message = (f"{file}, row 5, column 'judge': its folder says judge=gpt and the row says "
               "'claude': a hive partition key must agree with the column of that name")
    assert message in engine and message in pandas


def test_a_key_the_files_lack_becomes_the_column(frame, tmp_path):
    folder = partitioned(frame, tmp_path / "d", ["judge"], drop=("judge",))
    flat = assay.load(_flat(ordered(frame, ["judge"]), tmp_path), scales=SCALES)
    expected = score_summary(flat).to_dict()
    assert {r["judge"] for r in expected["scores"]} == {"gpt", "claude"}
    assert_same(engine_score_summary(open_table(folder, scales=SCALES)).to_dict(), expected)
    assert_same(score_summary(assay.load(folder, scales=SCALES)).to_dict(), expected)


def test_an_unknown_key_is_not_read_and_the_report_says_so(frame, tmp_path):
    shards = frame.assign(shard=frame["item"].str[1:].astype(int) % 2)  # whole items per file
    folder = partitioned(shards, tmp_path / "d", ["shard"], drop=("shard",))
    flat = assay.load(_flat(ordered(shards, ["shard"]).drop(columns="shard"), tmp_path),
                      scales=SCALES)
    table = open_table(folder, scales=SCALES)
    assert table.notes == [f"{folder}: the hive partition key(s) shard name no column of the "
                           "judgments table and are not read (name a folder after a column, "
                           "such as judge=NAME, to read it)",
                           *flat.read_notes]  # pref: undeclared, read from its scores
    assert flat.read_notes == ("pref: values 0 and 1 read as binary (1 = correct); override "
                               "with --scale pref=interval",)
    expected = score_summary(flat).to_dict()
    assert_same(engine_score_summary(table).to_dict(), expected)
    assert_same(score_summary(assay.load(folder, scales=SCALES)).to_dict(), expected)


@pytest.mark.slow  # two whole commands (about 6 s on a loaded machine)
def test_the_report_command_prints_the_note_on_every_engine(frame, tmp_path):
    from typer.testing import CliRunner

    from assay.cli import app

    shards = frame.assign(shard=frame["item"].str[1:].astype(int) % 2)
    folder = partitioned(shards, tmp_path / "d", ["shard"], drop=("shard",))
    for engine in ("duckdb", "pandas"):
        result = CliRunner().invoke(app, ["report", str(folder), "--kind", "scores", "--scale",
                                          "correct=binary", "--scale", "quality=range:1,5",
                                          "--engine", engine])
        assert result.exit_code == 0, result.output
        assert "note: " in result.output and "key(s) shard name no column" in result.output


def _flat(frame: pd.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "flat.parquet"
    frame.to_parquet(path, index=False)
    return path
