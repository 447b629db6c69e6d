"""A run's rankings in trec_eval's order, fixed once before any measure is computed.

trec_eval ranks a query's documents by score, highest first, and breaks ties by document
id, highest first (byte order, which Python's string order matches). Not every backend
behind ir-measures breaks ties that way, so the order is fixed here and the backends get
scores that are unique in that order. The checks of docs/retrieval.md are made on the way: a
document listed twice for one query is an error naming its line; queries with tied scores
and queries whose rank column contradicts their scores are counted for the warnings.

The work is done on numpy arrays (a million-line run is sorted and checked in well under
a second); only queries with ties are re-sorted in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tfce_eval.dataset.paths import recorded
from tfce_eval.errors import DataError
from tfce_eval.retrieval.records import id_key
from tfce_eval.words import counted, listed


class RunForm(StrEnum):
    """The forms a run can come in (docs/retrieval.md)."""

    TREC = "trec"  # qid Q0 docid rank score tag
    ROWS = "rows"  # JSON Lines or parquet rows {query_id, corpus_id, rank, retrieval_score}
    RANKED = "ranked"  # JSON Lines {"qid": ..., "docids": [...]} in rank order
    OBJECT = "object"  # one JSON object {qid: {docid: score}}
    DATASET = "dataset"  # the dataset's own retrieved_docs


@dataclass(frozen=True, slots=True)
class Run:
    """A run read and ordered as trec_eval ranks it.

    `rankings` maps each query to its documents in rank order (the keys, best first),
    each with a score unique in that order (the values: n for the best of n, down to 1),
    which is what the measure backends are given.
    """

    name: str
    path: str
    form: RunForm
    rankings: Mapping[str, Mapping[str, int]]
    entries: int
    tied: tuple[str, ...] = ()  # queries with tied scores
    contradicted: tuple[str, ...] = ()  # queries whose ranks contradict their scores
    reordered: tuple[str, ...] = ()  # tied queries the file lists in another order
    notes: tuple[tuple[str, str], ...] = ()  # other warnings found while reading, with fixes
    #: {qid: {docid: score}} as the file gives them, when asked for (`read_run(scores=True)`).
    scores: Mapping[str, Mapping[str, float]] | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(warning for warning, _ in self.warning_fixes)

    @property
    def warning_fixes(self) -> tuple[tuple[str, str], ...]:
        """Each warning with what to change in the run file if its order was not meant."""
        out = list(self.notes)
        if self.tied and not self.reordered:
            out.append(
                (
                    f"{counted(len(self.tied), 'query', 'queries')} with tied scores "
                    f"({listed(self.tied)}), listed in trec_eval's order already (score "
                    "descending, then document id descending)",
                    "nothing to do; to rank tied documents otherwise, give them distinct scores",
                )
            )
        elif self.tied:
            out.append(
                (
                    f"{counted(len(self.tied), 'query', 'queries')} with tied scores "
                    f"({listed(self.tied)}); {len(self.reordered)} listed in another order "
                    f"({listed(self.reordered)}) are ranked as trec_eval ranks ties, by "
                    "document id descending",
                    "to keep the file's order, give tied documents distinct scores",
                )
            )
        if self.contradicted:
            out.append(
                (
                    f"{counted(len(self.contradicted), 'query', 'queries')} whose rank column "
                    f"contradicts the scores ({listed(self.contradicted)}): the scores "
                    "decide the order, as in trec_eval",
                    "make the rank column agree with the scores, or drop it",
                )
            )
        return tuple(out)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": recorded(self.path),
            "form": str(self.form),
            "queries": len(self.rankings),
            "entries": self.entries,
        }


def order_run(
    qids: Any,
    docids: Any,
    scores: Any,
    ranks: Any | None,
    *,
    where: Callable[[int], tuple[str, int | None]],
) -> tuple[dict[str, dict[str, int]], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Rankings in trec_eval order; the tied, reordered and contradicted queries.

    `qids` and `docids` are pyarrow string arrays, `scores` a float64 and `ranks` an
    int64 numpy array (or None), one entry per line; `where(i)` names entry i's file and
    line (or None when the form has no lines). Each ranking maps document ids, best
    first, to scores unique in that order (n for the first of n, down to 1).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(scores)
    qenc = pc.dictionary_encode(_combined(qids))
    qidx = np.asarray(qenc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    names: list[str] = qenc.dictionary.to_pylist()
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        i = int(bad[0])
        path, line = where(i)
        raise DataError(
            f"the score is not a finite number (read as {scores[i]}: NaN, an infinity, "
            "or beyond the range of a float, about 1.8e308)",
            path=path,
            line=line,
            hint="give every retrieved document a finite score",
        )
    same = qidx[1:] == qidx[:-1]
    if bool(np.all(qidx[1:] >= qidx[:-1])) and bool(np.all(~same | (scores[1:] < scores[:-1]))):
        # The usual case: queries in blocks, scores strictly falling: the file's order.
        perm = None
        q_s, s_s, r_s = qidx, scores, ranks
    else:
        keys = (scores * 0 if ranks is None else ranks, -scores, qidx)
        perm = np.lexsort(keys)
        q_s, s_s = qidx[perm], scores[perm]
        r_s = None if ranks is None else ranks[perm]
        same = q_s[1:] == q_s[:-1]
    tied_mask = same & (s_s[1:] == s_s[:-1])
    tied_q = np.unique(q_s[1:][tied_mask])
    contra: Sequence[int] = ()
    if r_s is not None:
        # Sorted by score and, within ties, by rank: a falling rank means a pair of
        # documents whose ranks and scores disagree.
        contra = np.unique(q_s[1:][same & (r_s[1:] < r_s[:-1])]).tolist()
    column = _combined(docids)
    docs: list[str] = (column if perm is None else column.take(pa.array(perm))).to_pylist()
    starts = np.flatnonzero(np.concatenate(([True], ~same))).tolist()
    ends = [*starts[1:], n]
    rankings: dict[str, dict[str, int]] = {}
    tie_set = set(tied_q.tolist())
    reordered: list[str] = []
    for a, b in zip(starts, ends, strict=True):
        q = int(q_s[a])
        block = docs[a:b]
        if q in tie_set:
            # Ties: score descending, then document id descending (trec_eval).
            pairs = sorted(zip(s_s[a:b].tolist(), block, strict=True), reverse=True)
            given, block = block, [d for _, d in pairs]
            if block != given:  # the file's own order (its ranks, else its lines)
                reordered.append(names[q])
        ranking = dict(zip(block, range(b - a, 0, -1), strict=True))
        if len(ranking) < b - a:
            where_in_file = range(a, b) if perm is None else perm[a:b].tolist()
            _duplicate(names[q], docs[a:b], list(where_in_file), where)
        rankings[names[q]] = ranking
    tied = tuple(sorted((names[q] for q in tie_set), key=id_key))
    contradicted = tuple(sorted((names[int(q)] for q in contra), key=id_key))
    return rankings, tied, tuple(sorted(reordered, key=id_key)), contradicted


def _combined(array: Any) -> Any:
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


def _duplicate(
    qid: str,
    block: list[str],
    entries: list[int],
    where: Callable[[int], tuple[str, int | None]],
) -> None:
    """Raise for the earliest second listing of a document (in file order) in a block."""
    first: dict[str, int] = {}
    second: list[tuple[int, str]] = []
    for docid, entry in sorted(zip(block, entries, strict=True), key=lambda p: p[1]):
        if docid in first:
            second.append((entry, docid))
        else:
            first[docid] = entry
    entry, docid = min(second)
    path, line = where(entry)
    raise DataError(
        f"document {docid!r} is listed twice for query {qid!r}",
        path=path,
        line=line,
        hint="list each document once per query",
    )
