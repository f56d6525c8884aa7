"""``--map`` and ``--set`` apply to the records of every importer but inspect.

Each case copies a real (or, for bench and results-json, a small written) file with one
required field renamed, shows that the importer refuses the copy naming that field, and
that ``--map NEW=OLD`` reads it back to the very rows of the original; ``--set`` fills a
field no record has. A reader that ignored ``fields`` fails the second step.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

from assay.data.io import run_importer
from assay.errors import AssayError, ConfigError, InputError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
KEY = ["item", "arm", "criterion", "run", "score"]


def _rename_json_list(path: Path, old: str, new: str, inner: tuple[str, ...] = ()) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    records = document
    for key in inner:
        records = records[key]
    for rec in records:
        rec[new] = rec.pop(old)
    path.write_text(json.dumps(document), encoding="utf-8")


def _rename_jsonl(path: Path, old: str, new: str) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for rec in records:
        rec[new] = rec.pop(old)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _rename_csv(path: Path, old: str, new: str) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    names = [new if k == old else k for k in rows[0]]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        writer.writerows({new if k == old else k: v for k, v in r.items()} for r in rows)


def _results_json(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "results.json"
    path.write_text(json.dumps([
        {"benchmark_id": "b1", "quiz_id": "q1", "question_id": f"x{i}", "run_number": 1,
         "metrics": [{"metric_name": "clarity", "evaluator_model": "judge", "score": i / 4}]}
        for i in range(4)]))
    return path


def _bench(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "bench.csv"
    path.write_text("cluster,item,arm,run,correct\n" + "".join(
        f"c{i % 2},i{i},a,1,{'TRUE' if i % 3 else 'FALSE'}\n" for i in range(6)))
    return path


def _copy(source: Path, folder: Path) -> Path:
    if source.is_dir():
        shutil.copytree(source, folder)
        return folder
    folder.mkdir()
    return Path(shutil.copy(source, folder / source.name))


CASES = {
    # format: (make the original in a folder, file to edit below it, edit, old, new)
    "alpaca-eval": (lambda d: _copy(FIXTURES / "alpaca_eval" / "results", d),
                    "NullModel/weighted_alpaca_eval_gpt4_turbo/annotations.json",
                    _rename_json_list, "annotator", "annotator_name"),
    "promptfoo": (lambda d: _copy(FIXTURES / "promptfoo" / "results.json", d), "results.json",
                  lambda p, o, n: _rename_json_list(p, o, n, ("results", "results")),
                  "testIdx", "test_index"),
    "qed": (lambda d: _copy(FIXTURES / "qed_assertions" / "data_local", d),
            "graph_rag_assertion_scores.csv", _rename_csv, "assertion", "statement"),
    "coeval": (lambda d: _copy(FIXTURES / "coeval" / "medium-benchmark", d),
               "phase5_evaluations/code_explanation.gpt-4o-mini.gpt-3.5-turbo.evaluations.jsonl",
               _rename_jsonl, "scores", "ratings"),
    "judgebench": (lambda d: _copy(FIXTURES / "judgebench" / "real", d),
                   "dataset=judgebench,response_model=claude-3-5-sonnet-20240620,judge_name="
                   "arena_hard,judge_model=claude-3-haiku-20240307.jsonl",
                   _rename_jsonl, "label", "gold"),
    "results-json": (_results_json, "results.json", _rename_json_list, "question_id", "qid"),
    "bench": (_bench, "bench.csv", _rename_csv, "correct", "ok"),
}


def _key(frame):
    return frame[KEY].sort_values(KEY[:4]).reset_index(drop=True)


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_map_reads_a_renamed_field_back_to_the_original_rows(fmt, tmp_path):
    make, edited, rename, old, new = CASES[fmt]
    original = make(tmp_path / "original")
    copy = make(tmp_path / "copy")
    root = copy if copy.is_dir() else copy.parent
    rename(root / edited, old, new)
    source = [str(original)]
    renamed = [str(copy)]
    expected = _key(run_importer(fmt, source).frame)
    try:
        broken = _key(run_importer(fmt, renamed).frame)
    except AssayError as exc:
        # CoEval's loader sets an evaluation without scores aside as invalid, so the run
        # has none left; the others name the field
        assert old in str(exc) or (fmt == "coeval" and "no valid phase 5" in str(exc))
    else:
        pytest.fail(f"{fmt} read a copy without {old!r}: {len(broken)} rows")
    read = run_importer(fmt, renamed, mapping={new: old})
    assert _key(read.frame).equals(expected)


def test_set_fills_a_field_no_record_has_and_an_unknown_map_source_is_named(tmp_path):
    path = _results_json(tmp_path / "r")
    document = json.loads(path.read_text())
    for rec in document:
        del rec["run_number"]
    path.write_text(json.dumps(document))
    with pytest.raises(AssayError, match="run_number"):
        run_importer("results-json", [path])
    assert set(run_importer("results-json", [path], constants={"run_number": 1}).frame["run"]) \
        == {1}
    with pytest.raises(InputError, match="named in --map but no record"):
        run_importer("results-json", [path], mapping={"runnumber": "run_number"},
                     constants={"run_number": 1})


def test_inspect_refuses_map_saying_why(tmp_path):
    with pytest.raises(ConfigError, match="inspect-ai's own objects"):
        run_importer("inspect", [tmp_path], mapping={"a": "b"})
