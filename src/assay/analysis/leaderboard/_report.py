"""Leaderboard statistics of pairwise judgments: Bradley-Terry ratings with rank intervals
(Chatbot Arena) and length-controlled win rates (AlpacaEval 2.0).

``leaderboard`` reads the pairwise rows of a judgments table (``opponent`` set; score 1 win,
0.5 tie, 0 loss for ``arm``, or a graded preference) and gives a :class:`LeaderboardReport`:

* per (judge, criterion), a :class:`Rating` per arm: the Bradley-Terry rating on the Elo scale
  (400 points per factor 10 of odds, mean 1000 or an anchor arm pinned), its cluster-bootstrap
  percentile interval and rank interval (whole questions resampled), and its battle counts;
* per (judge, criterion, arm, opponent) where the answers' lengths are known, a
  :class:`LengthControlled` record: AlpacaEval 2.0's length-controlled win rate (the GLM's
  prediction at zero length difference) with a cluster-robust interval.

Battles. Every scored trial (one judgment of one presentation order) is one battle; a tie
counts half a win each way; a failed judgment (no score) is no battle, counted apart. Trials
judged in both orders enter as two battles, so the fit is position-symmetrised the way Arena's
is (each battle in both orders) and a position bias of the judge cancels out of a
counterbalanced design.

Weights. A row's ``weight`` (Arena-Hard-Auto counts a strong verdict three times) is the
weight of its battle in the Bradley-Terry likelihood and of its preference in the
length-controlled GLM, as if the row were repeated that many times; battle and win counts
stay counts of rows.

Lengths. The length of an answer is, when the table has them, its characters
(``answer_length`` of the arm's rows and ``opponent_length`` of the rows it is the opponent of,
as AlpacaEval counts them), else the ``tokens_out`` of the (item, arm) rows, read from any row
of that arm on that item (pairwise or pointwise, from either side); a comparison whose answers
have no length on some items leaves those items out of its GLM, with a note.

Difficulty. With an item ``difficulty`` (AlpacaEval's instruction difficulty, ``assay import
alpaca-eval --lc-difficulty``), the record is AlpacaEval's own GLM
(:func:`~assay.stats.leaderboard.alpaca_eval_glm_win_rate`: L1-penalised, cross-validated, with
the difficulty), its standard error AlpacaEval's ``lc_standard_error`` and no interval;
without it, the unpenalised GLM without difficulty, whose name says it is not AlpacaEval's LC.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.benchmark._design import MIN_CLUSTERS, MIN_ITEMS, Design, design_of
from assay.analysis.winrates._data import oriented_trials, pairwise_rows
from assay.data.table import Judgments
from assay.errors import ConfigError, DesignError
from assay.stats.leaderboard import (
    alpaca_eval_glm_win_rate,
    bradley_terry_bootstrap,
    length_controlled_win_rate,
)

__all__ = ["LeaderboardReport", "LengthControlled", "Rating", "leaderboard"]


@dataclass(frozen=True)
class Rating:
    """One arm's Bradley-Terry rating in one (judge, criterion) leaderboard."""

    judge: str
    criterion: str
    arm: str
    rating: float
    """Elo-scaled Bradley-Terry rating."""
    lower: float
    """Percentile lower bound (cluster bootstrap over questions)."""
    upper: float
    rank: int
    """1 + the arms rated strictly higher."""
    rank_lower: int
    """Best rank of the bootstrap rank interval."""
    rank_upper: int
    """Worst rank of the bootstrap rank interval."""
    n_battles: int
    """Scored trials the arm played."""
    n_wins: float
    """Its wins, a tie counting half (a graded preference its fraction)."""
    n_failed: int
    """Its trials without a score (not battles)."""
    n_clusters: int
    """Clusters of questions of the leaderboard, the bootstrap's unit (each question its own
    cluster when the table names none)."""
    effective_clusters: float | None = None
    """G*, the effective number of clusters (the benchmark's design rule), the smallest over
    the arms of G* of the arm's wins per battle; None below 2 clusters."""


