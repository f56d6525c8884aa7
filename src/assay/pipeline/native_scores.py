"""Ground truth for a run folder: each response's benchmark-native score against its datapoint's
reference (``assay native-scores``), the ``reference_score`` that calibration, the
judge-vs-ground-truth Spearman and CoEval's Tables 3 and 8 read.

CoEval backfills these as ``benchmark.compute_scores`` does: exact match for QA, BLEU-4 for
code, ROUGE-L or BERTScore-F1 for summaries. The metrics are the offline judges' own
(:mod:`assay.judge.judges.metric`: exact match after SQuAD normalisation, token F1, ROUGE-L
F-measure, sentence BLEU-4 with floor smoothing); BERTScore-F1 comes from the ``bert-score``
package (``pip install assay[bertscore]``) with a local model path, never downloaded here.

The scores go to ``native_scores.jsonl`` beside the run's files (one record per response:
``response_id``, ``metric``, ``reference_score``); the run's own files are not rewritten,
and :func:`assay.data.runfolder.load_run_folder` reads the file, a response's score taking
the place of its datapoint's ``reference_score``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.atomic import write_text
from assay.data.runfolder import NATIVE_SCORES_FILE, read_part
from assay.errors import ConfigError
from assay.judge.judges.metric import bleu, exact_match, rouge_l, token_f1

NATIVE_METRICS: dict[str, Callable[[str, str], float]] = {
    "exact_match": exact_match,
    "token_f1": token_f1,
    "rouge_l": rouge_l,
    "bleu4": bleu,
}
"""metric -> function(prediction, reference) in [0, 1]; ``bertscore`` is added when installed."""
ALL_METRICS = (*NATIVE_METRICS, "bertscore")


@dataclass(frozen=True)
class NativeScores:
    """The native scores of a run folder's responses, and what could not be scored."""

    metric: str
    records: list[dict[str, Any]]
    """``{"response_id", "datapoint_id", "arm", "metric", "reference_score"}`` per response."""
    no_reference: int = 0
    """Responses whose datapoint has no ``reference`` text (left without a score)."""
    no_text: int = 0
    """Responses without text (a failed generation; left without a score)."""
    notes: list[str] = field(default_factory=list)

    @property
    def scored(self) -> int:
        return sum(r["reference_score"] is not None for r in self.records)


def bertscore_function(model_path: str | None) -> Callable[[Sequence[str], Sequence[str]], list[float]]:
    """BERTScore-F1 of predictions against references with the model at ``model_path``."""
    if not model_path:
        raise ConfigError("--metric bertscore: give --model-path, a local model folder "
                          "(assay never downloads a model)")
    if not Path(model_path).is_dir():
        raise ConfigError(f"--model-path {model_path}: no such folder")
    try:
        from bert_score import BERTScorer  # optional extra
    except ImportError:
        raise ConfigError("--metric bertscore needs the bert-score package: "
                          "pip install 'assay[bertscore]'") from None

    def score(predictions: Sequence[str], references: Sequence[str]) -> list[float]:
        scorer = BERTScorer(model_type=str(model_path), num_layers=None, lang=None)
        _, _, f1 = scorer.score(list(predictions), list(references))
        return [float(v) for v in f1]

    return score


def native_scores(folder: str | Path, metric: str, *, model_path: str | None = None,
                  batch: Callable[[Sequence[str], Sequence[str]], list[float]] | None = None
                  ) -> NativeScores:
    """Score every response of the run folder against its datapoint's ``reference``.

    Parameters
    ----------
    folder
        A run folder (``datapoints.jsonl`` with ``reference``, ``responses.jsonl`` with ``text``).
    metric
        ``exact_match``, ``token_f1``, ``rouge_l``, ``bleu4`` or ``bertscore``.
    model_path
        ``bertscore``: a local model folder.
    batch
        A function scoring lists of predictions against references (replaces the metric's;
        for tests of the BERTScore path with a stand-in).
    """
    name = metric.strip().lower()
    if name not in ALL_METRICS:
        raise ConfigError(f"--metric {metric!r}: expected one of {', '.join(ALL_METRICS)}")
    folder = Path(folder)
    datapoints = {str(rec.get("id")): rec for _, _, rec in read_part(folder, "datapoints")}
    responses = [rec for _, _, rec in read_part(folder, "responses")]
    if batch is None:
        if name == "bertscore":
            batch = bertscore_function(model_path)
        else:
            one = NATIVE_METRICS[name]

            def batch(predictions: Sequence[str], references: Sequence[str]) -> list[float]:
                return [one(p, r) for p, r in zip(predictions, references, strict=True)]
    records: list[dict[str, Any]] = []
    pending: list[tuple[int, str, str]] = []
    no_reference = no_text = 0
    for rec in responses:
        datapoint = datapoints.get(str(rec.get("datapoint_id")), {})
        reference, text = datapoint.get("reference"), rec.get("text")
        records.append({"response_id": rec.get("id"), "datapoint_id": rec.get("datapoint_id"),
                        "arm": rec.get("arm"), "metric": name, "reference_score": None})
        if not isinstance(reference, str) or not reference.strip():
            no_reference += 1
        elif not isinstance(text, str) or rec.get("failure_kind"):
            no_text += 1
        else:
            pending.append((len(records) - 1, text, reference))
    if pending:
        values = batch([p for _, p, _ in pending], [r for _, _, r in pending])
        for (index, _, _), value in zip(pending, values, strict=True):
            records[index]["reference_score"] = float(value)
    notes = []
    if no_reference:
        notes.append(f"{no_reference} responses have no reference text in their datapoint: left "
                     "without a native score")
    if no_text:
        notes.append(f"{no_text} responses have no text (failed): left without a native score")
    return NativeScores(metric=name, records=records, no_reference=no_reference, no_text=no_text,
                        notes=notes)


def write_native_scores(folder: str | Path, scores: NativeScores) -> Path:
    """``native_scores.jsonl`` in the run folder, written atomically; return its path."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in scores.records)
    return write_text(Path(folder) / NATIVE_SCORES_FILE, text)
