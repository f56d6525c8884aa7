"""``assay judge``: the significance tests' on/off, permutation count and seed, from the config
and the command line (BenchmarkQED's run_significance_test, n_permutations, permutation_seed)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
import yaml

import assay.analysis.assertions as assertions
from tests.cli._judge_helpers import run
from tests.judge.workflow._dataset import write_dataset
from tests.judge.workflow.test_notebook_workflow import write_config

pytestmark = pytest.mark.slow  # four judge runs with their CSVs: about 10 s
ASSERT = {"kind": "assertion", "label": "assert", "trials": 1, "question_sets": ["data_local"]}


def test_permutations_seed_and_off(server, tmp_path, monkeypatch):
    config = write_config(tmp_path, write_dataset(tmp_path / "data"), server.url, [ASSERT])
    out = tmp_path / "run"
    calls: list[dict[str, Any]] = []
    real = assertions.assertion_significance

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append({k: kwargs[k] for k in ("n_resamples", "seed")})
        return real(*args, **kwargs)

    monkeypatch.setattr(assertions, "assertion_significance", spy)

    def judge(*options: str) -> pd.DataFrame | None:
        assert run(["judge", str(config), "--out", str(out), "--display", "plain", *options]) == 0
        path = out / "significance_summary.csv"
        frame = pd.read_csv(path) if path.exists() else None
        path.unlink(missing_ok=True)
        return frame

    summary = judge()
    assert calls.pop() == {"n_resamples": 10_000, "seed": 42}  # BenchmarkQED's defaults
    assert summary is not None and set(summary["metric"]) == {"pass_rate", "pass_rate_clustered"}
    assert server.stats.requests == 16  # 4 questions x 2 assertions x 2 methods; later runs send none

    summary = judge("--permutations", "0", "--permutation-seed", "7")
    assert calls.pop() == {"n_resamples": 0, "seed": 7}
    assert summary is not None and set(summary["metric"]) == {"pass_rate"}  # no permutation rows
    assert set(summary["test_name"]) == {"wilcoxon_signed_rank"}

    assert judge("--no-significance") is None and not calls

    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["significance"] = {"permutations": 50, "seed": 3}
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    summary = judge()
    assert calls.pop() == {"n_resamples": 50, "seed": 3}
    assert summary is not None and "pass_rate_clustered" in set(summary["metric"])
    assert server.stats.requests == 16
