"""Calibration of judges against benchmark-native scores (CoEval, "Calibration"). Off by default.

Per (judge, task), and once for all of them together (``_overall``), an OLS line
reference_score ~ alpha + beta x raw is fitted on a holdout of items, and the calibrated
score clip(alpha + beta x raw, 0, 1) is compared with the reference on the remaining items:
Spearman rho and mean absolute error before (``rho_raw``, ``mae_raw``) and after
(``rho_calibrated``, ``mae_calibrated``). The result is a trust metric: stored scores are
never modified, and no other report uses calibrated scores.

Readings where CoEval's documentation leaves it open:

* **Units.** A unit is a row: one judge's score of one arm's answer to one item on one run
  for one criterion, normalised to [0, 1] by its scale, paired with the item's
  ``reference_score``. A judge's criteria in a task are fitted together, as CoEval fits
  per (judge, task). Pairwise rows and criteria without a map to [0, 1] do not enter;
  rows of every split do (a fit is a diagnostic, and the ``dev`` and ``calibration`` splits
  are made for it).
* **Holdout.** The holdout is a set of *items* (all units of an item are on one side, so
  the evaluation is on items the fit has not seen). If some of the items carry
  ``split = "calibration"``, they are the fit set. Otherwise, of the n items with a
  reference score, ``holdout_n`` (default 200) are drawn without replacement by
  ``numpy.random.default_rng(seed).choice`` over the item ids in sorted order (a fresh
  generator per (judge, task), so an entry does not depend on the others); when
  n <= ``holdout_n`` the fit takes floor(n / 2) items drawn the same way and a note says
  so, so that something is left to evaluate on. With fewer than 4 items nothing is fitted
  (identity, ``method = "not_fitted_too_few_items"``).
* **Zero variance.** When the fit set's raw scores do not vary, the identity
  (alpha = 0, beta = 1, ``method = "identity_zero_variance"``). When its reference scores do
  not vary, the OLS line is flat and would send every score to the reference (an error of 0
  by construction): refused, the identity with ``method = "identity_constant_reference"``
  and a note.
* **Few levels.** When the fit rests on 3 or fewer distinct raw values (a 3-level ordinal
  judge, a binary metric), CoEval's warning is attached to the entry as a note.
* **Cache.** ``calibration_params.json`` in ``out_dir`` holds CoEval's layout
  ``{judge: {task: {...}}, "_overall": {...}}`` (task ``"all"`` for a table without a
  ``task`` column), each entry also carrying its holdout settings and notes. It is read
  back instead of refitting unless ``force=True``; delete it to refit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats as sps

from assay._display import Rendered, write_files
from assay.analysis.composite import Model, as_judgments, clean_record, pointwise_units
from assay.data.lines import json_object_file
from assay.errors import ConfigError, InputError
from assay.stats.calibration import apply_calibration, ols_calibration

CALIBRATION_FILE = "calibration_params.json"
OVERALL = "_overall"
ALL_TASKS = "all"
DEFAULT_HOLDOUT_N = 200
FEW_LEVELS = 3

FEW_LEVELS_NOTE = ("The fit rests on {k} distinct raw values: as CoEval warns of LLM judges "
                   "with 3 ordinal levels (High/Medium/Low), OLS on at most 3 distinct inputs is "
                   "fundamentally insufficient for a reliable fit; alpha and beta are highly "
                   "sensitive to the score distribution and may not generalise. Calibrate "
                   "metric judges with continuous [0, 1] scores instead.")
DISABLED_NOTE = ("Calibration is a post-hoc trust metric, disabled by default: stored scores are "
                 "never modified and no other report uses calibrated scores.")


@dataclass(frozen=True)
class CalibrationEntry:
    """Calibration of one judge in one task (or of all of them: ``judge`` None)."""

    judge: str | None
    task: str | None
    alpha: float
    beta: float
    method: str
    """``ols``, ``identity_zero_variance`` or ``not_fitted_too_few_items``."""
    n_fit: int
    """Units in the fit."""
    n_fit_items: int
    n_eval: int
    """Units the rho and MAE are computed on (the items not in the fit)."""
    n_eval_items: int
    n_total: int
    """Units with a score and a reference score."""
    n_distinct_raw: int
    """Distinct raw values in the fit."""
    rho_raw: float
    """Spearman rho of raw scores with the reference, on the evaluation units."""
    rho_calibrated: float
    mae_raw: float
    """Mean absolute difference of raw scores from the reference, on the evaluation units."""
    mae_calibrated: float
    criteria: list[str]
    holdout: str
    """``calibration_split``, ``random_holdout``, ``random_half`` or ``none``."""
    holdout_n: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The entry as stored in ``calibration_params.json`` (judge and task are its keys)."""
        out = asdict(self)
        del out["judge"], out["task"]
        return clean_record(out)


