"""One redaction of secrets for every URL assay shows: the LLM endpoint and the warehouse of
``--engine ibis://BACKEND-URL`` (``assay._secrets``, a base module both layers import).
Expected values are written out by hand from the rules in the module's docstrings; the
LLM client's own cases are in ``tests/llm/test_engine_secrets.py``."""

from __future__ import annotations

import pytest

from assay._secrets import redact_text, redact_url, url_secrets


@pytest.mark.parametrize(("url", "shown"), [
    ("ibis://postgres://me:pw@db/evals", "ibis://postgres://***@db/evals"),
    ("ibis://postgres://me@db/evals", "ibis://postgres://***@db/evals"),  # a user alone may be a token
    ("IBIS://Postgres://me:pw@DB:5432/evals?sslmode=require",
     "ibis://postgres://***@db:5432/evals?sslmode=require"),
    ("ibis://duckdb:///data/evals.duckdb", "ibis://duckdb:///data/evals.duckdb"),
    ("ibis://sqlite:///tmp/x.sqlite?mode=ro", "ibis://sqlite:///tmp/x.sqlite?mode=ro"),
    ("duckdb://bob:hunter2@/no/such/db.duckdb", "duckdb://***@/no/such/db.duckdb"),
    ("ibis://snowflake://me@acct/db/sch?warehouse=wh&private_key=PK&private_key_passphrase=pp"
     "&passwd=x&authenticator=snowflake_jwt",
     "ibis://snowflake://***@acct/db/sch?warehouse=wh&private_key=***&private_key_passphrase=***"
     "&passwd=***&authenticator=***"),
    ("postgres://bob:pw@db:port/x?password=hunter2&a=1",  # no port number: read as text
     "postgres://***@db:port/x?password=***&a=1"),
])
def test_a_warehouse_url_is_shown_as_an_endpoint_is(url, shown):
    assert redact_url(url) == shown


@pytest.mark.parametrize("key", ["password", "passwd", "pwd", "token", "secret", "access_token",
                                 "private_key", "private_key_passphrase", "credentials", "api_key",
                                 "key", "passphrase"])
def test_every_secret_query_key_of_the_ibis_backends_is_hidden(key):
    assert redact_url(f"ibis://postgres://db/x?{key}=v1&schema=s") == \
        f"ibis://postgres://db/x?{key}=***&schema=s"


def test_the_secrets_of_a_url_as_written_and_decoded():
    assert url_secrets("ibis://mysql://me:p%40ss@db/x?passwd=a+b&db=x&token=") == \
        ["p%40ss", "p@ss", "a+b", "a b"]
    assert url_secrets("duckdb:///a.duckdb") == []
    assert url_secrets("postgres://me:pw@db:port/x") == ["pw"]  # no port number, still a password


def test_a_driver_message_loses_the_url_and_its_secrets_whatever_their_length():
    url = "postgres://me:pw@db/evals?sslmode=require&private_key=k%2B1"
    said = ('connection to "postgres://me:pw@db/evals?sslmode=require&private_key=k%2B1" failed: '
            'password "pw" refused; key k+1 unreadable')
    assert redact_text(said, url=url) == (
        'connection to "postgres://***@db/evals?sslmode=require&private_key=***" failed: '
        'password "***" refused; key *** unreadable')


def test_secret_query_values_in_free_text_are_hidden():
    assert redact_text("GET https://h/v1?sig=abc123&x=1 failed (session=s1)") == \
        "GET https://h/v1?sig=***&x=1 failed (session=s1)"


def test_the_warehouse_and_the_llm_endpoint_are_redacted_by_one_function():
    """The same hostile URL, given as an LLM base_url and as an ibis backend URL, is shown
    the same way by the client (its stored endpoint, which enters the cache keys) and in the
    ibis engine's error message. (An LLM base_url with a user name or password is refused
    since issue 22: only the warehouse URL keeps them, redacted.)"""
    pytest.importorskip("ibis", reason="needs ibis-framework (pip install 'assay[ibis]')")
    import assay.errors
    from assay.data.engine import IbisEngine
    from assay.llm import ClientConfig, LLMClient

    hostile = "HTTP://LOCALHOST:80/v1/?api-version=1&token=tok-9&private_key=pk-9"
    shown = "http://localhost/v1?api-version=1&token=***&private_key=***"
    config = ClientConfig(model="m", base_url=hostile, api_key_env=None)
    assert LLMClient(config).endpoint == shown
    for url, expected in ((hostile, shown), (hostile.replace("//", "//bob:hunter2@", 1),
                                             shown.replace("//", "//***@", 1))):
        with pytest.raises(assay.errors.ConfigError) as info:
            IbisEngine("ibis://" + url)  # ibis has no http backend: it says so, echoing the URL
        message = str(info.value)
        assert message.startswith(f"ibis://{expected}: "), message
        assert not any(secret in message for secret in ("bob", "hunter2", "tok-9", "pk-9")), message
