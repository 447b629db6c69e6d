"""What of a dataset's files could not be read, and the ids of the other side it may hold.

An id of one side (a question) that no record of the other side (an answer) matches is
usually an error of its own. Not when the other side's record could not be read: then the
id is said once per file, with the cause ("line 3 of answers/simple.jsonl could not be
read", "questions/simple.json is empty"), as a warning when the cause is an error already,
and never with the advice to delete good data. A record that could not be read holds the
ids that can be made out in it (`files.JsonFile.failure`); an empty file, or one unreadable
as a whole with no id to be made out, may hold any id of the category its name gives (any
id at all when its name gives none). A line unreadable with no id to make out may hold
any one id of its file's category: the ids it may hold are said so when there are no more
of them than such lines.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field

from tfce_eval.dataset.category import parse_category
from tfce_eval.dataset.files import JsonFile
from tfce_eval.dataset.records import FileNotes
from tfce_eval.model import Category
from tfce_eval.words import counted, listed

#: An id that no record of the other side matches: (id, line, category if known).
Unmatched = tuple[str, int, Category | None]


@dataclass
class Unread(FileNotes):
    """The files, and records, of a dataset that could not be read, or are empty."""

    #: Per file, the ids made out in what could not be read (id -> line, 0 for a file that
    #: failed as a whole).
    _ids: dict[int, dict[str, int]] = field(default_factory=dict, init=False)
    _hidden: set[int] = field(default_factory=set, init=False)  # may hold unknown ids
    _empty: set[int] = field(default_factory=set, init=False)
    _failed: set[int] = field(default_factory=set, init=False)  # with an error of their own
    #: Per file, the lines that could not be read and in which no id could be made out.
    _blind: dict[int, list[int]] = field(default_factory=dict, init=False)

    def failure(
        self, file: int, handle: JsonFile, line: int, offset: int
    ) -> tuple[str | None, str | None]:
        """Note a record of `file` that could not be read; its id when it is a line's and
        can be made out, and the fix for a trailing comma."""
        self._failed.add(file)
        ids, fix = handle.failure(offset)
        found = self._ids.setdefault(file, {})
        for item_id in ids:
            found.setdefault(item_id, 0 if handle.failed else line)
        if handle.failed:
            if not ids:
                self._hidden.add(file)
            return None, fix
        if not ids:
            self._blind.setdefault(file, []).append(line)
        return ids[0] if ids else None, fix

    def empty(self, file: int) -> None:
        """Note and warn that `file` holds no records."""
        path = self.sources[file].path
        self._hidden.add(file)
        self._empty.add(file)
        size = None
        with suppress(OSError):
            size = path.stat().st_size
        self.reporter.warning(
            "the file is empty" if size == 0 else "the file holds no items",
            path=path,
            hint="add its items, or remove the file",
        )

    def report(
        self, file: int, items: list[Unmatched], others: list[int], what: str
    ) -> list[tuple[str, int]]:
        """Of the unmatched `items` of `file` (`what`: "question" or "answer"), report once
        per cause those that an unreadable or empty file of the `others` (the other side)
        may hold; return the rest, as (id, line)."""
        causes: dict[tuple[int, ...], list[str]] = {}
        lines: dict[tuple[int, ...], set[int]] = {}
        rest = []
        for item_id, line, category in items:
            cause: tuple[int, ...] | None = next(
                ((f,) for f in others if item_id in self._ids.get(f, {})), None
            )
            if cause is None:
                cause = tuple(f for f in others if self._may_hold(f, category))
            if not cause:
                rest.append((item_id, line, category))
                continue
            causes.setdefault(cause, []).append(item_id)
            if len(cause) == 1 and (at := self._ids.get(cause[0], {}).get(item_id)):
                lines.setdefault(cause, set()).add(at)
        kept = self._on_blind_lines(rest, others, causes)
        matched = "ground truth" if what == "question" else "a question"
        for cause, ids in causes.items():
            because = ", ".join(self._why(f, lines.get(cause, set())) for f in cause)
            errors = all(f in self._failed for f in cause)
            (self.reporter.warning if errors else self.reporter.error)(
                f"{counted(len(ids), what)} ({listed(ids)}) could not be matched with "
                f"{matched}: {because}",
                path=self.sources[file].path,
                hint="repair the file that could not be read (its error says how), then "
                "validate again"
                if errors
                else "fill the empty file, then validate again",
            )
        return kept

    def _on_blind_lines(
        self,
        items: list[Unmatched],
        others: list[int],
        causes: dict[tuple[int, ...], list[str]],
    ) -> list[tuple[str, int]]:
        """Add to `causes` the unmatched `items` that unreadable lines with no id of the
        `others` may hold: all or none of a category's, as each such line holds one record
        (more ids than lines: some are truly unmatched, and which cannot be told). Return
        the rest, as (id, line)."""
        groups: dict[tuple[int, ...], list[Unmatched]] = {}
        for entry in items:
            cause = tuple(f for f in others if f in self._blind and self._named(f, entry[2]))
            groups.setdefault(cause, []).append(entry)
        rest = []
        for cause, entries in groups.items():
            if cause and len(entries) <= sum(len(self._blind[f]) for f in cause):
                causes.setdefault(cause, []).extend(item_id for item_id, _, _ in entries)
            else:
                rest += [(item_id, line) for item_id, line, _ in entries]
        return rest

    def _may_hold(self, file: int, category: Category | None) -> bool:
        return file in self._hidden and self._named(file, category)

    def _named(self, file: int, category: Category | None) -> bool:
        """Whether `file` may hold an item of `category`: its name gives no other."""
        named_category = parse_category(self.sources[file].path.name)
        return category is None or named_category is None or named_category is category

    def _why(self, file: int, lines: set[int]) -> str:
        name = self.name(file)
        if file in self._empty:
            return f"{name} is empty"
        lines = lines or set(self._blind.get(file, ()))
        if not lines:
            return f"{name} could not be read"
        shown = ", ".join(str(n) for n in sorted(lines))
        return f"{'line' if len(lines) == 1 else 'lines'} {shown} of {name} could not be read"
