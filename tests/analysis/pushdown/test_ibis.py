"""``--engine ibis://...``: a table in a database gives the pandas path's numbers and problems.

Two backends run here without a server: a DuckDB database file and an SQLite file (the
query text is translated by sqlglot for SQLite). A warehouse cannot be tested here.
Importing ibis and a backend costs about a second once; the tests of the numbers, and
those of DuckDB (SQLite's translated text is the riskier), are marked slow.
"""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

import assay
from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.pushdown import engine_benchmark_report, engine_score_summary, open_table
from assay.analysis.scores import score_summary
from assay.cli import main
from tests.analysis.pushdown._tables import SCALES, assert_same, problems, rich_table

pytest.importorskip("ibis", reason="the ibis engine's tests need ibis-framework "
                    "(pip install 'assay[ibis]')")

from assay.data.engine import IbisEngine

SCALE = ["--scale", "correct=binary", "--scale", "quality=range:1,5"]
ORDER = ["criterion", "judge", "arm", "opponent", "cluster", "item", "run", "position"]
"""A table has no row order: the engine orders rows by these, so pandas reads them so."""
BACKENDS = ("duckdb", "sqlite")


def database(frame: pd.DataFrame, folder, backend: str, table: str = "judgments") -> str:
    """``frame`` as ``table`` of a new database file; the ``--engine`` URL reading it."""
    path = folder / f"db.{backend}"
    if backend == "duckdb":
        import duckdb

        with duckdb.connect(str(path)) as connection:
            connection.register("frame", frame)
            connection.execute(f"CREATE TABLE {table} AS SELECT * FROM frame")
    else:
        with sqlite3.connect(path) as connection:
            frame.to_sql(table, connection, index=False)
        connection.close()
    return f"ibis://{backend}://{path}"


