"""A run written as one JSON object {qid: {docid: score}}, or held as such a mapping.

A key given twice in the file is an error naming it, as a document listed twice in a
TREC run is: json keeps the last of repeated keys, and a query's ranking (or a
document's score) would be lost without a word.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonRefused, parse_json, read_document
from tfce_eval.retrieval.columns import RunColumns, Where

_HINT = "write one JSON object {qid: {docid: score}}"


def object_columns(path: Path) -> RunColumns:
    """The entries of a file that is one JSON object {qid: {docid: score}}."""
    raw = read_document(path)
    try:
        data = parse_json(raw, hint=_HINT)
    except JsonRefused as exc:
        raise exc.error(path, _HINT) from None
    if not isinstance(data, dict):
        raise DataError("not a JSON object", path=str(path), hint=_HINT)
    _refuse_repeated_keys(raw, path)
    return mapping_columns(data, str(path), lambda i: (str(path), None))


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key-value pairs in file order, repeated keys kept."""


def _refuse_repeated_keys(raw: bytes, path: Path) -> None:
    """DataError naming a query, or a query's document, that the object gives twice.

    `raw` has passed parse_json's limits (size, depth, digits, UTF-8); json reads it a
    second time keeping every pair, which only an object of repeated keys needs."""
    import json

    top = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_Pairs)
    queries: set[str] = set()
    for qid, docs in top:
        if qid in queries:
            raise DataError(
                f"query {qid!r} is a key twice: one of its rankings would be lost",
                path=str(path),
                hint="give each query one object {docid: score}",
            )
        queries.add(qid)
        if not isinstance(docs, _Pairs):
            continue  # mapping_columns refuses it
        docids: set[str] = set()
        for docid, _ in docs:
            if docid in docids:
                raise DataError(
                    f"document {docid!r} is listed twice for query {qid!r}",
                    path=str(path),
                    hint="list each document once per query",
                )
            docids.add(docid)


def mapping_columns(data: dict[str, Any], path: str, where: Where) -> RunColumns:
    """The entries of {qid: {docid: score}}; DataError on a value of another shape."""
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    for qid, docs in data.items():
        if not isinstance(docs, dict):
            raise DataError(
                f"query {qid!r} maps to {type(docs).__name__}, not an object",
                path=path,
                hint="write {qid: {docid: score}}",
            )
        for docid, score in docs.items():
            if (
                not isinstance(score, int | float)
                or isinstance(score, bool)
                or finite_score(score) is None
            ):
                raise DataError(
                    f"query {qid!r}, document {docid!r}: the score is not a finite number",
                    path=path,
                    hint="write {qid: {docid: score}} with finite numeric scores",
                )
            qids.append(str(qid))
            docids.append(str(docid))
            scores.append(float(score))
    return RunColumns(qids, docids, scores, None, where, path)


def finite_score(value: int | float) -> float | None:
    """A score as a float, or None when it is not finite (NaN, infinite, or an integer too
    large for a float: a run's scores are data from elsewhere)."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
