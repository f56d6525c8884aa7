"""A small Chrome DevTools Protocol client for the browser tests, standard library only.

Chromium runs headless with ``--remote-debugging-pipe``: the protocol's JSON messages,
each ended by a NUL byte, go in on the child's file descriptor 3 and come back on 4. No
port is opened, so parallel test runs cannot collide and nothing listens on the network.
Events are kept in order; :class:`Tab` filters them by its session.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--remote-debugging-pipe")


def find_chromium() -> str | None:
    """The browser binary: $ASSAY_CHROMIUM, else the first of CANDIDATES on the PATH."""
    given = os.environ.get("ASSAY_CHROMIUM")
    if given:
        return given if shutil.which(given) else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class ProtocolError(RuntimeError):
    pass


@dataclass(frozen=True)
class Download:
    """A file the browser saved: where, and the name the page gave it."""

    path: Path
    suggested_name: str


class Chromium:
    """One headless browser process driven over the DevTools pipe."""

    def __init__(self, binary: str, *, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="assay-chromium-")
        to_child_r, self._out = os.pipe()
        self._in, from_child_w = os.pipe()

        def wire() -> None:  # runs in the child before exec: the pipe ends become fds 3 and 4
            read_end, write_end = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []

    # -- transport --------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no message from the browser in time")
            ready, _, _ = select.select([self._in], [], [], remaining)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise ProtocolError("the browser closed the DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _pump(self, deadline: float) -> None:
        message = self._read_message(deadline)
        if "id" in message:
            self._replies[message["id"]] = message
        else:
            self.events.append(message)
            if message.get("method") == "Page.javascriptDialogOpening":
                self._post("Page.handleJavaScriptDialog", {"accept": False},
                           message.get("sessionId"))

    def _post(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode("utf-8") + b"\0"
        while data:
            data = data[os.write(self._out, data):]
        return self._next_id

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        """Call a protocol method and return its result (raise on a protocol error)."""
        ident = self._post(method, params, session)
        deadline = time.monotonic() + (timeout or self.timeout)
        while ident not in self._replies:
            self._pump(deadline)
        reply = self._replies.pop(ident)
        if "error" in reply:
            raise ProtocolError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, predicate: Callable[[dict[str, Any]], bool], *, since: int = 0,
                   timeout: float | None = None) -> dict[str, Any]:
        """The first event from index ``since`` on that satisfies ``predicate``."""
        deadline = time.monotonic() + (timeout or self.timeout)
        index = since
        while True:
            while index < len(self.events):
                if predicate(self.events[index]):
                    return self.events[index]
                index += 1
            self._pump(deadline)

    # -- lifetime -----------------------------------------------------------------------
    def new_tab(self) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        return Tab(self, target, session["sessionId"])

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self._post("Browser.close", None, None)
                self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(timeout=10)
        finally:
            for fd in (self._in, self._out):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """One page target with its own session: load files, run scripts, read what happened."""

    def __init__(self, browser: Chromium, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        self.mark = len(browser.events)

    def send(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, **kw)

    def events(self, *methods: str) -> list[dict[str, Any]]:
        """This tab's events since the last :meth:`load`, of the given methods."""
        return [e for e in self.browser.events[self.mark:]
                if e.get("sessionId") == self.session and e.get("method") in methods]

    def load(self, path: Path, *, offline: bool = True, width: int = 1280) -> None:
        """Open a file, with the network emulated off, in a window ``width`` CSS pixels wide,
        and wait for the page to settle."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        self.send("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.mark = len(self.browser.events)
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        self.browser.wait_event(lambda e: e.get("sessionId") == self.session
                                and e.get("method") == "Page.loadEventFired", since=self.mark)
        self.wait_for("window.assay !== undefined && window.assay.ready === true")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited), by value."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise ProtocolError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            time.sleep(0.05)

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions, error log entries and dialogs."""
        found = []
        for event in self.events("Runtime.consoleAPICalled"):
            params = event["params"]
            if params["type"] in ("error", "warning", "assert"):
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
                found.append(f"console.{params['type']}: {args}")
        for event in self.events("Runtime.exceptionThrown"):
            details = event["params"]["exceptionDetails"]
            found.append(f"exception: {details.get('exception', {}).get('description') or details}")
        for event in self.events("Log.entryAdded"):
            entry = event["params"]["entry"]
            if entry["level"] in ("error", "warning"):
                found.append(f"log {entry['level']} ({entry['source']}): {entry['text']}")
        for event in self.events("Page.javascriptDialogOpening"):
            found.append(f"dialog: {event['params'].get('message')}")
        return found

    def requested_urls(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events("Network.requestWillBeSent")]

    def click(self, selector: str) -> None:
        """A real mouse click (trusted events) at the middle of the first matching element."""
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def type_into(self, selector: str, text: str) -> None:
        """Focus an input, clear it, and type ``text`` as keyboard input."""
        self.evaluate(f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
                      " el.focus(); el.select(); })()")
        self.send("Input.insertText", {"text": text})

    def download(self, selector: str, folder: Path, *, timeout: float = 20.0) -> Download:
        """Click a download button and return the file the browser saved."""
        self.browser.send("Browser.setDownloadBehavior", {
            "behavior": "allowAndName", "downloadPath": str(folder), "eventsEnabled": True})
        since = len(self.browser.events)
        self.click(selector)
        begin = self.browser.wait_event(lambda e: e.get("method") == "Browser.downloadWillBegin",
                                        since=since, timeout=timeout)
        guid = begin["params"]["guid"]
        self.browser.wait_event(lambda e: e.get("method") == "Browser.downloadProgress"
                                and e["params"].get("guid") == guid
                                and e["params"].get("state") == "completed",
                                since=since, timeout=timeout)
        return Download(folder / guid, begin["params"]["suggestedFilename"])

    def screenshot(self, path: Path, *, width: int = 1280, max_height: int | None = None) -> None:
        """A PNG of the whole page (its top ``max_height`` pixels), ``width`` CSS pixels wide."""
        metrics = self.send("Page.getLayoutMetrics")["cssContentSize"]
        height = int(metrics["height"]) if max_height is None else min(int(metrics["height"]),
                                                                       max_height)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        # Charts are redrawn for the new window before the shot (plotly's own resize handler
        # may still be drawing on a loaded machine).
        self.evaluate("Promise.all(Array.from(document.querySelectorAll('.js-plotly-plot'))"
                      ".filter(gd => gd.offsetParent !== null)"
                      ".map(gd => window.Plotly.Plots.resize(gd)))"
                      ".then(() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 300))))")
        shot = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
