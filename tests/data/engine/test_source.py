"""What an engine reads: a file, a folder, a glob, a hive dataset; and what it leaves to pandas."""

from __future__ import annotations

import pytest

from assay.data.engine import resolve_source
from assay.errors import InputError


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("item,arm,score\nq,a,1\n")
    return path


def test_a_file_a_folder_a_glob_and_a_hive_dataset(tmp_path):
    one = touch(tmp_path / "one.csv")
    assert resolve_source(one).files == (str(one),)
    parts = [touch(tmp_path / "d" / f"judge={j}" / "p.csv") for j in ("b", "a")]
    folder = resolve_source(tmp_path / "d")
    assert folder.files == tuple(sorted(map(str, parts))) and folder.hive
    assert folder.format == "csv"
    glob = resolve_source(tmp_path / "d" / "*" / "*.csv")
    assert glob.files == folder.files


def test_run_folders_and_other_formats_are_left_to_pandas(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "judgments.sqlite").write_bytes(b"")
    assert resolve_source(tmp_path / "run") is None
    assert resolve_source(touch(tmp_path / "t.tsv")) is None


def test_an_empty_or_mixed_folder_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Parquet, CSV or JSONL files"):
        resolve_source(tmp_path / "empty")
    touch(tmp_path / "mixed" / "a.csv")
    touch(tmp_path / "mixed" / "b.jsonl")
    with pytest.raises(InputError, match=r"several formats \(csv, jsonl\)"):
        resolve_source(tmp_path / "mixed")
