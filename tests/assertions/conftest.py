"""Reuse the stand-in model server and client fixtures of tests/judge."""

from tests.judge.conftest import _server, make_client, server

__all__ = ["_server", "make_client", "server"]
