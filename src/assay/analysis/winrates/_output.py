"""Text layout of the win-rate report and BenchmarkQED's CSV files (formatting only, no statistics).

``win_rates.csv`` has one row per trial in the columns of BenchmarkQED's ``get_pairwise_scores``
output (``score_id``, ``question``, ``answer_1_name``, ``answer_1``, ``answer_2_name``,
``answer_2``, ``criteria``, a ``<method>_score`` column per arm, ``reasoning``, ``trial``,
``base_name``, ``other_name``, ``question_set``), then ``judge``, ``cluster``, ``run``,
``position`` and ``failure_kind``. ``question`` is the item id (the table keeps no question
text) and ``answer_1``/``answer_2`` are empty (nor answer texts); ``trial`` numbers a
comparison's trials from 0 in (run, position) order; a failed trial has empty scores.

``winrates_sig_tests.csv`` has one row per win-rate record in the columns of BenchmarkQED's
``analyze_criteria`` (``question_set`` is ``ALL`` for all tasks together; ``test`` names the
test actually used; ``corrected_p_value`` is the report's Holm adjustment), then ``judge``,
``n``, ``standard_error``, ``lower`` and ``upper``.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from assay.analysis.winrates._assertions import AssertionComparisons
    from assay.analysis.winrates._report import WinRateReport


def _num(x: float | None, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _p(x: float, digits: int) -> str:
    if math.isnan(x):
        return "-"
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if x < floor else f"{x:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return ("  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))).rstrip()

    return [line(header), *(line(r) for r in rows)]


def format_win_rates(report: WinRateReport, *, digits: int = 3) -> str:
    """The report as text."""
    scope = "within each judge, criterion and task" if report.correction == "holm-per-group" \
        else "over all comparisons shown"
    out = [f"Win rates (test: {report.test}; Holm {scope}; alpha {report.alpha:g}; "
           f"{100 * report.conf:g}% cluster-robust intervals, logit CR2 t; SE is the "
           "clustered standard error they rest on)"]
    current = None
    rows: list[list[str]] = []
    header = ["arm", "opponent", "task", "win rate", "interval", "SE (clusters)", "n",
              "W/T/L/fail", "p", "p adj", ""]

    def flush() -> None:
        if current is not None:
            out.append("")
            out.append(f"{current[0]} / {current[1]}")
            out.extend(_table(header, rows))

    for r in report.records:
        if (r.judge, r.criterion) != current:
            flush()
            current, rows = (r.judge, r.criterion), []
        rows.append([r.arm, r.opponent, r.task or "all", _num(r.win_rate, digits),
                     f"[{_num(r.lower, digits)}, {_num(r.upper, digits)}]",
                     _num(r.standard_error_clustered, digits), str(r.n),
                     f"{r.n_wins}/{r.n_ties}/{r.n_losses}/{r.n_failed}", _p(r.p_value, digits),
                     _p(r.p_adjusted, digits), "*" if r.significant else ""])
    flush()
    if report.aa:
        out += ["", "A/A deviations (an arm judged against itself; 0 = a fair judge)"]
        out.extend(_table(["judge", "criterion", "arm", "task", "deviation", "interval", "p adj"],
                          [[a.judge, a.criterion, a.arm, a.task or "all", _num(a.deviation, digits),
                            f"[{_num(a.lower, digits)}, {_num(a.upper, digits)}]",
                            _p(a.p_adjusted, digits)] for a in report.aa]))
    if report.position:
        out += ["", "Positional flip rate (verdict changes when the order is swapped)"]
        out.extend(_table(["judge", "criterion", "flip rate", "interval", "pairs",
                           "first shown wins"],
                          [[p.judge, p.criterion, _num(p.flip_rate, digits),
                            f"[{_num(p.lower, digits)}, {_num(p.upper, digits)}]", str(p.n),
                            _num(p.first_shown_preference, digits)] for p in report.position]))
    if report.position_direction:
        out += ["", "Direction of the flips (net share towards the answer shown first; 0 = no bias)"]
        out.extend(_table(["judge", "criterion", "to first", "to second", "net", "interval", "p"],
                          [[d.judge, d.criterion, str(d.n_toward_first), str(d.n_toward_second),
                            _num(d.net_toward_first, digits),
                            f"[{_num(d.lower, digits)}, {_num(d.upper, digits)}]",
                            _p(d.p_value, digits)] for d in report.position_direction]))
    if report.judges:
        out += ["", "Judges on the same trials (agreement; win rate a - b)"]
        out.extend(_table(["criterion", "judge a", "judge b", "arm", "opponent", "agreement",
                           "trials", "difference", "interval", "p adj"],
                          [[j.criterion, j.judge_a, j.judge_b, j.arm, j.opponent,
                            _num(j.agreement_rate, digits), str(j.n_trials),
                            _num(j.difference, digits),
                            f"[{_num(j.lower, digits)}, {_num(j.upper, digits)}]",
                            _p(j.p_adjusted, digits)] for j in report.judges]))
    if report.notes:
        out += ["", "Notes"]
        out.extend(f"  - {n}" for n in report.notes)
    return "\n".join(out) + "\n"


def format_assertions(report: AssertionComparisons, *, digits: int = 3) -> str:
    """Assertion comparisons as text."""
    scope = ("within each task" if report.correction == "holm-per-group"
             else "over all pairs shown, Wilcoxon and permutation each a family")
    out = [f"Assertion comparisons (Holm {scope}; alpha {report.alpha:g}; "
           f"permutation: {report.n_resamples} sign patterns, seed {report.seed})"]
    if report.friedman:
        out += ["", "Friedman"]
        out.extend(_table(["task", "arms", "n", "chi2", "p"],
                          [[f.task or "all", ", ".join(f.arms), str(f.n), _num(f.statistic, digits),
                            _p(f.p_value, digits)] for f in report.friedman]))
    out += ["", "Pairs"]
    out.extend(_table(["task", "arm", "opponent", "n", "mean arm", "mean opp", "Wilcoxon p adj",
                       "permutation p adj"],
                      [[p.task or "all", p.arm, p.opponent, str(p.n), _num(p.mean_arm, digits),
                        _num(p.mean_opponent, digits), _p(p.wilcoxon_p_adjusted, digits),
                        _p(p.permutation_p_adjusted, digits)] for p in report.pairs]))
    if report.notes:
        out += ["", "Notes"]
        out.extend(f"  - {n}" for n in report.notes)
    return "\n".join(out) + "\n"


def _qed_p(x: float) -> str:
    if math.isnan(x):
        return ""
    return f"{x:.3f}" if x > 0.001 else "< 0.001"


def trial_rows(trials: pd.DataFrame) -> pd.DataFrame:
    """``win_rates.csv``: one row per trial in BenchmarkQED's columns."""
    t = trials.sort_values(["judge", "criterion", "item", "arm", "opponent", "run", "position"],
                           kind="stable")
    pos = t["position"]
    arm, opp, score = t["arm"], t["opponent"], t["score"]
    ident = (t["judge"] + "\x1f" + t["criterion"] + "\x1f" + t["item"] + "\x1f" + arm + "\x1f" + opp
             + "\x1f" + t["run"].astype(str) + "\x1f" + pos.astype(str))
    out = pd.DataFrame({
        "score_id": [hashlib.sha256(s.encode("utf-8")).hexdigest()[:32] for s in ident],
        "question": t["item"],
        "answer_1_name": np.where(pos == 1, arm, np.where(pos == 2, opp, None)),
        "answer_1": None,
        "answer_2_name": np.where(pos == 1, opp, np.where(pos == 2, arm, None)),
        "answer_2": None,
        "criteria": t["criterion"],
    }, index=t.index)
    for name in pd.unique(pd.concat([arm, opp])):
        out[f"{name}_score"] = np.where(arm == name, score, np.where(opp == name, 1.0 - score, np.nan))
    out["reasoning"] = t["reasoning"]
    out["trial"] = t.groupby(["judge", "criterion", "item", "arm", "opponent"], sort=False).cumcount()
    out["base_name"], out["other_name"] = arm, opp
    out["question_set"] = t["task"]
    for column in ("judge", "cluster", "run", "position", "failure_kind"):
        out[column] = t[column]
    return out.reset_index(drop=True)


