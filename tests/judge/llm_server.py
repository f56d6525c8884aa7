"""An OpenAI-compatible chat-completions server for the tests: a stand-in for the model.

It speaks the real wire format over real HTTP on 127.0.0.1, so the client under test
(``assay.llm.client``, through ``openai.AsyncOpenAI`` and httpx) is exercised end to
end; only the model is replaced. Replies are deterministic: a verdict is drawn from a
PRNG seeded by the SHA-256 of (model, messages, response_format), and fills the JSON
schema it was sent (``response_format={"type": "json_schema", ...}``) or, in text mode,
the schema it finds in a fenced ```json block of the prompt, wrapped in prose.

Faults, each drawn per request from ``Behaviour.rates`` or taken in arrival order from
``Behaviour.script`` (``"ok"`` for none):

==================  ==================================================================
``rate_limit``      HTTP 429 with ``Retry-After`` (seconds or an HTTP date) and
                    optionally ``retry-after-ms``
``server_error``    HTTP 500
``hang``            no reply until the client gives up (the handler watches the socket
                    and stops when the client closes it) or ``hang_s`` passes
``malformed_body``  HTTP 200 whose body is not valid JSON
``truncated``       a valid envelope whose message content is half a JSON verdict
``off_schema``      valid JSON content that breaks the schema (a required field missing,
                    an unknown field added)
``refusal``         ``message.refusal`` set, no content
``refusal_text``    content that declines in words, no JSON
``no_usage``        a good reply without the ``usage`` field
``unauthorized``    HTTP 401 (a bad API key)
``forbidden``       HTTP 403 (no permission for the model)
``quota``           HTTP 429 with code ``insufficient_quota`` (out of credit)
``echo_auth``       HTTP 400 whose message echoes the ``Authorization`` header and the
                    request's query string (as some proxies do)
``huge_body``       HTTP 200 with a body of ``huge_body_bytes`` (200 MB) and its
                    ``Content-Length``, made as it is written (never held in memory)
``huge_body_chunked`` the same body sent chunked, with no ``Content-Length``
==================  ==================================================================

The Batch API (``/v1/files``, ``/v1/batches``) is served by :mod:`tests.judge.llm_batches`,
with an injectable delay before a batch completes, failed lines and expiry.

``Behaviour.error_text``, when set, replaces the message of the 401, 403 and 400 faults.

Logprobs, OpenAI-shaped: a request with ``logprobs: true`` (and ``top_logprobs: K``) gets
``choices[0].logprobs.content``, one entry per token of the reply (the reply split at
spaces), each with its ``top_logprobs`` (K entries, most likely first). With
``Behaviour.scores`` (token -> probability) a free-text request is answered with one of
those tokens, drawn by the request (its ``seed`` parameter included, so samples with
different seeds differ), and the first token's table is that distribution's log
probabilities; ``Behaviour.logprobs = False`` is an endpoint that ignores the request
(``"logprobs": null``), as many do.

Counters (:class:`Stats`): requests, requests in flight and their maximum, faults sent,
arrival times, the ``Authorization`` headers seen. A request stops counting as in flight
just before its reply is written, so a client that keeps at most N requests open can
never be seen with N + 1.

In a test: ``with LLMServer(Behaviour(latency_s=0.005)) as server: server.url``. As a
separate process (for the benchmark): ``python tests/judge/llm_server.py --latency-ms 50``
prints ``READY <base_url>``; ``GET /_stats``, ``POST /_reset`` and ``POST /_configure``
(a JSON object of Behaviour fields) control it.
"""

from __future__ import annotations

import argparse
import dataclasses
import email.utils
import hashlib
import json
import math
import random
import re
import select
import socket
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

if __package__ in (None, ""):  # run as a script (the benchmark): the repository on the path
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from tests.judge.llm_batches import Batches

FAULTS = ("rate_limit", "server_error", "hang", "malformed_body", "truncated", "off_schema",
          "refusal", "refusal_text", "no_usage", "unauthorized", "forbidden", "quota", "echo_auth",
          "huge_body", "huge_body_chunked")
WORDS = ("answer", "evidence", "claim", "detail", "source", "support", "coverage", "insight",
         "accurate", "specific", "summary", "aspect", "question", "reasoning")
