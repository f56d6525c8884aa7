"""Secrets kept out of everything stored or printed: endpoint URLs, error bodies, terminal text.

A ``base_url`` may carry credentials (``https://user:pass@host/v1``) or a token in its
query (``?key=...``); a server's error body may echo the ``Authorization`` header. The
engine sends the URL as given but stores and prints only :func:`redact_url` of it, and
passes every error text through :func:`redact_text` before it reaches the run store, the
cache, a log or the terminal. :func:`chat_completions_url` builds the request URL with
:mod:`urllib.parse`, so a query string (Azure's ``api-version``) stays a query string.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

REDACTED = "***"
"""What a secret is replaced by."""

_SECRET_PARAM = re.compile(
    r"(key|token|secret|passw|pwd|auth|sig|signature|credential|session|cookie|code)", re.I)
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

    User information (``user:pass@``) and the values of query parameters whose name says
    they hold a secret (key, token, secret, password, auth, sig, credential, session,
    code) are replaced; the scheme, host, port, path (an Azure deployment) and the other
    parameters (``api-version``) are kept, so two endpoints stay told apart. The host is
    lower-cased, a default port and a trailing slash dropped.

    Examples
    --------
    >>> redact_url("https://bob:hunter2@Example.com:443/v1/?api-version=2024-06-01&token=abc")
    'https://***@example.com/v1?api-version=2024-06-01&token=***'
    >>> redact_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
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
    return urllib.parse.urlunsplit((parts.scheme.lower(), host, parts.path.rstrip("/"), query, ""))


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


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with secrets replaced by ``***``: the given ``secrets`` (the API key) wherever
    they occur, bearer and basic credentials, ``Authorization:``/``api-key=`` values,
    OpenAI-style keys (``sk-...``) and user information in URLs.

    Examples
    --------
    >>> redact_text("invalid header 'Authorization: Bearer sk-abc123def456'")
    "invalid header 'Authorization: Bearer ***'"
    >>> redact_text("bad key my-key-42 for https://u:p@h/v1", secrets=["my-key-42"])
    'bad key *** for https://***@h/v1'
    """
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1) or m.group(2)} {REDACTED}", text)
    text = _OPENAI_KEY.sub("sk-" + REDACTED, text)
    return _URL_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
