"""Issue 22, item 8 and the last part of item 9: hostile inputs that were internal errors
(or a quiet exit 0) are one line naming the file (and row and field), exit 2.

Each case failed on the code before the fix: a lone surrogate was a UnicodeEncodeError,
JSON nested 5,000 deep a RecursionError, a config in UTF-16, with bad UTF-8 or a NUL a
UnicodeDecodeError or a yaml ReaderError, a config linked to /dev/zero a MemoryError (or
a hang), and a CSV cut mid-row imported with exit 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assay.cli import main
from tests.robustness._mutants import EXAMPLE, FIXTURES

SURROGATE = '"\\ud800"'  # JSON text of a lone surrogate
DEEP = '{"a":' * 5000 + "1" + "}" * 5000


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return int(info.value.code), captured.out + captured.err


def error_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one ``error:`` line of a command that must refuse its input with exit 2."""
    code, output = run_cli(args, capsys)
    assert code == 2, output
    assert "Traceback" not in output and "internal error" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    return errors[0] + "".join(line for line in output.splitlines() if line.startswith("  - "))


# -- lone surrogates, in every JSON and JSONL reader

def _mt_bench(tmp_path: Path) -> Path:
    lines = (FIXTURES / "mt_bench" / "gpt-4_single.jsonl").read_text().splitlines()[:2]
    record = json.loads(lines[1])
    text = json.dumps(record).replace('"judgment": "', '"judgment": "x\\ud800', 1)
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_text(lines[0] + "\n" + text + "\n")
    return path


def test_a_lone_surrogate_in_mt_bench_json_is_named(tmp_path, capsys):
    path = _mt_bench(tmp_path)
    line = error_line(["import", "mt-bench", str(path), "-o", str(tmp_path / "o.parquet")],
                      capsys)
    assert f"{path}, row 2" in line and "judgment" in line and "lone surrogate" in line
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("reader", ["table-jsonl", "table-json", "results-json", "promptfoo",
                                    "alpaca-eval", "run-folder", "criteria", "sidecar"])
def test_a_lone_surrogate_is_named_by_every_json_reader(tmp_path, capsys, reader):
    rows = [{"item": "q1", "arm": "a", "score": 1, "judge": "j"},
            {"item": "q1", "arm": "b", "score": 0, "judge": "j"}]
    fmt = "table"
    if reader == "table-jsonl":
        path = source = tmp_path / "t.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows).replace('"b"', SURROGATE) + "\n")
    elif reader == "table-json":
        path = source = tmp_path / "t.json"
        path.write_text(json.dumps(rows).replace('"b"', SURROGATE))
    elif reader == "results-json":
        fmt, path = "results-json", tmp_path / "results.json"
        path.write_text(json.dumps([{"benchmark_id": "b", "quiz_id": "z", "question_id": "q",
                                     "run_number": 1, "metrics": [{
                                         "metric_name": "m", "score": 1,
                                         "raw_response": "x"}]}]).replace('"x"', SURROGATE))
        source = path
    elif reader == "promptfoo":
        fmt, path = "promptfoo", tmp_path / "results.json"
        text = (FIXTURES / "promptfoo" / "results.json").read_text()
        path.write_text(text.replace('"Assertion passed"', SURROGATE, 1))
        source = path
    elif reader == "alpaca-eval":
        fmt, path = "alpaca-eval", tmp_path / "annotations.json"
        path.write_text(json.dumps([{"instruction": "x", "output_1": "a", "generator_1": "base",
                                     "output_2": "b", "generator_2": "m", "annotator": "g",
                                     "preference": 1.0}]).replace('"x"', SURROGATE))
        source = path
    else:
        source = tmp_path / "run"
        source.mkdir()
        (source / "datapoints.jsonl").write_text('{"id": "d1", "prompt": "p"}\n')
        (source / "responses.jsonl").write_text(
            '{"id": "r1", "datapoint_id": "d1", "arm": "m", "text": "t"}\n')
        (source / "evaluations.jsonl").write_text(
            '{"id": "e1", "response_id": "r1", "judge": "j", "scores": {"q": 0.5}}\n')
        if reader == "run-folder":
            path = source / "responses.jsonl"
            path.write_text(path.read_text().replace('"t"', SURROGATE))
        elif reader == "criteria":
            path = source / "criteria.json"
            path.write_text('{"criteria": {"q": {"scale": "range:0,1", "description": '
                            + SURROGATE + "}}}")
        else:
            source = tmp_path / "t.csv"
            source.write_text("item,arm,score\nq1,a,1\nq1,b,0\n")
            path = tmp_path / "t.csv.assay.json"
            path.write_text('{"scales": {"score": ' + SURROGATE + "}}")
    line = error_line(["import", fmt, str(source), "-o", str(tmp_path / "o.parquet")], capsys)
    assert str(path) in line and "lone surrogate" in line, line


# -- nesting 5,000 deep

@pytest.mark.parametrize("padded", [False, True], ids=["bare", "padded"])
@pytest.mark.parametrize("reader", ["promptfoo", "results-json", "criteria", "table-json",
                                    "table-jsonl"])
