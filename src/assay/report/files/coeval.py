"""CoEval's files: ``calibration_params.json`` of a calibration report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.analysis.judges import CalibrationReport

__all__ = ["write_calibration_params"]


def write_calibration_params(report: CalibrationReport, out_dir: Path) -> list[Path]:
    """Write ``calibration_params.json`` (CoEval's layout, :attr:`CalibrationReport.params`)
    into ``out_dir``; return its path."""
    from assay.analysis.judges import CALIBRATION_FILE

    path = out_dir / CALIBRATION_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.params, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return [path]