@dataclass(frozen=True)
class CalibrationReport(Rendered):
    """Calibration parameters per (judge, task) and overall."""

    entries: list[CalibrationEntry]
    overall: CalibrationEntry | None
    holdout_n: int
    seed: int
    path: str | None
    """Where the parameters were cached (None without ``out_dir``)."""
    from_cache: bool
    notes: list[str] = field(default_factory=list)

    @property
    def params(self) -> dict[str, Any]:
        """CoEval's ``calibration_params.json`` layout."""
        out: dict[str, Any] = {}
        for e in self.entries:
            out.setdefault(str(e.judge), {})[str(e.task)] = e.record()
        if self.overall is not None:
            out[OVERALL] = self.overall.record()
        return out

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"calibration": self.params, "holdout_n": self.holdout_n,
                      "seed": self.seed, "path": self.path, "from_cache": self.from_cache,
                      "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def calibrate_judges(judgments: Model, *, out_dir: str | Path | None = None,
                     holdout_n: int = DEFAULT_HOLDOUT_N, seed: int = 0,
                     force: bool = False) -> CalibrationReport:
    """Fit (or read back) OLS calibration per (judge, task) and overall; see the module notes.

    Parameters
    ----------
    judgments : Judgments or path
        Needs a ``reference_score`` column; the table is not modified.
    out_dir : path, optional
        Folder of ``calibration_params.json``: read when present (unless `force`), else
        written. Without it nothing is read or written.
    holdout_n : int, default 200
        Items in the fit set (see the module notes for fewer items).
    seed : int, default 0
        Seed of the draw of the fit items.
    force : bool, default False
        Refit even when ``calibration_params.json`` exists, and overwrite it.
    """
    if int(holdout_n) < 2:
        raise ConfigError(f"holdout_n must be at least 2, got {holdout_n}")
    holdout_n, seed = int(holdout_n), int(seed)
    path = Path(out_dir) / CALIBRATION_FILE if out_dir is not None else None
    if path is not None and path.exists() and not force:
        return _read_cache(path, holdout_n, seed)
    table = as_judgments(judgments)
    notes = [DISABLED_NOTE]
    if "reference_score" not in table.frame or table.frame["reference_score"].isna().all():
        notes.append("No reference scores in the table: nothing to calibrate against.")
        report = CalibrationReport([], None, holdout_n, seed, _str(path), False, notes)
    else:
        units = pointwise_units(table, reportable_only=False, extra=("reference_score", "split"))
        frame = units.frame[units.frame["reference_score"].notna()].copy()
        frame["task"] = frame["task"].where(frame["task"].notna(), ALL_TASKS)
        notes += [n for n in units.notes if "pairwise" in n or "scale" in n]
        entries = [_entry(str(judge), str(task), part, holdout_n, seed)
                   for (judge, task), part in frame.groupby(["judge", "task"], sort=True)]
        overall = _entry(None, None, frame, holdout_n, seed) if len(frame) else None
        report = CalibrationReport(entries, overall, holdout_n, seed, _str(path), False, notes)
    if out_dir is not None:
        write_files(report, out_dir)  # calibration_params.json (assay.report.files.coeval)
    return report


def load_or_fit_calibration(model: Model, out_dir: str | Path, *,
                            holdout_n: int = DEFAULT_HOLDOUT_N, seed: int = 0,
                            force: bool = False) -> dict[str, Any]:
    """CoEval's ``load_or_fit_calibration``: the ``calibration_params.json`` mapping.

    ``params[judge][task]`` and ``params["_overall"]`` hold ``alpha``, ``beta``,
    ``rho_raw``, ``rho_calibrated``, ``mae_raw``, ``mae_calibrated``, ``n_fit``,
    ``n_total``, ...; an empty mapping when the table has no reference scores.
    """
    return calibrate_judges(model, out_dir=out_dir, holdout_n=holdout_n, seed=seed,
                            force=force).params


