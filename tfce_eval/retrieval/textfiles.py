"""Opening a dataset's or a run's file, and reading its lines of text, as the readers do.

A file is opened without blocking, then read blocking as usual (as `tfce_eval.jsonl`
opens its files): a named pipe no one writes to reads as empty instead of hanging the
command, and a pipe someone writes to (`<(zcat qrels.gz)`) is read as it comes. Lines are
UTF-8, a byte-order mark at the start of the first dropped; a line that holds carriage
returns inside was ended by CR alone, which ends no line here, and the message says so.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from tfce_eval.errors import DataError

BOM = b"\xef\xbb\xbf"

#: What a message adds about a line ended by CR alone, and the fix.
CR_NOTE = "; the line holds carriage returns (CR)"
CR_FIX = "save the file with LF (or CRLF) line ends: CR alone does not end a line"


def open_bytes(path: Path) -> BinaryIO:
    """`path` opened for reading bytes; DataError naming it when it cannot be."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise DataError("file not found", path=str(path), hint="check the path") from None
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except OSError as exc:
        os.close(fd)
        raise unreadable(path, exc) from None


def unreadable(path: Path, exc: OSError) -> DataError:
    """The error for a file that cannot be opened or read."""
    return DataError(
        f"cannot read the file: {exc.strerror or exc}",
        path=str(path),
        hint="check the file's permissions",
    )


def is_pipe(handle: BinaryIO) -> bool:
    """Whether an open file is a pipe (one that gave nothing had no writer)."""
    return stat.S_ISFIFO(os.fstat(handle.fileno()).st_mode)


def line_text(raw: bytes, number: int) -> str:
    """One line as text (the BOM of line 1 dropped); UnicodeDecodeError if not UTF-8."""
    if number == 1 and raw.startswith(BOM):
        raw = raw[len(BOM) :]
    return raw.decode("utf-8")


def not_utf8(exc: UnicodeDecodeError) -> str:
    """What a line that is not UTF-8 is, as `validate` words it for JSON Lines."""
    return f"not UTF-8 (byte 0x{exc.object[exc.start]:02x})"


def cr_note(raw: bytes) -> str:
    """CR_NOTE when the line holds carriage returns before its end, else ""."""
    return CR_NOTE if b"\r" in raw.rstrip(b"\r\n") else ""
