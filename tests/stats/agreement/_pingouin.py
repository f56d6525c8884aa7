"""pingouin's ICC(A,1) row with its CI unrounded: the oracle the ICC tests and fixtures share."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pingouin as pg


def pingouin_icc_a1(ratings: np.ndarray) -> pd.Series:
    """pingouin's ICC(A,1) row (ICC2 before 0.7) of an items x raters array, with the CI
    unrounded (pingouin rounds CI95 to 2 decimals by default: ``options["round.column.CI95"]``)."""
    n, k = ratings.shape
    long = pd.DataFrame({"unit": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n),
                         "score": ratings.ravel()})
    saved = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None
    try:
        with warnings.catch_warnings():
            # pingouin 0.7 calls DataFrame.dropna(inplace=True), deprecated in pandas 3.
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", FutureWarning)
            warnings.filterwarnings("ignore", message=".*inplace.*")
            table = pg.intraclass_corr(long, targets="unit", raters="rater", ratings="score")
    finally:
        pg.options["round.column.CI95"] = saved
    return table.set_index("Type").loc["ICC(A,1)"]
