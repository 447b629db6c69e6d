"""Turning a category field, a file name or an item id into a `Category`, once.

The text is cut into lower-case tokens at every character that is not a letter or a digit
(`BFCL_v3_live_parallel_multiple.json` -> `bfcl v3 live parallel multiple json`), then:

1. A token (or adjacent pair) naming a kind of data the harness does not check is a refusal:
   `java`, `javascript`, `sql`, `exec`, `executable`, `rest`, `relevance`, `chatable`,
   `memory`, `agentic`, `multi turn`, `web search`, `format sensitivity`. Those return None
   and `unsupported_category` names them.
2. Longest spelling first: the adjacent pairs `parallel multiple` and `parallel multi` are
   parallel_multiple; otherwise the single tokens `parallel`, `multiple`, `simple` and
   `irrelevance` name their category.
3. Two different categories in one text (`simple_multiple`) are ambiguous: None.

So TFCE's `*_simple`, `*_multiple_function`, `*_parallel_function`,
`*_parallel_multiple_function`, BFCL's `BFCL_v3_simple.json`, `BFCL_v4_simple_python`,
`live_parallel_multiple`, `live_irrelevance`, and ids such as `base_parallel_multi_7`,
`simple_python_0` or `live_multiple_3-1-0` all parse; `simple_java` does not. Every other
module asks this one; none decides a category by looking for substrings.
"""

from __future__ import annotations

import itertools
import re

from tfce_eval.model import Category

_SPLIT = re.compile(r"[^0-9a-z]+")

_UNSUPPORTED_TOKENS = frozenset(
    {
        "java",
        "javascript",
        "sql",
        "exec",
        "executable",
        "rest",
        "relevance",
        "chatable",
        "memory",
        "agentic",
    }
)
_UNSUPPORTED_PAIRS = {
    ("multi", "turn"): "multi_turn",
    ("web", "search"): "web_search",
    ("format", "sensitivity"): "format_sensitivity",
}
_PAIRS = {
    ("parallel", "multiple"): Category.PARALLEL_MULTIPLE,
    ("parallel", "multi"): Category.PARALLEL_MULTIPLE,
}
_SINGLES = {
    "parallel": Category.PARALLEL,
    "multiple": Category.MULTIPLE,
    "simple": Category.SIMPLE,
    "irrelevance": Category.IRRELEVANCE,
}


def _tokens(text: str) -> list[str]:
    # A path names its file by its last component; directories never decide a category.
    name = re.split(r"[\\/]", text)[-1]
    return [t for t in _SPLIT.split(name.lower()) if t]


def unsupported_category(text: str) -> str | None:
    """The kind of data `text` names that the harness does not check (`java`, `multi_turn`)."""
    tokens = _tokens(text)
    for first, second in itertools.pairwise(tokens):
        if (first, second) in _UNSUPPORTED_PAIRS:
            return _UNSUPPORTED_PAIRS[first, second]
    for token in tokens:
        if token in _UNSUPPORTED_TOKENS:
            return token
    return None


def parse_category(text: str) -> Category | None:
    """The category a category field, file name or item id names; None if none or ambiguous."""
    if unsupported_category(text) is not None:
        return None
    tokens = _tokens(text)
    found: set[Category] = set()
    paired: set[int] = set()
    for i, pair in enumerate(itertools.pairwise(tokens)):
        if pair in _PAIRS:
            found.add(_PAIRS[pair])
            paired.update((i, i + 1))
    for i, token in enumerate(tokens):
        if i not in paired and token in _SINGLES:
            found.add(_SINGLES[token])
    return found.pop() if len(found) == 1 else None
