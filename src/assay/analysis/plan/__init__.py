"""Planning an evaluation: from a pilot table or stated assumptions, the questions, clusters,
runs and trials a difference or an interval's width needs, their judge calls and cost, and
the trade-offs between them (issue 28)."""

from assay.analysis.plan._pilot import CallCost, PilotEstimate, pilot_call_cost, pilot_components
from assay.analysis.plan._report import EvaluationPlan, PlanRow, plan_evaluation

__all__ = ["CallCost", "EvaluationPlan", "PilotEstimate", "PlanRow", "pilot_call_cost",
           "pilot_components", "plan_evaluation"]
