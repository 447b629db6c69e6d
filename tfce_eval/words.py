"""Counts in words for every message and report: `1 id is`, `2 ids are`, `1 category`;
lists of ids, files or values as every message gives them: `a, b, c, d, e and 7 more`;
the line that names a run under every task's report title."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for exactly one: counted(n, "item has", "items have")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def article(word: str) -> str:
    """`word` behind its indefinite article as it is said: `a qa`, `a retrieval`, `an fc`
    (a short abbreviation is spelt out, and `f`, `l`, `m`, `n`, `r`, `s`, `x` are said
    with a vowel first)."""
    spelt = len(word) <= 3 and word[:1] in tuple("flmnrsx")
    return f"{'an' if spelt or word[:1] in tuple('aeiou') else 'a'} {word}"


def listed(names: Sequence[str], shown: int = 5) -> str:
    """The first `shown` names, then how many more: `a`, `a, b`, `a, b, c, d, e and 7 more`.

    Names that hold a comma themselves (`x.json, line 3`) are parted by semicolons, and
    so is the count: `a in x.json, line 3; b in y.json, line 1; and 2 more`."""
    head = names[:shown]
    sep = "; " if any(", " in name for name in head) else ", "
    text = sep.join(head)
    more = len(names) - len(head)
    if more > 0:
        text += f"{sep.rstrip(' ,')} and {more} more"
    return text


def of_failing(shown: int, failing: int) -> str:
    """`1 of 1 failing item`, `2 of 5 failing items`."""
    return f"{shown} of {counted(failing, 'failing item')}"


def shown_path(path: object) -> str:
    """A path as a message shows it: as it is, or quoted as a POSIX shell quotes it when
    it holds white space or a quote, so that it reads (and pastes) as one word and the
    command line's folding keeps it on one line."""
    text = str(path)
    if not any(c.isspace() or c in "'\"" for c in text):
        return text
    # A place that is not a line is part of a location's path (`test.parquet, row 5`,
    # model.Finding): the file is quoted, its place stays outside the quotes.
    file, comma, place = text.rpartition(", ")
    head, _, number = place.partition(" ")
    if not (comma and head in ("row", "record", "line") and number.isdigit()):
        file, place = text, ""
    else:
        place = ", " + place
    if not any(c.isspace() or c in "'\"" for c in file):
        return text
    return "'" + file.replace("'", "'\"'\"'") + "'" + place


def about_line(name: str, pairs: Iterable[tuple[str, str]]) -> str:
    """A run's line under a report's title, in every task's report: `name: model
    openai/m; mode fc; dataset ...`."""
    details = "; ".join(f"{key} {value}" for key, value in pairs)
    return f"{name}: {details}" if details else name


def model_shown(provider: object, model: object) -> str:
    """A model as reports name it: with its provider (`vllm/m`), unless it says it."""
    shown = str(model)
    return f"{provider}/{shown}" if provider and not shown.startswith(f"{provider}/") else shown
