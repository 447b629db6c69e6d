"""Opening a dataset's or a run's file, and reading its lines of text, as the readers do.

A file is opened without blocking, then read blocking as usual (as `tfce_eval.jsonl`
opens its files): a named pipe no one writes to reads as empty instead of hanging the
command, and a pipe someone writes to (`<(zcat qrels.gz)`) is read as it comes. Lines are
UTF-8, a byte-order mark at the start of the first dropped; a line that holds carriage
returns inside was ended by CR alone, which ends no line here, and the message says so.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from tfce_eval.jsonl.files import open_bytes as open_bytes
from tfce_eval.jsonl.files import unreadable as unreadable

BOM = b"\xef\xbb\xbf"

#: What a message adds about a line ended by CR alone, and the fix.
CR_NOTE = "; the line holds carriage returns (CR)"
CR_FIX = "save the file with LF (or CRLF) line ends: CR alone does not end a line"


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