def _entry(judge: str | None, task: str | None, units: pd.DataFrame, holdout_n: int,
           seed: int) -> CalibrationEntry:
    items = np.array(sorted(map(str, pd.unique(units["item"]))))
    notes: list[str] = []
    split = units["split"].astype(object)
    calibration_items = set(units.loc[split == "calibration", "item"])
    if calibration_items and len(calibration_items) < len(items):
        fit_items, holdout = calibration_items, "calibration_split"
    elif len(items) < 4:
        fit_items, holdout = set(), "none"
        notes.append(f"Only {len(items)} items with a reference score: too few to fit on some and "
                     "evaluate on others; no calibration (identity).")
    else:
        rng = np.random.default_rng(seed)
        if len(items) > holdout_n:
            size, holdout = holdout_n, "random_holdout"
        else:
            size, holdout = len(items) // 2, "random_half"
            notes.append(f"Only {len(items)} items with a reference score (holdout_n = "
                         f"{holdout_n}): the fit takes {size} of them at random and the others "
                         "are evaluated on.")
        fit_items = set(rng.choice(items, size=size, replace=False).tolist())
    in_fit = units["item"].isin(fit_items).to_numpy()
    x_all = units["value"].to_numpy(dtype=np.float64)
    y_all = units["reference_score"].to_numpy(dtype=np.float64)
    nan = math.nan
    method: str
    if fit_items:
        fit = ols_calibration(x_all[in_fit], y_all[in_fit])
        alpha, beta, method, distinct = fit.alpha, fit.beta, fit.method, fit.n_distinct
        if method == "identity_zero_variance":
            notes.append("Every raw score in the fit is the same: no line is defined, so the "
                         "calibration is the identity (alpha = 0, beta = 1).")
        elif method == "ols_constant_reference":
            notes.append(f"Judge {judge}, task {task}: every reference score in the fit is "
                         f"{alpha:g}: a constant reference cannot calibrate (the least-squares "
                         "line is flat and sends every score to it, an error of 0 by "
                         "construction), so the calibration is the identity (alpha = 0, "
                         "beta = 1).")
            alpha, beta, method = 0.0, 1.0, "identity_constant_reference"
        elif distinct <= FEW_LEVELS:
            notes.append(FEW_LEVELS_NOTE.format(k=distinct))
    else:
        alpha, beta, method, distinct = 0.0, 1.0, "not_fitted_too_few_items", 0
    x, y = x_all[~in_fit], y_all[~in_fit]
    calibrated = apply_calibration(x, alpha, beta)
    rho_raw, rho_cal = _spearman(x, y, notes, "raw"), _spearman(calibrated, y, notes, "calibrated")
    return CalibrationEntry(
        judge=judge, task=task, alpha=alpha, beta=beta, method=method, n_fit=int(in_fit.sum()),
        n_fit_items=len(fit_items), n_eval=int(x.size),
        n_eval_items=int(units.loc[~in_fit, "item"].nunique()), n_total=len(units),
        n_distinct_raw=distinct, rho_raw=rho_raw, rho_calibrated=rho_cal,
        mae_raw=float(np.mean(np.abs(x - y))) if x.size else nan,
        mae_calibrated=float(np.mean(np.abs(calibrated - y))) if x.size else nan,
        criteria=sorted(map(str, pd.unique(units["criterion"]))), holdout=holdout,
        holdout_n=holdout_n, seed=seed, notes=notes)


def _spearman(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], notes: list[str],
              which: str) -> float:
    if x.size < 3:
        if x.size and which == "raw":
            notes.append("Fewer than 3 evaluation units: no Spearman rho.")
        return math.nan
    if np.all(x == x[0]) or np.all(y == y[0]):
        constant = "the reference" if np.all(y == y[0]) else f"the {which} scores"
        note = f"On the evaluation units {constant} do not vary: Spearman rho is undefined."
        if note not in notes:
            notes.append(note)
        return math.nan
    return float(sps.spearmanr(x, y).statistic)


def _read_cache(path: Path, holdout_n: int, seed: int) -> CalibrationReport:
    data = json_object_file(path, "expected a JSON object of judge -> task -> parameters",
                            hint="; delete it to refit")
    entries: list[CalibrationEntry] = []
    overall = None
    try:
        for judge, by_task in data.items():
            if judge == OVERALL:
                overall = _from_record(None, None, by_task)
                continue
            entries += [_from_record(str(judge), str(task), rec) for task, rec in by_task.items()]
    except (AttributeError, TypeError, KeyError) as exc:
        raise InputError(str(path), f"is not a calibration parameters file ({exc}); delete it "
                         "to refit") from None
    notes = [DISABLED_NOTE, f"Parameters read from {path}; delete it or pass force=True to refit."]
    stored = {(e.holdout_n, e.seed) for e in [*entries, *([overall] if overall else [])]}
    if stored and stored != {(holdout_n, seed)}:
        settings = ", ".join(f"holdout_n={h}, seed={s}" for h, s in sorted(stored))
        notes.append(f"The cached parameters were fitted with {settings}, not holdout_n="
                     f"{holdout_n}, seed={seed}; pass force=True to refit.")
    return CalibrationReport(entries, overall, holdout_n, seed, str(path), True, notes)


_FLOAT_FIELDS = {"alpha", "beta", "rho_raw", "rho_calibrated", "mae_raw", "mae_calibrated"}


def _from_record(judge: str | None, task: str | None, record: Mapping[str, Any]
                 ) -> CalibrationEntry:
    values: dict[str, Any] = {"judge": judge, "task": task}
    for f in fields(CalibrationEntry):
        if f.name in ("judge", "task"):
            continue
        value = record[f.name] if f.name not in ("notes", "criteria") else record.get(f.name, [])
        values[f.name] = (math.nan if value is None else float(value)) \
            if f.name in _FLOAT_FIELDS else value
    return CalibrationEntry(**values)


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)
