"""Fixtures of the judge tests: the stand-in model server of tests/judge, and a small answer set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.judge.conftest import _server, server  # noqa: F401  (fixtures re-exported)

QUESTIONS = {
    "q1": "What causes seasonal flu outbreaks?",
    "q2": "How do vaccines train the immune system?",
    "q3": "Why do hospitals track antibiotic resistance?",
}
ANSWERS = {
    "short": {
        "q1": "Viruses spread more in winter.",
        "q2": "They show the body a harmless part of a germ.",
        "q3": "Resistant bacteria make infections hard to treat.",
    },
    "long": {
        "q1": "Influenza viruses spread more easily in cold, dry air and when people gather indoors.",
        "q2": "Vaccines present antigens so the immune system makes antibodies and memory cells.",
        "q3": "Tracking resistance guides which antibiotics doctors prescribe and limits its spread.",
    },
}


@pytest.fixture
def answers_dir(tmp_path: Path) -> Path:
    """Seed 004's layout: {input_dir}/{method}/{question_set}_answers.json, 3 questions, 2 methods."""
    root = tmp_path / "answers"
    for method, texts in ANSWERS.items():
        (root / method).mkdir(parents=True)
        records = [{"question_id": q, "question": QUESTIONS[q], "answer": texts[q]} for q in QUESTIONS]
        (root / method / "health_answers.json").write_text(json.dumps(records), encoding="utf-8")
    return root


@pytest.fixture
def write_config(tmp_path: Path, answers_dir: Path) -> Callable[..., Path]:
    """Write a config for the server with the given judges (and llm overrides); return its path."""

    def write(
        judges: list[dict[str, Any]], *, url: str | None = None, name: str = "judge.yaml", **llm: Any
    ) -> Path:
        data: dict[str, Any] = {
            "version": 1,
            "inputs": {
                "input_dir": str(answers_dir),
                "methods": ["short", "long"],
                "question_sets": ["health"],
            },
            "judges": judges,
            "cache": str(tmp_path / "cache.sqlite"),
        }
        if url is not None:
            data["llm"] = {
                "model": "judge-model",
                "base_url": url,
                "api_key_env": None,
                "max_concurrency": 4,
                "timeout_s": 5.0,
                "backoff_base_s": 0.01,
                "prices": {"judge-model": {"input": 2.5, "output": 10.0}},
                **llm,
            }
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        return path

    return write
