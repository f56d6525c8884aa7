"""The errors assay raises on purpose.

Every error a user can cause is an :class:`AssayError`; the CLI turns one into a
single clear message and exit status 2, never a traceback.

::

    AssayError
    ├── InputError        bad input data: names the file, row, column and what was expected
    │   └── ValidationError   several input problems found at once (a list of Problem)
    ├── ConfigError       a bad option or configuration value
    ├── DesignError       the data cannot support the requested analysis (e.g. unbalanced)
    └── JudgeError        the LLM layer failed in a way that stops the run
"""

from __future__ import annotations

from dataclasses import dataclass


class AssayError(Exception):
    """Base class of every error assay raises for a user to read."""


@dataclass(frozen=True)
class Problem:
    """One problem found in an input: where it is and what was expected there."""

    path: str
    """The file (or folder) the problem is in."""
    row: int | None
    """1-based record number in the file (a data row, a JSON list element, a JSONL line);
    None when the problem concerns the whole file or a column."""
    column: str | None
    """The column or field at fault, when one is."""
    message: str
    """What is wrong and what was expected."""

    def __str__(self) -> str:
        where = self.path
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column '{self.column}'"
        return f"{where}: {self.message}"


class InputError(AssayError):
    """A single problem in input data, with its place."""

    def __init__(self, path: str, message: str, *, row: int | None = None,
                 column: str | None = None) -> None:
        self.problem = Problem(path=str(path), row=row, column=column, message=message)
        super().__init__(str(self.problem))


class ValidationError(InputError):
    """Every problem found in an input at once."""

    def __init__(self, problems: list[Problem], *, limit: int = 50) -> None:
        if not problems:
            raise ValueError("ValidationError needs at least one problem")
        self.problems = list(problems)
        self.problem = problems[0]
        shown = [str(p) for p in problems[:limit]]
        more = len(problems) - len(shown)
        head = f"{len(problems)} problem(s) found:" if len(problems) > 1 else "1 problem found:"
        lines = [head, *(f"  - {s}" for s in shown)]
        if more > 0:
            lines.append(f"  ... and {more} more")
        Exception.__init__(self, "\n".join(lines))


class ConfigError(AssayError):
    """An option or configuration value that cannot be used."""


class DesignError(AssayError):
    """The data do not support the analysis asked for (unbalanced design, too few runs...)."""


class JudgeError(AssayError):
    """The LLM layer failed in a way that stops a run."""
