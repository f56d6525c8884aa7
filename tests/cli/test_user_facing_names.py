"""No user-facing text names our specification documents ("seed 003") or the old module name
``seed_outputs``: not the demo's printed output, not any file it writes, not any ``--help``.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from assay.cli import app
from tests.cli.conftest import DemoRun, run_assay

SPEC_NAME = re.compile(rb"seed[\s_]*0\d\d|seed_outputs", re.IGNORECASE)


def spec_names(data: bytes) -> list[str]:
    """The spec-document names in ``data``, each with a little context."""
    return [data[max(m.start() - 40, 0):m.end() + 40].decode("latin-1")
            for m in SPEC_NAME.finditer(data)]


def file_contents(path: Path) -> list[tuple[str, bytes]]:
    """A file's bytes, or for a zip container (xlsx) the bytes of each member."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return [(f"{path}:{name}", archive.read(name)) for name in archive.namelist()]
    return [(str(path), path.read_bytes())]


def test_the_pattern_finds_what_it_is_for():
    assert spec_names(b"as in Seed 003 and seed_001") and spec_names(b"from seed_outputs import")
    assert not spec_names(b"seed 7, 2000 resamples, seed 42")


def test_demo_output_files_name_no_spec_document(demo_run: DemoRun):
    assert demo_run.result.returncode == 0, demo_run.result.stderr
    assert not spec_names(demo_run.result.stdout.encode()), "the demo's printed output"
    files = [p for p in demo_run.out.rglob("*") if p.is_file()]
    assert len(files) > 50 and {p.suffix for p in files} >= {".json", ".html", ".xlsx", ".tex",
                                                           ".csv", ".png", ".md", ".txt"}
    found = {name: hits for path in files for name, data in file_contents(path)
             if (hits := spec_names(data))}
    assert not found


@pytest.mark.parametrize("command", [None, *(c.name for c in app.registered_commands)])
def test_help_names_no_spec_document(command: str | None):
    result = run_assay(*([command] if command else []), "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage: assay" in result.stdout
    assert not spec_names(result.stdout.encode())