SCHEMA_BLOCK = re.compile(r"```json\s*(\{.*?\})\s*```", re.S)


@dataclass
class Behaviour:
    """How the stand-in model behaves; change it while running with :meth:`LLMServer.configure`."""

    latency_s: float = 0.0
    """Seconds before each reply."""
    jitter_s: float = 0.0
    """Extra latency drawn uniformly from [0, jitter_s]."""
    rates: dict[str, float] = field(default_factory=dict)
    """Fault name -> probability per request (their sum at most 1)."""
    script: list[str] = field(default_factory=list)
    """Faults for the next requests in arrival order, consumed first; "ok" for none."""
    fault_by: dict[str, str] | None = None
    """Prompt substring -> fault: every request whose messages hold the substring gets it
    (after the script, before the rates), whatever order the requests come in."""
    json_schema: bool = True
    """Whether ``response_format`` of type json_schema is accepted (else HTTP 400)."""
    retry_after: str | None = "1"
    """``Retry-After`` value of a 429: seconds, or ``"http-date+N"`` for an HTTP date N s ahead."""
    retry_after_ms: float | None = None
    """When set, a 429 also carries ``retry-after-ms`` (as OpenAI's API sends)."""
    hang_s: float = 30.0
    """Longest a hang lasts when the client never closes the connection."""
    seed: int = 0
    """Salt of the verdict and fault draws."""
    record_bodies: bool = False
    """Keep every chat request's JSON body in :attr:`Stats.bodies`."""
    error_text: str | None = None
    """The message of the unauthorized, forbidden and echo_auth faults (None: their own)."""
    scores: dict[str, float] | None = None
    """Token -> probability: free-text replies are one of these tokens and the first token's
    top-logprob table is their log probabilities (a G-Eval scorer's score distribution)."""
    logprobs: bool = True
    """Whether the server returns logprobs when a request asks for them."""
    score_by: dict[str, float] | None = None
    """Prompt substring -> score: a verdict with a numeric ``score`` field gets the value of the
    first substring found in the prompt, in this order (a model that tells the answers apart)."""
    batch_delay_s: float = 0.0
    """Seconds after its creation a batch completes (tests/judge/llm_batches.py)."""
    batch_fail_every: int = 0
    """Every k-th line of a batch is answered with HTTP 500 (0: none)."""
    batch_expire_after: int | None = None
    """A batch expires having answered only its first n lines (None: it completes)."""
    batch_huge_every: int = 0
    """Every k-th answered line of a batch is a completion of ``huge_body_bytes`` (0: none)."""
    batch_status: str = "completed"
    """``failed``: a batch fails as a whole (its input refused)."""
    huge_body_bytes: int = 200_000_000
    """Size of the body of the ``huge_body`` faults (a chat completion whose content is that long)."""
    huge_gather: int = 0
    """A ``huge_body`` reply waits (at most ``huge_gather_s``) until this many are open at once
    before writing its body (0: no wait): a test of many bodies in flight does not hang on timing."""
    huge_gather_s: float = 10.0
    batch_garble_every: int = 0
    """Every k-th line of a batch is answered (and paid) but its output line is not JSON (0: none)."""
    batch_drop_every: int = 0
    """Every k-th line of a batch is answered (and paid) but gets no result line at all (0: none)."""
    keep_alive: bool = True
    """Keep connections open after a reply (False: ``Connection: close``, so that a stopped
    server refuses the client's next request instead of answering it on an open connection)."""


@dataclass
class Stats:
    """What the server saw since the last reset."""

    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    arrivals: list[float] = field(default_factory=list)
    """``time.time()`` of each chat request's arrival, in order."""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    """The chat requests' bodies, when ``Behaviour.record_bodies``."""
    authorizations: set[str] = field(default_factory=set)
    api_keys: set[str] = field(default_factory=set)
    usage: list[int] = field(default_factory=lambda: [0, 0])
    """Prompt and completion tokens the server reported in its replies' ``usage``."""
    """The ``api-key`` headers seen (Azure OpenAI's key header)."""
    paths: list[str] = field(default_factory=list)
    """The request target (path and query) of each chat request, in order."""
    huge_in_flight: int = 0
    max_huge_in_flight: int = 0
    """The most ``huge_body`` replies being written at once."""
    prompts: Counter[str] = field(default_factory=Counter)
    """Requests per SHA-256 of (model, messages): how often each distinct prompt was sent."""

    def snapshot(self) -> dict[str, Any]:
        return {"requests": self.requests, "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight, "faults": dict(self.faults),
                "distinct_prompts": len(self.prompts)}


class LLMServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering chat completions."""

    def __init__(self, behaviour: Behaviour | None = None, *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.behaviour = behaviour or Behaviour()
        self.stats = Stats()
        self.lock = threading.Lock()
        self.huge_gathered = threading.Condition(self.lock)
        """Notified each time a ``huge_body`` reply opens (``Behaviour.huge_gather``)."""
        self.batches = Batches()
        """The Batch API's files and batches (emptied by :meth:`reset`)."""
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> LLMServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def configure(self, **changes: Any) -> None:
        """Replace Behaviour fields (thread-safe)."""
        with self.lock:
            self.behaviour = dataclasses.replace(self.behaviour, **changes)

    def reset(self, behaviour: Behaviour | None = None) -> None:
        """Zero the counters and, when given, install a new behaviour."""
        with self.lock:
            self.stats = Stats()
            self.batches = Batches()
            if behaviour is not None:
                self.behaviour = behaviour

    # -- called by the handler threads
    def begin(self, auth: str | None, body: Any, path: str = "", api_key: str | None = None
              ) -> tuple[int, Behaviour, str]:
        with self.lock:
            if api_key:
                self.stats.api_keys.add(api_key)
            self.stats.paths.append(path)
            if self.behaviour.record_bodies:
                self.stats.bodies.append(body)
            s = self.stats
            s.requests += 1
            s.in_flight += 1
            s.max_in_flight = max(s.max_in_flight, s.in_flight)
            s.arrivals.append(time.time())
            if auth:
                s.authorizations.add(auth)
            b = self.behaviour
            fault = (b.script.pop(0) if b.script else _fault_by(b, body)
                     or _draw_fault(b, s.requests))
            if fault != "ok":
                s.faults[fault] += 1
            return s.requests, b, fault

    def end(self) -> None:
        with self.lock:
            self.stats.in_flight -= 1


def _fault_by(b: Behaviour, body: Any) -> str | None:
    """The fault of the first ``fault_by`` substring found in the request's messages."""
    if not b.fault_by or not isinstance(body, dict):
        return None
    messages = body.get("messages")
    text = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict)) \
        if isinstance(messages, list) else ""
    return next((fault for part, fault in b.fault_by.items() if part in text), None)


