"""What `tfce-eval datasets` shows: each built-in dataset's task, size and layout, counted
from its files (nothing here is written by hand)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tfce_eval.tasks import BUILTINS, Builtin, TaskKind


@dataclass(frozen=True, slots=True)
class BuiltinRow:
    name: str
    task: TaskKind
    size: str
    layout: str
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": f"builtin:{self.name}",
            "task": str(self.task),
            "size": self.size,
            "layout": self.layout,
            "counts": self.counts,
        }


def _fc_counts(entry: Builtin) -> dict[str, int]:
    from tfce_eval.dataset.load import load_dataset

    dataset = load_dataset(None)
    return {"items": len(dataset)}


def _retrieval_counts(entry: Builtin) -> dict[str, int]:
    from tfce_eval.retrieval import load_retrieval

    dataset = load_retrieval(entry.path, name=f"builtin:{entry.name}")
    return {
        "queries": len(dataset.queries),
        "chunks": sum(1 for _ in dataset.iter_corpus()),
    }


def _qa_counts(entry: Builtin) -> dict[str, int]:
    from tfce_eval.qa import load_telco

    dataset = load_telco(entry.path)
    kinds = Counter(str(item.answer_type) for item in dataset.items)
    return {"questions": len(dataset.items), **dict(sorted(kinds.items()))}


def _size(task: TaskKind, counts: dict[str, int]) -> str:
    if task is TaskKind.FC:
        return f"{counts['items']} items"
    if task is TaskKind.RETRIEVAL:
        return f"{counts['queries']} queries, {counts['chunks']} chunks"
    detail = " ".join(f"{n} {k}" for k, n in counts.items() if k != "questions")
    return f"{counts['questions']} ({detail})"


def describe_builtins() -> list[BuiltinRow]:
    """One row per built-in dataset, sizes counted from the files that ship."""
    rows = []
    counters = {
        TaskKind.FC: _fc_counts,
        TaskKind.RETRIEVAL: _retrieval_counts,
        TaskKind.QA: _qa_counts,
    }
    for entry in BUILTINS:
        counts = counters[entry.task](entry)
        rows.append(
            BuiltinRow(entry.name, entry.task, _size(entry.task, counts), entry.layout, counts)
        )
    return rows
