"""``assay report`` and ``assay register``: reading a judgments table into reports.

Kept apart from :mod:`assay.cli` so the CLI module stays small; the commands are
registered on the same typer app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import MapOption, ScaleOption, SetOption, _constants, _mapping, _scales, app, console
from assay.errors import AssayError, ConfigError

KINDS = ("all", "scores", "benchmark")
FORMATS = ("text", "json")


def parse_contrasts(text: str | None, arms: list[str]) -> list[tuple[str, str]] | None:
    """Read ``A-B,C-D`` (first minus second) where arm names may contain '-' themselves.

    Each contrast is split at the one '-' (or ' - ') that leaves a known arm on both sides.

    >>> parse_contrasts("gpt-4o-mini-gpt-4o, b-a", ["gpt-4o", "gpt-4o-mini", "a", "b"])
    [('gpt-4o-mini', 'gpt-4o'), ('b', 'a')]
    """
    if text is None or not text.strip():
        return None
    known = set(arms)
    pairs = []
    for part in text.split(","):
        part = part.strip()
        splits = [(part[:i].strip(), part[i + 1:].strip()) for i, ch in enumerate(part) if ch == "-"]
        fits = [(a, b) for a, b in splits if a in known and b in known]
        if len(fits) != 1:
            why = "matches no two arms" if not fits else "is ambiguous"
            raise ConfigError(f"--contrasts {part!r} {why}: write ARM1-ARM2 with arms from "
                              f"{', '.join(arms)}")
        pairs.append(fits[0])
    return pairs


def _formats(text: str) -> list[str]:
    formats = [f.strip() for f in text.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ConfigError(f"--format {text!r}: expected a comma-separated list of "
                          f"{', '.join(FORMATS)} (html, xlsx, latex and png are not built yet)")
    return formats


def _write(out: Path, name: str, text: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(text + "\n", encoding="utf-8")
    return path


@app.command("report")
def report_command(
    src: Annotated[list[Path], typer.Argument(help="Judgments files or run folders.")],
    kind: Annotated[str, typer.Option(
        help="all (every kind the data support) | scores | benchmark (seed 003).")] = "all",
    format_: Annotated[str, typer.Option(
        "--format", help="Comma-separated: text (to the terminal), json (files in --out).")]
    = "text",
    out: Annotated[Path, typer.Option(help="Folder for report files.")] = Path("assay-report"),
    judge: Annotated[str | None, typer.Option(
        help="Benchmark: the judge whose correctness scores to read.")] = None,
    criterion: Annotated[str | None, typer.Option(
        help="Benchmark: the correctness criterion (binary or range:0,1).")] = None,
    method: Annotated[str, typer.Option(
        help="Benchmark accuracy interval: auto | bootstrap | cluster_t | bayes | exact.")]
    = "auto",
    resamples: Annotated[int | None, typer.Option(
        "--B", help="Cluster bootstrap resamples (default 2000; 5000 when confirmatory).")]
    = None,
    conf: Annotated[float, typer.Option(help="Confidence level of every interval.")] = 0.95,
    k: Annotated[str, typer.Option(help="The k of pass^k, comma-separated.")] = "1,3,5",
    seed: Annotated[int, typer.Option(help="Seed of the report's private random stream.")] = 1,
    contrasts: Annotated[str | None, typer.Option(
        help="Benchmark contrasts, first minus second: ARM1-ARM2,... (default: all pairs).")]
    = None,
    confirmatory: Annotated[bool | None, typer.Option(
        "--confirmatory/--exploratory",
        help="A confirmatory report refuses rows outside the test and final splits.")] = None,
    registration: Annotated[Path | None, typer.Option(
        help="Registration JSON from 'assay register': test its non-inferiority contrasts.")]
    = None,
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    exclude_self_judge: Annotated[bool, typer.Option(
        "--exclude-self-judge", help="Leave out rows where the judge is the arm judged.")] = False,
    exclude_self_teach: Annotated[bool, typer.Option(
        "--exclude-self-teach", help="Leave out rows where the item's generator is the arm.")]
    = False,
) -> None:
    """Turn judgments into reports: score means with intervals, and the benchmark report.

    Example: assay report bench.parquet --kind benchmark --format text,json --out report/
    """
    from assay.analysis.benchmark import benchmark_report
    from assay.analysis.benchmark_registration import Registration
    from assay.analysis.scores import score_summary
    from assay.analysis.selection import benchmark_rows, reference_hash
    from assay.data.io import load_many

    if kind not in KINDS:
        raise ConfigError(f"--kind {kind!r}: expected one of {', '.join(KINDS)} (aggregate, "
                          "winrate and judges are not built yet)")
    formats = _formats(format_)
    try:
        ks = [int(x) for x in k.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--k {k!r}: expected whole numbers such as 1,3,5") from None
    judgments = load_many(src, mapping=_mapping(map_), constants=_constants(set_),
                          scales=_scales(scale))
    if exclude_self_judge or exclude_self_teach:
        judgments = judgments.excluding(self_judging=exclude_self_judge,
                                        self_teaching=exclude_self_teach)
    written: list[Path] = []
    outputs: dict[str, Any] = {}
    benchmark_label = ""

    if kind in ("all", "scores"):
        summary = score_summary(judgments, conf=conf)
        outputs["scores"] = summary
    if kind in ("all", "benchmark"):
        registered = None
        if registration is not None:
            try:
                registered = Registration.from_json(registration.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ConfigError(f"--registration {registration}: cannot read it ({exc})") from None
        try:
            rows = benchmark_rows(judgments, judge=judge, criterion=criterion)
            report = benchmark_report(
                rows, contrasts=parse_contrasts(contrasts, list(dict.fromkeys(rows["arm"]))),
                B=resamples, conf=conf, k=ks, seed=seed, method=method,  # type: ignore[arg-type]
                confirmatory=confirmatory, registration=registered,
                reference_hash=reference_hash(rows))
            outputs["benchmark"] = report
            benchmark_label = f"judge {rows.attrs['judge']}, criterion {rows.attrs['criterion']}"
        except AssayError as exc:
            if kind == "benchmark":
                raise
            console.print(f"benchmark report skipped: {exc}", markup=False, highlight=False,
                          soft_wrap=True)

    for name, result in outputs.items():
        if "text" in formats:
            title = {"scores": "Scores per criterion, judge and arm",
                     "benchmark": "Benchmark report"}[name]
            if name == "benchmark":
                title += f" ({benchmark_label})"
            console.print(f"\n{title}", style="bold", highlight=False, markup=False)
            console.print(str(result), markup=False, highlight=False, soft_wrap=True)
        if "json" in formats:
            written.append(_write(out, f"{name}.json", result.to_json()))
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


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
    from assay.analysis.benchmark_registration import register_contrasts
    from assay.analysis.selection import reference_hash
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
    written = _write(out.parent, out.name, registration.to_json())
    console.print(f"registered {len(specs)} contrast(s), hash {registration.hash[:12]}..., "
                  f"reference {registration.reference_hash[:12]}...; wrote {written}",
                  markup=False, highlight=False, soft_wrap=True)