def _draw_fault(b: Behaviour, counter: int) -> str:
    if not b.rates:
        return "ok"
    u = random.Random(f"{b.seed}:{counter}").random()
    total = 0.0
    for name, rate in b.rates.items():
        total += rate
        if u < total:
            return name
    return "ok"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    owner: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client goes away (timeouts, killed processes); report the rest."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read :class:`Stats`, not a log."""

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        if not self.server.owner.behaviour.keep_alive:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(obj).encode(), headers)

    def _answer(self, code: int, obj: Any) -> None:
        auth = self.headers.get("Authorization")
        if auth:
            with self.server.owner.lock:
                self.server.owner.stats.authorizations.add(auth)
        if isinstance(obj, bytes):
            self._send(code, obj)
        else:
            self._json(code, obj)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self._raw = raw
        try:
            return json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            return None

    def do_GET(self) -> None:
        owner = self.server.owner
        path = self.path.split("?")[0].rstrip("/")
        if path == "/_stats":
            with owner.lock:
                self._json(200, owner.stats.snapshot())
        elif path.endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "stand-in", "object": "model"}]})
        elif path.startswith("/v1/files/") and path.endswith("/content"):
            self._answer(*owner.batches.content(path.split("/")[3]))
        elif path.startswith("/v1/batches/"):
            self._answer(*owner.batches.get(path.split("/")[3], owner.behaviour))
        elif path == "/v1/batches":
            self._answer(*owner.batches.list())
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        path = self.path.split("?")[0].rstrip("/")
        body = self._body()
        if path == "/_reset":
            owner.reset()
            self._json(200, {"ok": True})
        elif path == "/_configure":
            owner.configure(**(body or {}))
            self._json(200, {"ok": True})
        elif path.startswith("/v1/") and path.endswith("/chat/completions"):
            self._chat(owner, body)
        elif path == "/v1/files":
            self._answer(*owner.batches.upload(self.headers.get("Content-Type", ""), self._raw))
        elif path == "/v1/batches":
            self._answer(*owner.batches.create(body))
        elif path.startswith("/v1/batches/") and path.endswith("/cancel"):
            self._answer(*owner.batches.cancel(path.split("/")[3]))
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def _chat(self, owner: LLMServer, body: Any) -> None:
        _, b, fault = owner.begin(self.headers.get("Authorization"), body, self.path,
                                  self.headers.get("api-key"))
        ended = False

        def end() -> None:
            nonlocal ended
            if not ended:
                ended = True
                owner.end()

        try:
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                end()
                self._json(400, {"error": {"message": "body must be a JSON object with messages",
                                           "type": "invalid_request_error"}})
                return
            rf = body.get("response_format") or {}
            with owner.lock:
                owner.stats.prompts[hashlib.sha256(
                    json.dumps([body.get("model", "stand-in"), body["messages"]],
                               sort_keys=True).encode()).hexdigest()] += 1
            rng = random.Random(_digest(b, body).digest())
            delay = b.latency_s + (rng.uniform(0.0, b.jitter_s) if b.jitter_s > 0 else 0.0)
            if delay > 0:
                time.sleep(delay)
            if fault == "hang":
                self._hang(b.hang_s)
                end()
                self.close_connection = True
                return
            if fault == "rate_limit":
                end()
                self._json(429, {"error": {"message": "rate limit reached", "type": "rate_limit_error",
                                           "code": "rate_limit_exceeded"}}, _retry_headers(b))
                return
            if fault == "quota":
                end()
                self._json(429, {"error": {"message": "You exceeded your current quota",
                                           "type": "insufficient_quota", "code": "insufficient_quota"}})
                return
            if fault == "unauthorized":
                end()
                self._json(401, {"error": {"message": b.error_text or "Incorrect API key provided",
                                           "type": "invalid_request_error", "code": "invalid_api_key"}})
                return
            if fault == "forbidden":
                end()
                self._json(403, {"error": {"message": b.error_text or "You have no access to this model",
                                           "type": "permission_error"}})
                return
            if fault == "echo_auth":
                end()
                said = (f"bad request from {self.path}; headers: "
                        f"Authorization: {self.headers.get('Authorization')}; "
                        f"api-key: {self.headers.get('api-key')}")
                self._json(400, {"error": {"message": b.error_text or said, "type": "invalid_request_error"}})
                return
            if fault in ("huge_body", "huge_body_chunked"):
                end()
                self._huge(b.huge_body_bytes, chunked=fault == "huge_body_chunked")
                return
            if fault == "server_error":
                end()
                self._json(500, {"error": {"message": "the server had an error", "type": "server_error"}})
                return
            if rf.get("type") == "json_schema" and not b.json_schema:
                end()
                self._json(400, {"error": {
                    "message": "response_format type 'json_schema' is not supported by this server",
                    "type": "invalid_request_error", "param": "response_format"}})
                return
            reply = completion(b, body, fault, rng)
            if "usage" in reply:
                with owner.lock:
                    owner.stats.usage[0] += reply["usage"]["prompt_tokens"]
                    owner.stats.usage[1] += reply["usage"]["completion_tokens"]
            end()
            if fault == "malformed_body":
                text = json.dumps(reply)
                self._send(200, text[: len(text) // 2].encode())
                return
            self._json(200, reply)
        finally:
            end()

    def _huge(self, size: int, *, chunked: bool) -> None:
        """A chat completion of ``size`` bytes, written 1 MiB at a time as it is made (the
        server holds one block); stops when the client closes the connection."""
        head = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
        tail = b'"}}], "model": "stand-in"}'
        block = b"x" * (1 << 20)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        left = size - len(head) - len(tail)
        owner, stats = self.server.owner, self.server.owner.stats
        with owner.lock:
            stats.huge_in_flight += 1
            stats.max_huge_in_flight = max(stats.max_huge_in_flight, stats.huge_in_flight)
            owner.huge_gathered.notify_all()
            gather, limit_s = owner.behaviour.huge_gather, owner.behaviour.huge_gather_s
            owner.huge_gathered.wait_for(lambda: stats.max_huge_in_flight >= gather, timeout=limit_s)
        try:
            self._write(head, chunked)
            while left > 0:
                part = block if left >= len(block) else block[:left]
                self._write(part, chunked)
                left -= len(part)
            self._write(tail, chunked)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client gave up (BrokenPipeError, ConnectionResetError)
            self.close_connection = True
        finally:
            with owner.lock:
                stats.huge_in_flight -= 1

    def _write(self, data: bytes, chunked: bool) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)

    def _hang(self, limit_s: float) -> None:
        """Wait until the client closes the connection (or limit_s passes)."""
        deadline = time.monotonic() + limit_s
        conn = self.connection
        while time.monotonic() < deadline:
            ready, _, _ = select.select([conn], [], [], 0.02)
            if ready:
                try:
                    if conn.recv(1, socket.MSG_PEEK) == b"":
                        return
                except OSError:
                    return
                time.sleep(0.02)


def _digest(b: Behaviour, body: dict[str, Any]) -> Any:
    """The SHA-256 a reply's draws are seeded by: (seed, model, messages, response_format)."""
    return hashlib.sha256(json.dumps([b.seed, str(body.get("model", "stand-in")), body["messages"],
                                      body.get("response_format") or {}], sort_keys=True).encode())


def completion(b: Behaviour, body: dict[str, Any], fault: str = "ok",
               rng: random.Random | None = None) -> dict[str, Any]:
    """The chat completion answering ``body`` (a valid request): deterministic in the body."""
    digest = _digest(b, body)
    rng = rng or random.Random(digest.digest())
    messages = body["messages"]
    prompt = "\n\n".join(str(m.get("content") or "") for m in messages if isinstance(m, dict))
    rf = body.get("response_format") or {}
    content, refusal = _reply(rng, rf, prompt, fault, b.score_by)
    if b.scores and not rf and refusal is None and fault not in ("refusal_text", "truncated"):
        draw = random.Random(f"{digest.hexdigest()}:{body.get('seed')}")
        content = draw.choices(list(b.scores), weights=list(b.scores.values()))[0]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    logprobs = None
    if body.get("logprobs") and b.logprobs and content:
        logprobs = _logprobs(content, int(body.get("top_logprobs") or 0), b.scores)
    reply: dict[str, Any] = {
        "id": "chatcmpl-" + digest.hexdigest()[:24], "object": "chat.completion",
        "created": int(time.time()), "model": str(body.get("model", "stand-in")),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop",
                     "logprobs": logprobs}],
    }
    if fault != "no_usage":
        p, c = _tokens(prompt), _tokens(content or refusal or "")
        reply["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return reply


def _retry_headers(b: Behaviour) -> dict[str, str]:
    headers: dict[str, str] = {}
    if b.retry_after is not None:
        if b.retry_after.startswith("http-date+"):
            ahead = float(b.retry_after.removeprefix("http-date+"))
            headers["Retry-After"] = email.utils.formatdate(time.time() + ahead, usegmt=True)
        else:
            headers["Retry-After"] = b.retry_after
    if b.retry_after_ms is not None:
        headers["retry-after-ms"] = f"{b.retry_after_ms:g}"
    return headers


def _logprobs(content: str, k: int, scores: dict[str, float] | None) -> dict[str, Any]:
    """OpenAI's ``choice.logprobs`` for ``content``: one entry per space-separated token.

    The first token's table is ``scores``' log probabilities when given (most likely first);
    any other table is the token itself at log(0.9) and alternatives from WORDS at
    log(0.1 / 2**j).
    """
    entries = []
    for position, token in enumerate(content.split(" ")):
        if position == 0 and scores and token in scores:
            ranked = sorted(scores.items(), key=lambda kv: -kv[1])
            table = [(t, math.log(p)) for t, p in ranked if p > 0]
        else:
            table = [(token, math.log(0.9))] + [(w, math.log(0.1 / 2 ** (j + 1)))
                                                 for j, w in enumerate(w for w in WORDS if w != token)]
        chosen = dict(table).get(token, math.log(0.9))
        entries.append({"token": token, "logprob": chosen, "bytes": list(token.encode()),
                        "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())}
                                         for t, lp in table[:k]]})
    return {"content": entries, "refusal": None}


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


