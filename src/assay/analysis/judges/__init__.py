"""The judges themselves: agreement between judges, position bias, consistency and the
robust summary, calibration against reference scores, and differentiation.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._calibration": [
        "CALIBRATION_FILE",
        "CalibrationReport",
        "calibrate_judges",
        "load_or_fit_calibration",
    ],
    "._curves": ["CalibrationCurves", "calibration_curves"],
    "._ensemble": ["EnsembleReport", "ensemble_weights"],
    "._differentiation": ["DifferentiationReport", "differentiation_score"],
    "._human": ["HumanAgreement", "human_agreement"],
    "._position": ["PositionRecord", "flipped", "position_records", "trial_pair_flips"],
    "._report": ["DEFAULT_UNCERTAINTY_THRESHOLD", "JudgeReport", "judge_agreement"],
    "._robust": [
        "JudgeConsistency",
        "RobustSummary",
        "judge_consistency",
        "robust_summary",
        "trimmed_mean",
    ],
})
