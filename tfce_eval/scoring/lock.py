"""One command at a time in a run directory: an exclusive lock held while it works there.

Two runs in one directory would ask every item twice and write duplicate answers, and a
second run's `--force` would delete the file the first is appending to. Two scores into
one directory would leave scores from one beside reports from the other; a score of a
run's outputs while the run ends would put a summary of fewer lines over the run's own;
a run starting would delete a live score's staged files; two retrieves would leave one's
run.json beside the other's run.trec. So `run`, `score` and `retrieve` each take an
exclusive `flock` on `.lock` in the directory before they read or delete anything there,
and write who holds it (command, process id, host, start time) into that file for the
message the other gets. The kernel releases the lock when the process ends, however
it ends, so a killed command never leaves a stale lock. (POSIX only: fcntl.)
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from tfce_eval.errors import RunError
from tfce_eval.scoring.writing import write_error

LOCK_NAME = ".lock"
#: Tries at the lock while rivals remove its file or directory under us; each lost
#: race means a rival finished, so a few suffice.
_ATTEMPTS = 100
#: The commands that lock a directory, and the fix each gives when another holds it.
_FIXES = {
    "run": "wait for it to end or stop it, or choose another --run-name",
    "score": "wait for it to end, or give another --out",
    "retrieve": "wait for it to end, or give another --out",
}


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it: `another run (process ...)`."""
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        who = f"process {info['pid']} on {info['host']}, started {info['started_at']}"
    except (OSError, ValueError, KeyError, TypeError):
        # Between a rival's lock and its words: its command is not known yet.
        return "another command (a process that has not yet said who it is)"
    # A holder that does not say its command is a run: only runs locked before scores did.
    command = info.get("command") if isinstance(info.get("command"), str) else "run"
    return f"another {command if command in _FIXES else 'run'} ({who})"


class RunLock:
    """`with RunLock(run_dir):` the directory is this command's until the block ends.

    `command` is `run`, `score` or `retrieve`: what the lock says of its holder to the
    other, and the fix the holder's rival is given. A directory that cannot be made or
    written is a RunError for a run (it names the run directory), a DataError for the
    others (worded as any failure to write the result files)."""

    def __init__(self, directory: Path, command: str = "run") -> None:
        if command not in _FIXES:
            raise ValueError(f"command: {command!r} is not one of {', '.join(_FIXES)}")
        self.directory = directory
        self.command = command
        self.path = directory / LOCK_NAME
        self._fd: int | None = None
        self._made: list[Path] = []  # the directories acquire made, deepest first

    def acquire(self) -> None:
        """Take the lock; RunError naming the holder when another command has it."""
        try:
            for attempt in range(_ATTEMPTS):
                # Each attempt keeps the directories it made: a rival that made them
                # may remove them between our attempts, and then we make them again.
                self._made = _missing(self.directory) or self._made
                self.directory.mkdir(parents=True, exist_ok=True)
                try:
                    fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
                except FileNotFoundError:
                    # The holder before us removed the directory it had made, between our
                    # mkdir and our open: make it again.
                    if attempt + 1 == _ATTEMPTS:
                        raise
                    continue
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    holder = _holder(fd)
                    os.close(fd)
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise
                    raise RunError(
                        f"{self.directory} is in use by {holder}\n  fix: {_FIXES[self.command]}"
                    ) from None
                # The holder before us may have removed the file between our open and our
                # lock: then we hold a lock on a file no one else will see. Try again.
                try:
                    same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    same = False
                if same:
                    break
                os.close(fd)
            else:  # rivals took and dropped it under us 100 times over
                raise RunError(f"{self.directory}: could not take its lock; try again")
            info = {
                "command": self.command,
                "pid": os.getpid(),
                # The host name as socket.gethostname() gives it, without importing
                # socket (and selectors) into every score.
                "host": os.uname().nodename,
                "started_at": _now(),
            }
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(info).encode("utf-8") + b"\n", 0)
            except OSError:
                os.close(fd)  # not held on: a long-lived caller would keep it locked
                raise
            self._fd = fd
        except OSError as exc:
            # Worded as any failure to write results is: the reason, and the fix that suits it.
            error = write_error(exc, self.directory)
            if self.command != "run":
                raise error from None
            hint = error.hint
            raise RunError(
                f"cannot use {self.directory} as the run directory: "
                f"{exc.strerror or exc}\n  fix: {hint}"
            ) from None

    def release(self) -> None:
        """Remove the lock file (while still holding it, so no one locks it in between)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with suppress(OSError):
            self.path.unlink()
        os.close(fd)
        for made in self._made:  # only those the run left empty (--out too)
            try:
                made.rmdir()
            except OSError:
                break

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _now() -> str:
    """The time now, in UTC, to the second, as run.json writes its times."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _missing(directory: Path) -> list[Path]:
    """`directory` and those of its parents that do not exist yet, deepest first."""
    missing = []
    for path in (directory, *directory.parents):
        if path.exists():
            break
        missing.append(path)
    return missing
