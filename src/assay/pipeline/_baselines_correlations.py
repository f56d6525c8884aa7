"""``baselines.csv``'s rows: per method (and LLM judge and criterion) and per task, Spearman's
rho against the ground truth with its Fisher-z interval (:func:`_correlations`). Imported
from :mod:`assay.pipeline.baselines`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from assay.pipeline._baselines_inputs import ALL_TASKS


def _correlations(scores: Mapping[str, Mapping[str, float]], truth: Mapping[str, float | None],
                  task_of: Mapping[str, str], truth_name: str, conf: float) -> list[dict[str, Any]]:
    from assay.stats.correlation import spearman_interval

    out = []
    tasks = sorted(set(task_of.values()))
    for method, by_response in scores.items():
        groups = [(task, [r for r in by_response if task_of.get(r) == task]) for task in tasks]
        if len(tasks) > 1:
            groups.append((ALL_TASKS, list(by_response)))
        for task, ids in groups:
            pairs = [(by_response[r], truth[r]) for r in ids if truth.get(r) is not None]
            if not pairs:
                continue
            x, y = [p[0] for p in pairs], [p[1] for p in pairs]
            result = spearman_interval(x, y, conf=conf)
            note = ""
            if len(pairs) < 3:
                note = "undefined: fewer than 3 pairs"
            elif len(set(x)) == 1:
                note = "undefined: the method's scores do not vary"
            elif len(set(y)) == 1:
                note = "undefined: the ground truth does not vary"
            elif math.isnan(result.lower):
                note = "no interval: fewer than 4 pairs or |rho| = 1"
            out.append({"method": method, "task": task, "ground_truth": truth_name, "n": result.n,
                        "estimate": result.estimate, "lower": result.lower, "upper": result.upper,
                        "conf": result.conf, "p_value": result.p_value,
                        "interval_method": result.method, "note": note})
    return out
