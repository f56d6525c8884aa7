"""Registering non-inferiority contrasts before a benchmark is scored.

A :class:`Registration` fixes, before the data are seen, which contrasts will be tested,
their margins, which are confirmatory, whether cost is tested too, the level ``alpha``,
the power the design was planned for and the design's minimum detectable difference.
It carries the hash of the reference set the bench must be scored on, its creation
time, and a SHA-256 hash of all of that content: :meth:`Registration.verify` recomputes
the hash, so a registration edited after it was made (in memory, with
:func:`dataclasses.replace`, or in its JSON file) is refused by the benchmark report.

Version 2 registrations name a reference hash that covers the items *and their answers*
(:func:`assay.analysis.benchmark._selection.reference_hash`); a version 1 registration
(item ids only) is refused with a message saying how to register again.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from assay.analysis.benchmark._errors import RegistrationChangedError, RegistrationMismatchError
from assay.errors import ConfigError
from assay.stats.contrasts import mdd

REGISTRATION_VERSION = 2
"""2: the reference hash covers items and answers (1: item ids only)."""


@dataclass(frozen=True)
class RegisteredContrast:
    """One registered contrast: ``new`` minus ``reference`` must stay above ``-margin``."""

    new: str
    """The arm under test."""
    reference: str
    """The arm it must not be worse than."""
    margin: float
    """Non-inferiority margin on the accuracy scale, in (0, 1)."""
    label: str
    """Name of the contrast in the report."""
    confirmatory: bool = True
    """Confirmatory contrasts are tested with Holm's step-down; the rest at alpha alone."""
    cost_test: bool = False
    """Whether the verdict also needs the paired dollars per item to be lower."""
    mdd_design: float | None = None
    """Minimum detectable difference of the planned design, if one was computed."""


@dataclass(frozen=True)
class Registration:
    """Registered contrasts with their settings, the reference hash and a content hash."""

    contrasts: tuple[RegisteredContrast, ...]
    """The registered contrasts, in registration order."""
    reference_hash: str
    """Hash of the reference (items and answers) the bench must be scored on."""
    alpha: float
    """One-sided family level of the confirmatory contrasts (each exploratory one alone)."""
    power: float
    """Power the design MDD was planned for."""
    created_at: str
    """ISO 8601 time (UTC) the registration was made."""
    hash: str
    """SHA-256 of the content above (see :meth:`content`)."""
    version: int = REGISTRATION_VERSION
    """Format version; 1 meant a reference hash of item ids only."""

    @property
    def has_confirmatory(self) -> bool:
        return any(c.confirmatory for c in self.contrasts)

    def content(self) -> dict[str, Any]:
        """Everything the hash covers."""
        return {"version": self.version,
                "contrasts": [asdict(c) for c in self.contrasts],
                "reference_hash": self.reference_hash, "alpha": self.alpha,
                "power": self.power, "created_at": self.created_at}

    def verify(self) -> None:
        """Raise :class:`RegistrationChangedError` unless the content still has its hash."""
        actual = content_hash(self.content())
        if actual != self.hash:
            raise RegistrationChangedError(
                f"the registration was changed after it was made: its content hashes to "
                f"{actual[:12]}..., not to the registered {str(self.hash)[:12]}...")

    def check_version(self) -> None:
        """Raise :class:`RegistrationMismatchError` for a registration of an older format."""
        if self.version < REGISTRATION_VERSION:
            raise RegistrationMismatchError(
                f"this registration (version {self.version}) names a reference hash of item ids "
                "only, so an answer key edited under the same ids would pass; the reference "
                "hash now covers the answers too. Register the contrasts again on the "
                "reference: assay register REFERENCE --contrast NEW:REFERENCE:MARGIN -o "
                "registration.json (register_contrasts in Python), and keep the old file as "
                "the record of what was registered when")

    def to_dict(self) -> dict[str, Any]:
        return {**self.content(), "hash": self.hash}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Registration:
        """Read a registration back; the stored hash is kept, so :meth:`verify` checks it."""
        try:
            contrasts = tuple(RegisteredContrast(**dict(c)) for c in data["contrasts"])
            return cls(contrasts=contrasts, reference_hash=str(data["reference_hash"]),
                       alpha=float(data["alpha"]), power=float(data["power"]),
                       created_at=str(data["created_at"]), hash=str(data["hash"]),
                       version=int(data.get("version", 1)))
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(f"not a registration: {error}") from None

    @classmethod
    def from_json(cls, text: str) -> Registration:
        return cls.from_dict(json.loads(text))


