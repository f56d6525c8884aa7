"""``assay register SRC``: register non-inferiority contrasts before the benchmark is scored."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app, check_out_folder, console
from assay.errors import ConfigError


@app.command("register")
def register_command(
    src: Annotated[Path, typer.Argument(
        help="The reference set the bench will be scored on: a judgments file or run folder "
        "whose (cluster, item) pairs and answers are hashed.")],
    contrast: Annotated[list[str], typer.Option(
        help="NEW:REFERENCE:MARGIN[:exploratory][:cost], e.g. small:large:0.05 (repeatable).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Registration JSON to write.")],
    alpha: Annotated[float, typer.Option(help="One-sided level (family level under Holm).")]
    = 0.025,
    power: Annotated[float, typer.Option(help="Power the design MDD is computed for.")] = 0.8,
    design: Annotated[str | None, typer.Option(
        help="The planned design, p_disc=P,n_eff=N,n_clusters=C: the expected share of "
        "discordant item pairs, the effective number of pairs and the number of clusters. "
        "Each contrast then records its design MDD, (t_{C-1,1-alpha'} + t_{C-1,power}) x "
        "sqrt(P / N), with alpha' = alpha / (confirmatory contrasts) for a confirmatory one "
        "(hr_report's design MDD, printed beside every verdict).")] = None,
) -> None:
    """Register non-inferiority contrasts before the benchmark is scored. The reference hash
    covers the items and their answers (reference_score, or a run folder's datapoint
    references).

    Example: assay register reference.parquet --contrast small:large:0.05
    --design p_disc=0.3,n_eff=60,n_clusters=12 -o registration.json
    """
    from assay.analysis.benchmark import reference_answers, reference_hash, register_contrasts
    from assay.data.atomic import write_text
    from assay.data.io import load

    specs = []
    for text in contrast:
        parts = text.split(":")
        flags = {p.strip().lower() for p in parts[3:]}
        if len(parts) < 3 or flags - {"exploratory", "cost"}:
            raise ConfigError(f"--contrast {text!r}: expected NEW:REFERENCE:MARGIN"
                              "[:exploratory][:cost]")
        try:
            margin = float(parts[2])
        except ValueError:
            raise ConfigError(f"--contrast {text!r}: MARGIN must be a number") from None
        specs.append({"new": parts[0], "reference": parts[1], "margin": margin,
                      "confirmatory": "exploratory" not in flags, "cost_test": "cost" in flags})
    check_out_folder(out.parent, shown=out)
    reference = load(src)
    registration = register_contrasts(specs, reference_hash=reference_hash(reference),
                                      alpha=alpha, power=power, design=_design(design))
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text(out, registration.to_json() + "\n")
    console.print(f"registered {len(specs)} contrast(s), hash {registration.hash[:12]}..., "
                  f"reference {registration.reference_hash[:12]}...; wrote {out}",
                  markup=False, highlight=False, soft_wrap=True)
    for c in registration.contrasts:
        if c.mdd_design is not None:
            console.print(f"design MDD of {c.label}: {c.mdd_design:.4f} (margin {c.margin:g})",
                          markup=False, highlight=False, soft_wrap=True)
    if not reference_answers(reference):
        console.print("note: the reference holds no answers (no reference_score column, no "
                      "datapoint references): its hash covers the item ids only, so an answer "
                      "key edited under the same ids would not be detected.", markup=False,
                      highlight=False, soft_wrap=True)


def _design(text: str | None) -> dict[str, float] | None:
    """``p_disc=0.3,n_eff=60,n_clusters=12`` -> a design mapping for register_contrasts."""
    if text is None:
        return None
    wanted = ("p_disc", "n_eff", "n_clusters")
    try:
        pairs = dict(part.split("=", 1) for part in text.split(",") if part.strip())
        design = {name.strip(): float(value) for name, value in pairs.items()}
    except ValueError:
        design = {}
    if sorted(design) != sorted(wanted) or not design["n_clusters"].is_integer():
        raise ConfigError(f"--design {text!r}: expected p_disc=P,n_eff=N,n_clusters=C with "
                          "numbers (C whole), e.g. p_disc=0.3,n_eff=60,n_clusters=12")
    return design