def test_json_nested_5000_deep_is_one_line(tmp_path, capsys, reader, padded):
    """Bare, the file holds more lists and objects than its size allows; padded with
    spaces, it does not, and the nesting itself is refused."""
    deep = DEEP + " " * (60_000 if padded else 0)
    fmt = {"promptfoo": "promptfoo", "results-json": "results-json"}.get(reader, "table")
    if reader == "criteria":
        source = tmp_path / "run"
        source.mkdir()
        (source / "datapoints.jsonl").write_text('{"id": "d1", "prompt": "p"}\n')
        (source / "responses.jsonl").write_text(
            '{"id": "r1", "datapoint_id": "d1", "arm": "m", "text": "t"}\n')
        (source / "evaluations.jsonl").write_text(
            '{"id": "e1", "response_id": "r1", "judge": "j", "scores": {"q": 0.5}}\n')
        path = source / "criteria.json"
        path.write_text(deep)
    elif reader == "table-jsonl":
        path = source = tmp_path / "t.jsonl"
        path.write_text('{"item": "q1", "arm": "a", "score": 1}\n{"item": "q1", "arm": "b", '
                        '"score": 0, "x": ' + deep + "}\n")
    else:
        path = source = tmp_path / ("t.json" if reader == "table-json" else "results.json")
        path.write_text("[" + deep + "]" if reader == "table-json" else deep)
    line = error_line(["import", fmt, str(source), "-o", str(tmp_path / "o.parquet")], capsys)
    assert str(path) in line and ("nested" in line or "JSON lists or objects" in line), line


# -- configs: UTF-16, bad UTF-8, NUL, a link to /dev/zero

CONFIG_COMMANDS = {
    "judge": lambda cfg, out: ["judge", str(cfg), "--out", str(out), "--dry-run"],
    "describe": lambda cfg, out: ["describe", str(cfg)],
    "run": lambda cfg, out: ["run", str(cfg), "--out", str(out), "--steps", "datapoints"],
    "generate": lambda cfg, out: ["generate", str(cfg), "--out", str(out), "--dry-run"],
    "qed-config": lambda cfg, out: ["import", "qed-config", str(cfg), "-o", str(out / "a.yaml")],
}


def _config(tmp_path: Path, damage: str) -> tuple[Path, str]:
    """A damaged copy of the bundled example config and what its error line must say."""
    text = (EXAMPLE / "eval.yaml").read_text()
    (tmp_path / "items.csv").write_bytes((EXAMPLE / "items.csv").read_bytes())
    path = tmp_path / "eval.yaml"
    if damage == "utf-16":
        path.write_bytes(text.encode("utf-16"))
        return path, "UTF-16"
    if damage == "bad-utf-8":
        path.write_bytes(text.encode().replace(b"stratified", b"strat\xffified", 1))
        return path, "line 9: the"
    if damage == "nul":
        path.write_bytes(text.encode().replace(b"sample_size: 6", b"sample_size: 6\x00", 1))
        return path, "line 8: the"
    if damage == "surrogate":  # a lone surrogate from a YAML escape
        path.write_text(text.replace('"Is the answer correct?"', '"Is the \\ud800 answer?"'))
        return path, "judges[0].criteria[0].description"
    path.symlink_to("/dev/zero")
    return path, "more than 1048576 bytes"


@pytest.mark.parametrize("damage", ["utf-16", "bad-utf-8", "nul", "surrogate", "dev-zero"])
@pytest.mark.parametrize("command", list(CONFIG_COMMANDS))
def test_a_damaged_config_is_one_line(tmp_path, capsys, monkeypatch, command, damage):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    if damage == "dev-zero" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    path, says = _config(tmp_path, damage)
    line = error_line(CONFIG_COMMANDS[command](path, tmp_path / "out"), capsys)
    assert str(path) in line and says in line, line
    assert {"utf-16": "UTF-16", "bad-utf-8": "not UTF-8", "nul": "NUL",
            "surrogate": "lone surrogate", "dev-zero": "at most"}[damage] in line


# -- a CSV cut mid-row

def test_a_qed_win_rates_cut_mid_row_is_refused_naming_its_line(tmp_path, capsys):
    data = (FIXTURES / "qed" / "win_rates.csv").read_bytes().rstrip(b"\n")
    path = tmp_path / "win_rates.csv"
    path.write_bytes(data[:-5])  # "...,data_local" cut to "...,data_l"
    line = error_line(["import", "qed", str(path), "-o", str(tmp_path / "o.parquet")], capsys)
    last = data.count(b"\n") + 1
    assert f"{path}: line {last}, the last, does not end with a newline" in line
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("fmt", ["table", "bench", "datapoints"])
def test_every_csv_reader_refuses_a_cut_last_row(tmp_path, capsys, fmt):
    if fmt == "datapoints":
        path = tmp_path / "items.csv"
        path.write_bytes((EXAMPLE / "items.csv").read_bytes().rstrip(b"\n")[:-3])
        args = ["datapoints", str(path), "-o", str(tmp_path / "out"), "--map",
                "qid=id,question=prompt,answer=reference"]
    else:
        path = tmp_path / "t.csv"
        path.write_text("cluster,item,arm,run,correct,score\nd1,q1,a,1,1,0.75\nd1,q1,b,1,0,0.7")
        args = ["import", fmt, str(path), "-o", str(tmp_path / "o.parquet")]
    line = error_line(args, capsys)
    assert str(path) in line and "does not end with a newline" in line, line
