"""The table options (--map, --set, --missing, --exclude-self-judge, --exclude-self-teach) in
the engine: the same reports as pandas (text, and JSON to 1e-9), the same problems, and no
fallback to pandas for them."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import assay
from assay.analysis.pushdown import open_table
from assay.analysis.pushdown._options import TableOptions
from assay.cli import main
from tests.analysis.pushdown._tables import SCALES, assert_same, problems, rich_table, write

SCALE = ["--scale", "correct=binary", "--scale", "quality=range:1,5"]


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


@pytest.fixture(scope="module")
def frame():
    return rich_table(n_items=40, runs=3)


def renamed(frame):
    """The correctness column named ``correct`` (as benchmark exports name it), the items
    ``question_id``, and a column of notes the judgments table has no place for."""
    return frame.rename(columns={"score": "correct", "item": "question_id"}).assign(
        notes="n")


def one_judge(frame):
    """Only the correctness rows, without the judge and criterion columns."""
    return frame[frame["criterion"] == "correct"].drop(columns=["judge", "criterion"])


def sentinel(frame, *, failure_column: bool = True):
    """Unparsed verdicts written as score -1 (MT-Bench's), with no failure kind, and
    unknown costs as -1."""
    out = frame.copy()
    parse = out["failure_kind"] == "parse_error"
    out.loc[parse, "score"] = -1.0
    out.loc[parse, "failure_kind"] = None
    out.loc[out["usd"].isna() & out["usd_provenance"].notna(), "usd"] = -1.0
    if not failure_column:
        out.loc[out["score"].isna(), "score"] = -1.0
        out = out.drop(columns=["failure_kind"])
    return out


def self_judged(frame):
    """Arm ``alpha`` renamed ``gpt``, the judge of the correctness and pairwise rows, and a
    teacher per item: ``mid`` made half the items, ``zeta`` the others."""
    out = frame.copy()
    out["arm"] = out["arm"].replace("alpha", "gpt")
    out["opponent"] = out["opponent"].replace("alpha", "gpt")
    number = out["item"].str[1:].astype(int)
    out["teacher"] = number.map(lambda n: "mid" if n % 2 else "zeta")
    return out


CASES = {
    "map": (renamed, ["--map", "correct=score,question_id=item", "--map", "notes=-"]),
    "set": (one_judge, ["--set", "judge=gpt,criterion=correct"]),  # no quality: SCALE[:2]
    "missing": (sentinel, ["--missing", "score=-1", "--missing", "usd=-1"]),
    "missing-no-failure-column": (lambda f: sentinel(f, failure_column=False),
                                  ["--missing", "score=-1.0,usd=-1"]),
    "self-judge": (self_judged, ["--exclude-self-judge"]),
    "self-teach": (self_judged, ["--exclude-self-teach"]),
    "both": (self_judged, ["--exclude-self-judge", "--exclude-self-teach"]),
}


def shown(out: str) -> list[str]:
    """The report's text without the lines naming the engine and the files written."""
    return [line for line in out.splitlines()
            if not line.startswith(("engine:", "wrote "))]


@pytest.mark.parametrize(("case", "fmt"), [
    *((case, "parquet") for case in CASES),
    # a CSV's cells are text: the two options that read values, kept out of the default suite
    *(pytest.param(case, "csv", marks=pytest.mark.slow) for case in ("map", "missing"))])
def test_each_option_gives_the_reports_of_pandas(case, fmt, frame, tmp_path, capsys):
    make, options = CASES[case]
    path = write(make(frame), tmp_path, fmt)
    outs = {}
    for engine in ("pandas", "duckdb"):
        scale = SCALE[:2] if case == "set" else SCALE
        code, out, err = run(["report", str(path), "--kind", "benchmark,scores", *scale,
                              *options, "--B", "200", "--engine", engine,
                              "--format", "text,json", "--out", str(tmp_path / engine)], capsys)
        assert code == 0, err
        assert "reads the whole table" not in out + err
        outs[engine] = out
    assert outs["duckdb"].splitlines()[0] == "engine: duckdb (asked for with --engine duckdb)"
    assert shown(outs["duckdb"]) == shown(outs["pandas"])
    written = sorted(p.name for p in (tmp_path / "pandas").glob("*.json"))
    assert sorted(p.name for p in (tmp_path / "duckdb").glob("*.json")) == written
    assert "scores.json" in written  # the benchmark is unbalanced without the self-taught rows
    for name in written:
        assert_same(json.loads((tmp_path / "duckdb" / name).read_text()),
                    json.loads((tmp_path / "pandas" / name).read_text()))


def test_the_exclusions_leave_rows_out(frame, tmp_path):
    path = write(self_judged(frame), tmp_path, "parquet")
    counts = {}
    for name, options in (("none", TableOptions()),
                          ("judge", TableOptions(exclude_self_judging=True)),
                          ("teach", TableOptions(exclude_self_teaching=True))):
        table = open_table(path, scales=SCALES, options=options)
        counts[name] = table.query("SELECT count(*) FROM judgments")[0][0]
    data = self_judged(frame)
    assert counts["none"] == len(data)
    assert counts["judge"] == len(data) - int((data["judge"] == data["arm"]).sum())
    assert counts["teach"] == len(data) - int((data["teacher"] == data["arm"]).sum())
    assert counts["none"] > counts["judge"] and counts["none"] > counts["teach"]


BAD = {
    "not in the file": dict(mapping={"question": "item"}),
    "two become one": dict(mapping={"score": "usd"}),
    "constant for a column it has": dict(constants={"judge": "gpt"}),
    "constant that is no number": dict(constants={"position": "first"}),
    "required column dropped": dict(mapping={"arm": "-"}),
    "declared missing, still no failure kind": dict(missing={"tokens_out": ("-1",)},
                                                    constants={"weight": "0"}),
}


@pytest.mark.parametrize("case", list(BAD))
def test_the_problems_of_the_options_are_those_of_pandas(case, tmp_path):
    small = rich_table(n_items=4, runs=2)
    small = small[small["criterion"] != "pref"].drop(columns=["opponent", "position"])
    path = write(small, tmp_path, "parquet")
    given = BAD[case]
    options = TableOptions(**given)
    engine = problems(lambda: open_table(path, scales=SCALES, options=options))
    pandas = problems(lambda: assay.load(path, scales=SCALES, **given))
    assert sorted(engine) == sorted(pandas)
    assert engine and all(str(path) in p for p in engine)


def test_a_field_inside_an_object_is_left_to_pandas(frame, tmp_path, capsys):
    folder = write(frame, tmp_path, "folder")
    _, out, _ = run(["report", str(folder), "--kind", "scores", *SCALE,
                     "--map", "scores.quality=score"], capsys)
    assert out.splitlines()[0] == ("engine: pandas, not duckdb: --map scores.quality (a field "
                                   "inside a JSON object) reads the whole table")


def test_a_parquet_folder_with_its_column_mapped_runs_on_duckdb_under_auto(frame, tmp_path,
                                                                          capsys):
    folder = write(renamed(frame), tmp_path, "folder")
    code, out, err = run(["report", str(folder), "--kind", "benchmark,scores", *SCALE,
                          "--map", "correct=score,question_id=item,notes=-", "--B", "200",
                          "--format", "text,json", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert out.splitlines()[0].startswith("engine: duckdb (") and "a folder" in out
    assert "reads the whole table" not in out + err
    single = write(frame, tmp_path, "parquet")  # the same rows, named as assay names them
    code, _, err = run(["report", str(single), "--kind", "benchmark,scores", *SCALE, "--B",
                        "200", "--format", "json", "--out", str(tmp_path / "p")], capsys)
    assert code == 0, err
    for kind in ("benchmark", "scores"):
        assert_same(json.loads((tmp_path / "o" / f"{kind}.json").read_text()),
                    json.loads((tmp_path / "p" / f"{kind}.json").read_text()))


@pytest.mark.spark
@pytest.mark.slow
def test_spark_reads_the_options_as_pandas_does(frame, spark, tmp_path):
    from assay.analysis.pushdown import engine_score_summary
    from assay.analysis.scores import score_summary

    data = renamed(self_judged(sentinel(frame)))
    path = write(data, tmp_path, "parquet")
    given = dict(mapping={"correct": "score", "question_id": "item", "notes": "-"},
                 missing={"score": ("-1",), "usd": ("-1",)})
    loaded = assay.load(path, scales=SCALES, exclude_self_judging=True,
                        exclude_self_teaching=True, **given)
    options = TableOptions(**given, exclude_self_judging=True, exclude_self_teaching=True)
    table = open_table(path, scales=SCALES, engine=spark, options=options)
    assert_same(engine_score_summary(table).to_dict(), score_summary(loaded).to_dict())
    assert pd.Series(data["teacher"] == data["arm"]).any()


@pytest.mark.slow  # importing ibis costs about a second
def test_ibis_reads_a_mapped_table_as_pandas_reads_the_file(frame, tmp_path, capsys):
    pytest.importorskip("ibis")
    import duckdb

    # a table has no order: ibis orders it by name, the file gives pandas that order
    order = ["criterion", "judge", "arm", "opponent", "cluster", "run", "position"]
    path = write(renamed(frame).sort_values(order, na_position="last", kind="stable"),
                 tmp_path, "parquet")
    with duckdb.connect(str(tmp_path / "db.duckdb")) as connection:
        connection.execute(f"CREATE TABLE judgments AS SELECT * FROM '{path}'")
    mapped = ["--map", "correct=score,question_id=item,notes=-", "--kind", "scores", *SCALE,
              "--format", "json"]
    code, _, err = run(["report", "judgments", "--engine",
                        f"ibis://duckdb://{tmp_path / 'db.duckdb'}", *mapped,
                        "--out", str(tmp_path / "ibis")], capsys)
    assert code == 0, err
    code, _, err = run(["report", str(path), "--engine", "pandas", *mapped,
                        "--out", str(tmp_path / "pandas")], capsys)
    assert code == 0, err
    assert_same(json.loads((tmp_path / "ibis" / "scores.json").read_text()),
                json.loads((tmp_path / "pandas" / "scores.json").read_text()))


def test_a_scale_for_no_criterion_is_refused_by_the_engine_as_by_pandas(frame, tmp_path, capsys):
    path = write(frame, tmp_path, "parquet")
    outs = {}
    for engine in ("pandas", "duckdb"):
        code, out, err = run(["report", str(path), "--kind", "scores", *SCALE, "--scale",
                              "corect=binary", "--engine", engine], capsys)
        assert code == 2
        outs[engine] = [line for line in (out + err).splitlines() if line.startswith("error:")]
    assert outs["duckdb"] == outs["pandas"]
    assert outs["pandas"] == ["error: --scale corect=...: no criterion 'corect' in the data "
                              "(criteria: correct, quality, pref); did you mean 'correct'?"]


def test_the_problems_of_a_declared_scale_are_those_of_pandas(tmp_path):
    small = rich_table(n_items=4, runs=2)
    small = small[small["criterion"] != "pref"].drop(columns=["opponent", "position"])
    path = write(small, tmp_path, "parquet")
    declared = {**SCALES, "quality": assay.Scale.parse("range:2,4")}  # scores 1 and 5 fall out
    engine = problems(lambda: open_table(path, scales=declared))
    pandas = problems(lambda: assay.load(path, scales=declared))
    assert sorted(engine) == sorted(pandas)
    assert engine and all("outside its scale range:2,4" in p for p in engine)
