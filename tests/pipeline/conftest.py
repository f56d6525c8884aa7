"""Fixtures of the pipeline's tests: the stand-in model server of tests/judge (``server``)."""

from tests.judge.conftest import _server, make_client, server  # noqa: F401  (fixtures re-exported)
