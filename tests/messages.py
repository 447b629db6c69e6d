"""What the command line prints for a person: folded at 80 columns, read back whole.

A message folds under itself (continuation lines indented four spaces) and its `  fix:`
line folds under the fix (seven spaces). `unfold` joins the pieces back, so a test can
read a message as one line whatever the length of the paths in it.
"""

from __future__ import annotations

import re

#: A path with spaces, quoted as a shell quotes it: one unbreakable word.
QUOTED = re.compile(r"'[^'\n]*'")


def assert_folded(text: str) -> None:
    """Every line fits 80 columns, but for one that is a single unbreakable word (a
    path with spaces in it is quoted, and is one word)."""
    for line in text.splitlines():
        words = QUOTED.sub("path", line).split()
        assert len(line) <= 80 or len(words) <= 2, f"over 80 columns: {line!r}"


def unfold(text: str) -> str:
    """`text` with each folded message back on one line (and each fix on its own)."""
    assert_folded(text)
    out: list[str] = []
    for line in text.strip("\n").split("\n"):
        if out and (line.startswith("    ") or line.startswith("       ")):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)
