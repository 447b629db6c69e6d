"""Reading an mc option from a short piece of text: a label in its usual dress, or its text.

Shared by the loader (a reference answer may be given as the label or as the option's text)
and by answer extraction (the text after `ANSWER:`, a tool argument). Only whole forms are
read: `B`, `(B)`, `[B]`, `<B>`, `B.`, `B)`, `B:`, `Option B`, `B. <the text of B>`, or the
exact text of one option; never a label found inside a longer word or sentence. A label and
the marks around it may be written in full-width forms (`（Ｂ）`, `B。`): they are read as
NFKC reads them, while an option's text is always compared as it is written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

Options = Sequence[tuple[str, str]]

# A label in its dress: optional "option"/"choice", optional brackets, optional . ) : after.
_LABEL_FORM = re.compile(
    r"(?:(?:option|choice)\s*)?[(\[<]?\s*([^\s()\[\]<>.:,;]{1,8})\s*[)\]>]?\s*[.):,;]?",
    re.IGNORECASE,
)
# A label that starts a longer text: "B, since ...", "(B) ...", "B. <text>".
_LEADING_LABEL = re.compile(r"[(\[<]?([^\s()\[\]<>.:,;]{1,8})[)\]>]?(?=[\s.:,;!()>]|$)")
#: Quotes around an answer, and the marks that may end one ("B.", "B。").
QUOTES = "\"'\u201c\u201d\u2018\u2019"
END_MARKS = ".!\u3002\uff0e\uff01"
# What may stand between a label and an option's text: "B) RRC_IDLE", "B - RRC_IDLE", and
# the full-width marks ("B）RRC_IDLE").
_BETWEEN = "\t .:;,)]>-=\u2013\u2014\u3000\u3001\u3002\uff0e\uff1a\uff1b\uff0c\uff09\uff3d\u3011"
_SPACES = re.compile(r"\s+")
_DASHES = " \t-=\u2013\u2014"  # "B - <text of B>"
# Full-width letters, digits and punctuation as NFKC reads them, and the ideographic space,
# full stop, comma and lenticular brackets as their ASCII marks: one character for one, so
# a position in the folded text is the same position in the text as written.
_FOLD = {c: unicodedata.normalize("NFKC", chr(c)) for c in range(0xFF01, 0xFF5F)} | {
    0x3000: " ",
    0x3001: ",",
    0x3002: ".",
    0xFF61: ".",
    0x3010: "[",
    0x3011: "]",
}


def fold_marks(text: str) -> str:
    """`text` with full-width forms as ASCII, character for character (same length)."""
    return text.translate(_FOLD)


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
    stripped = text.strip()
    for form in _spellings(stripped):
        match = _LABEL_FORM.fullmatch(form)
        label = find_label(options, match.group(1)) if match else None
        if label is not None:
            return label
    return None


def label_with_text(options: Options, text: str) -> str | None:
    """The label when `text` is a label followed by exactly its own option's text
    (`B) Access and Mobility Management Function`, `B - <text>`); the text is compared as
    written."""
    stripped = text.strip()
    for form in _spellings(stripped):
        match = _LABEL_FORM.match(form)
        if match is None or match.end() == len(form):
            continue
        label = find_label(options, match.group(1))
        if label is not None:
            rest = squash(stripped[match.end() :].lstrip(_DASHES))
            return label if rest and rest == squash(dict(options)[label]) else None
    return None


def read_option(options: Options, text: str) -> str | None:
    """The label `text` names as a whole: a label form, `B. <text of B>`, or an option's text.

    None when it names none, or when its label and its text disagree (`B. <text of C>`).
    """
    stripped = text.strip()
    if not stripped:
        return None
    return (
        label_form(options, stripped)
        or option_by_text(options, stripped)
        or label_with_text(options, stripped)
    )


def leading_label(options: Options, text: str) -> tuple[re.Match[str] | None, str | None]:
    """The label `text` starts with (its match, in `text` or `text` folded) and the label."""
    match = label = None
    for form in dict.fromkeys((text, fold_marks(text))):
        match = _LEADING_LABEL.match(form)
        label = find_label(options, match.group(1)) if match else None
        if label is not None:
            break
    return match, label


def texts_of_others(options: Options, label: str, rest: str) -> str:
    """The other options whose exact text is all that follows `label` ("B) <text of A>")."""
    rest = rest.lstrip(_BETWEEN).rstrip(END_MARKS).strip(QUOTES).strip()
    if rest[:1] in ("(", "\uff08") and rest[-1:] in (")", "\uff09"):
        rest = rest[1:-1]
    wanted = squash(rest)
    if not wanted:
        return ""
    hits = sorted(other for other, option in options if squash(option) == wanted)
    return "" if label in hits else ", ".join(hits)


def _spellings(text: str) -> tuple[str, ...]:
    """`text` as written, then with its full-width forms folded if it has any."""
    folded = fold_marks(text)
    return (text,) if folded == text else (text, folded)