def content_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``content`` (sorted keys, no spaces)."""
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def register_contrasts(contrasts: Sequence[Mapping[str, Any] | RegisteredContrast], *,
                       reference_hash: str, alpha: float = 0.025, power: float = 0.8,
                       design: Mapping[str, float] | None = None,
                       created_at: str | None = None) -> Registration:
    """Register non-inferiority contrasts before the benchmark is scored.

    Parameters
    ----------
    contrasts : sequence of mappings or RegisteredContrast
        Each with ``new``, ``reference`` and ``margin``; optionally ``label`` (default
        ``"new vs reference"``), ``confirmatory`` (default True), ``cost_test`` (default
        False) and ``mdd_design``.
    reference_hash : str
        Hash of the reference the bench will be scored on.
    alpha : float, default 0.025
        One-sided level: the family level of the confirmatory contrasts under Holm's
        step-down, and the level of each exploratory contrast. At 0.025 a single
        contrast's bound is the lower end of the report's 95% contrast interval.
    power : float, default 0.8
        Power the design MDD is computed for.
    design : mapping, optional
        The planned design, ``{"p_disc": ..., "n_eff": ..., "n_clusters": ...}``: the
        expected share of discordant item pairs, the effective number of pairs and the
        number of clusters. A contrast without ``mdd_design`` then gets
        ``mdd(sqrt(p_disc / n_eff), n_clusters - 1, alpha=alpha', power=power)``, with
        alpha' = alpha / (number of confirmatory contrasts) for a confirmatory one.
    created_at : str, optional
        ISO 8601 creation time; now (UTC) by default.

    Examples
    --------
    >>> reg = register_contrasts([{"new": "small", "reference": "large", "margin": 0.05}],
    ...                          reference_hash="ref-1", created_at="2025-01-01T00:00:00+00:00")
    >>> reg.contrasts[0].label, reg.has_confirmatory, len(reg.hash)
    ('small vs large', True, 64)
    >>> reg.verify()
    """
    alpha = _check_level(alpha, "alpha", upper=0.5)
    power = _check_level(power, "power", upper=1.0)
    if not isinstance(reference_hash, str) or not reference_hash:
        raise ConfigError("reference_hash must be a non-empty string")
    parsed = [_contrast(c) for c in contrasts]
    if not parsed:
        raise ConfigError("register at least one contrast")
    labels = [c.label for c in parsed]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"contrast labels must be unique, got {labels}")
    if design is not None:
        parsed = _with_design_mdd(parsed, design, alpha=alpha, power=power)
    when = created_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
    draft = Registration(tuple(parsed), reference_hash, alpha, power, when, hash="")
    return Registration(draft.contrasts, reference_hash, alpha, power, when,
                        hash=content_hash(draft.content()))


def _contrast(spec: Mapping[str, Any] | RegisteredContrast) -> RegisteredContrast:
    fields = asdict(spec) if isinstance(spec, RegisteredContrast) else dict(spec)
    unknown = set(fields) - set(RegisteredContrast.__dataclass_fields__)
    missing = {"new", "reference", "margin"} - set(fields)
    if unknown or missing:
        raise ConfigError(f"contrast {fields!r}: " + (f"unknown field(s) {sorted(unknown)}"
                          if unknown else f"missing field(s) {sorted(missing)}"))
    new, reference = str(fields["new"]), str(fields["reference"])
    if new == reference:
        raise ConfigError(f"contrast {new!r} against itself is not a contrast")
    margin = float(fields["margin"])
    if not 0.0 < margin < 1.0:
        raise ConfigError(f"margin of {new} vs {reference} must be in (0, 1), got {margin!r}")
    design_mdd = fields.get("mdd_design")
    return RegisteredContrast(
        new=new, reference=reference, margin=margin,
        label=str(fields.get("label") or f"{new} vs {reference}"),
        confirmatory=bool(fields.get("confirmatory", True)),
        cost_test=bool(fields.get("cost_test", False)),
        mdd_design=None if design_mdd is None else float(design_mdd))


def _with_design_mdd(contrasts: list[RegisteredContrast], design: Mapping[str, float], *,
                     alpha: float, power: float) -> list[RegisteredContrast]:
    try:
        p_disc, n_eff = float(design["p_disc"]), float(design["n_eff"])
        n_clusters = int(design["n_clusters"])
    except (KeyError, TypeError, ValueError):
        raise ConfigError("design needs numbers p_disc, n_eff and n_clusters") from None
    if not (0.0 < p_disc <= 1.0 and n_eff > 0 and n_clusters >= 2):
        raise ConfigError("design needs 0 < p_disc <= 1, n_eff > 0 and n_clusters >= 2")
    n_confirmatory = sum(c.confirmatory for c in contrasts)
    standard_error = math.sqrt(p_disc / n_eff)
    out = []
    for c in contrasts:
        if c.mdd_design is None:
            level = alpha / n_confirmatory if c.confirmatory else alpha
            value = float(mdd(standard_error, n_clusters - 1, alpha=level, power=power))
            c = RegisteredContrast(**{**asdict(c), "mdd_design": value})
        out.append(c)
    return out


def _check_level(value: float, name: str, *, upper: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number, got {value!r}") from None
    if not 0.0 < number < upper:
        raise ConfigError(f"{name} must be in (0, {upper:g}), got {value!r}")
    return number
