"""Pages of CoEval's remaining reports (teachers, calibration curves, Table 7, ensemble
weights, per-factor scores), kept apart so the html package stays small."""

from assay.report.html.coeval._pages import (
    curves_page,
    ensemble_page,
    factors_page,
    sampling_page,
    teacher_page,
)

__all__ = ["curves_page", "ensemble_page", "factors_page", "sampling_page", "teacher_page"]
