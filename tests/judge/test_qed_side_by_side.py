"""assay and the real BenchmarkQED 0.4.0 side by side: same settings file, same messages, same numbers.

BenchmarkQED is installed in its own venv (``bench/.venv-qed``, made by
``bench/bench_judges_vs_qed.py``'s helper on first use; git-ignored); assay is configured by
``assay import qed-config`` from the very settings file BenchmarkQED runs, so its prompts are
converted from that installation at run time (assay ships none of BenchmarkQED's text).
Both tools judge the same small dataset (``../shared/bench/qed/make_dataset.py``, 4
questions a set) against one server on 127.0.0.1 whose verdict is keyed on the message text
alone (``qed_keyed_server.py``), and the test asserts, per stage:

* prompts: the multiset of (system, user) messages each tool sent, as the server recorded
  them (the Score ID's id aside), is the same;
* pairwise: every per-trial score of ``win_rates.csv``, and ``winrates_sig_tests.csv``
  (assay's from ``assay report --kind winrates``) in every BenchmarkQED column;
* reference: every per-trial score, and ``reference_scores_summary.csv`` against
  BenchmarkQED's summary (mean, ``np.std``) of its own scores;
* assertion (multi-RAG): every per-assertion mean and pass, and the overall summary;
* hierarchical (single RAG, staged and joint): every per-trial global, supporting and
  discovery score, and the four files assay writes under BenchmarkQED's names, every
  column and row.

Slow (installs and runs BenchmarkQED): ``pytest -m "slow and qed"``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = [pytest.mark.slow, pytest.mark.qed]

ROOT = Path(__file__).resolve().parents[2]
QED_DIR = Path(os.environ.get("ASSAY_QED_BENCH", ROOT.parent / "shared" / "bench" / "qed"))
if not QED_DIR.is_dir():
    QED_DIR = Path("/work/shared/bench/qed")
METHODS = ["vector_rag", "graph_rag"]
TIMES: dict[str, float] = {}


@pytest.fixture(scope="module")
def qed_venv() -> Path:
    """The venv with benchmark-qed 0.4.0 (made once), or a skip saying why not."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from bench_judges_vs_qed import VENV, ensure_qed
    finally:
        sys.path.pop(0)
    start = time.perf_counter()
    try:
        ensure_qed(sys.executable)
    except (subprocess.CalledProcessError, OSError) as exc:
        pytest.skip(f"benchmark-qed 0.4.0 could not be installed into {VENV} ({exc}): the "
                    "side-by-side test needs it")
    TIMES["install"] = time.perf_counter() - start
    return VENV


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (QED_DIR / "make_dataset.py").is_file():
        pytest.skip(f"no dataset maker at {QED_DIR} (set ASSAY_QED_BENCH)")
    out = tmp_path_factory.mktemp("qed-data")
    subprocess.run([sys.executable, str(QED_DIR / "make_dataset.py"), "--out", str(out), "--questions", "4"],
                   check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="module")
def server() -> Any:
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from qed_keyed_server import KeyedServer
    finally:
        sys.path.pop(0)
    with KeyedServer() as s:
        yield s


def _settings(stage: str, data: Path, work: Path, url: str) -> dict[str, Any]:
    llm = {"model": "gpt-4.1", "auth_type": "api_key", "api_key": "${OPENAI_API_KEY}",
           "llm_provider": "openai.chat", "concurrent_requests": 32, "init_args": {"api_base": url},
           "call_args": {"temperature": 0.0, "seed": 42}}
    answers = data / "answers"
    if stage == "pairwise":
        return {"base": {"name": METHODS[0], "answer_base_path": str(answers / METHODS[0])},
                "others": [{"name": METHODS[1], "answer_base_path": str(answers / METHODS[1])}],
                "question_sets": ["data_local", "activity_local"], "trials": 2, "llm_config": llm}
    if stage == "reference":
        return {"reference": {"name": "reference",
                              "answer_base_path": str(answers / "reference" / "data_local.json")},
                "generated": [{"name": m, "answer_base_path": str(answers / m / "data_local.json")}
                              for m in METHODS],
                "score_min": 1, "score_max": 10, "trials": 2, "llm_config": llm}
    if stage.startswith("hierarchical"):  # single RAG, on the set with supporting assertions
        return {"generated": {"name": METHODS[0],
                              "answer_base_path": str(answers / METHODS[0] / "data_global.json")},
                "assertions": {"assertions_path": str(data / "assertions" / "data_global_assertions.json")},
                "mode": stage.split("-")[1], "pass_threshold": 0.5, "trials": 2, "llm_config": llm}
    return {"input_dir": str(data), "output_dir": str(work / "qed_out"), "rag_methods": METHODS,
            "question_sets": ["data_local", "activity_local"],
            "assertions_filename_template": "assertions/{question_set}_assertions.json",
            "answers_path_template": "{input_dir}/answers/{generated_rag}/{question_set}.json",
            "pass_threshold": 0.5, "trials": 2, "llm_config": llm}


