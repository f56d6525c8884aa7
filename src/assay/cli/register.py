"""``assay register SRC``: register non-inferiority contrasts before the benchmark is scored."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app, console
from assay.errors import ConfigError


@app.command("register")
def register_command(
    src: Annotated[Path, typer.Argument(
        help="The reference set the bench will be scored on: a judgments file or run folder "
        "whose (cluster, item) pairs are hashed.")],
    contrast: Annotated[list[str], typer.Option(
        help="NEW:REFERENCE:MARGIN[:exploratory][:cost], e.g. small:large:0.05 (repeatable).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Registration JSON to write.")],
    alpha: Annotated[float, typer.Option(help="One-sided level (family level under Holm).")]
    = 0.025,
    power: Annotated[float, typer.Option(help="Power the design MDD is computed for.")] = 0.8,
) -> None:
    """Register non-inferiority contrasts before the benchmark is scored.

    Example: assay register reference.parquet --contrast small:large:0.05 -o registration.json
    """
    from assay.analysis.benchmark import reference_hash, register_contrasts
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
    frame = load(src).frame
    registration = register_contrasts(specs, reference_hash=reference_hash(frame), alpha=alpha,
                                      power=power)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(registration.to_json() + "\n", encoding="utf-8")
    console.print(f"registered {len(specs)} contrast(s), hash {registration.hash[:12]}..., "
                  f"reference {registration.reference_hash[:12]}...; wrote {out}",
                  markup=False, highlight=False, soft_wrap=True)
