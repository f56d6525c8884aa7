"""Issue 22, item 2: a run's exit status says what was stored.

Every command that buys calls (``assay judge``, ``assay generate`` with a teacher or
systems, ``assay baselines`` with G-Eval, ``assay run``) ends with "stored S of P planned
..." counted from its run store, prints every note of the batch runner, and exits 3 with
the command that resumes when a planned judgment is not stored. Against the stand-in
server's Batch API (tests/judge/llm_batches.py): every batch expiring, result lines cut
short. Oracles: the server's counters and the run store read on its own connection.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.cli._judge_helpers import run, write_config, write_systems_config, write_teacher_config
from tests.pipeline.test_baselines import SCORES
from tests.pipeline.test_native_scores import _write

BATCH = {"transport": "batch", "batch_poll_s": 0.02, "batch_poll_max_s": 0.05}


def stored_keys(store: Path) -> int:
    conn = sqlite3.connect(store)
    try:
        return int(conn.execute("SELECT count(*) FROM judgments").fetchone()[0])
    finally:
        conn.close()


def test_judge_with_every_batch_expired_exits_3_saying_what_is_stored(server, tmp_path, capsys):
    server.configure(batch_expire_after=0)
    config = write_config(tmp_path, server.url, **BATCH)
    out = tmp_path / "run"
    # --limit 1: 1 question x 2 criteria x 2 trials = 4 planned judgments
    assert run(["judge", str(config), "--out", str(out), "--limit", "1", "--display", "plain"]) == 3
    captured = capsys.readouterr()
    assert server.batches.created == 1 and stored_keys(out / "judgments.sqlite") == 0
    assert "stored 0 of 4 planned judgments" in captured.out
    assert ("note: 4 judgments were not answered: their batch expired or was cancelled before "
            "running them") in captured.err
    assert f"not stored: 4 of 4 planned judgments (see the notes above): exit 3; resume with: " \
           f"assay judge {config} --out {out} --limit 1" in captured.err  # the same plan, not all of it


def test_judge_names_unreadable_result_lines_sends_them_again_once_and_counts_them(server, tmp_path,
                                                                                    capsys):
    server.configure(batch_garble_every=4)  # lines 4, 8, 12 of the 12: answered, then cut short
    config = write_config(tmp_path, server.url, **BATCH)
    out = tmp_path / "run"
    assert run(["judge", str(config), "--out", str(out), "--display", "plain"]) == 0
    captured = capsys.readouterr()
    # the 3 lost lines went again in a batch of 3 (no 4th line to lose): all 12 stored
    assert server.batches.created == 2 and server.batches.lines_answered == 15
    assert stored_keys(out / "judgments.sqlite") == 12
    assert "stored 12 of 12 planned judgments" in captured.out
    assert "15 calls, 3 paid twice" in captured.out
    assert ("note: batch batch_1 output file file-batch_1-output: 3 result lines could not be read "
            "(line 4: not JSON; line 8: not JSON; line 12: not JSON)") in captured.err
    assert ("note: batch batch_1: 3 of its 12 requests have no readable result line: input file "
            "file-1 (line 4; line 8; line 12)") in captured.err
    assert "note: 3 calls paid twice: their first result line was unreadable or missing" in captured.err


def test_judge_leaves_a_line_lost_twice_unstored_and_exits_3(server, tmp_path, capsys):
    server.configure(batch_garble_every=1)  # every result line cut short: lost, then lost again
    config = write_config(tmp_path, server.url, **BATCH)
    out = tmp_path / "run"
    assert run(["judge", str(config), "--out", str(out), "--limit", "1", "--display", "plain"]) == 3
    captured = capsys.readouterr()
    assert server.batches.created == 2 and server.batches.lines_answered == 8  # sent twice, never thrice
    assert "stored 0 of 4 planned judgments" in captured.out and "4 paid twice" in captured.out
    assert "4 judgments lost their result line a second time: not sent a third time" in captured.err


def test_a_direct_run_with_a_planned_judgment_not_stored_exits_3(server, tmp_path, capsys, monkeypatch):
    from assay.llm.store import RunStore

    put = RunStore.put
    dropped: list[str] = []

    def losing_put(self, request, reply, rows, *, commit=True):  # the first write never lands
        if not dropped and reply.ok:
            dropped.append(request.key)
            return False
        return put(self, request, reply, rows, commit=commit)

    monkeypatch.setattr(RunStore, "put", losing_put)
    config = write_config(tmp_path, server.url)
    out = tmp_path / "run"
    assert run(["judge", str(config), "--out", str(out), "--display", "plain"]) == 3
    captured = capsys.readouterr()
    assert len(dropped) == 1 and stored_keys(out / "judgments.sqlite") == 11
    assert "12 judged (0 failed" in captured.out  # the runner believes it stored them all
    assert "stored 11 of 12 planned judgments" in captured.out
    assert f"resume with: assay judge {config} --out {out}" in captured.err


def test_generate_with_every_batch_expired_prints_the_note_and_the_stored_count(server, tmp_path, capsys):
    server.configure(batch_expire_after=0)
    config = write_systems_config(tmp_path, server.url, transport="batch")
    out = tmp_path / "run"
    assert run(["generate", str(config), "--out", str(out)]) == 3
    captured = capsys.readouterr()
    assert server.batches.created == 1
    assert "stored 0 of 3 planned answers" in captured.out
    assert "note: 3 judgments were not answered: their batch expired" in captured.err
    assert f"resume with: assay generate {config} --out {out}" in captured.err


def test_a_teacher_phase_with_its_batch_expired_exits_3_before_any_system_is_asked(server, tmp_path,
                                                                                     capsys):
    server.configure(batch_expire_after=0)
    config = write_teacher_config(tmp_path, server.url, transport="batch")
    out = tmp_path / "run"
    assert run(["generate", str(config), "--out", str(out), "--datapoints-only"]) == 3
    captured = capsys.readouterr()
    assert "stored 0 of 3 planned teacher prompts" in captured.out
    assert "note: 3 judgments were not answered: their batch expired" in captured.out
    assert f"resume with: assay generate {config} --out {out} --datapoints-only" in captured.err
    assert run(["generate", str(config), "--out", str(out)]) == 3  # the systems are not asked
    assert server.batches.created == 2 and server.stats.requests == 0
    assert not (out / "answers.jsonl").exists()


def test_a_teacher_phase_stopped_by_the_cost_limit_exits_3_and_says_why(server, tmp_path, capsys):
    # one call spends the limit: 1 of the 3 strata is asked (max_concurrency 1)
    config = write_teacher_config(tmp_path, server.url,
                                  teacher={"price": {"input": 1000.0, "output": 1000.0}},
                                  max_concurrency=1, cost_limit_usd=0.01)
    out = tmp_path / "run"
    assert run(["generate", str(config), "--out", str(out), "--datapoints-only"]) == 3
    captured = capsys.readouterr()
    assert server.stats.requests == 1
    assert "stored 1 of 3 planned teacher prompts" in captured.out
    assert "teacher: 2 of 3 strata not stored (the cost limit stopped the phase)" in captured.out
    assert f"resume with: assay generate {config} --out {out} --datapoints-only" in captured.err


def test_geval_with_every_batch_expired_exits_3(server, tmp_path, capsys):
    server.configure(scores=SCORES, batch_expire_after=0)
    folder = tmp_path / "run"
    folder.mkdir()
    _write(folder, "datapoints.jsonl", [{"id": f"d{i}", "prompt": f"Q{i}?", "reference_score": i / 4}
                                        for i in range(4)])
    _write(folder, "responses.jsonl", [{"id": f"r{i}", "datapoint_id": f"d{i}", "arm": "a",
                                        "text": f"reply {i}"} for i in range(4)])
    cfg = tmp_path / "baselines.yaml"
    cfg.write_text(f"llm: {{model: judge-model, base_url: '{server.url}', api_key_env: null, "
                   "transport: batch, batch_poll_s: 0.02}\ngeval: {samples: 2}\n", encoding="utf-8")
    assert run(["baselines", str(folder), "--methods", "geval", "--config", str(cfg)]) == 3
    captured = capsys.readouterr()
    # the logprob stage (4) expired, then the sampled stage built for the 4 (2 samples each)
    assert "stored 0 of 12 planned G-Eval judgments" in captured.out
    assert "note: G-Eval: 4 judgments were not answered: their batch expired" in captured.out
    assert f"resume with: assay baselines {folder} --methods geval --config {cfg}" in captured.err


def test_assay_run_stops_at_the_judge_step_whose_batch_expired(server, tmp_path, capsys):
    server.configure(batch_expire_after=0)
    config = write_config(tmp_path, server.url, **BATCH)
    out = tmp_path / "run"
    assert run(["run", str(config), "--out", str(out)]) == 3
    captured = capsys.readouterr()
    assert "stored 0 of 12 planned judgments" in captured.out
    assert "their batch expired" in captured.err
    assert f"step judge ended with exit status 3; later steps not run; to resume: assay run {config} " \
           f"--out {out}" in captured.out
    assert "[2/2] report" not in captured.out
