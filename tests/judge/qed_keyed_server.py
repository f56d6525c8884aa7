"""A chat-completions stand-in whose verdict is keyed on the message text alone.

For the side-by-side test of assay and BenchmarkQED (``test_qed_side_by_side.py``): two
clients that send the same messages must get the same verdict, whatever JSON schema,
parameters or Score ID each sends, so a difference in their verdicts can only come from a
difference in what they asked. The key is the SHA-256 of the system and user messages with
the Score ID taken out (:func:`normalise`: BenchmarkQED draws a random one per call, assay's
is the judgment key). The reply is the JSON object the prompt asks for, read from its text:

* ``"winner"`` in the prompt: ``{"reasoning", "winner"}``, winner 0, 1 or 2;
* ``"score"`` with ``from MIN to MAX``: ``{"reasoning", "score"}`` in that range;
* ``"supporting_results"`` in the prompt (the hierarchical and supporting-discovery
  prompts): one ``{"id": "SA<i>", "reasoning", "passed"}`` per ``SA<i>: `` line the prompt
  lists, ``has_discovery`` and ``discovery_reasoning``, and ``reasoning`` and
  ``global_passed`` when the prompt asks for ``"global_passed"`` (JSON booleans: the prompts
  ask for 0/1, but BenchmarkQED's client validates the reply against its schema's booleans);
* ``"score"`` otherwise: a binary ``{"reasoning", "score"}`` (assertions).

Every request's messages are recorded (``GET /_log``, ``POST /_reset``), on 127.0.0.1 only.
Run alone: ``python tests/judge/qed_keyed_server.py`` prints ``READY <base_url>``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ID = re.compile(r"\A(?:Score ID: )?[0-9a-f]{16,64}(?=\n)")
_RANGE = re.compile(r"from (\d+) to (\d+)")
_SUPPORTING = re.compile(r"^SA(\d+): ", re.M)


def normalise(text: str) -> str:
    """A message without its leading Score ID line's id (BenchmarkQED's uuid, assay's key).

    >>> normalise("Score ID: 0123456789abcdef0123456789abcdef\\n\\n---Question---")
    'Score ID: <id>\\n\\n---Question---'
    >>> normalise("0123456789abcdef0123456789abcdef\\n\\nQ")
    '<id>\\n\\nQ'
    """
    return _ID.sub(lambda m: "Score ID: <id>" if m.group(0).startswith("Score ID: ") else "<id>", text)


def verdict(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply to `messages`, a function of their normalised text only."""
    texts = [normalise(str(m.get("content", ""))) for m in messages]
    digest = hashlib.sha256("\x00".join(texts).encode()).digest()
    draw = int.from_bytes(digest[:8], "big")
    prompt = "\n".join(texts)
    # of varying length, so which trial's reasoning a tool passes on (the longest passing
    # one, in staged hierarchical scoring) shows in the next message
    reasoning = f"keyed verdict {digest[:4].hex()}" + ", as keyed" * (digest[4] % 3)
    if '"supporting_results"' in prompt:
        ids = sorted({int(n) for n in _SUPPORTING.findall(texts[-1])})
        bits = int.from_bytes(digest[8:16], "big")
        reply: dict[str, Any] = {}
        if '"global_passed"' in prompt:
            reply = {"reasoning": reasoning, "global_passed": bool(draw % 2)}
        reply["supporting_results"] = [{"id": f"SA{n}", "reasoning": f"{reasoning} SA{n}",
                                        "passed": bool((bits >> n) & 1)} for n in ids]
        discovery = bool((bits >> 40) & 1)
        reply.update(discovery_reasoning=f"{reasoning} discovery" if discovery else "",
                     has_discovery=discovery)
        return reply
    if '"winner"' in prompt:
        return {"reasoning": reasoning, "winner": draw % 3}
    found = _RANGE.search(prompt)
    if found:
        low, high = int(found.group(1)), int(found.group(2))
        return {"reasoning": reasoning, "score": low + draw % (high - low + 1)}
    return {"reasoning": reasoning, "score": draw % 2}


class KeyedServer:
    """The server in a thread: ``with KeyedServer() as s: s.url``; ``s.log`` the requests."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                with owner.lock:
                    self._send({"requests": list(owner.log)} if self.path.startswith("/_log")
                               else {"models": []})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.startswith("/_reset"):
                    with owner.lock:
                        owner.log.clear()
                    self._send({})
                    return
                messages = body.get("messages", [])
                with owner.lock:
                    owner.log.append({"messages": [[m.get("role"), m.get("content")] for m in messages]})
                content = json.dumps(verdict(messages))
                self._send({"id": "chatcmpl-keyed", "object": "chat.completion", "created": 0,
                            "model": body.get("model", "mock"),
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": len(json.dumps(messages)) // 4,
                                      "completion_tokens": len(content) // 4,
                                      "total_tokens": (len(json.dumps(messages)) + len(content)) // 4}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def messages(self) -> list[tuple[tuple[str, str], ...]]:
        """Every request's messages, normalised (:func:`normalise`), in arrival order."""
        with self.lock:
            return [tuple((role, normalise(text)) for role, text in r["messages"]) for r in self.log]

    def reset(self) -> None:
        with self.lock:
            self.log.clear()

    def __enter__(self) -> KeyedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":
    with KeyedServer() as server:
        print(f"READY {server.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            sys.exit(0)
