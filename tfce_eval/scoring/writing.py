"""Writing result files so that a reader never sees half of one, and nothing already saved is
lost when a write fails.

- `Staging` writes several files to temporary names in one directory and renames them into
  place together at the end (`commit`), after removing the files that the new ones make
  stale. A failure before the commit leaves every earlier file as it was.
- No temporary file outlives its writer, whatever stops it (a Ctrl-C included), except
  when the process is killed: `remove_temporaries` removes those a run left.

A file that cannot be written (a full disk, a directory without write permission, a path
through a file) is a DataError naming the directory, the reason and the fix that suits it,
never an OSError traceback.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tfce_eval import stopping
from tfce_eval.errors import DataError
from tfce_eval.scoring.encoding import dumps_strict, utf8_safe

_NO_SPACE = "free some disk space, or give a directory on another disk"
_NO_DIRECTORY = (
    ": a part of the path is a file, or no directory can be made there",
    "give a directory that exists, or one inside a directory you can write to",
)
#: Why a write failed, by errno: what to add to the message, and the fix.
_WRITE_ADVICE: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("", _NO_SPACE),
    getattr(errno, "EDQUOT", errno.ENOSPC): ("", _NO_SPACE),
    errno.EACCES: (": no permission to write here", "give a directory you can write to"),
    errno.EPERM: (": no permission to write here", "give a directory you can write to"),
    errno.EROFS: ("", "give a directory on a file system you can write to"),
    errno.ENOENT: _NO_DIRECTORY,
    errno.ENOTDIR: _NO_DIRECTORY,
    errno.EEXIST: _NO_DIRECTORY,  # mkdir: the path is a file
}


def write_error(exc: OSError, directory: Path) -> DataError:
    """The DataError for an OSError met while writing into `directory`: the reason, and
    the fix that suits it (a full disk, no permission, a path that is not a directory)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    what, fix = _WRITE_ADVICE.get(
        exc.errno or 0, ("", "check the directory, or give another one you can write to")
    )
    return DataError(
        f"cannot write the result files here ({reason}){what}", path=str(directory), hint=fix
    )


@contextmanager
def writing(directory: Path) -> Iterator[None]:
    """Turn an OSError inside the block into a DataError about writing into `directory`."""
    try:
        yield
    except OSError as exc:
        raise write_error(exc, directory) from None