def _run(cmd: list[str], env: dict[str, str], label: str) -> None:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    TIMES[label] = time.perf_counter() - start
    assert done.returncode == 0, f"{label}: {' '.join(cmd)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _both(stage: str, qed_venv: Path, data: Path, server: Any, tmp_path: Path) -> tuple[Path, Path]:
    """Run BenchmarkQED and assay on one stage's settings; (qed output, assay run folder)."""
    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump(_settings(stage, data, tmp_path, server.url)), encoding="utf-8")
    env = {**os.environ, "OPENAI_API_KEY": "sk-mock-not-a-secret", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "COLUMNS": "160", "PYTHONPATH": str(ROOT / "src")}
    command = {"pairwise": "pairwise-scores", "reference": "reference-scores",
               "assertion": "assertion-scores", "hierarchical-staged": "hierarchical-assertion-scores",
               "hierarchical-joint": "hierarchical-assertion-scores"}[stage]
    out = tmp_path / "qed_out"
    server.reset()
    _run([str(qed_venv / "bin" / "benchmark-qed"), "autoe", command, str(settings),
          *([] if stage == "assertion" else [str(out)])], env, f"qed {stage}")
    qed_messages = server.messages()
    server.reset()
    config = tmp_path / "assay" / "assay.yaml"
    _run([sys.executable, "-m", "assay", "import", "qed-config", str(settings), "-o", str(config),
          "--qed-install", str(qed_venv)], env, f"import {stage}")
    run = tmp_path / "assay" / "run"
    _run([sys.executable, "-m", "assay", "judge", str(config), "--out", str(run), "--display", "plain"],
         env, f"assay {stage}")
    assay_messages = server.messages()
    assert len(qed_messages) == len(assay_messages) > 0
    assert Counter(qed_messages) == Counter(assay_messages), "the two tools sent different messages"
    return out, run


