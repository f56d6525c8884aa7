"""Human-calibrated estimates: many judge scores and a few human labels give the human
metric per system and per pair, with a clustered PPI++ interval (issue 28)."""

from assay.analysis.human._report import HumanEstimate, HumanReport, human_calibrated, human_support

__all__ = ["HumanEstimate", "HumanReport", "human_calibrated", "human_support"]
