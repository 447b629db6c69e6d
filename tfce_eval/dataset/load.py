"""Loading a dataset (README "Data"): an index of every item at load, whole items only when asked.

`load_dataset` reads each question and answers file once. For JSON Lines files it keeps,
per id, the file, byte offset, line and category of the question and the file, offset and
line of the answer; `Dataset.get` and `Dataset.iter_items` read and parse those lines again
when an item is wanted, so a dataset of any size streams in little memory. Files that hold
one JSON document (an array, a wrapping object) are parsed whole and kept.

An item's category is, first that applies: its `category` field, its file's name, its id
(see `tfce_eval.dataset.category`). The answer style of each answers file is detected as
`dataset.groundtruth` describes, unless `answer_style` forces it. Irrelevance items need
no answer. Any malformed record is a DataError naming file, line, id, the problem and the fix;
the same pass run tolerantly (`scan_dataset`) collects every problem for `validate` instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tfce_eval.dataset.category import parse_category
from tfce_eval.dataset.discovery import Layout, discover, skipped_files, skipped_fix
from tfce_eval.dataset.groundtruth import GroundTruthError, calls_expected, expected_calls
from tfce_eval.dataset.index import Indexer
from tfce_eval.dataset.paths import builtin_dir
from tfce_eval.dataset.records import AnswerLoc, QuestionLoc, Reporter, Source, parse_docs
from tfce_eval.errors import DataError
from tfce_eval.jsonl import LineReader
from tfce_eval.model import (
    CATEGORY_ORDER,
    AnswerStyle,
    Category,
    Finding,
    FunctionDoc,
    Item,
    Level,
    SourceRef,
    TaskKind,
    natural_key,
    parse_choice,
)

__all__ = [
    "Dataset",
    "load_dataset",
    "parse_category",
    "scan_dataset",
]


@dataclass(frozen=True, eq=False)
class Dataset:
    """An indexed dataset: ids, categories and where each item is; items are read on demand."""

    root: Path | None
    question_files: tuple[Path, ...]
    answer_files: tuple[Path, ...]
    sha256: str
    #: What is worth knowing and does not stop loading (every one at level WARNING).
    warnings: tuple[Finding, ...]
    answer_styles: Mapping[Path, AnswerStyle]
    _sources: tuple[Source, ...] = field(repr=False)
    _questions: Mapping[str, QuestionLoc] = field(repr=False)
    _answers: Mapping[str, AnswerLoc] = field(repr=False)
    _order: tuple[str, ...] = field(repr=False)
    #: A small dataset's split ground truth and parsed docs, from loading (see Indexer).
    _calls: Mapping[str, list[tuple[str, Mapping[str, Any]]]] = field(repr=False)
    _functions: Mapping[str, tuple[FunctionDoc, ...]] = field(repr=False)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._questions

    def ids(self, categories: Collection[Category] | None = None) -> list[str]:
        """Item ids in natural order (`simple_2` before `simple_10`), optionally filtered."""
        if categories is None:
            return list(self._order)
        wanted = set(categories)
        return [i for i in self._order if self._questions[i].category in wanted]

    def category_of(self, item_id: str) -> Category:
        """The item's category; KeyError for an id not in the dataset."""
        return self._questions[item_id].category

    def counts(self) -> dict[Category, int]:
        """Items per category, for the categories present, in display order."""
        found: dict[Category, int] = {}
        for loc in self._questions.values():
            found[loc.category] = found.get(loc.category, 0) + 1
        return {c: found[c] for c in CATEGORY_ORDER if c in found}

    def question_source(self, item_id: str) -> SourceRef:
        """Where the item's question is (file and line)."""
        loc = self._questions[item_id]
        return SourceRef(str(self._sources[loc.file].path), loc.line)

    def answer_source(self, item_id: str) -> SourceRef | None:
        """Where the item's ground truth is, or None for an irrelevance item without one."""
        loc = self._answers.get(item_id)
        return None if loc is None else SourceRef(str(self._sources[loc.file].path), loc.line)

    def get(self, item_id: str) -> Item:
        """The whole item; KeyError for an id not in the dataset."""
        loc = self._questions[item_id]
        with LineReader() as reader:
            return self._build(item_id, loc, reader)

    def iter_items(
        self,
        categories: Collection[Category] | None = None,
        ids: Collection[str] | None = None,
    ) -> Iterator[Item]:
        """Items in natural id order, read one at a time; KeyError first for unknown `ids`."""
        selected = self.ids(categories)
        if ids is not None:
            unknown = [i for i in ids if i not in self._questions]
            if unknown:
                raise KeyError(unknown[0])
            wanted = set(ids)
            selected = [i for i in selected if i in wanted]
        return self._stream(selected)

    def _stream(self, selected: list[str]) -> Iterator[Item]:
        with LineReader() as reader:
            for item_id in selected:
                yield self._build(item_id, self._questions[item_id], reader)

    def _build(self, item_id: str, loc: QuestionLoc, reader: LineReader) -> Item:
        source = self._sources[loc.file]
        value = source.record(loc.offset, loc.line, item_id, reader)
        docs = self._functions.get(item_id) or parse_docs(value)
        if isinstance(docs, str):  # the index checked it; only a changed file gets here
            raise DataError(docs, path=str(source.path), line=loc.line, item_id=item_id)
        expected: tuple[Any, ...] = ()
        answer = self._answers.get(item_id)
        if answer is not None:
            answers = self._sources[answer.file]
            style = self.answer_styles[answers.path]
            try:
                calls = self._calls.get(item_id)
                if calls is not None:
                    expected = calls_expected(calls, style)
                else:
                    gt = answers.record(answer.offset, answer.line, item_id, reader)
                    expected = expected_calls(gt["ground_truth"], style)
            except GroundTruthError as exc:
                raise DataError(
                    exc.message,
                    path=str(answers.path),
                    line=answer.line,
                    item_id=item_id,
                    hint=exc.hint,
                ) from None
        return Item(
            id=item_id,
            category=loc.category,
            question=value["question"],
            functions=docs,
            expected=expected,
            source=SourceRef(str(source.path), loc.line),
        )


