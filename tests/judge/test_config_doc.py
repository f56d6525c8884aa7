"""docs/config.md is what the config's pydantic models generate, and names every key."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from assay.judge.config import AssayConfig, _known_keys
from assay.judge.config_doc import config_reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "config.md"


def test_docs_config_md_is_generated_from_the_models() -> None:
    assert DOC.read_text(encoding="utf-8") == config_reference(), (
        "docs/config.md is out of date: python -m assay.judge.config_doc > docs/config.md")


def test_every_key_a_config_may_hold_is_in_the_page_with_its_default() -> None:
    text = config_reference()
    keys = _known_keys()
    assert {"answers_path", "tables", "max_concurrency", "cost_limit_usd", "k_list"} <= keys
    for key in keys:
        assert f"| `{key}` |" in text, key
    assert "| `answers_path` | `str` | `'{input_dir}/{method}/{question_set}_answers.json'` |" in text
    assert issubclass(AssayConfig, BaseModel)
