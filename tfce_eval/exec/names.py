"""Which function names may be looked up in a functions directory at all, and what a look-up
found.

Pure and small: the harness asks it before sending a name to a worker, and the worker asks
it again before importing anything.
"""

from __future__ import annotations

import keyword
import re
from enum import StrEnum


class Resolution(StrEnum):
    """What looking a function up in a functions directory found. A worker sends it to the
    harness as its text (the `status` of a `resolve` reply)."""

    OK = "ok"  # defined there, a function: it can be run
    MISSING = "missing"  # not implemented there
    BROKEN = "broken"  # its module is there but cannot be imported


_NAME_PART = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def check_name(name: str) -> str | None:
    """Why `name` may not be looked up in a functions directory, or None when it may.

    A name is one or more ASCII identifiers joined by dots; no part may start with `_`
    (private) or be empty (so `..evil` and `a..b` never reach outside the directory).
    """
    if not name:
        return "the function name is empty"
    if len(name) > 200:
        return "the function name is longer than 200 characters"
    for part in name.split("."):
        if not part:
            return f"{name!r} is not a function name (empty part between dots)"
        if part.startswith("_"):
            return f"{name!r} is private (a part starts with '_')"
        if not _NAME_PART.fullmatch(part) or keyword.iskeyword(part):
            return f"{name!r} is not a dotted Python name"
    return None
