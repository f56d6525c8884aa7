"""``assay native-scores RUN --metric M``: each response's benchmark-native score (ground truth)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app
from assay.cli._terminal import say


@app.command("native-scores")
def native_scores_command(
    run: Annotated[Path, typer.Argument(help="A run folder (datapoints.jsonl with reference, "
                                        "responses.jsonl with text).")],
    metric: Annotated[str, typer.Option(help="exact_match, token_f1, rouge_l, bleu4 or bertscore.")],
    model_path: Annotated[str | None, typer.Option(
        help="bertscore: a local model folder (nothing is downloaded).")] = None,
) -> None:
    """Score every response against its datapoint's reference with a benchmark-native metric
    (exact match for QA, BLEU-4 for code, ROUGE-L or BERTScore-F1 for summaries) and write
    native_scores.jsonl in the run folder: assay report then reads each response's score as
    its reference_score (calibration, judge-vs-ground-truth Spearman) without the user
    supplying one. The run's own files are not rewritten; a second run replaces the file.

    Example: assay native-scores runs/exp1 --metric rouge_l
    """
    from assay.pipeline.native_scores import native_scores, write_native_scores

    scores = native_scores(run, metric, model_path=model_path)
    path = write_native_scores(run, scores)
    say(f"wrote {path}: {scores.scored} of {len(scores.records)} responses scored ({scores.metric})")
    for note in scores.notes:
        say(f"note: {note}")
