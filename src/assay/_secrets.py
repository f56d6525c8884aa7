"""Secrets kept out of everything stored or printed: URLs, error bodies, terminal text.

One module for every URL assay shows: the LLM endpoint (``llm.base_url``, the Batch API,
the recorded config, the cache's endpoint) and the warehouse of ``--engine
ibis://BACKEND-URL``. A URL may carry credentials (``https://user:pass@host/v1``,
``postgres://me:pw@db/evals``) or a secret in its query (``?key=...``,
``?private_key=...``); a server's error body may echo the ``Authorization`` header, a
database driver's message the password. The URL is used as given but stored and printed
only as :func:`redact_url` gives it, and every error text passes through
:func:`redact_text` (with ``url=`` the URL it may echo) before it reaches the run store,
the cache, a log or the terminal. A config is recorded (in a run store, the judges', a
teacher's, the systems' answers', a baseline's) only as :func:`redact_config` gives it.
:func:`chat_completions_url` builds the request URL with :mod:`urllib.parse`, so a query
string (Azure's ``api-version``) stays a query string.

The user name is hidden with the password (``***@host``): a user field alone is how a
token is often passed (``https://TOKEN@host``), and the host, port, path (the database)
and the other query parameters still tell two connections apart.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "***"
"""What a secret is replaced by."""

_SECRET_PARAM = re.compile(
    r"(key|token|secret|passw|pwd|passphrase|auth|sig|signature|credential|session|cookie|code)",
    re.I)
"""A query parameter whose name says it holds a secret (``private_key``, ``passwd``,
``access_token``, ``credentials_base64``... of the ibis backends too)."""
_NESTED = re.compile(r"(?i)^\s*([a-z][a-z0-9+.-]*://)(?=[a-z][a-z0-9+.-]*://)")
"""A URL wrapped in another scheme (``ibis://postgres://...``): the outer prefix."""
_QUERY_PARAM = re.compile(r"([?&])([A-Za-z0-9_.-]+)=([^&\s#\"'<>]+)")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}"
                     r"|\b(basic)\s+(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/=]{8,}")
_AUTH_HEADER = re.compile(
    r"(?i)\b(authorization|api[-_]?key|x-api-key|access[-_]?token|token)(\s*[\"']?\s*[:=]\s*[\"']?\s*)"
    r"((?:bearer|basic)\s+)?(?!(?:bearer|basic)\b)([^\s,;\"'}&]{4,})")
_OPENAI_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")


def redact_url(url: str) -> str:
    """The URL with its secrets replaced by ``***``: what is stored and printed.

    User information (``user:pass@``, ``user@``) and the values of query parameters whose
    name says they hold a secret (key, token, secret, password, passwd, pwd, passphrase,
    auth, sig, credential, session, code) are replaced; the scheme, host, port, path (an
    Azure deployment, a database) and the other parameters (``api-version``) are kept, so
    two endpoints stay told apart. The scheme and host are lower-cased, a default port and
    a trailing slash dropped. A URL wrapped in another scheme (``ibis://BACKEND-URL``)
    keeps its prefix and has the URL inside redacted; one with no host keeps its ``//``
    (``duckdb:///path/db.duckdb``).

    Examples
    --------
    >>> redact_url("https://bob:hunter2@Example.com:443/v1/?api-version=2024-06-01&token=abc")
    'https://***@example.com/v1?api-version=2024-06-01&token=***'
    >>> redact_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    >>> redact_url("ibis://postgres://me:pw@db/evals?sslmode=require&private_key=k")
    'ibis://postgres://***@db/evals?sslmode=require&private_key=***'
    >>> redact_url("duckdb:///data/evals.duckdb")
    'duckdb:///data/evals.duckdb'
    """
    nested = _NESTED.match(url)
    if nested:
        return nested.group(1).lower() + redact_url(url[nested.end():])
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return redact_text(url)
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        host = f"{REDACTED}@{host}"
    query = urllib.parse.urlencode(
        [(name, REDACTED if _SECRET_PARAM.search(name) else value)
         for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    scheme, path = parts.scheme.lower(), parts.path.rstrip("/")
    if not host and url.strip()[len(scheme) + 1:].startswith("//"):  # urlunsplit drops the //
        return f"{scheme}://" + urllib.parse.urlunsplit(("", "", path, query, ""))
    return urllib.parse.urlunsplit((scheme, host, path, query, ""))


def url_secrets(url: str) -> list[str]:
    """The secret strings of ``url``: its password and the values of its secret query
    parameters, as written and decoded (what a driver's message may echo).

    >>> url_secrets("ibis://postgres://me:p%40ss@db/evals?passwd=x1&sslmode=require")
    ['p%40ss', 'p@ss', 'x1']
    """
    nested = _NESTED.match(url)
    inner = url[nested.end():] if nested else url
    try:
        parts = urllib.parse.urlsplit(inner.strip())
        found = [parts.password] if parts.password else []
    except ValueError:
        return []
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if value and _SECRET_PARAM.search(urllib.parse.unquote_plus(name)):
            found.append(value)
    return list(dict.fromkeys(s for secret in found
                              for s in (secret, urllib.parse.unquote_plus(secret)) if s))


def chat_completions_url(base_url: str) -> str:
    """``base_url`` with ``/chat/completions`` appended to its path (the query kept as a query).

    >>> chat_completions_url("https://x.openai.azure.com/openai/deployments/d1/?api-version=2024-06-01")
    'https://x.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-06-01'
    >>> chat_completions_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1/chat/completions'
    """
    parts = urllib.parse.urlsplit(base_url.strip())
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/chat/completions",
                                                  fragment=""))


