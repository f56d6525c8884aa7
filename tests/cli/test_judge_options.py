"""``assay judge`` as a new user meets it: ``--init DIR`` runs as written, answers from tables,
and the smoke-run flags ``--limit``, ``--judges`` and ``--max-concurrency``."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
import yaml

from tests.cli._judge_helpers import PAIRWISE, QUESTIONS, run, write_config


def judge(config, out, *options: str) -> int:
    return run(["judge", str(config), "--out", str(out), "--display", "plain", *options])


def stored(out) -> int:
    with sqlite3.connect(out / "judgments.sqlite") as db:
        return db.execute("select count(*) from judgments").fetchone()[0]


def test_init_dir_writes_a_config_and_inputs_that_dry_run_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert run(["judge", "--init", str(tmp_path / "exp")]) == 0
    assert f"wrote {tmp_path / 'exp' / 'assay.yaml'} and 6 example answer files" in capsys.readouterr().out
    config = tmp_path / "exp" / "assay.yaml"
    assert judge(config, tmp_path / "run", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "every check of the run passed" in out and "total: 234 judgments" in out
    assert run(["judge", "--init", str(tmp_path / "exp")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_the_init_config_runs_against_a_server_with_a_smoke_run(server, tmp_path, capsys, monkeypatch):
    """The generated config, unedited, judges for real (its base_url read from OPENAI_BASE_URL):
    --limit 1 takes one question per set, --judges two of its four judges."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    assert run(["judge", "--init", str(tmp_path)]) == 0
    code = judge(tmp_path / "assay.yaml", tmp_path / "run", "--limit", "1", "--judges", "reference,metric")
    assert code == 0, capsys.readouterr()
    # reference: 3 sets x 1 question x 2 trials x 2 criteria = 12 calls; metric: 3 offline
    assert server.stats.requests == 12
    assert stored(tmp_path / "run") == 12 + 3 * 2  # each metric row per metric (token_f1, rouge_l)


def test_limit_then_a_full_run_resumes_and_adds_the_rest(server, tmp_path):
    config = write_config(tmp_path, server.url)
    assert judge(config, tmp_path / "run", "--limit", "1") == 0
    assert server.stats.requests == stored(tmp_path / "run") == 4  # 1 question x 2 criteria x 2 trials
    assert judge(config, tmp_path / "run") == 0
    assert server.stats.requests == stored(tmp_path / "run") == 12


def test_judges_selects_by_label_and_refuses_an_unknown_name(server, tmp_path, capsys):
    metric = {"kind": "metric", "reference": "long", "metrics": ["token_f1"]}
    config = write_config(tmp_path, server.url, judges=[PAIRWISE, metric])
    assert judge(config, tmp_path / "run", "--judges", "metric") == 0
    assert server.stats.requests == 0 and stored(tmp_path / "run") == 3
    assert judge(config, tmp_path / "run", "--judges", "metrik") == 2
    assert "did you mean 'metric'?" in capsys.readouterr().err


def test_max_concurrency_overrides_the_config(server, tmp_path):
    server.configure(latency_s=0.05)
    config = write_config(tmp_path, server.url, max_concurrency=4)
    assert judge(config, tmp_path / "a", "--no-cache") == 0
    assert server.stats.max_in_flight > 1
    server.reset()
    server.configure(latency_s=0.05)
    assert judge(config, tmp_path / "b", "--no-cache", "--max-concurrency", "1") == 0
    assert server.stats.requests == 12 and server.stats.max_in_flight == 1


@pytest.mark.parametrize("suffix", ["csv", "parquet", "jsonl"])
def test_answers_come_from_tables_by_their_suffix(server, tmp_path, suffix):
    """answers_path may name a CSV, Parquet or JSONL file per method; ``tables`` reads assay's
    own answer table in any of these formats: the same 12 judgments as the JSON layout."""
    for method in ("short", "long"):
        frame = pd.DataFrame([{"question_id": q, "question": text, "answer": f"The {method} answer"}
                              for q, text in QUESTIONS.items()])
        (tmp_path / "answers" / method).mkdir(parents=True)
        path = tmp_path / "answers" / method / f"health.{suffix}"
        if suffix == "csv":
            frame.to_csv(path, index=False)
        elif suffix == "parquet":
            frame.to_parquet(path)
        else:
            frame.to_json(path, orient="records", lines=True)
    config = write_config(tmp_path, server.url)
    data = yaml.safe_load(config.read_text())
    data["inputs"]["answers_path"] = "{input_dir}/{method}/{question_set}." + suffix
    config.write_text(yaml.safe_dump(data))
    assert judge(config, tmp_path / "run") == 0
    assert stored(tmp_path / "run") == 12

    rows = [{"item": q, "arm": arm, "question": text, "answer": f"The {arm} answer", "task": "health"}
            for arm in ("short", "long") for q, text in QUESTIONS.items()]
    table = tmp_path / f"own.{suffix}"
    frame = pd.DataFrame(rows)
    {"csv": lambda: frame.to_csv(table, index=False), "parquet": lambda: frame.to_parquet(table),
     "jsonl": lambda: table.write_text("".join(json.dumps(r) + "\n" for r in rows))}[suffix]()
    data["inputs"] = {"tables": [table.name]}
    config.write_text(yaml.safe_dump(data))
    assert judge(config, tmp_path / "run2") == 0
    assert stored(tmp_path / "run2") == 12


def test_a_table_without_a_configured_key_names_file_row_and_column(tmp_path, capsys):
    (tmp_path / "own.csv").write_text("item,arm,question\nq1,a,Why?\n")
    config = write_config(tmp_path, None, judges=[{"kind": "metric", "reference": "a",
                                                   "metrics": ["token_f1"]}])
    data = yaml.safe_load(config.read_text())
    data["inputs"] = {"tables": ["own.csv"]}
    config.write_text(yaml.safe_dump(data))
    assert judge(config, tmp_path / "run", "--dry-run") == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "own.csv") in err and "row 1" in err and "'answer'" in err
