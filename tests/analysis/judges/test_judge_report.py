"""judge_agreement on small hand-made tables: judges.json layout, hand-worked values, scales,
constant and single judges, and the positional flip rate with mirrored rows and failures."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import krippendorff
import numpy as np
import pytest
from numpy.testing import assert_allclose

from assay.analysis.judges import DEFAULT_UNCERTAINTY_THRESHOLD, judge_agreement
from assay.data.schema import Scale
from assay.data.validate import judgments_from_records

AGREEMENT_KEYS = [
    "criterion", "task", "scale", "judges", "num_raters", "n_units", "n_complete_units", "icc",
    "icc_lower", "icc_upper", "krippendorff_alpha_interval", "krippendorff_alpha_ordinal",
    "krippendorff_alpha_nominal", "fleiss_kappa", "mean_pairwise_agreement"]
PAIR_KEYS = [
    "criterion", "task", "judge_a", "judge_b", "n", "spearman_rho", "kendall_tau_b", "icc", "mad",
    "agreement_rate", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"]
POSITION_KEYS = [
    "judge", "criterion", "n", "n_incomplete", "n_flips", "flip_rate", "lower", "upper", "method",
    "reversal_rate", "first_shown_preference", "flip_rate_after", "n_after"]

# helpfulness (ordinal Low/Medium/High) by three judges; q3 lacks J3's rating.
HELPFULNESS = {
    "q1": ("High", "High", "High"),
    "q2": ("Low", "Medium", "Low"),
    "q3": ("Medium", "Medium", None),
    "q4": ("Low", "Low", "Medium"),
}
CODE = {"Low": 0.0, "Medium": 1.0, "High": 2.0}


def _table(records, scales):
    return judgments_from_records(records, list(range(1, len(records) + 1)), path="test",
                                  sources=["test"], scales=scales)


def _ordinal_records(task: str | None = None):
    records = []
    for item, labels in HELPFULNESS.items():
        for judge, label in zip(("J1", "J2", "J3"), labels, strict=True):
            if label is not None:
                records.append({"item": item, "arm": "m", "judge": judge,
                                "criterion": "helpfulness", "score": label, "task": task})
    return records


SCALES = {"helpfulness": Scale.parse("ordinal:Low,Medium,High"),
          "tone": Scale.parse("nominal:formal,casual,terse"),
          "quality": Scale.parse("range:0,10")}


def test_judges_json_layout_is_the_contract() -> None:
    report = judge_agreement(_table(_ordinal_records(), SCALES))
    d = json.loads(report.to_json())
    assert list(d)[:3] == ["agreement", "pairs", "position"]
    assert [list(r) for r in d["agreement"]] == [AGREEMENT_KEYS]
    assert all(list(r) == PAIR_KEYS for r in d["pairs"]) and len(d["pairs"]) == 3
    assert d["agreement"][0]["task"] is None and d["position"] == []
    assert {"drift", "uncertain_items", "conf", "notes"} <= set(d)


def test_ordinal_hand_worked() -> None:
    report = judge_agreement(_table(_ordinal_records(), SCALES))
    rec = report.agreement[0]
    assert (rec.num_raters, rec.n_units, rec.n_complete_units) == (3, 4, 3)
    # Fleiss on the complete units q1, q2, q4: counts (0,0,3), (2,1,0), (2,1,0):
    # P_i = 1, 1/3, 1/3 -> P-bar 5/9; p = (4/9, 2/9, 3/9) -> P_e = 29/81;
    # kappa = (45 - 29) / (81 - 29) = 16/52 = 4/13.
    assert_allclose(rec.fleiss_kappa, 4 / 13, rtol=1e-12)
    # exact agreement: J1-J2 3/4, J1-J3 2/3, J2-J3 1/3 -> mean 7/12
    rates = {(p.judge_a, p.judge_b): p.agreement_rate for p in report.pairs}
    assert rates == {("J1", "J2"): 0.75, ("J1", "J3"): pytest.approx(2 / 3),
                     ("J2", "J3"): pytest.approx(1 / 3)}
    assert_allclose(rec.mean_pairwise_agreement, 7 / 12, rtol=1e-12)
    # Cohen J1-J2 over 4 units: p_o = 3/4; margins J1 (2,1,1)/4, J2 (1,2,1)/4:
    # p_e = (2 + 2 + 1)/16 = 5/16; kappa = (12/16 - 5/16) / (11/16) = 7/11.
    j1j2 = next(p for p in report.pairs if (p.judge_a, p.judge_b) == ("J1", "J2"))
    assert_allclose(j1j2.cohen_kappa, 7 / 11, rtol=1e-12)
    # MAD J1-J2 on level codes: |2-2| + |0-1| + |1-1| + |0-0| = 1 over 4 units
    assert_allclose(j1j2.mad, 0.25, rtol=1e-12)
    # Krippendorff from the package, raters in rows
    data = np.array([[CODE[lab] if lab else np.nan for lab in labels]
                     for labels in HELPFULNESS.values()]).T
    for level in ("interval", "ordinal", "nominal"):
        assert_allclose(getattr(rec, f"krippendorff_alpha_{level}"),
                        krippendorff.alpha(reliability_data=data, level_of_measurement=level),
                        rtol=1e-12)


def test_nominal_scale_has_no_correlations_icc_or_weighted_kappa() -> None:
    labels = {"q1": ("formal", "formal"), "q2": ("casual", "formal"), "q3": ("terse", "terse"),
              "q4": ("casual", "casual"), "q5": ("formal", "terse")}
    records = [{"item": item, "arm": "m", "judge": judge, "criterion": "tone", "score": lab}
               for item, pair in labels.items() for judge, lab in zip(("A", "B"), pair,
                                                                      strict=True)]
    report = judge_agreement(_table(records, SCALES))
    d = report.to_dict()
    rec, pair = d["agreement"][0], d["pairs"][0]
    for key in ("icc", "icc_lower", "icc_upper", "krippendorff_alpha_interval",
                "krippendorff_alpha_ordinal"):
        assert rec[key] is None
    for key in ("spearman_rho", "kendall_tau_b", "icc", "mad", "cohen_kappa_linear",
                "cohen_kappa_quadratic"):
        assert pair[key] is None
    # 3 of 5 agree; A: formal 2, casual 2, terse 1; B: formal 2, casual 1, terse 2 (of 5):
    # p_e = (4 + 2 + 2)/25 = 8/25; kappa = (15/25 - 8/25) / (17/25) = 7/17
    assert pair["agreement_rate"] == 0.6
    assert_allclose(pair["cohen_kappa"], 7 / 17, rtol=1e-12)
    assert rec["krippendorff_alpha_nominal"] is not None and rec["fleiss_kappa"] is not None
    assert report.uncertain_items == [] and report.drift == []


def test_range_scale_has_no_kappa_and_pairs_by_hand() -> None:
    scores = {"q1": (2, 3), "q2": (5, 5), "q3": (9, 7), "q4": (4, 6)}
    records = [{"item": item, "arm": "m", "judge": judge, "criterion": "quality", "score": s}
               for item, pair in scores.items() for judge, s in zip(("A", "B"), pair,
                                                                    strict=True)]
    pair = judge_agreement(_table(records, SCALES)).to_dict()["pairs"][0]
    assert pair["cohen_kappa"] is None and pair["cohen_kappa_quadratic"] is None
    # MAD (1 + 0 + 2 + 2)/4 = 1.25; exact agreement 1/4; ranks A (1,3,4,2) B (1,2,4,3):
    # d^2 = 0+1+0+1 = 2 -> rho = 1 - 12/60 = 0.8; pairs: 6, concordant 5, discordant 1 -> tau 4/6
    assert pair["mad"] == 1.25 and pair["agreement_rate"] == 0.25
    assert_allclose([pair["spearman_rho"], pair["kendall_tau_b"]], [0.8, 2 / 3], rtol=1e-12)


def test_constant_judge_and_single_judge_get_notes_not_noise() -> None:
    records = [{"item": f"q{i}", "arm": "m", "judge": "A", "criterion": "quality", "score": 5}
               for i in range(6)]
    records += [{"item": f"q{i}", "arm": "m", "judge": "B", "criterion": "quality", "score": s}
                for i, s in enumerate([1, 4, 5, 7, 9, 5])]
    records += [{"item": f"q{i}", "arm": "m", "judge": "C", "criterion": "tone",
                 "score": "formal"} for i in range(3)]
    report = judge_agreement(_table(records, SCALES))
    pair = report.pairs[0]
    assert math.isnan(pair.spearman_rho) and math.isnan(pair.kendall_tau_b)
    assert any("judge 'A' gave every unit it scored the same score (5)" in n
               for n in report.notes)
    assert any("'tone' is scored by one judge only (C)" in n for n in report.notes)
    assert [r.criterion for r in report.agreement] == ["quality"]
    # every judge constant and equal: alpha and ICC are 0/0 -> null with a note
    same = [{"item": f"q{i}", "arm": "m", "judge": j, "criterion": "quality", "score": 5}
            for i in range(4) for j in ("A", "B")]
    report = judge_agreement(_table(same, SCALES))
    rec = report.to_dict()["agreement"][0]
    assert rec["icc"] is None and rec["krippendorff_alpha_interval"] is None
    assert any("Krippendorff's alpha is undefined (0/0), not low" in n for n in report.notes)
    assert any("ICC(2,1): every rating is the same value" in n for n in report.notes)


def test_tasks_get_their_own_records_and_units_are_item_arm_run() -> None:
    records = [{**r, "run": 1} for r in _ordinal_records("t1")] + [
        {**r, "item": r["item"] + "b", "task": "t2", "run": 1} for r in _ordinal_records()]
    records += [{**r, "run": 2} for r in _ordinal_records("t1")]
    report = judge_agreement(_table(records, SCALES))
    assert [(r.task, r.n_units, r.n_complete_units) for r in report.agreement] == [
        (None, 12, 9), ("t1", 8, 6), ("t2", 4, 3)]
    t2 = report.agreement[2]
    assert_allclose(t2.fleiss_kappa, 4 / 13, rtol=1e-12)


def test_uncertain_units_on_the_normalised_scale_and_on_a_raw_threshold() -> None:
    # ordinal: High vs Low (codes 2, 0 -> 1, 0 normalised, sd 0.707) is flagged; one level
    # apart (sd 0.354) is not, at the default 0.375.
    records = [{"item": "q1", "arm": "m", "judge": "A", "criterion": "helpfulness",
                "score": "High"},
               {"item": "q1", "arm": "m", "judge": "B", "criterion": "helpfulness",
                "score": "Low"},
               {"item": "q2", "arm": "m", "judge": "A", "criterion": "helpfulness",
                "score": "High"},
               {"item": "q2", "arm": "m", "judge": "B", "criterion": "helpfulness",
                "score": "Medium"}]
    report = judge_agreement(_table(records, SCALES))
    assert report.uncertainty_threshold == DEFAULT_UNCERTAINTY_THRESHOLD == 0.375
    assert [(u.item, u.basis) for u in report.uncertain_items] == [("q1", "normalised")]
    assert_allclose(report.uncertain_items[0].sd, math.sqrt(0.5), rtol=1e-12)
    raw = judge_agreement(_table(records, SCALES), uncertainty_threshold={"helpfulness": 0.5})
    # raw codes: q1 (2, 0) sd 1.414, q2 (2, 1) sd 0.707: both above 0.5
    assert [(u.item, u.basis) for u in raw.uncertain_items] == [("q1", "raw"), ("q2", "raw")]
    assert raw.to_dict()["uncertainty_basis"] == "raw"


def test_position_flip_rate_with_alternating_runs_mirrored_rows_and_a_failure() -> None:
    # Seed 004's layout: trial t shows the arm first when t is odd (run 1, 3: position 1).
    # i1 from A's side: pair (1, 0) flips and reverses (average .5: tie); pair (1, 1) does not
    # (average 1: win) -> after: tie vs win differ. Run 1 is stored from both sides too.
    # i2 stored from B's side only; read as A: pair (1, 0.5) flips without reversing (average
    # .75: win), pair (1, 1) does not (win) -> after: agree.
    # i3: run 2 failed, so pair (r1, r2) is incomplete; pair (0, 0) does not flip.
    # PFR = 2/5, reversals 1/5; after = 1/2 over 2 pairs of trial pairs; 2 trials left out.
    # First shown wins 6 of 9 decisive trials.
    def row(item, arm, opp, run, pos, score, cluster, failure=None):
        return {"item": item, "cluster": cluster, "arm": arm, "opponent": opp, "run": run,
                "position": pos, "judge": "J", "criterion": "pref", "score": score,
                "failure_kind": failure}

    records = [row("i1", "A", "B", 1, 1, 1.0, "c1"), row("i1", "B", "A", 1, 2, 0.0, "c1"),
               row("i1", "A", "B", 2, 2, 0.0, "c1"), row("i1", "A", "B", 3, 1, 1.0, "c1"),
               row("i1", "A", "B", 4, 2, 1.0, "c1"),
               row("i2", "B", "A", 1, 2, 0.0, "c1"), row("i2", "B", "A", 2, 1, 0.5, "c1"),
               row("i2", "B", "A", 3, 2, 0.0, "c1"), row("i2", "B", "A", 4, 1, 0.0, "c1"),
               row("i3", "A", "B", 1, 1, 0.5, "c2"),
               row("i3", "A", "B", 2, 2, None, "c2", failure="timeout"),
               row("i3", "A", "B", 3, 1, 0.0, "c2"), row("i3", "A", "B", 4, 2, 0.0, "c2")]
    report = judge_agreement(_table(records, {"pref": Scale.parse("range:0,1")}))
    (pos,) = report.to_dict()["position"]
    assert list(pos) == POSITION_KEYS
    assert (pos["judge"], pos["criterion"], pos["n"], pos["n_flips"], pos["n_incomplete"]) == (
        "J", "pref", 5, 2, 2)
    assert_allclose([pos["flip_rate"], pos["reversal_rate"], pos["flip_rate_after"]],
                    [0.4, 0.2, 0.5], rtol=1e-12)
    assert pos["n_after"] == 2
    assert_allclose(pos["first_shown_preference"], 6 / 9, rtol=1e-12)
    assert pos["lower"] < 0.4 < pos["upper"]


def test_bad_arguments() -> None:
    table = _table(_ordinal_records(), SCALES)
    with pytest.raises(ValueError, match="conf"):
        judge_agreement(table, conf=1.5)
    with pytest.raises(ValueError, match="drift_window"):
        judge_agreement(table, drift_window=1)
    with pytest.raises(ValueError, match="uncertainty_threshold"):
        judge_agreement(table, uncertainty_threshold=-1)


def test_text_rendering_names_the_sections() -> None:
    text = str(judge_agreement(_table(_ordinal_records(), SCALES)))
    assert "Agreement between judges" in text and "Judge pairs" in text
    assert "helpfulness" in text and "J1 / J2" in text


def test_pairwise_rows_undeclared_scale_and_two_judges_on_positions() -> None:
    # An undeclared numeric scale is "interval"; pairwise verdicts 1/0.5/0 are still read.
    # Two judges on the same counterbalanced trials: units include the position.
    rows = []
    for judge, scores in (("J", (1.0, 0.0, 1.0, 1.0)), ("K", (1.0, 0.0, 0.5, 1.0))):
        for item, (s1, s2) in zip(("i1", "i2"), (scores[:2], scores[2:]), strict=True):
            rows += [{"item": item, "arm": "A", "opponent": "B", "run": 1, "position": 1,
                      "judge": judge, "criterion": "pref", "score": s1},
                     {"item": item, "arm": "A", "opponent": "B", "run": 1, "position": 2,
                      "judge": judge, "criterion": "pref", "score": s2}]
    report = judge_agreement(_table(rows, {}))
    rec = report.agreement[0]
    assert (rec.scale, rec.num_raters, rec.n_units) == ("interval", 2, 4)
    # J: i1 (W, L) flips, i2 (W, W) does not; K: i1 flips, i2 (T, W) flips
    flips = {p.judge: (p.n, p.n_flips) for p in report.position}
    assert flips == {"J": (2, 1), "K": (2, 2)}
    # 3 of the 4 units get identical verdicts
    assert report.pairs[0].agreement_rate == 0.75


def test_reordering_rows_and_renaming_judges_changes_nothing(demo_judgments) -> None:
    base = judge_agreement(demo_judgments)
    frame = demo_judgments.frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled = judge_agreement(replace(demo_judgments, frame=frame))
    for a, b in ((base.agreement, shuffled.agreement), (base.pairs, shuffled.pairs),
                 (base.position, shuffled.position)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            for key, value in vars(x).items():
                other = getattr(y, key)
                if isinstance(value, float):
                    assert_allclose(other, value, rtol=1e-10, equal_nan=True)
                else:
                    assert other == value
    key = {(u.criterion, u.item, u.arm, u.run): u.sd for u in base.uncertain_items}
    assert key == {(u.criterion, u.item, u.arm, u.run): u.sd for u in shuffled.uncertain_items}
    # renaming the judges swaps judge_a / judge_b but not the values
    renamed = frame.assign(judge=frame["judge"].replace({"judge-lenient": "z-lenient"}))
    other = judge_agreement(replace(demo_judgments, frame=renamed))
    assert (other.pairs[0].judge_a, other.pairs[0].judge_b) == ("judge-strict", "z-lenient")
    assert_allclose([other.pairs[0].icc, other.pairs[0].spearman_rho, other.agreement[0].icc],
                    [base.pairs[0].icc, base.pairs[0].spearman_rho, base.agreement[0].icc],
                    rtol=1e-10)
