"""A run's entries column by column, as every run reader produces them, before ordering.

`RunColumns.finish` hands them to `ranking.order_run`, which fixes trec_eval's order and
makes the checks; `where` functions name an entry's file and line for its errors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.retrieval.ranking import Run, RunForm, order_run
from tfce_eval.retrieval.records import Origin

#: Names entry i of a run: its file (with the row, for parquet) and its line.
Where = Callable[[int], tuple[str, int | None]]


class RunColumns:
    """One entry per retrieved document, column by column, before ordering."""

    def __init__(
        self,
        qids: list[str],
        docids: list[str],
        scores: list[float],
        ranks: list[int] | None,
        where: Where,
        path: str,
        arrow: tuple[Any, Any, Any, Any] | None = None,
    ) -> None:
        self.qids, self.docids, self.scores, self.ranks = qids, docids, scores, ranks
        self.where, self.path, self.arrow = where, path, arrow
        self.notes: list[tuple[str, str]] = []  # warnings with their fixes

    @staticmethod
    def merge(parts: list[RunColumns]) -> RunColumns:
        qids: list[str] = []
        docids: list[str] = []
        scores: list[float] = []
        ranks: list[int] | None = []
        for part in parts:
            q, d, s, r = part.lists()
            qids += q
            docids += d
            scores += s
            ranks = None if ranks is None or r is None else ranks + r
        offsets = [0]
        for part in parts:
            offsets.append(offsets[-1] + len(part))

        path = ", ".join(p.path for p in parts)

        def where(i: int) -> tuple[str, int | None]:
            for k, part in enumerate(parts):
                if i < offsets[k + 1]:
                    return part.where(i - offsets[k])
            return path, None

        return RunColumns(qids, docids, scores, ranks, where, path)

    def __len__(self) -> int:
        return len(self.arrow[2]) if self.arrow is not None else len(self.scores)

    def lists(self) -> tuple[list[str], list[str], list[float], list[int] | None]:
        if self.arrow is None:
            return self.qids, self.docids, self.scores, self.ranks
        q, d, s, r = self.arrow
        return q.to_pylist(), d.to_pylist(), s.tolist(), None if r is None else r.tolist()

    def finish(self, name: str, path: str, form: RunForm, *, scores: bool = False) -> Run:
        """The run in trec_eval's order; with `scores`, also the scores as the file gives
        them (none for ranked lists, whose scores are made up from the order)."""
        import numpy as np
        import pyarrow as pa

        if len(self) == 0:
            raise DataError(
                "the run lists no documents", path=self.path, hint="write one entry per document"
            )
        if self.arrow is not None:
            q, d, s, r = self.arrow
        else:
            q, d = pa.array(self.qids, pa.string()), pa.array(self.docids, pa.string())
            s = np.asarray(self.scores, dtype=np.float64)
            r = None if self.ranks is None else np.asarray(self.ranks, dtype=np.int64)
        rankings, tied, reordered, contradicted = order_run(q, d, s, r, where=self.where)
        given: dict[str, dict[str, float]] | None = None
        if scores:
            given = {}
            if form is not RunForm.RANKED:
                for qid, docid, score in zip(q.to_pylist(), d.to_pylist(), s.tolist(), strict=True):
                    given.setdefault(qid, {})[docid] = score
        return Run(
            name,
            path,
            form,
            rankings,
            len(self),
            tied=tied,
            contradicted=contradicted,
            reordered=reordered,
            notes=tuple(self.notes),
            scores=given,
        )


def entry_lines(path: Path) -> Where:
    """`where` for files with one entry per non-blank line: rescans only when asked."""

    def where(i: int) -> tuple[str, int | None]:
        seen = -1
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, 1):
                if raw.strip():
                    seen += 1
                    if seen == i:
                        return str(path), number
        return str(path), None

    return where


def origin_lines(origins: list[Origin]) -> Where:
    def where(i: int) -> tuple[str, int | None]:
        return origins[i].place()

    return where
