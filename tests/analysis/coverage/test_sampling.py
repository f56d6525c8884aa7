"""Table 7, the sampling ablation: coverage and ranking stability of three designs."""

from __future__ import annotations

import json

import pytest

from assay.analysis.coverage import sampling_ablation
from assay.data.table import Judgments
from assay.errors import ConfigError
from tests.analysis.judges.conftest import make_table


def _table(n_common: int = 16) -> Judgments:
    """Stratum 'a' holds n_common items, 'b', 'c' and 'd' one each (rare); arm X beats Y by
    0.3 on every item, so every sample ranks them alike."""
    items = [(f"a{i}", "a") for i in range(n_common)] + [("b0", "b"), ("c0", "c"), ("d0", "d")]
    rows = [{"item": item, "arm": arm, "score": score, "task": "t",
             "attributes": json.dumps({"kind": kind})}
            for item, kind in items for arm, score in (("X", 0.8), ("Y", 0.5))]
    return make_table(rows, {"score": "range:0,1"})


def test_stratified_covers_every_stratum_and_random_mostly_misses_the_rare_ones() -> None:
    report = sampling_ablation(_table(), sample_size=4, repeats=10, seed=3)
    by = {d.design: d for d in report.designs}
    assert report.n_strata == 4 and report.n_rare == 3 and report.population == 19
    # equal allocation of 4 over 4 strata takes one of each: every sample covers all
    assert by["stratified"].acr == 1.0 and by["stratified"].rar == 1.0
    # proportional allocation of 4: quotas 16/19 * 4 = 3.37 and 4/19 = 0.21 for each rare
    # stratum; floors 3, 0, 0, 0 and the one left goes to the largest remainder, 'a' (0.37):
    # every sample is 4 items of 'a', 1 of 4 strata and none of the rare ones
    assert by["frequency"].acr == 0.25 and by["frequency"].rar == 0.0
    assert by["random"].acr < 1.0
    for design in by.values():
        assert design.stability == 1.0 and design.tau_with_all_items == 1.0


def test_a_sample_of_every_item_is_the_whole_table() -> None:
    report = sampling_ablation(_table(4), sample_size=7, repeats=2)
    assert all(d.acr == report.acr_all_items == 1.0 for d in report.designs)
    with pytest.raises(ConfigError, match="sample_size"):
        sampling_ablation(_table(4), sample_size=8)
