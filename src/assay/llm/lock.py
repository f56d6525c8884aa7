"""One judging process per run folder: an exclusive lock on ``RUN/.judge.lock``.

Two ``assay judge`` processes on one run folder would both ask the judgments neither has
stored yet (paying for them twice) and together exceed the concurrency limit. While a
process judges into a folder it holds an exclusive ``flock`` on the folder's lock file,
whose content says who holds it (pid, host, start time); a second process is refused
with that, at once. The kernel releases the lock when its holder exits, however it
exits, so a lock left by a killed process (its pid dead) is taken over, and the taker
is told whose it was. Where ``fcntl`` is missing (Windows) the lock file is created
exclusively instead, and a lock whose pid no longer runs on this host is taken over.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from assay.errors import JudgeError
from assay.llm._types import utc_now

LOCK_FILENAME = ".judge.lock"
"""The lock file's name inside a run folder."""


class RunFolderLocked(JudgeError):
    """Another process is judging into the run folder."""


class RunLock:
    """The exclusive lock of a run folder; ``with RunLock(folder) as lock:`` holds it.

    Attributes
    ----------
    note : str or None
        After acquiring: a sentence saying whose stale lock was taken over, else None.

    Raises
    ------
    RunFolderLocked
        On entering, when another live process holds the lock (the message names its
        pid, host and start time).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with RunLock(folder) as lock:
    ...     try:
    ...         RunLock(folder).acquire()
    ...     except RunFolderLocked as exc:
    ...         print("refused:", "pid" in str(exc))
    refused: True
    >>> with RunLock(folder) as again:  # released on leaving: free again
    ...     again.note is None
    True
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILENAME
        self.note: str | None = None
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock (see the class docstring); return self.

        Raises
        ------
        RunFolderLocked
            Another live process holds it.
        JudgeError
            The run folder or its lock file cannot be made or opened (the message names
            the path and the cause).
        """
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JudgeError(f"{self.folder}: cannot make the run folder ({exc.strerror})") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self._acquire_exclusive_create()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JudgeError(f"{self.path}: cannot open the lock file ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise RunFolderLocked(_held_message(self.folder, holder)) from None
        except BaseException:
            os.close(fd)
            raise
        previous = _read(fd)
        if previous:  # its holder exited without releasing it (killed): the kernel let it go
            self.note = _stale_note(previous)
        _write(fd, _me())
        self._fd = fd
        return self

    def _acquire_exclusive_create(self) -> RunLock:  # pragma: no cover - Windows
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                holder = json.loads(self.path.read_text(encoding="utf-8") or "{}")
                if holder.get("host") == socket.gethostname() and not _alive(int(holder.get("pid", 0))):
                    self.note = _stale_note(holder)
                    self.path.unlink(missing_ok=True)
                    continue
                raise RunFolderLocked(_held_message(self.folder, holder)) from None
            _write(fd, _me())
            self._fd = fd
            return self
        raise RunFolderLocked(_held_message(self.folder, {}))

    def release(self) -> None:
        """Give the lock up (its file stays, emptied; the next holder writes itself in)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - Windows
                os.close(fd)
                self.path.unlink(missing_ok=True)
                return
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _me() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(), "started_at": utc_now()}


def _read(fd: int) -> dict[str, Any]:
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, 4096)
    try:
        value = json.loads(data.decode("utf-8")) if data.strip() else {}
    except ValueError:
        return {"pid": "?", "host": "?", "started_at": "?"}
    return value if isinstance(value, dict) else {}


def _write(fd: int, holder: dict[str, Any]) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, json.dumps(holder).encode("utf-8"))
    os.fsync(fd)


def _alive(pid: int) -> bool:  # pragma: no cover - Windows
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _who(holder: dict[str, Any]) -> str:
    return (f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}, "
            f"started {holder.get('started_at', '?')}")


def _held_message(folder: Path, holder: dict[str, Any]) -> str:
    return (f"{folder}: another assay judge is running into this run folder ({_who(holder)}); "
            "wait for it to finish or stop it (two runs on one folder would pay for judgments twice)")


def _stale_note(holder: dict[str, Any]) -> str:
    return f"took over the lock of a run that is no longer running ({_who(holder)})"
