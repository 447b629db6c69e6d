"""Text a person reads: folded at 80 columns, with built-in datasets' paths shown short.

A path inside the installed package (a built-in dataset's file) says nothing to the user
and can be longer than a line by itself; it is shown as `builtin:NAME/...`, the name the
user gave on the command line.
"""

from __future__ import annotations

import re
import textwrap

WIDTH = 80
#: Holds two words together while a line is folded (a character no message contains).
_GLUE = "\x00"
#: A quoted path (words.shown_path): a quote opening after a space, a bracket or the line's
#: start and closing before one or punctuation; an apostrophe inside a word opens none.
_QUOTED = re.compile(r"(?:(?<=[\s(\[=])|^)'[^'\n]*'(?=[\s,.;:)\]]|$)")


def shown(text: str) -> str:
    """`text` as a person reads it: every built-in dataset's folder written as
    `builtin:NAME`, and control characters (from a path, an id, a server's words) shown
    as escapes, never passed to the terminal."""
    from tfce_eval.report.document import printable
    from tfce_eval.tasks import builtin_names

    return printable(builtin_names(text))


def fold(text: str, first: str = "", rest: str = "    ") -> str:
    """`first` + `text` folded at 80 columns, later lines indented by `rest`; each line of
    `text` folds on its own (a `  fix:` line keeps its own indent). Words are never split:
    a path longer than a line stays whole."""
    out: list[str] = []
    for number, line in enumerate(text.split("\n")):
        head = first if number == 0 else ""
        body = line.lstrip(" ")
        lead = head + line[: len(line) - len(body)]
        indent = rest if number == 0 or not body.startswith("fix: ") else " " * (len(lead) + 5)
        # The head is wrapped with the text, not set before it: a head as long as a line
        # (a location with a long path) would otherwise get the next word beside it whatever
        # the width. Its first two words stay together, so that a label such as `error:`
        # never stands alone on a line.
        # A quoted path is one word: folding never splits it at its spaces.
        whole = _QUOTED.sub(lambda m: m.group().replace(" ", _GLUE), lead + body)
        start = len(whole) - len(whole.lstrip(" "))
        glue = whole.find(" ", start)
        if glue > start:
            whole = whole[:glue] + _GLUE + whole[glue + 1 :]
        out.append(
            textwrap.fill(
                whole,
                width=WIDTH,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
            .replace(_GLUE, " ")
            .rstrip()
            or lead.rstrip()
        )
    return "\n".join(out)


def fold_command(head: str, words: list[str]) -> str:
    """A command line to copy, after `head`: its words quoted for a POSIX shell and, past
    80 columns, continued on the next line with a backslash, as a shell reads it."""
    import shlex

    lines = [head.rstrip()]
    for word in map(shlex.quote, words):
        if len(lines[-1]) + 1 + len(word) + 2 > WIDTH and lines[-1].strip():
            lines[-1] += " \\"
            lines.append("    " + word)
        else:
            lines[-1] += " " + word
    return "\n".join(lines)
