"""Fixtures: the stand-in model server (tests/judge/llm_server.py) for the notebook functions."""

from tests.judge.conftest import _server, server  # noqa: F401  (fixtures re-exported)
