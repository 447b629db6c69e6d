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


def _fc_counts(entry: Builtin) -> tuple[dict[str, int], str]:
    from tfce_eval.dataset.load import load_dataset

    items = len(load_dataset(None))
    return {"items": items}, f"{items} items"


def _retrieval_counts(entry: Builtin) -> tuple[dict[str, int], str]:
    from tfce_eval.retrieval import load_retrieval

    # The queries of the split `retrieve` and `score` take without --split, named.
    dataset = load_retrieval(entry.path, name=f"builtin:{entry.name}")
    queries, chunks = len(dataset.queries), sum(1 for _ in dataset.iter_corpus())
    size = f"{queries} {dataset.split} queries, {chunks} chunks"
    return {"queries": queries, "chunks": chunks}, size


def _qa_counts(entry: Builtin) -> tuple[dict[str, int], str]:
    from tfce_eval.qa import load_telco

    dataset = load_telco(entry.path)
    kinds = dict(sorted(Counter(str(item.answer_type) for item in dataset.items).items()))
    detail = " ".join(f"{n} {k}" for k, n in kinds.items())
    return {"questions": len(dataset.items), **kinds}, f"{len(dataset.items)} ({detail})"


def describe_builtins() -> list[BuiltinRow]:
    """One row per built-in dataset, sizes counted from the files that ship."""
    rows = []
    counters = {
        TaskKind.FC: _fc_counts,
        TaskKind.RETRIEVAL: _retrieval_counts,
        TaskKind.QA: _qa_counts,
    }
    for entry in BUILTINS:
        counts, size = counters[entry.task](entry)
        rows.append(BuiltinRow(entry.name, entry.task, size, entry.layout, counts))
    return rows
