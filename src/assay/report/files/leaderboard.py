"""Standings as leaderboard files (``assay export``): assay's JSON and CSV, AlpacaEval's
leaderboard CSV, and a Hugging Face dataset folder.

Formats :class:`assay.analysis.standings.Standings`; computes nothing. The schema of the
JSON and CSV is ``docs/export.md`` (its name and version are the JSON's ``schema``).
Every CSV cell from data is made safe for spreadsheets (:func:`assay.data.cells.safe_cell`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from assay.analysis.standings import SCHEMA, Standing, Standings
from assay.data.atomic import atomic_path, write_text
from assay.data.cells import write_csv_rows
from assay.errors import ConfigError

ALPACA_EVAL_COLUMNS = ("", "win_rate", "standard_error", "n_wins", "n_wins_base", "n_draws", "n_total",
                       "discrete_win_rate", "mode", "avg_length", "length_controlled_winrate",
                       "lc_standard_error")
"""The columns of AlpacaEval's leaderboard CSVs (the first, unnamed, is the model)."""

CSV_COLUMNS = tuple(f.name for f in fields(Standing))


def _clean(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


def write_standings_json(standings: Standings, path: str | Path) -> Path:
    """The standings as JSON (``schema``: ``assay.standings/1``)."""
    return write_text(path, standings.to_json() + "\n")


def write_standings_csv(standings: Standings, path: str | Path) -> Path:
    """One row per (criterion, judge, opponent, system), the columns of :class:`Standing`."""
    rows = [[_clean(v) for v in asdict(r).values()] for r in standings.rows]
    with atomic_path(path) as temporary:
        write_csv_rows(temporary, [CSV_COLUMNS, *rows])
    return Path(path)


def pairwise_board(standings: Standings, *, judge: str | None = None,
                   baseline: str | None = None, criterion: str | None = None) -> list[Standing]:
    """The systems of the one pairwise board selected (judge, baseline, criterion), best first.

    An AlpacaEval leaderboard holds one judge against one baseline: when the standings hold
    several pairwise boards, the options must pick one (the error lists them).
    """
    boards: dict[tuple[str, str, str], list[Standing]] = {}
    for row in standings.rows:
        if row.opponent is None or row.n_wins is None:
            continue
        if (judge, baseline, criterion) != (None, None, None) and not (
                judge in (None, row.judge) and baseline in (None, row.opponent)
                and criterion in (None, row.criterion)):
            continue
        boards.setdefault((row.judge, row.opponent, row.criterion), []).append(row)
    if not boards:
        raise ConfigError("no pairwise judgments with a bounded score"
                          + (" match --judge/--baseline/--criterion" if judge or baseline or criterion
                             else "") + ": an AlpacaEval leaderboard needs them")
    if len(boards) > 1:
        listed = "; ".join(f"judge {j!r} baseline {b!r} criterion {c!r}" for j, b, c in boards)
        raise ConfigError(f"{len(boards)} pairwise boards ({listed}): pick one with --judge, "
                          "--baseline and --criterion")
    rows = next(iter(boards.values()))
    return sorted(rows, key=lambda r: (r.rank, r.system))


def write_alpaca_eval_csv(standings: Standings, path: str | Path, *, judge: str | None = None,
                          baseline: str | None = None, criterion: str | None = None) -> Path:
    """AlpacaEval's leaderboard CSV for one judge and baseline: win rates and their standard
    errors (items independent, as AlpacaEval computes them) in percent, the discrete counts;
    ``mode`` is ``assay``; the length columns are empty (the judgments table holds no
    output lengths)."""
    rows = []
    for r in pairwise_board(standings, judge=judge, baseline=baseline, criterion=criterion):
        scored = (r.n_wins or 0) + (r.n_losses or 0) + (r.n_draws or 0)
        rows.append([r.system, _pct(r.estimate), _pct(r.iid_standard_error), r.n_wins, r.n_losses,
                     r.n_draws, scored, _pct(r.discrete_estimate), "assay", None, None, None])
    with atomic_path(path) as temporary:
        write_csv_rows(temporary, [ALPACA_EVAL_COLUMNS, *rows])
    return Path(path)


def _pct(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else 100.0 * value


DATASET_CARD = """---
configs:
- config_name: default
  data_files: data/standings.parquet
---
# Standings exported by assay

One row per (criterion, judge, opponent, system): the mean score (`estimate`, on [0, 1]
unless the scale is `interval`), its {conf:.0%} interval (`lower`, `upper`, method
`method`), counts, and the rank on its board with the rank range read from non-overlapping
intervals (descriptive, no joint coverage). Schema `{schema}`; see assay's docs/export.md.
"""


def write_hf_dataset(standings: Standings, folder: str | Path) -> Path:
    """A folder the Hugging Face ``datasets`` library and hub read: ``data/standings.parquet``
    and a dataset card ``README.md`` naming it."""
    import pandas as pd

    out = Path(folder)
    (out / "data").mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([asdict(r) for r in standings.rows], columns=list(CSV_COLUMNS))
    with atomic_path(out / "data" / "standings.parquet") as temporary:
        frame.to_parquet(temporary, index=False)
    write_text(out / "README.md", DATASET_CARD.format(conf=standings.conf, schema=SCHEMA))
    write_text(out / "meta.json", json.dumps({"schema": SCHEMA, "conf": standings.conf,
                                              "notes": standings.notes}, indent=2) + "\n")
    return out
