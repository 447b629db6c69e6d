"""Duplicate ids of a dataset's files, reported when each file has been indexed.

A file most of whose ids (two or more) come first in one other file is said once to be a
copy of it; the file whose name says it is a copy (`simple (copy).jsonl`, `old_simple.json`,
`simple (2).json`...) is named as the copy, else the later one. A link to the other file
is said to be one. Of the other duplicate ids
of a file, the first few are reported one by one, then the rest counted in one error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tfce_eval.dataset.records import AnswerLoc, FileNotes, QuestionLoc
from tfce_eval.words import counted, listed

_SHOWN = 5
_COPY_WORDS = frozenset({"copy", "backup", "bak", "old", "orig", "original"})

#: A repeated id: (id, line, where it came first).
Duplicate = tuple[str, int, QuestionLoc | AnswerLoc]


@dataclass
class Duplicates(FileNotes):
    """The duplicate ids of the file being indexed, reported when it ends (`report`)."""

    _pending: list[Duplicate] = field(default_factory=list, init=False)
    _held: dict[int, int] = field(default_factory=dict, init=False)  # ids each file held

    def repeated(
        self, item_id: str, seen: Mapping[str, QuestionLoc | AnswerLoc], line: int
    ) -> bool:
        """Whether `item_id`, on `line` of the file being indexed, is already in `seen`."""
        first = seen.get(item_id)
        if first is None:
            return False
        self._pending.append((item_id, line, first))
        return True

    def report(self, file: int, ids: int) -> None:
        """Report the duplicate ids of `file`, which held `ids` ids."""
        path = self.sources[file].path
        self._held[file] = ids
        pending, self._pending = self._pending, []
        by_file: dict[int, list[Duplicate]] = {}
        for duplicate in pending:
            by_file.setdefault(duplicate[2].file, []).append(duplicate)
        single = []
        for other, repeated in by_file.items():
            if other == file or len(repeated) < 2 or 2 * len(repeated) <= ids:
                single += repeated
            else:
                self._copy(file, other, len(repeated))
        single.sort(key=lambda d: d[1])
        for item_id, line, first in single[:_SHOWN]:
            self.reporter.error(
                f"duplicate id {item_id!r}: first on line {first.line} of "
                f"{self.name(first.file)}, again on line {line}",
                path=path,
                line=line,
                item_id=item_id,
                hint="give each item its own id, or delete the repeated line",
            )
        rest = single[_SHOWN:]
        if rest:
            self.reporter.error(
                f"{counted(len(rest), 'more duplicate id')} from this line on: "
                + listed([d[0] for d in rest]),
                path=path,
                line=rest[0][1],
                hint="give each item its own id, or delete the repeated lines",
            )

    def _copy(self, file: int, other: int, repeated: int) -> None:
        """One error for a file `repeated` of whose ids came first in `other`."""
        copy, original = file, other
        if looks_copied(self.sources[other].path) and not looks_copied(self.sources[file].path):
            copy, original = other, file
        if _same_file(self.sources[file].path, self.sources[other].path):
            # A link (or a second name) is not a copy: the one file would be read twice.
            link, target = file, other
            if self.sources[other].path.is_symlink() and not self.sources[file].path.is_symlink():
                link, target = other, file
            self.reporter.error(
                f"the file is {self.name(target)} again (a link to the same file)",
                path=self.sources[link].path,
                hint="remove the link, or move it out of the dataset's folders",
            )
            return
        held = self._held[copy]
        share = f"{repeated} of its {held}"
        if repeated == held:
            share = "both" if held == 2 else f"all {held}"
        self.reporter.error(
            f"the file repeats {share} ids of {self.name(original)}: a copy?",
            path=self.sources[copy].path,
            hint="remove the copy, or give its items their own ids",
        )


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names lead to one file (a symbolic or hard link)."""
    try:
        return a.samefile(b)
    except OSError:
        return False


def looks_copied(path: Path) -> bool:
    """Whether a file's name says it is a copy: `simple (copy).jsonl`, `old_simple.json`,
    `simple (2).json`, `simple.json~`..."""
    name = path.name.lower()
    words = set(re.split(r"[^0-9a-z]+", name))
    numbered = re.search(r"\(\d+\)", name) is not None
    return bool(words & _COPY_WORDS) or numbered or name.endswith("~")
