"""How every command that buys calls ends: what is stored of what was planned, and exit 3
with the command that resumes when anything planned is not stored.

``assay judge``, ``assay generate`` (the teacher's prompts and the systems' answers),
``assay baselines`` (G-Eval) and so ``assay run`` end with a line ``stored S of P planned
NOUN``, counted from the run store, not from what the runner believes it did. A failed
judgment (stored with its ``failure_kind``) counts as stored; one whose key is absent from
the store does not, whatever the reason (a batch that expired, a result line lost, the
cost limit), and makes the exit status 3.
"""

from __future__ import annotations

from collections.abc import Iterable

from assay.cli._terminal import say

EXIT_NOT_STORED = 3
"""The exit status of a run that left a planned judgment unstored (a rerun resumes)."""


def print_notes(notes: Iterable[str]) -> None:
    """Every note of a run (the lock's, the batch runner's, ...), one line each on stderr."""
    for note in notes:
        say(f"note: {note}", error=True)


def print_stored(stored: int, planned: int, noun: str, *, resume: str, failed: int | None = None,
                 noted: bool = True) -> int:
    """Print ``stored S of P planned NOUN`` (stdout) and, when ``S < P``, what is missing and
    the command that resumes (stderr); return :data:`EXIT_NOT_STORED` then, else 0.
    ``noted``: notes saying why were printed before."""
    from assay.llm.progress import stored_line

    said = f" ({failed} failed)" if failed else ""
    say(stored_line(stored, planned, noun) + said)
    if stored >= planned:
        return 0
    why = " (see the notes above)" if noted else ""
    say(f"not stored: {planned - stored} of {planned} planned {noun}{why}: exit 3; resume with: {resume}",
        error=True)
    return EXIT_NOT_STORED
