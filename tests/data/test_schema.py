import math

import numpy as np
import pandas as pd
import pytest

from assay.data.schema import Scale, parse_scale_option, reportable_from_split


@pytest.mark.parametrize("spelling", ["interval", "binary", "range:0,100", "range:-1,1.5",
                                      "ordinal:Low,Medium,High", "nominal:red,green"])
def test_spelling_round_trips(spelling):
    assert Scale.parse(spelling).spelling() == spelling


@pytest.mark.parametrize("bad", ["range:1", "range:5,1", "range:a,b", "ordinal:One",
                                 "ordinal:A,A", "likert", "binary:0,1", "range:0,inf"])
def test_bad_scales_say_what_is_expected(bad):
    with pytest.raises(ValueError, match="scale"):
        Scale.parse(bad)


def test_ordinal_levels_map_lowest_to_highest():
    # High/Medium/Low -> 1 / 0.5 / 0 (seed 001's score_norm)
    s = Scale.parse("ordinal:Low,Medium,High")
    codes = [s.code(v) for v in ("Low", "medium", "HIGH")]
    assert codes == [0.0, 1.0, 2.0]
    np.testing.assert_allclose(s.normalise(codes), [0.0, 0.5, 1.0])
    assert s.label(1.0) == "Medium"
    with pytest.raises(ValueError, match="expected one of Low, Medium, High"):
        s.code("Excellent")


def test_range_and_binary_check_values():
    r = Scale.parse("range:0,100")
    assert r.code("78.5") == 78.5
    np.testing.assert_allclose(r.normalise([0, 25, 100]), [0, 0.25, 1])
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        r.code(140)
    b = Scale.parse("binary")
    assert b.code(True) == 1.0
    with pytest.raises(ValueError, match="0 or 1"):
        b.code(0.5)
    with pytest.raises(ValueError, match="finite"):
        Scale().code(float("nan"))


def test_interval_and_nominal_have_no_normalisation():
    assert math.isnan(Scale().normalise([3.0])[0])
    assert math.isnan(Scale.parse("nominal:a,b").normalise([1.0])[0])


def test_scale_option():
    assert parse_scale_option("quality=range:0,100") == ("quality", Scale.parse("range:0,100"))
    with pytest.raises(ValueError, match="CRITERION=SCALE"):
        parse_scale_option("range:0,100")


def test_reportable_from_split():
    assert [reportable_from_split(s) for s in ("dev", "calibration", "test", "final",
                                               "exploratory", None)] == [
        False, False, True, True, True, True]


def test_the_table_doc_names_every_column():
    from pathlib import Path

    from assay.data.schema import COLUMNS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "judgments-table.md").read_text()
    assert [c.name for c in COLUMNS if f"`{c.name}`" not in doc] == []


def test_weight_must_be_a_positive_number_and_names_row_and_column():
    from assay.data.validate import build_table

    frame = pd.DataFrame({"item": ["q1", "q2", "q3", "q4"], "arm": ["a"] * 4,
                          "score": [1, 0, 1, 0], "weight": [1, 0, -2, "x"]})
    problems = build_table(frame, path="t.csv").problems
    assert sorted((p.row, p.column) for p in problems) == [(2, "weight"), (3, "weight"),
                                                           (4, "weight")]


def test_a_missing_weight_is_one():
    from assay.data.validate import build_table

    frame = pd.DataFrame({"item": ["q1", "q2"], "arm": ["a", "a"], "score": [1, 0],
                          "weight": [None, 3]})
    built = build_table(frame, path="t.csv")
    assert built.problems == [] and built.frame["weight"].tolist() == [1.0, 3.0]
