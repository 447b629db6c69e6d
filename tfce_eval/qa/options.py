"""Reading an mc option from a short piece of text: a label in its usual dress, or its text.

Shared by the loader (a reference answer may be given as the label or as the option's text)
and by answer extraction (the text after `ANSWER:`, a tool argument). Only whole forms are
read: `B`, `(B)`, `[B]`, `B.`, `B)`, `B:`, `Option B`, `B. <the text of B>`, or the exact
text of one option; never a label found inside a longer word or sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Options = Sequence[tuple[str, str]]

# A label in its dress: optional "option"/"choice", optional brackets, optional . ) : after.
_LABEL_FORM = re.compile(
    r"(?:(?:option|choice)\s*)?[(\[]?\s*([^\s()\[\].:,;]{1,8})\s*[)\]]?\s*[.):,;]?",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")


def squash(text: str) -> str:
    """Text compared loosely: case folded, runs of white space as one, end punctuation off."""
    return _SPACES.sub(" ", text).strip().rstrip(".;,!").strip().casefold()


def find_label(options: Options, token: str) -> str | None:
    """The item's own label spelled `token`: exactly, else ignoring case (if only one fits)."""
    for label, _ in options:
        if label == token:
            return label
    folded = token.casefold()
    hits = [label for label, _ in options if label.casefold() == folded]
    return hits[0] if len(hits) == 1 else None


def option_by_text(options: Options, text: str) -> str | None:
    """The label of the one option whose text is exactly `text` (compared loosely)."""
    wanted = squash(text)
    if not wanted:
        return None
    hits = {label for label, option in options if squash(option) == wanted}
    return hits.pop() if len(hits) == 1 else None


def label_form(options: Options, text: str) -> str | None:
    """The label when `text` is nothing but a label in its dress (`(B)`, `B.`, `Option B`)."""
    match = _LABEL_FORM.fullmatch(text.strip())
    if match is None:
        return None
    return find_label(options, match.group(1))


def read_option(options: Options, text: str) -> str | None:
    """The label `text` names as a whole: a label form, `B. <text of B>`, or an option's text.

    None when it names none, or when its label and its text disagree (`B. <text of C>`).
    """
    stripped = text.strip()
    if not stripped:
        return None
    label = label_form(options, stripped)
    if label is not None:
        return label
    by_text = option_by_text(options, stripped)
    if by_text is not None:
        return by_text
    # A label followed by its option's text: "B) Access and Mobility Management Function".
    match = _LABEL_FORM.match(stripped)
    if match is not None and match.end() < len(stripped):
        label = find_label(options, match.group(1))
        rest = stripped[match.end() :]
        if label is not None and squash(rest) == squash(dict(options)[label]):
            return label
    return None
