"""`validate`: every problem of a dataset, each with file, line and id (README "Scoring a file of
outputs").

It does not stop at the first problem. The files are indexed tolerantly (the same pass
`load_dataset` makes, see `tfce_eval.dataset.index`), so a malformed line is reported and the rest
is checked. Then, per item:

- category shape: simple, one expected call; multiple, one call among two or more docs;
  parallel, two or more calls of one function; parallel_multiple, two or more calls over two
  or more functions; irrelevance, no calls;
- docs: names unique within the item and not told apart only by case, width or a dash
  variant; each distinct doc checked once (`tfce_eval.dataset.doc_findings`);
- ground truth: each call names one of the item's docs, and its values are checked against
  the doc (`tfce_eval.dataset.truth_findings`).

More checks plug in through `extra_checks` (the exec checks against `functions/` do).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.dataset.doc_findings import confusable_key, confusable_names, doc_problems
from tfce_eval.dataset.load import Dataset, scan_dataset
from tfce_eval.dataset.truth_findings import call_problems
from tfce_eval.errors import DataError
from tfce_eval.model import AnswerStyle, Category, Finding, Item, Level, SourceRef
from tfce_eval.words import counted

__all__ = ["Check", "Finding", "Level", "ValidationReport", "expected_shape", "validate_dataset"]


@dataclass(frozen=True)
class ValidationReport:
    """Every finding, sorted by file and line, and what was checked."""

    findings: tuple[Finding, ...]
    items: int
    counts: dict[Category, int] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is Level.ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is Level.WARNING)

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "counts": {str(c): n for c, n in self.counts.items()},
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [f.to_json() for f in self.findings],
        }


#: A further check over the loaded dataset, run after the built-in ones.
Check = Callable[[Dataset], Iterable[Finding]]


def validate_dataset(
    data: str | Path | None = None,
    *,
    questions: Sequence[str | Path] = (),
    answers: Sequence[str | Path] = (),
    answer_style: AnswerStyle | None = None,
    extra_checks: Sequence[Check] = (),
) -> ValidationReport:
    """Check a dataset and report every problem. DataError only when there is no dataset."""
    dataset, problems = scan_dataset(
        data, questions=questions, answers=answers, answer_style=answer_style
    )
    findings = list(problems)
    checker = _ItemChecker()
    for item_id in dataset.ids():
        try:
            item = dataset.get(item_id)
        except DataError as exc:
            findings.append(
                Finding(Level.ERROR, exc.message, exc.path, exc.line, item_id, exc.hint)
            )
            continue
        answer = dataset.answer_source(item_id) or dataset.question_source(item_id)
        findings.extend(checker.check(item, answer))
    for check in extra_checks:
        findings.extend(check(dataset))
    findings.sort(key=lambda f: (f.path or "", f.line or 0))
    return ValidationReport(tuple(findings), len(dataset), dataset.counts())


def expected_shape(calls: int, functions: int, docs: int) -> Category:
    """The category whose shape a ground truth has: call count, distinct functions, docs."""
    if calls == 0:
        return Category.IRRELEVANCE
    if calls == 1:
        return Category.MULTIPLE if docs >= 2 else Category.SIMPLE
    return Category.PARALLEL if functions == 1 else Category.PARALLEL_MULTIPLE


def _a(category: Category) -> str:
    """The category with its article: `a simple`, `an irrelevance`."""
    return f"{'an' if category.value[0] in 'aeiou' else 'a'} {category}"


def _shape_ok(category: Category, calls: int, functions: int, docs: int) -> bool:
    if category is Category.SIMPLE:
        return calls == 1
    if category is Category.MULTIPLE:
        return calls == 1 and docs >= 2
    if category is Category.PARALLEL:
        return calls >= 2 and functions == 1
    if category is Category.PARALLEL_MULTIPLE:
        return calls >= 2 and functions >= 2
    return calls == 0


class _ItemChecker:
    """Checks items one by one; remembers the docs already checked."""

    def __init__(self) -> None:
        self._docs_seen: set[str] = set()

    def check(self, item: Item, answer: SourceRef) -> list[Finding]:
        question = item.source or answer
        out: list[Finding] = []

        def add(where: SourceRef, level: Level, message: str, hint: str | None = None) -> None:
            out.append(Finding(level, message, where.path, where.line or None, item.id, hint))

        names = [c.name for c in item.expected]
        docs = len({d.name for d in item.functions})
        if not _shape_ok(item.category, len(names), len(set(names)), docs):
            shape = expected_shape(len(names), len(set(names)), docs)
            add(
                answer,
                Level.ERROR,
                f"{_a(item.category)} item, but the ground truth has "
                f"{counted(len(names), 'call')} of {counted(len(set(names)), 'function')} "
                f"among {counted(docs, 'doc')}",
                f"that is the shape of {_a(shape)} item: fix the ground truth or the category",
            )
        seen_names: set[str] = set()
        for doc in item.functions:
            if doc.name in seen_names:
                add(
                    question,
                    Level.ERROR,
                    f"two function docs are named {doc.name}",
                    "give each function of an item its own name",
                )
            seen_names.add(doc.name)
            key = json.dumps(doc.raw, sort_keys=True, ensure_ascii=False, default=str)
            if key not in self._docs_seen:
                self._docs_seen.add(key)
                for level, message in doc_problems(doc):
                    add(question, level, message, "correct the function doc")
        for first, other in confusable_names([d.name for d in item.functions]):
            add(
                question,
                Level.ERROR,
                f"function names {first} and {other} differ only by case, width or the kind "
                "of dash: a model cannot tell them apart",
                "rename one of them",
            )
        for index, call in enumerate(item.expected, start=1):
            called = item.function(call.name)
            if called is None:
                near = [
                    d.name
                    for d in item.functions
                    if confusable_key(d.name) == confusable_key(call.name)
                ]
                add(
                    answer,
                    Level.ERROR,
                    f"ground-truth call {index} is to {call.name}, which is not among the "
                    f"item's functions ({', '.join(d.name for d in item.functions)})",
                    f"write {near[0]} exactly as the doc names it"
                    if near
                    else "name one of the item's functions, or add its doc to the question",
                )
                continue
            for level, message in call_problems(called, call.params):
                add(answer, level, message, "correct the ground truth (or the doc)")
        return out