def sorted_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(ORDER, na_position="last", kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def frame():
    return sorted_rows(rich_table(n_items=60))


@pytest.fixture(scope="module")
def parquet(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("pandas") / "t.parquet"
    frame.to_parquet(path, index=False)
    return path


@pytest.fixture(scope="module")
def loaded(parquet):
    return assay.load(parquet, scales=SCALES)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_scores_and_benchmark_equal_the_pandas_and_duckdb_paths(backend, frame, parquet, loaded,
                                                                tmp_path):
    url = database(frame, tmp_path, backend)
    table = open_table("judgments", scales=SCALES, engine=IbisEngine(url))
    report, judge, criterion = engine_benchmark_report(table, B=200, seed=5, method="bootstrap")
    assert (judge, criterion) == ("gpt", "correct")
    assert report.failures[0]["n_failures"] > 0 and report.cost is not None
    expected = benchmark_report(benchmark_rows(loaded), B=200, seed=5, method="bootstrap")
    assert_same(report.to_dict(), expected.to_dict())
    assert_same(engine_score_summary(table).to_dict(), score_summary(loaded).to_dict())
    files = open_table(parquet, scales=SCALES)  # the DuckDB engine on the Parquet file
    assert_same(report.to_dict(), engine_benchmark_report(files, B=200, seed=5,
                                                          method="bootstrap")[0].to_dict())


def broken(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.loc[10, "score"] = 2.0           # correct is binary
    frame.loc[12, "score"] = None          # no failure kind either
    frame.loc[12, "failure_kind"] = None
    frame.loc[14, "usd"] = -1.0
    return pd.concat([frame, frame.iloc[[4]]], ignore_index=True)  # a duplicate key


@pytest.mark.parametrize("backend", [pytest.param("duckdb", marks=pytest.mark.slow), "sqlite"])
def test_problems_name_the_table_and_the_key_of_the_row(backend, tmp_path):
    frame = sorted_rows(rich_table(n_items=6))
    url = database(broken(frame), tmp_path, backend)
    found = problems(lambda: open_table("judgments", scales=SCALES, engine=IbisEngine(url)))
    where = f"table judgments of {url}"

    def key(n: int) -> str:
        row = frame.loc[n].to_dict()  # Python values, as the database gives them
        shown = [f"{c} {assay.errors.quote(row[c], limit=60)}" for c in
                 ("item", "arm", "opponent", "position", "run", "judge", "criterion")
                 if pd.notna(row[c])]
        return "at " + ", ".join(shown)

    assert found == [
        f"{where}, column 'usd': expected a number >= 0 ({key(14)})",
        f"{where}, column 'score': criterion 'correct': expected 0 or 1 (binary scale), got "
        f"2.0 ({key(10)})",
        f"{where}, column 'score': missing score: a row without a score needs a failure_kind "
        f"saying why ({key(12)})",
        f"{where}: duplicate judgment: 2 rows share item, arm, opponent, position, run, judge, "
        f"criterion ({key(4)})"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_missing_cell_is_named_as_pandas_names_it(backend, frame, tmp_path):
    cut = frame[~((frame["item"] == "q5") & (frame["arm"] == "mid") & (frame["run"] == 3))]
    url = database(cut, tmp_path, backend)
    with pytest.raises(assay.errors.DesignError) as engine:
        engine_benchmark_report(open_table("judgments", scales=SCALES, engine=IbisEngine(url)),
                                B=200)
    cut.to_parquet(tmp_path / "cut.parquet", index=False)
    with pytest.raises(assay.errors.DesignError) as pandas:
        benchmark_report(benchmark_rows(assay.load(tmp_path / "cut.parquet", scales=SCALES)),
                         B=200)
    assert str(engine.value) == str(pandas.value) and "arm mid, run 3" in str(engine.value)


def test_sqlite_text_or_a_fraction_in_a_column_of_numbers_is_found(tmp_path):
    """SQLite stores any value in any column, reads 'abc' as 0 and takes 2.5 % 1 as 0: the
    engine finds both."""
    frame = sorted_rows(rich_table(n_items=6))
    url = database(frame, tmp_path, "sqlite")
    with sqlite3.connect(tmp_path / "db.sqlite") as connection:
        connection.execute("UPDATE judgments SET score = 'abc' WHERE rowid = 2")
        connection.execute("UPDATE judgments SET run = 2.5 WHERE rowid = 4")
    connection.close()
    found = problems(lambda: open_table("judgments", scales=SCALES, engine=IbisEngine(url)))
    assert any(p.startswith(f"table judgments of {url}, column 'score': expected a number, got "
                            f"'abc' (at item '{frame.loc[1, 'item']}'") for p in found), found
    assert any(p.startswith(f"table judgments of {url}, column 'run': expected a whole number, "
                            f"got 2.5 (at item '{frame.loc[3, 'item']}'") for p in found), found


def test_a_column_of_numbers_stored_as_text_is_refused_on_sqlite(tmp_path):
    frame = sorted_rows(rich_table(n_items=6)).astype({"score": str})
    url = database(frame, tmp_path, "sqlite")
    with pytest.raises(assay.errors.ConfigError, match="column 'score' holds text"):
        open_table("judgments", scales=SCALES, engine=IbisEngine(url))


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


@pytest.mark.slow
def test_the_cli_reports_a_table_and_never_shows_the_password(frame, tmp_path, capsys):
    url = database(frame, tmp_path, "duckdb") + "?password=hunter2"  # DuckDB ignores it
    code, out, err = run(["report", "judgments", "--engine", url, "--kind", "scores,benchmark",
                          *SCALE, "--B", "200", "--format", "text,json", "--out",
                          str(tmp_path / "out")], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == (f"engine: ibis ({url.replace('hunter2', '***')}, "
                                   "table judgments)")
    written = [p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written and json.loads((tmp_path / "out" / "scores.json").read_text())["scores"]
    assert "hunter2" not in out + err and not any("hunter2" in text for text in written)


@pytest.mark.parametrize("url", ["ibis://nonsense://bob:hunter2@127.0.0.1:1/evals",
                                 "ibis://postgres://bob:hunter2@127.0.0.1:1/evals",
                                 "ibis://duckdb://bob:hunter2@/no/such/db.duckdb"])
def test_a_connection_that_fails_says_why_in_one_line_without_the_password(url, tmp_path,
                                                                           capsys):
    code, out, err = run(["report", "judgments", "--engine", url, "--kind", "scores"], capsys)
    assert code == 2
    assert "hunter2" not in out + err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "//***@" in err and "bob" not in err, err


def test_a_missing_table_or_ibis_says_so(frame, tmp_path, capsys, monkeypatch):
    url = database(frame, tmp_path, "sqlite")
    code, _, err = run(["report", "judgmnets", "--engine", url], capsys)
    assert code == 2 and f"table judgmnets of {url}: no such table (it has judgments)" in err
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ibis" else find_spec(name, *a))
    code, _, err = run(["report", "judgments", "--engine", url], capsys)
    assert code == 2 and "pip install 'assay[ibis]'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_answer_equals_the_pandas_paths(backend, tmp_path):
    from assay.analysis.answer import answer
    from assay.analysis.pushdown import engine_answer, engine_table_facts
    from assay.report.kinds import with_available
    from assay.report.kinds._available import table_facts
    from tests.cli.test_answer_first import _table

    frame = _table("one_to_ten").rename(
        columns={"question_id": "item", "model": "arm", "topic": "cluster"}).assign(usd=0.001)
    frame = frame.sort_values([c for c in ORDER if c in frame], kind="stable",
                              ignore_index=True)  # the engine's order of a table's rows
    table = open_table("judgments", engine=IbisEngine(database(frame, tmp_path, backend)))
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    loaded = assay.load(tmp_path / "t.parquet")
    made = with_available(engine_answer(table), engine_table_facts(table))
    assert_same(made.to_dict(), with_available(answer(loaded), table_facts(loaded)).to_dict())


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_answers_human_block_equals_the_pandas_paths(backend, tmp_path):
    from assay.analysis.answer import answer
    from assay.analysis.pushdown import engine_answer
    from tests.analysis.pushdown._tables import HUMAN_SCALES, humans_table

    frame = sorted_rows(humans_table())  # the engine's order of a table's rows
    table = open_table("judgments", scales=HUMAN_SCALES,
                       engine=IbisEngine(database(frame, tmp_path, backend)))
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    made = engine_answer(table).to_dict()
    expected = answer(assay.load(tmp_path / "t.parquet", scales=HUMAN_SCALES)).to_dict()
    assert len(made["humans"]) == 8
    assert_same([made["humans"], made["humans_note"]],
                [expected["humans"], expected["humans_note"]])