#: How a temporary file is opened: created here and now or not at all (never a file or
#: link that was there), not inherited by child processes.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _new_file(path: Path) -> tuple[int, str]:
    """A new file beside `path`, `.<name>.<8 random hex digits>`, with the permissions any new
    file gets (0666 less the umask, applied by the system as for any other file)."""
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(4).hex()}")
        try:
            return os.open(tmp, _NEW_FILE, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


class _Temporary:
    """A new file beside `path`, `.<name>.<8 hex digits>`, that becomes `path` (`keep`)
    or is removed (`discard`), with the directories made for it when they are left empty.
    Its name is known from the moment the file exists (signals held in between), so
    that a Ctrl-C at any moment leaves no temporary file behind."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tmp: str | None = None
        self.fh: IO[str] | None = None
        self.made: list[Path] = []  # the directories `create` made, deepest first

    def create(self) -> IO[str]:
        parent = self.path.parent
        with stopping.held():
            self.made = _missing(parent)
            with writing(parent):
                parent.mkdir(parents=True, exist_ok=True)
                fd, self.tmp = _new_file(self.path)
            try:
                self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
            except BaseException:
                os.close(fd)
                raise
        return self.fh

    def keep(self) -> None:
        """Write the file out (synced) and rename it to `path`."""
        assert self.fh is not None and self.tmp is not None
        if not self.fh.closed:
            _finish(self.fh)
        os.replace(self.tmp, self.path)
        self.tmp, self.made = None, []

    def discard(self) -> None:
        """Close and remove the file (unless kept), and the directories made for it that
        are empty. Never raises an OSError: it runs while another error goes up."""
        fh, tmp, made = self.fh, self.tmp, self.made
        self.tmp, self.made = None, []
        if fh is not None and not fh.closed:
            with suppress(OSError):  # a full disk refuses the flush again: the file goes
                fh.close()
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)
        for directory in made:
            try:
                directory.rmdir()
            except OSError:
                break


def _missing(directory: Path) -> list[Path]:
    """`directory` and those of its parents that do not exist yet, deepest first."""
    missing = []
    for path in (directory, *directory.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    return missing


def _finish(fh: IO[str]) -> None:
    fh.flush()
    os.fsync(fh.fileno())
    fh.close()


#: A temporary file's name: `.<name>.<8 hex digits>` (see _new_file).
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{8}")


def remove_temporaries(directory: Path, names: Iterable[str]) -> None:
    """Remove the temporary files of `names` in `directory` that a killed writer left
    (`.<name>.<8 hex digits>`). Only where no other process writes at the same time (a
    run's directory, which the run has locked)."""
    wanted = set(names)
    try:
        entries = list(os.scandir(directory))
    except OSError:  # no such directory yet: nothing left there
        return
    for entry in entries:
        found = _TEMPORARY.fullmatch(entry.name)
        if found and found["name"] in wanted and not entry.is_dir(follow_symlinks=False):
            with suppress(OSError):
                os.unlink(entry.path)


def probe_writable(directory: Path) -> None:
    """Make `directory`, create one temporary file in it, and remove both again: a
    DataError now, before long work whose result would be written there, rather than
    after it. Only a real write tells (root passes every permission check, and a
    directory cannot be made under /proc whatever its mode says)."""
    temp = _Temporary(directory / "probe")
    try:
        temp.create()
    finally:
        temp.discard()


def write_text_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write `text` (a string, or its pieces in order, e.g. lines made as they are
    written) to a temporary file beside `path` and rename it into place."""
    temp = _Temporary(path)
    try:
        fh = temp.create()
        with writing(path.parent):
            for chunk in (text,) if isinstance(text, str) else text:
                fh.write(utf8_safe(chunk))
            temp.keep()
    except BaseException:
        temp.discard()
        raise


def write_json(path: Path, obj: Any) -> None:
    write_text_atomic(path, dumps_strict(obj, indent=2) + "\n")


class AtomicLines:
    """Writes JSON lines to a temporary file that replaces `path` only when all is written.

    `with AtomicLines(path) as out: out.write(row)`: an exception inside the block leaves
    `path` as it was (an earlier file stays whole) and removes the temporary file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._temp: _Temporary | None = None
        self._fh: IO[str] | None = None

    def __enter__(self) -> AtomicLines:
        temp = self._temp = _Temporary(self.path)
        try:
            self._fh = temp.create()
        except BaseException:
            temp.discard()
            raise
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        if self._fh is None:
            raise RuntimeError("AtomicLines used outside its `with` block")
        try:
            self._fh.write(dumps_strict(row) + "\n")
        except OSError as exc:
            raise write_error(exc, self.path.parent) from None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        temp, self._temp, self._fh = self._temp, None, None
        if temp is None:
            return
        try:
            if exc_type is None:
                with stopping.held(), writing(self.path.parent):
                    temp.keep()
        finally:
            temp.discard()


class StagedLines:
    """The writer of one staged JSON Lines file (see `Staging.lines`)."""

    def __init__(self, fh: IO[str], directory: Path) -> None:
        self._fh = fh
        self._directory = directory

    def write(self, row: Mapping[str, Any]) -> None:
        try:
            self._fh.write(dumps_strict(row) + "\n")
        except OSError as exc:  # per row: a plain try costs less than a context manager
            raise write_error(exc, self._directory) from None


class Staging:
    """Files written to temporary names in `directory`, renamed into place together.

    ```
    with Staging(directory) as stage:
        out = stage.lines("scores.jsonl"); out.write(row) ...
        stage.text("summary.json", text)
        stage.commit(stale=("report.md", "report.html"))
    ```
    `commit` removes the `stale` files first, then renames the new files in the order they
    were staged (the last one is the one a reader trusts: summary.json). Leaving the block
    without a commit, or with an exception, removes the temporary files (and `directory`
    when it made it) and changes nothing.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._staged: list[_Temporary] = []

    def __enter__(self) -> Staging:
        return self

    def _stage(self, name: str) -> IO[str]:
        temp = _Temporary(self.directory / name)
        self._staged.append(temp)  # before it is made: leaving the block removes it
        return temp.create()

    def lines(self, name: str) -> StagedLines:
        return StagedLines(self._stage(name), self.directory)

    def text(self, name: str, text: str | Iterable[str]) -> None:
        """Stage `name` with `text`, or with the pieces of text it yields, in order."""
        fh = self._stage(name)
        with writing(self.directory):
            for piece in (text,) if isinstance(text, str) else text:
                fh.write(utf8_safe(piece))

    def commit(self, *, stale: Iterable[str] = ()) -> None:
        # Signals held: a stop between two renames would leave files of two scores.
        with stopping.held(), writing(self.directory):
            self._commit(stale)

    def _commit(self, stale: Iterable[str]) -> None:
        for temp in self._staged:
            assert temp.fh is not None
            _finish(temp.fh)
        for name in stale:
            (self.directory / name).unlink(missing_ok=True)
        # Whatever the last staged file replaces goes first, so that a crash between two
        # renames never leaves a new file beside the old one that vouches for it.
        if self._staged:
            self._staged[-1].path.unlink(missing_ok=True)
        for temp in self._staged:
            temp.keep()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # The last made first: the first one's directory is empty only after the others.
        staged, self._staged = self._staged, []
        for temp in reversed(staged):
            temp.discard()
