"""What ``assay view FOLDER`` opens when the folder holds a run rather than being one.

A run folder of ``assay judge`` (``judgments.sqlite``) or a folder of datapoints, responses
and evaluations is opened as it is. Any other folder is looked into, as ``assay demo --out``
writes one: its judgments table (``judgments.parquet``, ``.jsonl``, ``.csv``, ...), else the
one run folder among its sub-folders (two levels down); and a report folder beside it
(``html/index.html``, or ``index.html`` in the folder itself) is served with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay.data.run_store import store_path

_PARTS = ("datapoints", "responses", "evaluations")
"""A run folder's parts (:data:`assay.data.runfolder.PARTS`; that module loads pandas, which
the open of a cached index does without)."""

TABLE_NAMES: tuple[str, ...] = ("judgments.parquet", "judgments.jsonl", "judgments.csv",
                                "judgments.tsv", "judgments.json")
"""The judgments tables a folder holding a run is looked into for, in this order."""
REPORT_FOLDERS: tuple[str, ...] = ("html", ".")
"""Where a report folder (its ``index.html``) is looked for, in the folder holding the run."""


@dataclass(frozen=True)
class FoundRun:
    """What ``assay view`` opens in a folder: the judgments and the reports beside them."""

    judgments: Path
    """The run folder or the judgments table to open."""
    reports: Path | None
    """A folder of ``assay report --format html`` to serve with them, or None."""


def _is_run_folder(path: Path) -> bool:
    """As :func:`assay.data.runfolder.is_run_folder`: each part a ``.jsonl`` file or a folder
    of them."""
    return path.is_dir() and all((path / f"{part}.jsonl").is_file() or (
        (path / part).is_dir() and any((path / part).glob("*.jsonl"))) for part in _PARTS)


def is_run(path: Path) -> bool:
    """Whether ``path`` is a run itself: a run store's folder or a run folder."""
    return store_path(path).is_file() or _is_run_folder(path)


def find_run(folder: Path) -> FoundRun | None:
    """What a folder holding a run holds (see the module); None when ``folder`` is a run
    itself, is not a folder, or holds none (or several run folders and no table)."""
    if not folder.is_dir() or is_run(folder):
        return None
    found = next((folder / name for name in TABLE_NAMES if (folder / name).is_file()), None)
    if found is None:
        runs = [sub for sub in sorted(folder.glob("*/")) + sorted(folder.glob("*/*/"))
                if sub.is_dir() and is_run(sub)]
        if len(runs) != 1:
            return None
        found = runs[0]
    reports = next((folder / name for name in REPORT_FOLDERS
                    if (folder / name / "index.html").is_file()), None)
    return FoundRun(found, None if reports is None else reports.resolve())