@dataclass(frozen=True)
class LengthControlled:
    """One comparison's length-controlled win rate (AlpacaEval 2.0)."""

    judge: str
    criterion: str
    arm: str
    opponent: str
    """The baseline."""
    lc_win_rate: float
    lower: float
    upper: float
    standard_error: float
    win_rate: float
    """The raw win rate over the same questions."""
    length_coefficient: float
    """phi: the log-odds change per unit of tanh(length difference / its sd)."""
    n: int
    """Questions fitted."""
    n_clusters: int
    converged: bool
    """The GLM reached a finite fit (False when it did not converge or separated)."""
    separated: bool = False
    """The preferences separate: no finite fit, and no length-controlled win rate unless every
    preference is the same (see the notes)."""
    method: str = ""
    """What the figure is: :data:`LC_ALPACA_EVAL` or :data:`LC_WITHOUT_DIFFICULTY`."""


LC_ALPACA_EVAL = ("AlpacaEval's length-controlled GLM (instruction difficulty, L1 penalty "
                  "chosen by 5-fold cross-validation; without its gamed-baseline rows)")
LC_WITHOUT_DIFFICULTY = ("length-controlled win rate computed without instruction difficulty "
                         "(unpenalised GLM): not AlpacaEval's LC")


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True, eq=False)
class LeaderboardReport(Rendered):
    """Bradley-Terry leaderboards and length-controlled win rates of pairwise judgments."""

    ratings: list[Rating]
    length_controlled: list[LengthControlled]
    conf: float
    n_resamples: int
    seed: int
    anchor: tuple[str, float] | None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Ratings and length-controlled records (lists of records), settings and notes."""
        return {
            "ratings": [{k: _plain(v) for k, v in asdict(r).items()} for r in self.ratings],
            # each figure's method is a sentence: said once for the records, not in each row
            "length_controlled": [{k: _plain(v) for k, v in asdict(r).items() if k != "method"}
                                  for r in self.length_controlled],
            "length_controlled_method": sorted({r.method for r in self.length_controlled}),
            "conf": self.conf, "n_resamples": self.n_resamples, "seed": self.seed,
            "anchor": list(self.anchor) if self.anchor else None, "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The text of ``leaderboard.json``."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_text(self, *, digits: int = 1) -> str:
        from assay._display import render_text

        return render_text(self, digits=digits)


def _answer_lengths(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    """(item, arm) -> the answer's length: its characters where the table has them, else
    ``tokens_out``, from any row of that arm."""
    if "answer_length" in frame and frame["answer_length"].notna().any():
        out: dict[tuple[str, str], float] = {}
        for side, column in (("opponent", "opponent_length"), ("arm", "answer_length")):
            if column not in frame or side not in frame:
                continue
            rows = frame[frame[column].notna() & frame[side].notna()]
            firsts = pd.to_numeric(rows[column]).groupby(
                [rows["item"].astype(str), rows[side].astype(str)]).first()
            out.update({key: float(v) for key, v in firsts.items()})
        return out
    if "tokens_out" not in frame:
        return {}
    rows = frame[pd.to_numeric(frame["tokens_out"], errors="coerce").notna()]
    lengths = pd.to_numeric(rows["tokens_out"]).groupby(
        [rows["item"].astype(str), rows["arm"].astype(str)]).first()
    return {key: float(v) for key, v in lengths.items()}


def _ratings(trials: pd.DataFrame, judge: str, criterion: str, *, conf: float, B: int, seed: int,
             anchor: tuple[str, float] | None, notes: list[str]) -> list[Rating]:
    scored = trials[trials["score"].notna()]
    arms = sorted(set(trials["arm"]) | set(trials["opponent"]))
    if scored.empty or len(arms) < 2:
        notes.append(f"judge {judge}, criterion {criterion}: no scored battle between two arms; "
                     "no leaderboard.")
        return []
    index = {a: i for i, a in enumerate(arms)}
    a = scored["arm"].map(index).to_numpy(np.int64)
    b = scored["opponent"].map(index).to_numpy(np.int64)
    y = scored["score"].to_numpy(np.float64)
    w = scored["weight"].to_numpy(np.float64)
    clusters = scored["cluster"].astype(str).to_numpy()
    if np.unique(clusters).size < 2:
        notes.append(f"judge {judge}, criterion {criterion}: fewer than 2 questions; the "
                     "bootstrap needs at least 2, no leaderboard.")
        return []
    anchor_index = None
    if anchor is not None:
        if anchor[0] not in index:
            raise ConfigError(f"--anchor {anchor[0]!r}: no such arm in judge {judge}, criterion "
                              f"{criterion} (arms: {', '.join(arms)})")
        anchor_index = (index[anchor[0]], float(anchor[1]))
    res = bradley_terry_bootstrap(a, b, y, clusters, n_arms=len(arms), weight=w,
                                  anchor=anchor_index,
                                  conf=conf, n_resamples=B, rng=np.random.default_rng(seed))
    if not res.fit.converged:
        notes.append(f"judge {judge}, criterion {criterion}: the ratings do not converge (an arm "
                     "never loses or never wins against the others, so its rating has no finite "
                     "maximum-likelihood value); the extreme ratings are not estimates.")
    design = _design(scored, arms)
    effective = design.effective_clusters if design is not None else float(res.n_clusters)
    n_questions = int(scored["item"].nunique())
    if n_questions < MIN_ITEMS or effective < MIN_CLUSTERS:
        # the benchmark's auto rule for a bootstrap interval: 300 items and 30 effective
        # clusters (choose_method), read on the same G*
        size = (f" ({effective:.1f} effective)" if effective < res.n_clusters * (1 - 1e-9)
                else "")
        notes.append(f"judge {judge}, criterion {criterion}: the rating and rank intervals come "
                     f"from a bootstrap over {res.n_clusters} clusters of questions{size} and "
                     f"{n_questions} questions, short of the {MIN_ITEMS} questions and "
                     f"{MIN_CLUSTERS} effective clusters the benchmark report asks of a "
                     "bootstrap interval: there the bootstrap's intervals are too narrow (in "
                     "assay's coverage simulation it covered 71-92% with few effective "
                     "clusters), so a rank interval such as 1-1 is not a guarantee; the "
                     "win-rate report's paired tests of each pair are the safer reading.")
    if design is not None and design.flagged:
        notes.append(f"judge {judge}, criterion {criterion}: the {design.n_clusters} clusters "
                     f"count as {design.effective_clusters:.1f} effective clusters (their sizes "
                     f"differ; working ICC {design.icc:.2f}), the design the benchmark report "
                     "flags: every rating rests on a few large clusters.")
    if res.n_failed:
        notes.append(f"judge {judge}, criterion {criterion}: {res.n_failed} of {B} resamples "
                     "separated the arms (no finite ratings); they are kept at the iteration "
                     "cap, which widens rather than narrows the intervals.")
    out = []
    for arm, k in index.items():
        played = (scored["arm"] == arm) | (scored["opponent"] == arm)
        wins = float(np.where(scored["arm"] == arm, scored["score"], 0.0).sum()
                     + np.where(scored["opponent"] == arm, 1.0 - scored["score"], 0.0).sum())
        failed = int((((trials["arm"] == arm) | (trials["opponent"] == arm))
                      & trials["score"].isna()).sum())
        out.append(Rating(judge, criterion, arm, float(res.fit.ratings[k]), float(res.lower[k]),
                          float(res.upper[k]), int(res.rank[k]), int(res.rank_lower[k]),
                          int(res.rank_upper[k]), int(played.sum()), wins, failed,
                          res.n_clusters, design.effective_clusters if design else None))
    return sorted(out, key=lambda r: (r.rank, r.arm))


def _design(scored: pd.DataFrame, arms: list[str]) -> Design | None:
    """The benchmark's design of the leaderboard: per arm, its wins per battle summed in each
    cluster of questions (:func:`assay.analysis.benchmark._design.design_of`), and the arm
    with the fewest effective clusters; None when no arm played in 2 clusters."""
    designs = []
    clusters = scored["cluster"].astype(str).to_numpy()
    for arm in arms:
        mine = ((scored["arm"] == arm) | (scored["opponent"] == arm)).to_numpy()
        if not mine.any():
            continue
        won = np.where(scored["arm"].to_numpy()[mine] == arm, scored["score"].to_numpy()[mine],
                       1.0 - scored["score"].to_numpy()[mine]).astype(np.float64)
        sums = pd.DataFrame({"s": won, "q": won * won, "n": 1.0}).groupby(
            clusters[mine], sort=False).sum()
        if len(sums) >= 2:
            designs.append(design_of(sums[["s"]].to_numpy(np.float64),
                                     sums[["q"]].to_numpy(np.float64),
                                     sums["n"].to_numpy(np.float64), 1))
    return min(designs, key=lambda d: d.effective_clusters) if designs else None


def _difficulties(frame: pd.DataFrame) -> dict[str, float]:
    """item -> its difficulty (``difficulty``), where the table has one."""
    if "difficulty" not in frame:
        return {}
    rows = frame[frame["difficulty"].notna()]
    firsts = pd.to_numeric(rows["difficulty"]).groupby(rows["item"].astype(str)).first()
    return {str(k): float(v) for k, v in firsts.items()}


def _alpaca_eval_lc(rows: pd.DataFrame, la: np.ndarray, lb: np.ndarray,
                    difficulty: dict[str, float], labels: tuple[str, str, str, str],
                    notes: list[str]) -> LengthControlled | None:
    judge, criterion, arm, opponent = labels
    d = np.array([difficulty.get(str(i), np.nan) for i in rows["item"]])
    known = np.isfinite(la) & np.isfinite(lb) & np.isfinite(d)
    if known.sum() < 10:
        notes.append(f"{arm} vs {opponent} ({judge}, {criterion}): fewer than 10 questions with "
                     "both lengths and a difficulty; no AlpacaEval length-controlled win rate.")
        return None
    if not known.all():
        notes.append(f"{arm} vs {opponent} ({judge}, {criterion}): {int((~known).sum())} trials "
                     "without both answers' lengths or a difficulty are left out of AlpacaEval's "
                     "length-controlled GLM.")
    res = alpaca_eval_glm_win_rate(rows["score"].to_numpy(np.float64)[known], la[known],
                                   lb[known], d[known])
    return LengthControlled(judge, criterion, arm, opponent, res.estimate, math.nan, math.nan,
                            res.standard_error, res.win_rate, res.coefficients["length"], res.n,
                            res.n, True, method=LC_ALPACA_EVAL)


def _length_controlled(trials: pd.DataFrame, lengths: dict[tuple[str, str], float], judge: str,
                       criterion: str, conf: float, notes: list[str],
                       difficulty: dict[str, float] | None = None) -> list[LengthControlled]:
    out = []
    scored = trials[trials["score"].notna()]
    for (arm, opponent), rows in scored.groupby(["arm", "opponent"], sort=False):
        la = np.array([lengths.get((i, arm), np.nan) for i in rows["item"]])
        lb = np.array([lengths.get((i, opponent), np.nan) for i in rows["item"]])
        if difficulty:
            record = _alpaca_eval_lc(rows, la, lb, difficulty,
                                     (judge, criterion, str(arm), str(opponent)), notes)
            out += [record] if record is not None else []
            continue
        known = np.isfinite(la) & np.isfinite(lb)
        if known.sum() < 3:
            continue
        if not known.all():
            notes.append(f"{arm} vs {opponent} ({judge}, {criterion}): {int((~known).sum())} "
                         "trials without both answers' lengths are left out of the "
                         "length-controlled win rate.")
        res = length_controlled_win_rate(rows["score"].to_numpy()[known], la[known], lb[known],
                                         cluster=rows["cluster"].astype(str).to_numpy()[known],
                                         weight=rows["weight"].to_numpy(np.float64)[known],
                                         conf=conf)
        where = f"{arm} vs {opponent} ({judge}, {criterion})"
        if res.separated and math.isfinite(res.estimate):
            notes.append(f"{where}: every preference is {res.estimate:g}, so the length GLM has "
                         "no finite fit (the preferences separate): the length-controlled win "
                         f"rate is {res.estimate:g} with no interval.")
        elif res.separated:
            notes.append(f"{where}: the preferences separate (some questions' fitted "
                         "probabilities are 0 or 1, so the GLM's coefficients have no finite "
                         "value): no length-controlled win rate or interval; the raw win rate "
                         f"is {res.win_rate:.3g}.")
        elif not res.converged:
            notes.append(f"{where}: the length GLM does not converge in 100 Newton steps; no "
                         "interval.")
        out.append(LengthControlled(judge, criterion, arm, opponent, res.estimate, res.lower,
                                    res.upper, res.standard_error, res.win_rate,
                                    res.coefficients["length"], res.n, res.n_clusters,
                                    res.converged, res.separated, method=LC_WITHOUT_DIFFICULTY))
    return out


def leaderboard(judgments: Judgments | pd.DataFrame, *, conf: float = 0.95, B: int = 1000,
                seed: int = 1, anchor: tuple[str, float] | None = None) -> LeaderboardReport:
    """Bradley-Terry leaderboards with rank intervals, and length-controlled win rates.

    Parameters
    ----------
    judgments : Judgments or pandas.DataFrame
        The table; reportable rows with an ``opponent`` are read (see the module docstring).
    conf : float, default 0.95
        Level of every interval.
    B : int, default 1000
        Bootstrap resamples of the ratings.
    seed : int, default 1
        Seed of the bootstrap.
    anchor : (str, float), optional
        Pin arm ``anchor[0]`` at rating ``anchor[1]`` (Arena pins mixtral-8x7b-instruct-v0.1
        at 1114); default: the ratings average 1000.

    Returns
    -------
    LeaderboardReport

    Raises
    ------
    ConfigError
        `conf` outside (0, 1), `B` below 2, or an anchor arm not in the table.
    DesignError
        No pairwise rows, or a pairwise score outside [0, 1].
    """
    if not (isinstance(conf, (int, float)) and 0.0 < conf < 1.0):
        raise ConfigError(f"--conf {conf!r}: expected a level in (0, 1), e.g. 0.95")
    if int(B) < 2:
        raise ConfigError(f"--B {B!r}: expected at least 2 resamples")
    frame = judgments.frame if isinstance(judgments, Judgments) else judgments
    notes: list[str] = []
    rows = pairwise_rows(frame, notes, weights=True)
    trials = oriented_trials(rows, notes)
    aa = trials["arm"] == trials["opponent"]
    if aa.any():
        notes.append(f"{int(aa.sum())} A/A trials (an arm against itself) carry no information "
                     "on the ratings and are left out.")
        trials = trials[~aa]
    if trials.empty:
        raise DesignError("no pairwise trial between two different arms: a leaderboard needs "
                          "battles")
    lengths = _answer_lengths(frame)
    difficulty = _difficulties(frame)
    ratings: list[Rating] = []
    lc: list[LengthControlled] = []
    for (judge, criterion), group in trials.groupby(["judge", "criterion"], sort=False):
        ratings += _ratings(group, str(judge), str(criterion), conf=conf, B=int(B), seed=seed,
                            anchor=anchor, notes=notes)
        if lengths:
            lc += _length_controlled(group, lengths, str(judge), str(criterion), conf, notes,
                                     difficulty)
    if not lengths:
        notes.append("no answer lengths (answer_length or tokens_out): no length-controlled "
                     "win rates.")
    elif lc and not difficulty:
        notes.append("the length-controlled win rates are computed without instruction "
                     "difficulty: they are not AlpacaEval's LC (give AlpacaEval's "
                     "instruction_difficulty.csv to 'assay import alpaca-eval --lc-difficulty').")
    return LeaderboardReport(ratings, lc, float(conf), int(B), int(seed), anchor, notes)
