"""How fast ``assay view`` opens and filters a run of a million judgments.

Run by hand, not by the tests (issue 13, "A tool people reach for"):

    python bench/bench_view.py                 # 1,000,000 judgments
    python bench/bench_view.py --n 100000      # a smaller run
    python bench/bench_view.py --no-browser    # the index and the HTTP server only

A synthetic run store (``tests/view/big_store.py``: pairwise judgments, 8 systems, 3 judges,
4 criteria, 5 tasks, ~5,200 items, one parse error in 997) is written once into ``--folder``
(default: a temporary folder) and reused when it is already there. Then, with a private
index cache:

* **first open**: indexing the store (once per store; the index is cached);
* **reopen**: opening again from the cached index, as every later ``assay view`` does;
* each filter as the server answers it (``/api/rows``: the page of 50 and the exact count),
  median of ``--repeat`` requests over HTTP on 127.0.0.1, and one judgment's detail;
* in headless Chromium (when found): loading the page until its first page of rows is drawn,
  and each filter chosen in the page until the rows are redrawn.

The target is under 1 s per action once the store is indexed. A free-text filter is looked
up in the store's trigram index (FTS5, built with the index): a rare text is found at once
wherever it starts (``oint 77777``), a common one stops counting at 1,000, an absent one
is answered from the index, and one or two characters go through the index's list of
trigrams. Each is printed, with the index's build time and size.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]

from tests.view.big_store import write_big_store  # noqa: E402

from assay.view import JudgmentIndex, ViewServer  # noqa: E402

TARGET_SECONDS = 1.0
FILTERS: list[tuple[str, str]] = [
    ("no filter", ""),
    ("page 10,000 (offset 500,000)", "offset=500000"),
    ("system", "arm=arm3"),
    ("judge", "judge=judge1"),
    ("criterion", "criterion=criterion2"),
    ("task", "task=task4"),
    ("item", "item=q1234"),
    ("verdict failed", "verdict=failed"),
    ("verdict win", "verdict=win"),
    ("failure kind", "failure_kind=parse_error"),
    ("flipped pair", "flipped=yes"),
    ("flipped pair + judge + criterion", "flipped=yes&judge=judge1&criterion=criterion2"),
    ("system + judge + criterion", "arm=arm3&judge=judge1&criterion=criterion2"),
    ("text, common word", "q=covers+point"),
    ("text, rare word", "q=point+{rare}+of"),
    ("text, inside a word", "q=oint+{rare}+of"),
    ("text, no such text", "q=zebra+crossing"),
    ("text, 2 characters", "q=Q7"),
    ("text, 2 characters, none", "q=zq"),
    ("text, 1 character", "q=7"),
    ("text, 1 character, none", "q=%23"),
    ("text + item", "q=covers+point&item=q1234"),
    ("text + system + judge", "q=answer+2&arm=arm3&judge=judge1"),
]


def _get(port: int, path: str) -> tuple[float, dict]:
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path)
        body = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    return time.perf_counter() - start, body


def _line(label: str, seconds: float, note: str = "") -> None:
    mark = "" if seconds < TARGET_SECONDS else "  (over 1 s)"
    print(f"  {label:<34} {seconds:8.3f} s  {note}{mark}", flush=True)


def _browser(url: str) -> None:
    from tests.report.html._cdp import Chromium, find_chromium
    from tests.view.conftest import open_view

    binary = find_chromium()
    if binary is None:
        print("Chromium: not found ($ASSAY_CHROMIUM or chromium on the PATH); skipped")
        return
    chromium = Chromium(binary)
    try:
        tab = chromium.new_tab()
        print("in Chromium (until the rows are drawn)")
        for label in ("open the page (fresh browser)", "open the page again"):
            start = time.perf_counter()
            open_view(tab, url, timeout=120)
            _line(label, time.perf_counter() - start)
        for name, value, label in (("judge", "judge1", "choose a judge"),
                                   ("arm", "arm3", "then a system"),
                                   ("verdict", "failed", "then verdict failed"),
                                   ("verdict", "", "back to any verdict"),
                                   ("flipped", "yes", "then flipped pairs")):
            loads = tab.evaluate("window.assay.loads")
            start = time.perf_counter()
            tab.evaluate(f"(() => {{ const s = document.querySelector('select[name={name}]');"
                         f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")
            tab.wait_for(f"window.assay.loads > {loads}", timeout=120)
            status = tab.evaluate("document.querySelector('#status').textContent")
            _line(label, time.perf_counter() - start, status)
        loads = tab.evaluate("window.assay.loads")
        start = time.perf_counter()
        tab.evaluate("(() => { document.querySelector('input[name=q]').value = 'overs poin';"
                     " document.getElementById('filters').requestSubmit(); })()")
        tab.wait_for(f"window.assay.loads > {loads}", timeout=120)
        _line("then text inside a word", time.perf_counter() - start,
              tab.evaluate("document.querySelector('#status').textContent"))
        start = time.perf_counter()
        tab.click("#rows tbody tr")
        tab.wait_for("window.assay.detailShown !== undefined", timeout=120)
        _line("open one judgment", time.perf_counter() - start)
        problems = tab.problems()
        print(f"  page problems: {problems or 'none'}")
    finally:
        chromium.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="judgments in the run store")
    parser.add_argument("--folder", type=Path, default=None, help="where the run store is kept")
    parser.add_argument("--repeat", type=int, default=3, help="requests per filter (median)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium timings")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-view-"))
    folder = args.folder or work / f"run-{args.n}"
    os.environ.setdefault("ASSAY_CACHE_DIR", str(work / "cache"))  # set it to reuse an index
    if not (folder / "judgments.sqlite").is_file():
        start = time.perf_counter()
        write_big_store(folder, args.n)
        print(f"wrote a run store of {args.n:,} judgments in {time.perf_counter() - start:.1f} s "
              f"({(folder / 'judgments.sqlite').stat().st_size / 1e6:,.0f} MB)", flush=True)
    print(f"run store: {folder}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("index")
    cached = any((Path(os.environ["ASSAY_CACHE_DIR"]) / "view").glob("*.sqlite"))
    start = time.perf_counter()
    with JudgmentIndex(folder) as index:
        files = list((Path(os.environ["ASSAY_CACHE_DIR"]) / "view").glob("*.sqlite"))
        size = sum(f.stat().st_size for f in files) / 1e6
        _line("first open (index from the cache)" if cached else "first open (indexing, once)",
              time.perf_counter() - start, f"{index.count:,} rows; index {size:,.0f} MB; "
              f"text: {index.text_search}")
    start = time.perf_counter()
    with JudgmentIndex(folder) as index, ViewServer(index) as server:
        _line("reopen (cached index)", time.perf_counter() - start)
        server.start()
        port = server.server_address[1]
        print(f"HTTP /api/rows on 127.0.0.1 (page of 50 + count; median of {args.repeat})")
        worst = 0.0
        for label, query in FILTERS:
            query = query.format(rare=args.n * 7 // 9)  # one judgment's text: "point N of"
            times, body = [], {}
            for _ in range(args.repeat):
                seconds, body = _get(port, "/api/rows?" + query)
                times.append(seconds)
            median = statistics.median(times)
            worst = max(worst, median)
            more = " or more" if body["capped"] else ""
            _line(label, median, f"{body['total']:,}{more} rows")
        seconds, _ = _get(port, "/api/judgment?id=654321" if index.count > 654321 else "/api/judgment?id=1")
        _line("one judgment's detail", seconds)
        print(f"slowest indexed filter: {worst:.3f} s (target < {TARGET_SECONDS:.0f} s); "
              f"load average {os.getloadavg()[0]:.1f}")
        if not args.no_browser:
            _browser(server.url)


if __name__ == "__main__":
    main()
