"""Row weights (the ``weight`` column) in analyses that do not take them.

Score means (``--kind scores``) weight rows; an analysis that averages rows without
weighting them would give a number the weights contradict, so it refuses the table
instead of answering silently unweighted.
"""

from __future__ import annotations

import pandas as pd

from assay.errors import DesignError


def refuse_weights(frame: pd.DataFrame, analysis: str) -> None:
    """Raise DesignError when some row of `frame` has a weight other than 1.

    Examples
    --------
    >>> refuse_weights(pd.DataFrame({"weight": [1.0, 1.0]}), "win rates")
    >>> refuse_weights(pd.DataFrame({"weight": [1.0, 3.0]}), "win rates")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    assay.errors.DesignError: win rates do not weight rows yet, and 1 row has a weight ...
    """
    if "weight" not in frame:
        return
    weighted = int((pd.to_numeric(frame["weight"], errors="coerce").fillna(1.0) != 1.0).sum())
    if weighted:
        raise weights_error(weighted, analysis)


def weights_error(weighted: int, analysis: str) -> DesignError:
    """The refusal of ``analysis`` for ``weighted`` rows with a weight other than 1."""
    rows = "1 row has" if weighted == 1 else f"{weighted} rows have"
    return DesignError(f"{analysis} do not weight rows yet, and {rows} a weight other than 1 "
                       "(the 'weight' column): use --kind scores, whose means weight rows")