def test_pairwise_same_prompts_scores_and_significance(qed_venv: Path, data: Path, server: Any,
                                                       tmp_path: Path) -> None:
    import pandas as pd
    from numpy.testing import assert_allclose

    out, run = _both("pairwise", qed_venv, data, server, tmp_path)
    qed = pd.read_csv(out / "win_rates.csv")
    ours = pd.read_csv(run / "win_rates.csv")
    keys = ["question", "criteria", "trial"]
    ours = ours.assign(trial=ours["trial"] - 1)  # assay counts trials from 1
    merged = qed.merge(ours, on=keys, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(merged) == len(qed) == len(ours)
    assert (merged["vector_rag_score_qed"] == merged["vector_rag_score_assay"]).all()
    assert (merged["answer_1_name_qed"] == merged["answer_1_name_assay"]).all()
    report = tmp_path / "report"
    _run([sys.executable, "-m", "assay", "report", str(run), "--kind", "winrates", "--format", "json",
          "--out", str(report)], {**os.environ, "PYTHONPATH": str(ROOT / "src")}, "assay report pairwise")
    theirs = pd.read_csv(out / "winrates_sig_tests.csv")
    mine = pd.read_csv(report / "winrates_sig_tests.csv")
    rows = ["question_set", "criteria", "base_name", "other_name"]
    both = theirs.merge(mine, on=rows, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(both) == len(theirs) == len(mine)
    for column in theirs.columns.difference(rows):
        a, b = both[f"{column}_qed"], both[f"{column}_assay"]
        if pd.api.types.is_float_dtype(a):
            assert_allclose(b.to_numpy(float), a.to_numpy(float), rtol=1e-9, err_msg=column)
        else:
            assert (a.astype(str) == b.astype(str)).all(), column


def test_reference_same_prompts_scores_and_summary(qed_venv: Path, data: Path, server: Any,
                                                   tmp_path: Path) -> None:
    import numpy as np
    import pandas as pd
    from numpy.testing import assert_allclose

    out, run = _both("reference", qed_venv, data, server, tmp_path)
    qed = pd.concat([pd.read_csv(out / f"reference_scores-{m}.csv").assign(generated=m) for m in METHODS])
    ours = pd.read_csv(run / "reference_scores.csv")
    ours = ours.assign(trial=ours["trial"] - 1)
    keys = ["generated", "question", "criteria", "trial"]
    merged = qed.merge(ours, on=keys, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(merged) == len(qed) == len(ours)
    assert (merged["score_qed"] == merged["score_assay"]).all()
    # BenchmarkQED's summarize_reference_scores: mean and np.std (ddof 0) per criterion
    summary = qed.groupby(["generated", "criteria"])["score"].agg(["mean", lambda s: np.std(s)])
    summary.columns = ["mean", "std"]
    mine = pd.read_csv(run / "reference_scores_summary.csv").set_index(["generated", "criteria"])
    mine = mine.loc[summary.index]
    assert_allclose(mine["mean"].to_numpy(float), summary["mean"].to_numpy(float), rtol=1e-12)
    assert_allclose(mine["std"].to_numpy(float), summary["std"].to_numpy(float), rtol=1e-12)


def test_multi_rag_assertion_same_prompts_and_summaries(qed_venv: Path, data: Path, server: Any,
                                                        tmp_path: Path) -> None:
    import pandas as pd
    from numpy.testing import assert_allclose

    out, run = _both("assertion", qed_venv, data, server, tmp_path)
    theirs = pd.concat([pd.read_csv(out / qs / f"{m}_summary_by_assertion.csv").assign(task=qs, arm=m)
                        for qs in ("data_local", "activity_local") for m in METHODS])
    mine = pd.read_csv(run / "assertion_scores_by_assertion.csv")
    keys = ["task", "arm", "assertion"]
    both = theirs.merge(mine, on=keys, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(both) == len(theirs) == len(mine)
    assert (both["score_qed"] == both["score_assay"]).all()
    assert_allclose(both["score_mean_assay"], both["score_mean_qed"], rtol=1e-12)
    overall = pd.read_csv(out / "assertion_scores_overall_summary.csv").rename(
        columns={"question_set": "task", "rag_method": "arm", "successful_assertions": "passed_assertions",
                 "total_questions": "num_questions"})
    summary = pd.read_csv(run / "assertion_scores_summary.csv")
    joined = overall.merge(summary, on=["task", "arm"], suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(joined) == len(overall) == len(summary)
    for column in ("total_assertions", "passed_assertions", "failed_assertions", "num_questions"):
        assert (joined[f"{column}_qed"] == joined[f"{column}_assay"]).all(), column
    for column in ("overall_accuracy", "avg_question_pass_rate"):
        assert_allclose(joined[f"{column}_assay"], joined[f"{column}_qed"], rtol=1e-12, err_msg=column)


def _assay_trials(run: Path, data: Path) -> Any:
    """assay's hierarchical rows per (question text, statement, trial): the global trial score,
    the supporting scores in the order listed (SA1, SA2, ...; none: [] ) and discovery."""
    import json

    import pandas as pd

    import assay

    records = json.loads((data / "assertions" / "data_global_assertions.json").read_text(encoding="utf-8"))
    text = {r["question_id"]: r["question_text"] for r in records}
    statement = {f"{r['question_id']}#a{n}": a["statement"] for r in records
                 for n, a in enumerate(r["assertions"], 1)}
    position = {f"{r['question_id']}#a{n}/{s['id']}": k for r in records
                for n, a in enumerate(r["assertions"], 1) for k, s in enumerate(a["supporting_assertions"])}
    frame = assay.load(run).frame
    frame = frame.assign(glob=frame["item"].astype(str).str.split("/").str[0])
    out: dict[tuple[str, str, int], dict[str, Any]] = {}
    for row in frame.itertuples():
        key = (text[str(row.cluster)], statement[row.glob], int(row.run) - 1)
        entry = out.setdefault(key, {"supporting": {}, "discovery": 0, "global": None})
        if row.criterion == "global_assertion":
            entry["global"] = int(row.score)
        elif row.criterion == "discovery":
            entry["discovery"] = int(row.score)
        else:
            entry["supporting"][position[str(row.item)]] = int(row.score)
    return pd.DataFrame([{"question": q, "assertion": a, "trial": t, "global_trial": e["global"],
                          "supporting": [e["supporting"][k] for k in sorted(e["supporting"])],
                          "has_discovery": e["discovery"]} for (q, a, t), e in out.items()])


@pytest.mark.parametrize("mode", ["staged", "joint"])
def test_single_rag_hierarchical_same_prompts_scores_and_summaries(qed_venv: Path, data: Path, server: Any,
                                                                   tmp_path: Path, mode: str) -> None:
    """Single-RAG ``hierarchical-assertion-scores`` (data_global, its supporting assertions).

    Per trial: BenchmarkQED's ``hierarchical_assertion_scores.csv`` against assay's stored
    rows (its staged ``global_score`` is the aggregated stage-1 pass, repeated on every
    trial, and a global that failed stage 1 lists every supporting assertion as 0: assay has
    no stage-2 row there). Then the four files assay writes under BenchmarkQED's names
    (``hierarchical_assertion_scores.csv``, ``hierarchical_assertion_summary.csv``,
    ``hierarchical_summary_by_question.csv``, ``eval_summary.json``) against BenchmarkQED's
    in every column and row, its quirks included (``score_id`` apart: a random uuid4 there).
    """
    import ast

    import pandas as pd

    out, run = _both(f"hierarchical-{mode}", qed_venv, data, server, tmp_path)
    theirs = pd.read_csv(out / "hierarchical_assertion_scores.csv")
    theirs["supporting"] = [list(ast.literal_eval(x)) for x in theirs["supporting_scores"]]
    mine = _assay_trials(run, data)
    keys = ["question", "assertion", "trial"]
    both = theirs.merge(mine, on=keys, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(both) == len(theirs) == len(mine) > 0
    if mode == "joint":
        assert (both["global_score"] == both["global_trial"]).all()
    else:
        passed = both.groupby(["question", "assertion"])["global_trial"].transform("mean") > 0.5
        assert (both["global_score"] == passed.astype(int)).all()
    padded = [s or [0] * len(q)
              for s, q in zip(both["supporting_assay"], both["supporting_qed"], strict=True)]
    assert padded == [list(map(int, s)) for s in both["supporting_qed"]]
    assert (both["has_discovery_qed"].astype(int) == both["has_discovery_assay"]).all()
    # both outcomes seen
    assert both["global_score"].nunique() == 2 and both["has_discovery_qed"].nunique() == 2

    for name in ("hierarchical_assertion_scores.csv", "hierarchical_assertion_summary.csv",
                 "hierarchical_summary_by_question.csv"):
        _same_file(out / name, run / name)
    # eval_summary.json: the same text (json.dumps of the same dict, in the same key order)
    assert (run / "eval_summary.json").read_text(encoding="utf-8") == \
        (out / "eval_summary.json").read_text(encoding="utf-8")


def _same_file(theirs_path: Path, mine_path: Path) -> None:
    """Every BenchmarkQED column of one file, row by row: its columns first and in its order
    (assay's ``task``, ``arm``, ``judge`` after them), numbers to 1e-12, all else as text;
    ``score_id`` apart (BenchmarkQED's is a random uuid4 per call)."""
    import pandas as pd
    from numpy.testing import assert_allclose

    theirs = pd.read_csv(theirs_path, dtype=str, keep_default_na=False)
    mine = pd.read_csv(mine_path, dtype=str, keep_default_na=False)
    name = theirs_path.name
    assert list(mine.columns) == [*theirs.columns, "task", "arm", "judge"], name
    assert len(mine) == len(theirs) > 0, name
    for column in theirs.columns.drop("score_id", errors="ignore"):
        a, b = theirs[column], mine[column]
        numeric = pd.to_numeric(a, errors="coerce")
        if numeric.notna().all() and not a.isin(["True", "False"]).any():
            assert_allclose(pd.to_numeric(b).to_numpy(float), numeric.to_numpy(float), rtol=1e-12,
                            err_msg=f"{name}: {column}")
        else:
            differ = a != b
            assert not differ.any(), (f"{name}: {column}: {a[differ].head(2).tolist()} vs "
                                      f"{b[differ].head(2).tolist()}")


def test_zz_times() -> None:
    """Prints the wall time of each step (``-s`` shows it)."""
    print("\nside-by-side wall times (s): " + ", ".join(f"{k} {v:.1f}" for k, v in TIMES.items()))
