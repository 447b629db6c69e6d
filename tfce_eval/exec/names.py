"""Which function names may be looked up in a functions directory at all.

Pure and small: the harness asks it before sending a name to a worker, and the worker asks
it again before importing anything.
"""

from __future__ import annotations

import keyword
import re

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
