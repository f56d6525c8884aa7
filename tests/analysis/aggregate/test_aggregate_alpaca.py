"""Inter-rater reliability on real data: AlpacaEval annotators who judged the same pairs.

gpt-3.5-turbo-0301 was judged against the baseline gpt4_1106_preview by three annotator
configurations (alpaca_eval_cot_gpt4_turbo_fn, alpaca_eval_gpt4_turbo_fn and
weighted_alpaca_eval_gpt4_turbo) and against text_davinci_003 by alpaca_eval_gpt4; cohere by
two of the first three. The oracle reads the annotation files directly with ``json`` (not
through assay's importer), takes preference - 1 per instruction, and computes ICC(A,1) with
pingouin (CI unrounded), the MAD with numpy and Spearman's rho with scipy.
"""

from __future__ import annotations

import json
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pingouin as pg
from numpy.testing import assert_allclose
from scipy import stats

from assay.analysis.aggregate import aggregate
from assay.data.importers import import_alpaca_eval
from assay.report.text import format_summary

SAME_PAIRS = ("alpaca_eval_cot_gpt4_turbo_fn", "alpaca_eval_gpt4_turbo_fn",
              "weighted_alpaca_eval_gpt4_turbo")


def direct_ratings(results) -> pd.DataFrame:
    columns = {}
    for annotator in SAME_PAIRS:
        path = results / "gpt-3.5-turbo-0301" / annotator / "annotations.json"
        with path.open(encoding="utf-8") as fh:
            records = json.load(fh)
        assert {r["generator_1"] for r in records} == {"gpt4_1106_preview"}
        # AlpacaEval: 1 = baseline preferred, 2 = model preferred; 0 was an old code for a draw.
        columns[annotator] = {r["instruction"]: (np.nan if r["preference"] is None else
                                                 0.5 if r["preference"] == 0 else
                                                 r["preference"] - 1) for r in records}
    return pd.DataFrame(columns).dropna()


def test_agreement_of_annotators_against_a_direct_computation(alpaca_results):
    report = aggregate(import_alpaca_eval([alpaca_results]))
    (r,) = report.reliability
    assert r.criterion == "preference" and set(r.judges) == set(SAME_PAIRS)
    wide = direct_ratings(alpaca_results)[list(r.judges)]
    assert r.num_units == len(wide) == 805
    # cohere's 805 pairs were judged by two of the three only: counted and left out.
    assert r.num_units_incomplete == 805
    long = wide.reset_index(drop=True).rename_axis("unit").reset_index().melt(
        id_vars="unit", var_name="rater", value_name="score")
    saved = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*inplace.*")
            oracle = pg.intraclass_corr(long, targets="unit", raters="rater",
                                        ratings="score").set_index("Type").loc["ICC(A,1)"]
    finally:
        pg.options["round.column.CI95"] = saved
    assert_allclose(r.icc.estimate, oracle["ICC"], rtol=1e-9)
    assert_allclose([r.icc.lower, r.icc.upper], oracle["CI95"], rtol=1e-8)
    x = wide.to_numpy()
    pairs = list(combinations(range(3), 2))
    assert_allclose(r.mad.estimate, np.mean([np.abs(x[:, a] - x[:, b]).mean() for a, b in pairs]),
                    rtol=1e-12)
    assert_allclose(r.spearman.matrix, stats.spearmanr(x).statistic, rtol=1e-10)
    record = report.to_dict()["inter_rater_reliability"]["preference"]
    assert record["num_raters"] == 3 and record["icc"] == r.icc.estimate
    notes = " ".join(report.notes)
    assert "leaving out alpaca_eval_gpt4." in notes
    assert any(f.kind == "single_run" for f in report.flags)
    text = format_summary(report)  # summary.txt
    assert f"ICC(2,1): {r.icc.estimate:.4f}" in text and "Number of Raters: 3" in text