def load_dataset(
    data: str | Path | None = None,
    *,
    questions: Sequence[str | Path] = (),
    answers: Sequence[str | Path] = (),
    answer_style: AnswerStyle | None = None,
) -> Dataset:
    """Index a dataset; `data=None` (and no paths) or `builtin:tfce` is the built-in one.
    DataError if broken."""
    dataset, _ = _load(data, questions, answers, answer_style, strict=True)
    return dataset


def scan_dataset(
    data: str | Path | None = None,
    *,
    questions: Sequence[str | Path] = (),
    answers: Sequence[str | Path] = (),
    answer_style: AnswerStyle | None = None,
) -> tuple[Dataset, tuple[Finding, ...]]:
    """Index a dataset tolerantly: every problem found, and a dataset of the sound records.

    Only a dataset that cannot be found at all raises. Answers without a question are errors
    here (a warning when loading).
    """
    return _load(data, questions, answers, answer_style, strict=False)


def _load(
    data: str | Path | None,
    questions: Sequence[str | Path],
    answers: Sequence[str | Path],
    answer_style: AnswerStyle | None,
    *,
    strict: bool,
) -> tuple[Dataset, tuple[Finding, ...]]:
    if answer_style is not None:
        answer_style = parse_choice(AnswerStyle, answer_style, "answer_style")
    root = None if data is None else builtin_dir(data, TaskKind.FC) or Path(data)
    layout = discover(root, tuple(map(Path, questions)), tuple(map(Path, answers)))
    reporter = Reporter(strict)
    _report_left_out(layout, reporter)
    index = Indexer(layout, reporter, answer_style)
    index.run()
    dataset = Dataset(
        root=layout.root,
        question_files=tuple(p for p, _ in layout.questions),
        answer_files=layout.answers,
        sha256=index.sha256(),
        warnings=tuple(p for p in reporter.problems if p.level is Level.WARNING),
        answer_styles=MappingProxyType(index.styles),
        _sources=tuple(index.sources),
        _questions=index.questions,
        _answers=index.answers,
        _order=tuple(sorted(index.questions, key=natural_key)),
        _calls=index.calls,
        _functions=index.functions,
    )
    return dataset, tuple(reporter.problems)


def _report_left_out(layout: Layout, reporter: Reporter) -> None:
    if not layout.left_out:
        return
    reporter.warning(
        f"not loaded: {skipped_files(layout.left_out, layout.root)}",
        path=layout.root,
        hint=skipped_fix(layout.left_out),
    )
