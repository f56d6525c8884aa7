"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing
page or a bad anchor fails it), and the generated pages are current: the CLI reference
against the typer app, the glossary against :mod:`assay.report._glossary`."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.report._glossary import glossary_markdown

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_reference", DOCS / "gen_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_generated_from_the_current_app():
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == _generator().cli_reference(), \
        "docs/cli.md is stale: run python docs/gen_cli_reference.py"


def test_cli_reference_has_every_command_and_option():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for heading in ("## `assay report`", "## `assay judge`", "## `assay cache clear`"):
        assert heading in text
    assert "`--single-file`" in text and "`--format TEXT`" in text


def test_glossary_page_is_current():
    assert (DOCS / "glossary.md").read_text(encoding="utf-8") == glossary_markdown(), \
        "docs/glossary.md is stale: regenerate it from assay.report._glossary.glossary_markdown"


def test_site_builds_strict(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("material", reason="mkdocs-material is in the docs and dev extras")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(REPO / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index.html", "cli/index.html", "glossary/index.html", "statistics/index.html",
                 "coming-from/benchmarkqed/index.html", "coming-from/hr-report/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_strict_build_fails_on_a_broken_link(tmp_path):
    """The build above would catch a broken page: the same build over a copy with one bad link fails."""
    if not os.environ.get("CI"):
        pytest.importorskip("material", reason="mkdocs-material is in the docs and dev extras")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n")
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-d", str(tmp_path / "site")],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode != 0 and "missing.md" in done.stdout + done.stderr
