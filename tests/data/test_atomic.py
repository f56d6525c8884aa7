"""Tables are written atomically: a save that fails leaves the old files and no temporary file."""

from __future__ import annotations

import pandas as pd
import pytest

from assay.data.atomic import atomic_path, write_text
from assay.data.io import load
from assay.errors import StorageError


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_failed_save_leaves_the_old_table_as_it_was(tmp_path, monkeypatch, suffix):
    source = tmp_path / "in.csv"
    source.write_text("item,arm,score\nq1,a,1\nq1,b,0\n")
    table = load(source)
    target = tmp_path / f"t{suffix}"
    table.save(target)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    monkeypatch.setattr(pd.DataFrame, "to_json", broken)
    monkeypatch.setattr("pyarrow.parquet.write_table", broken)
    with pytest.raises(StorageError, match="disk full") as info:
        table.save(target)
    assert str(target) in str(info.value)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_atomic_path_replaces_only_on_success(tmp_path):
    target = write_text(tmp_path / "a.txt", "old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("formatting failed")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]
