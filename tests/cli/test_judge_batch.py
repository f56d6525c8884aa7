"""``assay judge`` and ``assay describe`` with ``transport: batch`` against the stand-in server's
Batch API: the discount in the estimates, the progress lines, one batch for the whole run."""

from __future__ import annotations

import re
import sqlite3

import pytest

from tests.cli._judge_helpers import run, write_config


def _estimate(text: str) -> float:
    return float(re.search(r"about \$([0-9.]+)", text).group(1))


def test_dry_run_and_describe_price_a_batch_at_the_discount(server, tmp_path, capsys):
    direct = write_config(tmp_path, server.url, name="direct.yaml")
    batch = write_config(tmp_path, server.url, name="batch.yaml", transport="batch", batch_discount=0.5)
    assert run(["judge", str(direct), "--out", str(tmp_path / "a"), "--dry-run"]) == 0
    full = _estimate(capsys.readouterr().out)
    assert run(["judge", str(batch), "--out", str(tmp_path / "b"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert _estimate(out) == round(full / 2, 4) and full > 0
    assert "Batch API (transport: batch): the costs above are 50% off" in out
    assert run(["describe", str(batch)]) == 0
    assert "the costs above are 50% off the listed prices" in capsys.readouterr().out
    assert server.stats.requests == 0 and server.batches.created == 0  # nothing sent


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_a_judge_run_through_the_batch_api(server, tmp_path, capsys):
    server.configure(batch_delay_s=0.1)
    config = write_config(tmp_path, server.url, transport="batch", batch_poll_s=0.02, batch_poll_max_s=0.05)
    out = tmp_path / "run"
    assert run(["judge", str(config), "--out", str(out), "--display", "plain"]) == 0
    err = capsys.readouterr().err
    assert "batch: submitted 12 requests in 1 batch(es): batch_1" in err
    assert re.search(r"batch: batch batch_1 in_progress, \d+/12 answered; next check in", err)
    assert server.batches.created == 1 and server.stats.requests == 0
    conn = sqlite3.connect(out / "judgments.sqlite")
    try:
        assert conn.execute("SELECT count(*), sum(failed) FROM judgments").fetchone() == (12, 0)
        assert conn.execute("SELECT count(*) FROM prompts").fetchone() == (12,)
    finally:
        conn.close()
    assert run(["judge", str(config), "--out", str(out), "--display", "plain"]) == 0  # all stored
    assert server.batches.created == 1