def split_query(base_url: str) -> tuple[str, dict[str, str]]:
    """``base_url`` without its query, and the query's parameters (for the OpenAI SDK, which
    appends paths to its base URL and takes the query apart as ``default_query``).

    >>> split_query("http://h/v1?api-version=1&x=2")
    ('http://h/v1', {'api-version': '1', 'x': '2'})
    """
    parts = urllib.parse.urlsplit(base_url.strip())
    query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    return urllib.parse.urlunsplit(parts._replace(query="", fragment="")), query


def redact_text(text: str, secrets: Iterable[str | None] = (), *, url: str | None = None) -> str:
    """``text`` with secrets replaced by ``***``: the given ``secrets`` (the API key) wherever
    they occur, bearer and basic credentials, ``Authorization:``/``api-key=`` values,
    OpenAI-style keys (``sk-...``), user information in URLs and the values of secret
    query parameters (``?sig=...``).

    ``url`` is the URL the text may echo (a database driver's message): the URL as given
    becomes :func:`redact_url` of it, and its secrets (:func:`url_secrets`) are replaced
    wherever they occur, whatever their length. A given secret shorter than 4 characters
    is left alone (a placeholder key such as ``x`` would garble the text).

    Examples
    --------
    >>> redact_text("invalid header 'Authorization: Bearer sk-abc123def456'")
    "invalid header 'Authorization: Bearer ***'"
    >>> redact_text("bad key my-key-42 for https://u:p@h/v1", secrets=["my-key-42"])
    'bad key *** for https://***@h/v1'
    >>> redact_text('password "pw9" refused for postgres://me:pw9@db/x', url="postgres://me:pw9@db/x")
    'password "***" refused for postgres://***@db/x'
    """
    shown = {secret: REDACTED for secret in secrets if secret and len(secret) >= 4}
    if url:
        shown.update(dict.fromkeys(url_secrets(url), REDACTED))
        shown[url] = redact_url(url)
    if shown:  # one pass, longest first: a secret inside the URL is not replaced twice
        text = re.sub("|".join(map(re.escape, sorted(shown, key=len, reverse=True))),
                      lambda m: shown[m.group(0)], text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1) or m.group(2)} {REDACTED}", text)
    text = _OPENAI_KEY.sub("sk-" + REDACTED, text)
    text = _QUERY_PARAM.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}"
                            if _SECRET_PARAM.search(m.group(2)) else m.group(0), text)
    return _URL_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)


def config_secrets(config: Any) -> list[str]:
    """The values of the environment variables a config names for its keys and tokens (every
    string field whose name ends in ``_env``: ``api_key_env``, ``azure_ad_token_env``), at any
    depth: what must not be recorded even if a config spelled it out (``${OPENAI_API_KEY}``).

    >>> os.environ["ASSAY_DOCTEST_KEY"] = "sk-doctest-1234"
    >>> config_secrets({"llm": {"api_key_env": "ASSAY_DOCTEST_KEY"}, "systems": [{"api_key_env": None}]})
    ['sk-doctest-1234']
    >>> del os.environ["ASSAY_DOCTEST_KEY"]
    """
    found: list[str] = []
    if isinstance(config, Mapping):
        for name, value in config.items():
            if str(name).endswith("_env") and isinstance(value, str) and os.environ.get(value):
                found.append(os.environ[value])
            else:
                found.extend(config_secrets(value))
    elif isinstance(config, list | tuple):
        for value in config:
            found.extend(config_secrets(value))
    return list(dict.fromkeys(found))


def redact_config(config: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A config (JSON values: mappings, lists, strings...) as it may be recorded: every
    ``base_url``, at any depth (the judge's, each system's, a teacher's), as
    :func:`redact_url` gives it, and every other string as :func:`redact_text` gives it,
    with the values of the key variables the config names (:func:`config_secrets`) and
    ``secrets`` replaced wherever they occur (a command's arguments, a header in ``params``).

    The one path from a config to a file: the run store records only what this returns.

    Examples
    --------
    >>> redact_config({"llm": {"base_url": "https://h/v1?api-version=1&token=t0k"},
    ...                "systems": [{"command": ["curl", "-H", "Authorization: Bearer abcdef123"]}]})
    {'llm': {'base_url': 'https://h/v1?api-version=1&token=***'}, \
'systems': [{'command': ['curl', '-H', 'Authorization: Bearer ***']}]}
    """
    known = [*config_secrets(config), *(s for s in secrets if s)]

    def walk(value: Any, name: str | None) -> Any:
        if isinstance(value, Mapping):
            return {key: walk(item, str(key)) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [walk(item, None) for item in value]
        if isinstance(value, str):
            shown = redact_url(value) if name == "base_url" and value else value
            return redact_text(shown, known)
        return value

    return walk(config, None)
