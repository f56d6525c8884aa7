"""At least 200 generated malformed files: each gives one clear error and exit 2, never a
traceback, and the file is left as it was."""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.cli import main

pytestmark = pytest.mark.slow  # every command over malformed files: about 26 s (.ci/run runs it)

GOOD_ROWS = [
    {"item": "q1", "cluster": "d1", "arm": "a", "run": 1, "score": 1},
    {"item": "q2", "cluster": "d1", "arm": "a", "run": 1, "score": 0},
    {"item": "q1", "cluster": "d1", "arm": "b", "run": 1, "score": 1},
]
COLUMNS = ["item", "cluster", "arm", "run", "score"]


def csv_text(rows: list[dict], columns: list[str]) -> str:
    lines = [",".join(columns)]
    lines += [",".join(str(r.get(c, "")) for c in columns) for r in rows]
    return "\n".join(lines) + "\n"


def not_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return True
    return False


cell_text = st.text(alphabet=string.ascii_letters + " _-!?", min_size=1, max_size=12).filter(
    lambda s: s.strip() and not_a_number(s) and s.strip().lower() not in ("nan", "inf", "infinity"))


@st.composite
def wrong_types(draw):
    rows = [dict(r) for r in GOOD_ROWS]
    i = draw(st.integers(0, len(rows) - 1))
    column = draw(st.sampled_from(["score", "run"]))
    rows[i][column] = draw(cell_text)
    return ".csv", csv_text(rows, COLUMNS).encode()


@st.composite
def missing_columns(draw):
    dropped = draw(st.sampled_from(["item", "arm", "score"]))
    columns = [c for c in COLUMNS if c != dropped]
    fmt = draw(st.sampled_from([".csv", ".jsonl"]))
    if fmt == ".csv":
        return fmt, csv_text(GOOD_ROWS, columns).encode()
    return fmt, "".join(json.dumps({c: r[c] for c in columns}) + "\n" for r in GOOD_ROWS).encode()


@st.composite
def bad_encodings(draw):
    text = csv_text(GOOD_ROWS, COLUMNS).encode()
    at = draw(st.integers(len("item,"), len(text) - 1))
    junk = draw(st.sampled_from([b"\xff", b"\xfe\xfe", b"\xc3\x28", b"\xe9", b"\x80abc"]))
    return draw(st.sampled_from([".csv", ".jsonl", ".json"])), text[:at] + junk + text[at:]


@st.composite
def truncated_json(draw):
    text = json.dumps(GOOD_ROWS, indent=draw(st.sampled_from([None, 1])))
    cut = draw(st.integers(1, len(text) - 1))
    return ".json", text[:cut].encode()


@st.composite
def truncated_jsonl(draw):
    lines = [json.dumps(r) for r in GOOD_ROWS]
    i = draw(st.integers(0, len(lines) - 1))
    cut = draw(st.integers(1, len(lines[i]) - 1))
    lines[i] = lines[i][:cut]
    return ".jsonl", ("\n".join(lines) + "\n").encode()


@st.composite
def empty_files(draw):
    fmt = draw(st.sampled_from([".csv", ".jsonl", ".json", ".parquet"]))
    return fmt, draw(st.sampled_from([b"", b"\n", b"   \n\n", b"[]", b"{}"]))


@st.composite
def huge_numbers(draw):
    rows = [dict(r) for r in GOOD_ROWS]
    i = draw(st.integers(0, len(rows) - 1))
    column, value = draw(st.sampled_from([
        ("score", "1e400"), ("score", "-1e999"), ("run", str(10**30)), ("run", "1e300"),
        ("score", "inf"), ("run", "-5")]))
    rows[i][column] = value
    if draw(st.booleans()):
        return ".csv", csv_text(rows, COLUMNS).encode()
    body = ",\n".join("{" + ", ".join(f'"{k}": {v if k in ("run", "score") else json.dumps(v)}'
                                      for k, v in r.items()) + "}" for r in rows)
    return ".json", ("[" + body + "]").encode()


@st.composite
def nans(draw):
    rows = [dict(r) for r in GOOD_ROWS]
    i = draw(st.integers(0, len(rows) - 1))
    token = draw(st.sampled_from(["NaN", "nan", "-NaN"]))
    rows[i]["score"] = token
    if draw(st.booleans()):
        return ".csv", csv_text(rows, COLUMNS).encode()
    lines = [json.dumps(r) for r in rows]
    lines[i] = lines[i].replace(f'"{token}"', "NaN")
    return ".jsonl", ("\n".join(lines) + "\n").encode()


@st.composite
def duplicate_keys(draw):
    rows = [dict(r) for r in GOOD_ROWS]
    copies = draw(st.integers(1, 3))
    i = draw(st.integers(0, len(rows) - 1))
    rows += [dict(rows[i], score=draw(st.sampled_from([0, 1]))) for _ in range(copies)]
    order = draw(st.permutations(rows))
    fmt = draw(st.sampled_from([".csv", ".jsonl"]))
    if fmt == ".csv":
        return fmt, csv_text(list(order), COLUMNS).encode()
    return fmt, "".join(json.dumps(r) + "\n" for r in order).encode()


@st.composite
def wrong_shapes(draw):
    return draw(st.sampled_from([
        (".json", b'{"item": "q1", "arm": "a", "score": 1}'),
        (".json", b'[1, 2, 3]'),
        (".jsonl", b'[{"item": "q1"}]\n'),
        (".json", b'"just text"'),
        (".parquet", b"PAR1 this is not parquet"),
        (".csv", b'item,arm,score\n"q1,a,1\n'),
        (".csv", b"item,item,score\nq1,a,1\n"),
        (".jsonl", b'{"item": {"nested": 1}, "arm": "a", "score": 1}\n'),
        (".txt", b"item,arm,score\n"),
    ]))


malformed = st.one_of(wrong_types(), missing_columns(), bad_encodings(), truncated_json(),
                      truncated_jsonl(), empty_files(), huge_numbers(), nans(), duplicate_keys(),
                      wrong_shapes())


def run_cli(args: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return int(info.value.code), captured.out + captured.err


@settings(max_examples=240, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=malformed)
def test_malformed_file_gives_a_clear_error_and_exit_2(case, capsys):
    suffix, content = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"judgments{suffix}"
        path.write_bytes(content)
        code, output = run_cli(["validate", str(path)], capsys)
        assert code == 2, output
        assert "Traceback" not in output and "internal error" not in output
        assert output.startswith("error: ") and str(path) in output
        assert path.read_bytes() == content
