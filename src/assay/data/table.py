"""The judgments table in memory: the frame, the criteria's scales and the records kept aside."""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.data._raw import METADATA_KEY, sidecar_path
from assay.data._readers import file_format
from assay.data.atomic import atomic_path
from assay.data.cells import write_csv_frame
from assay.data.schema import COLUMNS, Scale

FORMAT_VERSION = 1

INVALID_COLUMNS: tuple[str, ...] = (
    "validity_class", "file", "row", "record_id", "response_id", "datapoint_id", "judge",
    "arm", "detail",
)
"""Columns of the records kept aside as invalid (the FailedRecords sheet)."""


@dataclass(frozen=True)
class Judgments:
    """A validated judgments table.

    ``frame`` holds one row per score in the columns of :data:`assay.data.schema.COLUMNS`
    (always ``item``, ``cluster``, ``arm``, ``run``, ``judge``, ``criterion``, ``score``,
    ``reportable``; the others when the source had them). ``scales`` declares each
    criterion's scale. ``invalid`` holds the records of a run folder that failed a
    validity check (CoEval's classes); they are excluded from every statistic and
    counted in every report. ``notes`` say how the source was read where a choice was made
    (repeated records), for the importer to print.
    """

    frame: pd.DataFrame
    scales: dict[str, Scale]
    invalid: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=list(INVALID_COLUMNS)))
    sources: tuple[str, ...] = ()
    read_notes: tuple[str, ...] = ()
    """How the table was read where nothing declared it: the scale of each undeclared
    criterion (``score: values 0 and 1 read as binary ...``), runs numbered from 0. The
    reports say them aloud. Also how repeated records were read (``--duplicates``) and what
    an importer left out of the source and why."""
    inferred_scales: dict[str, str] = field(default_factory=dict)
    """Criterion -> the note of its scale, for the criteria whose scale was read from their
    scores (so that tables read from several files can agree on one scale)."""
    benchmark_teachers: tuple[str, ...] = ()
    """Teachers that are benchmark sources, not models, as the source declared them (a
    CoEval run's ``coeval ingest``); saved with the table, read by the teacher report."""

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        f = self.frame
        return (f"<Judgments {len(f)} rows: {f['item'].nunique()} items in "
                f"{f['cluster'].nunique()} clusters, {f['arm'].nunique()} arms, "
                f"{f['judge'].nunique()} judges, {f['criterion'].nunique()} criteria; "
                f"{len(self.invalid)} invalid records kept aside>")

    @property
    def criteria(self) -> list[str]:
        return list(pd.unique(self.frame["criterion"]))

    @property
    def arms(self) -> list[str]:
        """Arms in the order they first appear (the benchmark order)."""
        return list(pd.unique(self.frame["arm"]))

    def scale(self, criterion: str) -> Scale:
        return self.scales.get(criterion, Scale("interval"))

    def normalised_scores(self) -> npt.NDArray[np.float64]:
        """Each row's score mapped to [0, 1] by its criterion's scale (NaN where it has none)."""
        out = np.full(len(self.frame), np.nan)
        criteria = self.frame["criterion"].to_numpy()
        scores = self.frame["score"].to_numpy(dtype=np.float64)
        for criterion in pd.unique(criteria):
            mask = criteria == criterion
            out[mask] = self.scale(str(criterion)).normalise(scores[mask])
        return out

    def self_judging(self) -> pd.Series:
        """Rows where the judge is the arm judged (CoEval's ``is_self_judging``)."""
        return (self.frame["judge"] == self.frame["arm"]).astype(bool)

    def self_teaching(self) -> pd.Series:
        """Rows where the item's generator is the arm judged (``is_self_teaching``)."""
        if "teacher" not in self.frame:
            return pd.Series(False, index=self.frame.index)
        return (self.frame["teacher"] == self.frame["arm"]).fillna(False).astype(bool)

    def select(self, **equal: object) -> Judgments:
        """Rows whose columns equal the given values, e.g. ``select(criterion="correct")``."""
        mask = pd.Series(True, index=self.frame.index)
        for column, value in equal.items():
            if column not in self.frame:
                raise KeyError(f"no column {column!r} in the table")
            mask &= self.frame[column] == value
        return replace(self, frame=self.frame[mask].reset_index(drop=True))

    def excluding(self, *, self_judging: bool = False, self_teaching: bool = False) -> Judgments:
        """The table without self-judging and/or self-teaching rows."""
        mask = pd.Series(True, index=self.frame.index)
        if self_judging:
            mask &= ~self.self_judging()
        if self_teaching:
            mask &= ~self.self_teaching()
        return replace(self, frame=self.frame[mask].reset_index(drop=True))

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "scales": {name: s.spelling() for name, s in sorted(self.scales.items())}}
        if self.benchmark_teachers:
            out["benchmark_teachers"] = sorted(self.benchmark_teachers)
        return out

    def save(self, path: str | Path) -> list[Path]:
        """Write the table (format from the suffix) with its scales; return the files written.

        Text a spreadsheet would run as a formula gets a ``'`` in a CSV or TSV
        (:mod:`assay.data.cells`), which the CSV reader takes off again; Parquet and JSON keep
        every value as it is. Parquet keeps the scales (and the benchmark teachers) in its schema metadata;
        CSV and JSONL get a sidecar ``NAME.assay.json``. Invalid records, when there are any, go to
        ``NAME.invalid.jsonl`` beside the table. Each file is written to a temporary file
        and renamed into place once every one is written: a failed save leaves the old
        files as they were.
        """
        p = Path(path)
        fmt = file_format(p)
        p.parent.mkdir(parents=True, exist_ok=True)
        written = [p]
        frame = self.frame
        invalid_path = p.with_name(p.stem + ".invalid.jsonl")
        with ExitStack() as files:  # every file is renamed into place only when all are written
            temporary = files.enter_context(atomic_path(p))
            if fmt == "parquet":
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = pa.Table.from_pandas(frame, preserve_index=False)
                meta = dict(table.schema.metadata or {})
                meta[METADATA_KEY] = json.dumps(self.metadata()).encode("utf-8")
                pq.write_table(table.replace_schema_metadata(meta), temporary)
            else:
                if fmt in ("csv", "tsv"):  # no cell a spreadsheet would run; read back as given
                    write_csv_frame(frame, temporary, sep="," if fmt == "csv" else "\t")
                elif fmt == "jsonl":
                    frame.to_json(temporary, orient="records", lines=True, force_ascii=False)
                else:
                    frame.to_json(temporary, orient="records", force_ascii=False, indent=1)
                side = sidecar_path(p)
                files.enter_context(atomic_path(side)).write_text(
                    json.dumps(self.metadata(), indent=2) + "\n", encoding="utf-8")
                written.append(side)
            if len(self.invalid):
                self.invalid.to_json(files.enter_context(atomic_path(invalid_path)),
                                     orient="records", lines=True, force_ascii=False)
                written.append(invalid_path)
        if not len(self.invalid) and invalid_path.exists():
            invalid_path.unlink()
        return written


def empty_invalid() -> pd.DataFrame:
    return pd.DataFrame(columns=list(INVALID_COLUMNS))


def canonical_order(frame: pd.DataFrame) -> pd.DataFrame:
    ordered = [c.name for c in COLUMNS if c.name in frame.columns]
    return frame[ordered]
