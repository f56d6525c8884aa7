"""Balance of a design: does every arm have every run on every item?"""

from __future__ import annotations

import pandas as pd

from assay.errors import Problem

MAX_CELLS_NAMED = 10


def missing_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The (judge, criterion, item, arm, run) cells a balanced design would have but this lacks.

    Within each judge and criterion, every arm (for pairwise rows: every arm-opponent pair)
    should have every run 1..R on every item. Returns one row per missing cell.

    Examples
    --------
    >>> f = pd.DataFrame({"judge": "j", "criterion": "c", "item": ["q1", "q1", "q2"],
    ...                   "arm": ["a", "b", "a"], "run": 1})
    >>> missing_cells(f)[["item", "arm", "run"]].to_dict("records")
    [{'item': 'q2', 'arm': 'b', 'run': 1}]
    """
    arm = frame["arm"].astype(str)
    if "opponent" in frame:
        opponent = frame["opponent"]
        arm = arm.where(opponent.isna(), arm + " vs " + opponent.astype(str))
    cells = pd.DataFrame({"judge": frame["judge"], "criterion": frame["criterion"],
                          "item": frame["item"], "arm": arm, "run": frame["run"].astype(int)})
    missing = []
    for (judge, criterion), group in cells.groupby(["judge", "criterion"], sort=False):
        items = pd.unique(group["item"])
        arms = pd.unique(group["arm"])
        runs = range(1, int(group["run"].max()) + 1)
        full = pd.MultiIndex.from_product([items, arms, runs], names=["item", "arm", "run"])
        present = pd.MultiIndex.from_frame(group[["item", "arm", "run"]])
        absent = full.difference(present, sort=False)
        if len(absent):
            part = absent.to_frame(index=False)
            part.insert(0, "criterion", criterion)
            part.insert(0, "judge", judge)
            missing.append(part)
    if not missing:
        return pd.DataFrame(columns=["judge", "criterion", "item", "arm", "run"])
    return pd.concat(missing, ignore_index=True)


def balance_problems(frame: pd.DataFrame, *, path: str) -> list[Problem]:
    """One problem per judge and criterion that is not balanced, naming missing cells."""
    absent = missing_cells(frame)
    problems = []
    for (judge, criterion), group in absent.groupby(["judge", "criterion"], sort=False):
        named = ", ".join(f"item {r.item!r} arm {r.arm!r} run {r.run}"
                          for r in group.head(MAX_CELLS_NAMED).itertuples())
        more = len(group) - MAX_CELLS_NAMED
        problems.append(Problem(
            path, None, None,
            f"not balanced for judge {judge!r}, criterion {criterion!r}: {len(group)} missing "
            f"cell(s) (every arm needs every run on every item): {named}"
            + (f", and {more} more" if more > 0 else "")))
    return problems