def sig_test_rows(report: WinRateReport) -> pd.DataFrame:
    """``winrates_sig_tests.csv``: one row per record in BenchmarkQED's columns."""
    rows = []
    for r in report.records:
        normal = None if math.isnan(r.normality_p_value) else r.normality_p_value > report.alpha
        rows.append({
            "question_set": r.task if r.task is not None else "ALL", "criteria": r.criterion,
            "base_name": r.arm, "other_name": r.opponent, "base_mean": r.win_rate,
            "shapiro_base": r.normality_p_value, "base_normal": normal,
            "other_mean": 1.0 - r.win_rate, "shapiro_other": r.normality_p_value,
            "other_normal": normal, "p_value": r.p_value, "test": r.test,
            "statistic": r.statistic,
            "uncorrected_significance": None if math.isnan(r.p_value) else r.p_value < report.alpha,
            "formatted_p_value": _qed_p(r.p_value), "corrected_p_value": r.p_adjusted,
            "corrected_significance": r.significant,
            "formatted_corrected_p_value": _qed_p(r.p_adjusted),
            "judge": r.judge, "n": r.n, "standard_error": r.standard_error, "lower": r.lower,
            "upper": r.upper,
        })
    return pd.DataFrame(rows)


def write_qed_csvs(report: WinRateReport, out_dir: Path) -> list[Path]:
    """Write ``win_rates.csv`` and ``winrates_sig_tests.csv``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "win_rates.csv", out_dir / "winrates_sig_tests.csv"]
    trial_rows(report.trials).to_csv(paths[0], index=False)
    sig_test_rows(report).to_csv(paths[1], index=False)
    return paths
