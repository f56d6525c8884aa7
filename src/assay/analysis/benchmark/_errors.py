"""Errors of the benchmark report's evidence rules (hr_report, "Non-inferiority").

All three are :class:`assay.errors.DesignError`: the data, as given, cannot be the
evidence the report was asked to be.

::

    DesignError
    ├── DevNotEvidenceError          a row outside the test and final splits, or not reportable
    ├── RegistrationMismatchError    the bench does not carry the reference hash registered
    └── RegistrationChangedError     the registration's content no longer matches its hash
"""

from __future__ import annotations

from assay.errors import DesignError


class DevNotEvidenceError(DesignError):
    """A confirmatory or registered report met rows that cannot be evidence.

    Raised when any row is outside the ``test`` and ``final`` splits (``dev``,
    ``exploratory``, ``calibration`` or no split at all) or is marked not reportable.
    """


class RegistrationMismatchError(DesignError):
    """The bench was not scored on the reference the registration names.

    Raised when the bench carries no reference hash, a different one, or lacks an arm
    a registered contrast names.
    """


class RegistrationChangedError(DesignError):
    """The registration was changed after it was made: its content hash does not match."""
