"""Reuse the stand-in model server of tests/judge (a real OpenAI-compatible server on 127.0.0.1)."""

from tests.judge.conftest import _server, server

__all__ = ["_server", "server"]
