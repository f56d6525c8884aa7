"""``assay baselines RUN --methods bertscore,geval``: baselines beside the judges, and how each
ranks the responses against the ground truth."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app
from assay.cli._terminal import say
from assay.errors import ConfigError

EXIT_INCOMPLETE = 3
"""G-Eval stopped before the end (cost limit or too many failures) or left a planned judgment
unstored (a batch that expired, ...): a rerun resumes."""


@app.command("baselines")
def baselines_command(
    run: Annotated[Path, typer.Argument(help="A run folder (datapoints.jsonl, responses.jsonl; "
                                        "evaluations.jsonl and native_scores.jsonl when present).")],
    methods: Annotated[str | None, typer.Option(
        help="Comma-separated: bertscore, geval (default: the config's, else both).")] = None,
    config: Annotated[Path | None, typer.Option(
        help="A baselines config (YAML): llm (G-Eval's endpoint), geval (criterion, steps, "
        "score_max, samples, top_logprobs), bertscore (model_path), cache, conf.")] = None,
    model_path: Annotated[str | None, typer.Option(
        help="bertscore: a local model folder (overrides the config's; nothing is downloaded).")] = None,
) -> None:
    """Score every response with BERTScore-F1 against its reference and with G-Eval (the
    form-filling prompt; the score's expectation over the judge's token probabilities when
    the endpoint returns logprobs, else the mean of sampled scores), and write
    baselines.jsonl (per response and method: the score and how it was computed) and
    baselines.csv: per method, and per LLM judge of evaluations.jsonl, per task,
    Spearman's rho against the ground truth (native_scores.jsonl, else reference_score)
    with a Fisher-z interval, n and the p-value. G-Eval's calls go through the engine
    (cache, cost limit; a rerun resumes). Exit 3 when G-Eval stopped early or left a planned
    judgment unstored (the notes say why; the command that resumes is printed).

    Example: assay baselines runs/exp1 --methods geval --config baselines.yaml
    """
    from assay.pipeline.baselines import baselines, load_baselines_config, parse_methods

    cfg = load_baselines_config(config)
    changes: dict[str, object] = {}
    if methods is not None:
        try:
            changes["methods"] = parse_methods(methods)
        except ValueError as exc:
            raise ConfigError(f"--methods: {exc}") from None
    if model_path is not None:
        absolute = str(Path(model_path).resolve())
        changes["bertscore"] = cfg.bertscore.model_copy(update={"model_path": absolute})
    cfg = cfg.model_copy(update=changes)
    result = baselines(run, cfg)
    hows: dict[str, int] = {}
    for rec in result.records:
        label = f"{rec['method']} {rec['how'] or 'failed'}" if rec["score"] is not None \
            else f"{rec['method']} unscored"
        hows[label] = hows.get(label, 0) + 1
    say(f"wrote {result.jsonl_path}: " + ", ".join(f"{n} {k}" for k, n in sorted(hows.items())))
    if "geval" in cfg.methods:
        say(f"G-Eval: {result.calls} calls, ${result.usd:.4f}")
    say(f"wrote {result.csv_path}: Spearman against {result.ground_truth}")
    for row in result.correlations:
        if row["estimate"] == row["estimate"]:
            interval = ("" if row["lower"] != row["lower"]
                        else f" [{row['lower']:.3f}, {row['upper']:.3f}]")
            say(f"  {row['method']:<28} {row['task']:<14} rho {row['estimate']:+.3f}{interval} "
                f"n={row['n']} p={row['p_value']:.3g}")
        else:
            say(f"  {row['method']:<28} {row['task']:<14} {row['note']} (n={row['n']})")
    for note in result.notes:
        say(f"note: {note}")
    if "geval" in cfg.methods:
        from assay.cli._stored import print_stored

        words = [*(["--methods", methods] if methods is not None else []),
                 *(["--config", str(config)] if config is not None else []),
                 *(["--model-path", model_path] if model_path is not None else [])]
        resume = shlex.join(["assay", "baselines", str(run), *words])
        code = print_stored(result.stored, result.planned, "G-Eval judgments", resume=resume,
                            noted=bool(result.notes))
        if code or result.stopped:
            raise typer.Exit(EXIT_INCOMPLETE)
