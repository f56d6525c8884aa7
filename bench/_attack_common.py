"""What every part of bench_attack.py shares: this tree's assay run as a user runs it, the
secrets planted, the findings list, and reading a run store's counts."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]  # the assay of this tree, in this process as in the children


SRC = ROOT / "src"
EXAMPLE = ROOT / "examples" / "run"
KEY = "kq7Vr2Lw9Xe4Zt8Nb3"  # the secrets of tests/cli/test_secrets_on_disk.py: no guessable pattern
TOKEN = "tq5Hm8Jd2Ws6Pc1Fy0"
BATCH = {"transport": "batch", "batch_poll_s": 0.02, "batch_poll_max_s": 0.05}
GEVAL_SCORES = {"1": 0.1, "2": 0.15, "3": 0.25, "4": 0.3, "5": 0.2}
STORED = re.compile(r"stored (\d+) of (\d+) planned")


@dataclass
class Findings:
    """What broke, each with how to reproduce it."""

    lines: list[str] = field(default_factory=list)

    def add(self, part: str, what: str, how: str) -> None:
        self.lines.append(f"[{part}] {what}\n    reproduce: {how}")


FOUND = Findings()


# -- running assay ---------------------------------------------------------------------------

def child_env(cwd: Path, **extra: str) -> dict[str, str]:
    """This tree's source first, caches and temp files inside ``cwd``, no proxy, no debug."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASSAY_DEBUG", "ASSAY_CACHE_DIR", "OPENAI_API_KEY", "OPENAI_BASE_URL")
           and not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=str(SRC), XDG_CACHE_HOME=str(cwd / "xdg-cache"), NO_PROXY="*",
               no_proxy="*", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


@dataclass
class Done:
    argv: list[str]
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    def one_line_refusal(self) -> bool:
        """Exit 2 with exactly one line on stderr, an ``error:`` line, no traceback."""
        lines = [line for line in self.err.splitlines() if line.strip()]
        return (self.code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
                and "Traceback" not in self.text and "internal error" not in self.text)


def assay(argv: list[str], cwd: Path, *, timeout: float = 300, **env: str) -> Done:
    """``assay ARGV`` as a child process in ``cwd``."""
    done = subprocess.run([sys.executable, "-m", "assay", *argv], cwd=cwd, env=child_env(cwd, **env),
                          capture_output=True, text=True, timeout=timeout)
    return Done(argv, done.returncode, done.stdout, done.stderr)


def shell(done: Done, cwd: Path, env: str = "") -> str:
    return f"cd {cwd} && {env}{'' if not env else ' '}assay {' '.join(done.argv)}"


def count_rows(store: Path) -> tuple[int, int]:
    """Judgments stored and of them failed, read on a connection of our own (0, 0: no store)."""
    if not store.is_file():
        return 0, 0
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        n, failed = conn.execute(
            "SELECT count(DISTINCT key), coalesce(sum(failed), 0) FROM judgments").fetchone()
        return int(n), int(failed)
    finally:
        conn.close()
