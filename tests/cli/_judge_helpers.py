"""Helpers of the ``assay judge`` and ``assay cache`` command tests: answers, configs, running the CLI."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

import assay
from assay.cli import main

SRC = Path(assay.__file__).resolve().parents[1]
"""The source tree under test (the children import the assay the tests import)."""
QUESTIONS = {"q1": "What causes seasonal flu outbreaks?", "q2": "How do vaccines work?",
             "q3": "Why track antibiotic resistance?"}
PAIRWISE = {"kind": "pairwise", "base": "short", "others": ["long"], "trials": 2,
            "criteria": ["relevance", "diversity"]}
"""3 questions x 2 criteria x 2 trials: 12 judgments, one call each."""


def write_answers(root: Path) -> Path:
    """BenchmarkQED's layout: {root}/{method}/health_answers.json for methods short and long."""
    for method in ("short", "long"):
        (root / method).mkdir(parents=True, exist_ok=True)
        records = [{"question_id": q, "question": text, "answer": f"The {method} answer to: {text}"}
                   for q, text in QUESTIONS.items()]
        (root / method / "health_answers.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def write_config(folder: Path, url: str | None, *, judges: list[dict[str, Any]] | None = None,
                 name: str = "judge.yaml", cache: str | None = None, **llm: Any) -> Path:
    """A config judging the answers under ``folder/answers`` (written when missing)."""
    answers = folder / "answers"
    if not answers.is_dir():
        write_answers(answers)
    data: dict[str, Any] = {
        "version": 1,
        "inputs": {"input_dir": "answers", "methods": ["short", "long"], "question_sets": ["health"]},
        "judges": judges or [PAIRWISE],
    }
    if cache is not None:
        data["cache"] = cache
    if url is not None:
        data["llm"] = {"model": "judge-model", "base_url": url, "api_key_env": None, "max_concurrency": 4,
                       "timeout_s": 5.0, "backoff_base_s": 0.01, "backoff_max_s": 0.1,
                       "prices": {"judge-model": {"input": 2.5, "output": 10.0}}, **llm}
    path = folder / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def run(argv: list[str]) -> int:
    """``assay ARGV`` in this process (``assay.cli.main``); its exit status."""
    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def child_env(cwd: Path, **extra: str) -> dict[str, str]:
    """The environment of an ``assay`` child process: this tree's source first, caches in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_CACHE_HOME": str(cwd / "xdg-cache"),
           **extra}
    env.pop("ASSAY_CACHE_DIR", None)
    env.pop("ASSAY_DEBUG", None)
    return env


def assay_process(argv: list[str], cwd: Path, *, timeout: float = 120.0, **env: str
                  ) -> subprocess.CompletedProcess[str]:
    """``python -m assay ARGV`` in a child process (the exit status as a user's shell sees it)."""
    return subprocess.run([sys.executable, "-m", "assay", *argv], cwd=cwd, env=child_env(cwd, **env),
                          capture_output=True, text=True, timeout=timeout)


def assay_popen(argv: list[str], cwd: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "assay", *argv], cwd=cwd, env=child_env(cwd, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_systems_config(folder: Path, url: str, **llm: object) -> Path:
    """``gen.yaml`` in ``folder``: three datapoints (``points.jsonl``) answered by one system, ``mini``,
    at ``url``; ``llm`` keys go to the llm section (``transport: batch``, ...)."""
    (folder / "points.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "prompt": f"Question {i}?"}) + "\n" for i in range(3)))
    config = folder / "gen.yaml"
    config.write_text(json.dumps({
        "version": 1, "datapoints": "points.jsonl", "judges": [],
        "llm": {"model": "judge-model", "base_url": url, "api_key_env": None, **llm},
        "systems": [{"name": "mini", "model": "judge-model", "base_url": url, "api_key_env": None}]}))
    return config


def write_teacher_config(folder: Path, url: str, *, teacher: dict[str, object] | None = None,
                         **llm: object) -> Path:
    """``teacher.yaml`` in ``folder``: a teacher writing one item per stratum of two tasks, then one
    system, ``mini``, answering them, all at ``url``."""
    config = folder / "teacher.yaml"
    config.write_text(json.dumps({
        "version": 1, "judges": [],
        "llm": {"model": "judge-model", "base_url": url, "api_key_env": None, **llm},
        "datapoints": {"kind": "teacher", "model": "teacher-model", "base_url": url, "api_key_env": None,
                       "items_per_stratum": 1, **(teacher or {}),
                       "tasks": [{"name": "qa", "description": "Short questions.",
                                  "attributes": {"level": ["easy", "hard"]}},
                                 {"name": "sum", "description": "Summaries."}]},
        "systems": [{"name": "mini", "model": "judge-model", "base_url": url, "api_key_env": None}]}))
    return config
