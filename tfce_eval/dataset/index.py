"""The one pass over a dataset's files that `load_dataset` and `validate` share.

Answers files are indexed first (id -> file, offset, line), then question files (id ->
file, offset, line, category). Each record is parsed once. A small dataset keeps the records
it accepts (`records.KEEP_PARSED_BYTES`), so its items are built without reading the files
again; in a larger one, a question whose answer needs its docs to tell the answer style
re-reads that one answer line, and items are read back by offset. Every problem goes to a
reporter, which raises on the first error when loading and collects them all when validating,
so the file parsing is written once.

A problem is reported once, where it is: ids that a record of the other side that could
not be read holds, or that an empty file may hold, are said once per file
(`tfce_eval.dataset.unread`), not one by one as questions without ground truth or answers
to delete; a copied file is one error (`tfce_eval.dataset.duplicates`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from tfce_eval.dataset.category import parse_category, unsupported_category
from tfce_eval.dataset.discovery import Layout
from tfce_eval.dataset.duplicates import Duplicates
from tfce_eval.dataset.files import FileKind, JsonFile
from tfce_eval.dataset.groundtruth import (
    GroundTruthError,
    StyleEvidence,
    Vote,
    first_single_value,
    split_calls,
    vote_with_docs,
    vote_without_docs,
)
from tfce_eval.dataset.records import (
    KEEP_PARSED_BYTES,
    AnswerLoc,
    QuestionLoc,
    Reporter,
    Source,
    doc_objects,
    function_docs,
)
from tfce_eval.dataset.unread import Unmatched, Unread
from tfce_eval.jsonl import LineReader, json_type
from tfce_eval.model import AnswerStyle, Category, FunctionDoc
from tfce_eval.words import counted, listed

_CATEGORY_NAMES = ", ".join(c.value for c in Category)


class Indexer:
    """Builds the id index of one dataset layout, reporting every problem it meets."""

    def __init__(
        self, layout: Layout, reporter: Reporter, forced_style: AnswerStyle | None
    ) -> None:
        self.layout = layout
        self.reporter = reporter
        self.forced_style = forced_style
        self.sources: list[Source] = []
        self.questions: dict[str, QuestionLoc] = {}
        self.answers: dict[str, AnswerLoc] = {}
        self.styles: dict[Path, AnswerStyle] = {}
        self._digests: dict[Path, str] = {}
        self._evidence: dict[int, StyleEvidence] = {}
        self._single_value: dict[int, tuple[int, str, str]] = {}
        self._needs_docs: set[str] = set()
        self._rejected: set[str] = set()
        self._rejected_answers: set[str] = set()
        self._question_files: list[int] = []
        self._unread = Unread(reporter, self.sources, layout.root)
        self._duplicates = Duplicates(reporter, self.sources, layout.root)
        self._field_categories: dict[str, Category | None] = {}
        self._hold = False
        #: Of a dataset small enough to keep parsed (`records.KEEP_PARSED_BYTES`): each
        #: answer's expected calls as split by `split_calls`, and the docs of the items
        #: whose answer style needed them, so that items are built without doing it again.
        self.calls: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
        self.functions: dict[str, tuple[FunctionDoc, ...]] = {}

    def run(self) -> None:
        self._hold = self._size() <= KEEP_PARSED_BYTES
        for path in self.layout.answers:
            self._index_answers(*self._open(path))
        with LineReader() as reader:
            for path, category in self.layout.questions:
                file, handle = self._open(path)
                self._index_questions(file, handle, category, reader)
        self._join()
        self._decide_styles()

    def sha256(self) -> str:
        """One digest over every file's digest and name, questions then answers, in order."""
        digest = hashlib.sha256()
        files = [("questions", p) for p, _ in self.layout.questions]
        files += [("answers", p) for p in self.layout.answers]
        for role, path in files:
            digest.update(f"{role}/{self._name(path)}\0{self._digests.get(path, '')}\n".encode())
        return digest.hexdigest()

    def _name(self, path: Path) -> str:
        root = self.layout.root
        if root is not None and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        return path.name

    def _size(self) -> int:
        """The bytes of every file of the layout (those that cannot be read count as 0:
        reading them reports why)."""
        total = 0
        for path in [p for p, _ in self.layout.questions] + list(self.layout.answers):
            with suppress(OSError):
                total += path.stat().st_size
        return total

    def _open(self, path: Path) -> tuple[int, JsonFile]:
        handle = JsonFile(path)
        if handle.kind is not FileKind.JSON_LINES:
            held: dict[int, Any] | None = dict(enumerate(handle.held))
        else:
            held = {} if self._hold else None
        self.sources.append(Source(path, held))
        return len(self.sources) - 1, handle

    def _keep(self, file: int, offset: int, value: dict[str, Any]) -> None:
        """Keep an accepted record of a JSON Lines file of a small dataset."""
        held = self.sources[file].held
        if held is not None:
            held[offset] = value

    def _records(
        self, file: int, handle: JsonFile
    ) -> Iterator[tuple[int, int, dict[str, Any], str]]:
        """The sound records of a file as (line, offset, object, id); the others are
        reported, and so is a file that holds no record at all."""
        path = handle.path
        rows = 0
        for line, offset, value, error, hint in handle.rows():
            rows += 1
            if error is not None:
                item_id, fix = self._unread.failure(file, handle, line, offset)
                self.reporter.error(error, path=path, line=line, item_id=item_id, hint=fix or hint)
            elif type(value) is not dict:
                self.reporter.error(
                    f"the record is {json_type(value)}, not an object",
                    path=path,
                    line=line,
                    hint='write each item as one JSON object: {"id": "...", ...}',
                )
            elif type(value.get("id")) is not str or not value["id"]:
                if "id" not in value:
                    got = 'no "id"'
                elif isinstance(value["id"], str):
                    got = 'an empty "id"'
                else:
                    got = f'an "id" that is {json_type(value["id"])}, not a string'
                self.reporter.error(
                    f"the record has {got}",
                    path=path,
                    line=line,
                    hint='give every record a unique string id, such as "simple_0"',
                )
            else:
                yield line, offset, value, value["id"]
        self._digests[path] = handle.digest()
        if not rows:
            self._unread.empty(file)

    def _index_answers(self, file: int, handle: JsonFile) -> None:
        evidence = self._evidence[file] = StyleEvidence()
        ids = 0
        for line, offset, value, item_id in self._records(file, handle):
            ids += 1
            if self._duplicates.repeated(item_id, self.answers, line):
                continue
            if "ground_truth" not in value:
                self._rejected_answers.add(item_id)
                self.reporter.error(
                    'the answer has no "ground_truth"',
                    path=handle.path,
                    line=line,
                    item_id=item_id,
                    hint='write {"id": ..., "ground_truth": {"function": {"param": value}}}',
                )
                continue
            try:
                calls = split_calls(value["ground_truth"])
            except GroundTruthError as exc:
                self._rejected_answers.add(item_id)
                self.reporter.error(
                    exc.message,
                    path=handle.path,
                    line=line,
                    item_id=item_id,
                    hint=exc.hint,
                )
                continue
            self.answers[item_id] = AnswerLoc(file, offset, line)
            self._keep(file, offset, value)
            if self._hold:
                self.calls[item_id] = calls
            where = first_single_value(calls)
            vote = vote_without_docs(value["ground_truth"], calls, where)
            if vote is not Vote.NONE:
                evidence.add(vote, line)
            elif calls:
                self._needs_docs.add(item_id)
            if where is not None and file not in self._single_value:
                self._single_value[file] = (line, item_id, where)
        self._duplicates.report(file, ids)

    def _index_questions(
        self, file: int, handle: JsonFile, file_category: Category | None, reader: LineReader
    ) -> None:
        path = handle.path
        self._question_files.append(file)
        ids = 0
        for line, offset, value, item_id in self._records(file, handle):
            ids += 1
            if self._duplicates.repeated(item_id, self.questions, line):
                continue
            category = self._category(value, file_category, item_id, path, line)
            docs = doc_objects(value)
            problem, hint = None, None
            if not isinstance(value.get("question"), str | list):
                problem = 'the item has no "question" (a string or a list of chat turns)'
                hint = 'add "question": "..." to the item'
            elif isinstance(docs, str):
                problem = docs
                hint = 'give the item "function": a doc {"name", "description", "parameters"} '
                hint += "or a list of them, each with a name"
            if problem is not None:
                self.reporter.error(problem, path=path, line=line, item_id=item_id, hint=hint)
            if category is None or isinstance(docs, str) or problem is not None:
                self._rejected.add(item_id)
                continue
            self.questions[item_id] = QuestionLoc(file, offset, line, category)
            self._keep(file, offset, value)
            if item_id in self._needs_docs:
                self._vote_with_docs(item_id, docs, reader)
        self._duplicates.report(file, ids)

    def _category(
        self,
        item: Mapping[str, Any],
        file_category: Category | None,
        item_id: str,
        path: Path,
        line: int,
    ) -> Category | None:
        stated = item.get("category")
        if stated is None:
            category = file_category or parse_category(item_id)
            if category is None:
                self.reporter.error(
                    "the item has no category: no category field, and neither the file name "
                    "nor the id names one",
                    path=path,
                    line=line,
                    item_id=item_id,
                    hint=f'add "category" ({_CATEGORY_NAMES}) to the item, '
                    "or name the file after its category (simple.jsonl...)",
                )
            return category
        key = str(stated)
        if key not in self._field_categories:
            self._field_categories[key] = parse_category(key) if isinstance(stated, str) else None
        category = self._field_categories[key]
        if category is None:
            why = unsupported_category(key)
            self.reporter.error(
                f"unknown category {stated!r}"
                + (f" ({why} items are not supported)" if why else ""),
                path=path,
                line=line,
                item_id=item_id,
                hint=f"use one of {_CATEGORY_NAMES}",
            )
        return category

    def _vote_with_docs(self, item_id: str, docs: list[dict[str, Any]], reader: LineReader) -> None:
        loc = self.answers[item_id]
        calls = self.calls.get(item_id)
        if calls is None:
            answer = self.sources[loc.file].record(loc.offset, loc.line, item_id, reader)
            calls = split_calls(answer["ground_truth"])
        functions = function_docs(docs)
        if self._hold:  # the item is built from them later
            self.functions[item_id] = functions
        vote = vote_with_docs(calls, {f.name: f.properties for f in functions})
        self._evidence[loc.file].add(vote, loc.line)

    def _join(self) -> None:
        answer_files = list(self._evidence)
        unanswered: dict[int, list[Unmatched]] = {}
        for item_id, loc in list(self.questions.items()):
            if item_id not in self.answers and loc.category is not Category.IRRELEVANCE:
                del self.questions[item_id]
                if item_id not in self._rejected_answers:  # its answer's error says why
                    unanswered.setdefault(loc.file, []).append((item_id, loc.line, loc.category))
        orphans: dict[int, list[Unmatched]] = {}
        for item_id, answer in list(self.answers.items()):
            if item_id in self.questions:
                continue
            del self.answers[item_id]
            if item_id not in self._rejected:
                item = (item_id, answer.line, parse_category(item_id))
                orphans.setdefault(answer.file, []).append(item)
        for file, items in unanswered.items():
            for item_id, line in self._unread.report(file, items, answer_files, "question"):
                self.reporter.error(
                    "the question has no ground truth",
                    path=self.sources[file].path,
                    line=line,
                    item_id=item_id,
                    hint=f'add {{"id": "{item_id}", "ground_truth": ...}} to the answers '
                    f"({self.layout.answers_searched})",
                )
        for file, items in orphans.items():
            if self.reporter.strict:
                self.reporter.warning(
                    f"{counted(len(items), 'answer has', 'answers have')} no question and "
                    f"{'is' if len(items) == 1 else 'are'} ignored: "
                    + listed([i for i, _, _ in items]),
                    path=self.sources[file].path,
                )
                continue
            for item_id, line in self._unread.report(file, items, self._question_files, "answer"):
                self.reporter.error(
                    "the answer's id has no question",
                    path=self.sources[file].path,
                    line=line,
                    item_id=item_id,
                    hint="delete the line, or add the question (check the id's spelling)",
                )

    def _decide_styles(self) -> None:
        for file, evidence in self._evidence.items():
            path = self.sources[file].path
            style = self.forced_style or evidence.decide(path.parent.name)
            self.styles[path] = style
            conflict = None if self.forced_style else evidence.conflict(style)
            if conflict is not None:
                self.reporter.warning(
                    conflict,
                    path=path,
                    hint="write every line in one style, or choose it with --answer-style",
                )
            single = self._single_value.get(file)
            if style is AnswerStyle.BFCL and single is not None and self.reporter.strict:
                line, item_id, where = single
                self.reporter.error(
                    f"parameter {where} holds a single value, not a list of acceptable values",
                    path=path,
                    line=line,
                    item_id=item_id,
                    hint="BFCL-style answers list every acceptable value ([value]); a file "
                    "that gives one value per parameter is TFCE style (--answer-style tfce)",
                )
