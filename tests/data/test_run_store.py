"""Reading a run folder's store needs no write access and leaves the folder as it was.

The store is written with the judge engine's writer (:class:`RunStore`); the reader is
``assay.data.run_store``. A read-only store is simulated by a copy whose file is 0444 and
whose folder is 0555; when the tests run as root (who ignores mode bits) the copy is also
made immutable with ``chattr +i``, which stops root too, as a read-only mount does.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from assay.data.run_store import STORE_FILENAME, load_store
from assay.errors import InputError
from assay.llm import ChatRequest, Reply, RunStore
from tests.cli._subprocess import one_error_line, read_only, run_assay


def _store(folder: Path, n: int = 6) -> Path:
    with RunStore(folder, config={"judge": "m"}) as store:
        for i in range(n):
            key = f"k{i}"
            row = {"item": f"q{i // 2}", "arm": "ab"[i % 2], "judge": "j", "criterion": "c",
                   "score": float(i % 3)}
            store.put(ChatRequest(key=key, messages=(("user", "hi"),)), Reply(key, None, "t"), [row])
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_report_and_validate_read_a_read_only_store_and_write_nothing_beside_it(tmp_path):
    run = _store(tmp_path / "run")
    assert sorted(p.name for p in run.iterdir()) == [STORE_FILENAME]  # closed cleanly: no -wal
    before = _snapshot(run)
    with read_only(run):
        validate = run_assay("validate", str(run))
        report = run_assay("report", str(run), "--kind", "scores", "--format", "json",
                           "--out", str(tmp_path / "out"))
    assert validate.returncode == 0, validate.stderr
    assert "6 judgments" in validate.stdout
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "out" / "scores.json").stat().st_size > 0
    assert _snapshot(run) == before  # no -wal, no -shm, the store's bytes unchanged


def test_a_store_being_written_is_read_with_every_committed_judgment(tmp_path):
    folder = tmp_path / "run"
    with RunStore(folder, config={"judge": "m"}) as store:  # the writer keeps its -wal open
        for i in range(4):
            key = f"k{i}"
            store.put(ChatRequest(key=key, messages=(("user", "hi"),)), Reply(key, None, "t"),
                      [{"item": f"q{i}", "arm": "a", "criterion": "c", "score": 1.0}])
        assert (folder / (STORE_FILENAME + "-wal")).stat().st_size > 0
        table = load_store(folder)
        assert table.frame["item"].tolist() == ["q0", "q1", "q2", "q3"]


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
@pytest.mark.parametrize("damage", ["truncated", "not_sqlite", "no_tables"])
def test_a_damaged_store_is_one_line_naming_the_file(tmp_path, damage):
    run = _store(tmp_path / "run", n=400)
    path = run / STORE_FILENAME
    if damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    elif damage == "not_sqlite":
        path.write_bytes(b"this is not a database\n" * 100)
    else:
        path.unlink()
        sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    with pytest.raises(InputError, match="is not a readable run store"):
        load_store(run)
    for command in (["validate", str(run)], ["report", str(run), "--out", str(tmp_path / "o")]):
        result = run_assay(*command)
        assert result.returncode == 2
        line = one_error_line(result)
        assert str(path) in line and "not a readable run store" in line


def test_the_engine_writer_and_the_reader_share_one_layout(tmp_path):
    from assay.data import run_store
    from assay.llm import store as engine_store

    assert engine_store.STORE_FILENAME is run_store.STORE_FILENAME
    assert engine_store.load_store is run_store.load_store
    run = _store(tmp_path / "run")
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    assert load_store(copy).frame["score"].tolist() == [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]


def test_native_scores_beside_a_store_are_each_answers_reference_score(tmp_path):
    """``assay native-scores`` on a generated run writes native_scores.jsonl beside the judge's
    store; each judgment of an answer (item, arm) reads that answer's score as ground truth."""
    import json

    run = _store(tmp_path / "run")
    scores = [{"response_id": "q0:a", "datapoint_id": "q0", "arm": "a", "metric": "rouge_l",
               "reference_score": 0.25},
              {"response_id": "q1:b", "datapoint_id": "q1", "arm": "b", "metric": "rouge_l",
               "reference_score": None}]
    (run / "native_scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scores))
    frame = load_store(run).frame.set_index(["item", "arm"])["reference_score"]
    assert frame[("q0", "a")] == 0.25
    assert frame.drop(("q0", "a")).isna().all()  # unscored (None) or not in the file: no score


def test_the_rows_come_in_plan_order_whatever_order_they_were_stored_in(tmp_path):
    """The judge stores judgments as they are answered (concurrently): readers get the plan's order."""
    plan = [f"k{i}" for i in range(6)]
    folders = []
    for name, order in (("forward", [0, 1, 2, 3, 4, 5]), ("shuffled", [4, 1, 5, 0, 3, 2])):
        folder = tmp_path / name
        with RunStore(folder, config={"judge": "m"}) as store:
            store.set_plan(plan)
            for i in order:
                key = plan[i]
                rows = [{"item": f"q{i}", "arm": "a", "judge": "j", "criterion": c, "score": float(i)}
                        for c in ("c2", "c1")]  # a call's rows keep their order
                store.put(ChatRequest(key=key, messages=(("user", "hi"),)), Reply(key, None, "t"), rows)
            assert [r["item"] for r in store.records()][::2] == [f"q{i}" for i in range(6)]
            assert [r["item"] for r in store.records(keys=["k5", "k0"])] == ["q5", "q5", "q0", "q0"]
        folders.append(folder)
    first, second = (load_store(f).frame for f in folders)
    assert list(first["item"]) == [f"q{i}" for i in range(6) for _ in range(2)]
    assert list(first["criterion"][:2]) == ["c2", "c1"]
    assert first.equals(second)
