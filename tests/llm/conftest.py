"""Fixtures of the engine's tests: the stand-in model server of tests/judge (``server``) and a
client on it for each transport (``make_client``)."""

from tests.judge.conftest import _server, make_client, server  # noqa: F401  (fixtures re-exported)