def _reply(rng: random.Random, rf: dict[str, Any], prompt: str, fault: str,
           score_by: dict[str, float] | None = None) -> tuple[str | None, str | None]:
    """(content, refusal) of a reply."""
    if fault == "refusal":
        return None, "I can't help with that request."
    if fault == "refusal_text":
        return "I'm sorry, but I can't help with that request.", None
    schema: dict[str, Any] | None = None
    in_text = False
    if rf.get("type") == "json_schema":
        schema = rf.get("json_schema", {}).get("schema") or {}
    else:
        for block in reversed(SCHEMA_BLOCK.findall(prompt)):
            try:
                candidate = json.loads(block)
            except json.JSONDecodeError:
                continue
            if isinstance(candidate, dict) and "properties" in candidate:
                schema, in_text = candidate, True
                break
    if schema is None:
        return _sentence(rng, 12), None
    verdict = _Instance(rng, schema).make(schema)
    if score_by and isinstance(verdict, dict) and isinstance(verdict.get("score"), (int, float)):
        verdict["score"] = next((v for k, v in score_by.items() if k in prompt), verdict["score"])
    if fault == "off_schema" and isinstance(verdict, dict):
        required = schema.get("required") or list(verdict)
        if required:
            verdict.pop(required[0], None)
        verdict["unexpected_field"] = True
    text = json.dumps(verdict)
    if fault == "truncated":
        text = text[: max(1, len(text) // 2)]
    if in_text:
        text = f"Here is my verdict.\n```json\n{text}\n```"
    return text, None


def _sentence(rng: random.Random, n: int) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(n))
    return words[:1].upper() + words[1:] + "."


class _Instance:
    """A JSON instance that validates against a (pydantic-made) JSON schema."""

    def __init__(self, rng: random.Random, root: dict[str, Any]) -> None:
        self.rng = rng
        self.defs = {**root.get("definitions", {}), **root.get("$defs", {})}

    def make(self, schema: Any, depth: int = 0) -> Any:
        if not isinstance(schema, dict) or depth > 10:
            return None
        if "$ref" in schema:
            return self.make(self.defs.get(schema["$ref"].split("/")[-1], {}), depth + 1)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
                return self.make(options[0], depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "string"
        if kind == "object":
            return {k: self.make(v, depth + 1) for k, v in schema.get("properties", {}).items()}
        if kind == "array":
            low = int(schema.get("minItems", 1))
            high = int(schema.get("maxItems", max(low, 3)))
            return [self.make(schema.get("items", {}), depth + 1)
                    for _ in range(self.rng.randint(low, max(low, high)))]
        if kind == "integer":
            low = int(schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1))
            high = int(schema.get("maximum", schema.get("exclusiveMaximum", low + 11) - 1))
            return self.rng.randint(low, max(low, high))
        if kind == "number":
            low = float(schema.get("minimum", 0.0))
            return round(self.rng.uniform(low, float(schema.get("maximum", low + 1.0))), 3)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        text = _sentence(self.rng, 8)
        if "maxLength" in schema:
            text = text[: int(schema["maxLength"])]
        return text.ljust(int(schema.get("minLength", 0)), ".")


def main(argv: list[str] | None = None) -> None:
    """Serve until killed; print ``READY <base_url>`` once listening."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--jitter-ms", type=float, default=0.0)
    parser.add_argument("--batch-expire-after", type=int, default=None, metavar="N",
                        help="every batch expires having answered its first N lines")
    parser.add_argument("--batch-garble-every", type=int, default=0, metavar="K",
                        help="every K-th line of a batch is answered, its result line cut short")
    args = parser.parse_args(argv)
    server = LLMServer(Behaviour(latency_s=args.latency_ms / 1000, jitter_s=args.jitter_ms / 1000,
                                 batch_expire_after=args.batch_expire_after,
                                 batch_garble_every=args.batch_garble_every), port=args.port)
    print(f"READY {server.url}", flush=True)
    try:
        server._httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
