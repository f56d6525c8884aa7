"""``reference_scores_summary.csv``'s mean and SD are BenchmarkQED's ``summarize_reference_scores``
(``np.std``: ddof 0). Oracle: benchmark_qed's own function on the same scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from assay.judge.qed_files import reference_summary_records

from ._qed_oracle import qed, quietly


def scores() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame([{"score_id": f"{c}{q}{t}", "question": f"question {q}?", "reference_answer": "r",
                          "generated_answer": "g", "criteria": c, "score": int(rng.integers(1, 11)),
                          "reasoning": "x", "trial": t}
                         for c in ("correctness", "completeness") for q in range(6) for t in range(4)])


def records(frame: pd.DataFrame) -> list[dict]:
    return frame.assign(question_set="s", reference="gold", generated="rag", judge="j").to_dict("records")


def test_mean_and_sd_are_benchmark_qeds():
    frame = scores()
    want = quietly(qed("autoe.reference.scores").summarize_reference_scores, frame).set_index("criteria")
    got = pd.DataFrame(reference_summary_records(records(frame))).set_index("criteria")
    assert sorted(got.index) == sorted(want.index)
    assert_allclose(got.loc[want.index, "mean"], want["mean"], rtol=1e-12)
    assert_allclose(got.loc[want.index, "std"], want["std"], rtol=1e-12)


def test_hand_worked_population_sd():
    # scores 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, 32 / 8 = 4, SD 2
    # (ddof 1 would give sqrt(32 / 7) = 2.138); one score has SD 0, as np.std gives it
    rows = [{"question_set": "s", "criteria": "c", "reference": "r", "generated": "g", "judge": "j",
             "score": v} for v in (2, 4, 4, 4, 5, 5, 7, 9)]
    one = [{**rows[0], "criteria": "d"}]
    got = {r["criteria"]: r for r in reference_summary_records(rows + one)}
    assert got["c"]["mean"] == 5.0 and got["c"]["std"] == 2.0
    assert got["d"]["std"] == 0.0
