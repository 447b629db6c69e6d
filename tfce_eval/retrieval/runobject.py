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
        data = parse_json(raw, hint=_HINT, pairs=_Object.of)
    except JsonRefused as exc:
        raise exc.error(path, _HINT) from None
    if not isinstance(data, _Object):  # every object is made one (pairs=_Object.of)
        raise DataError("not a JSON object", path=str(path), hint=_HINT)
    _refuse_repeated_keys(data, path)
    return mapping_columns(data, str(path), lambda i: (str(path), None))


class _Object(dict[str, Any]):
    """A JSON object, and the first key it gives twice (None: none), which a dict alone
    would keep silently with its last value."""

    repeated: str | None = None

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> _Object:
        made = cls(pairs)
        if len(made) != len(pairs):  # rare: only then look for which key it is
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    made.repeated = key
                    break
                seen.add(key)
        return made


def _refuse_repeated_keys(data: _Object, path: Path) -> None:
    """DataError naming a query, or a query's document, that the object gives twice."""
    if data.repeated is not None:
        raise DataError(
            f"query {data.repeated!r} is a key twice: one of its rankings would be lost",
            path=str(path),
            hint="give each query one object {docid: score}",
        )
    for qid, docs in data.items():
        if isinstance(docs, _Object) and docs.repeated is not None:
            raise DataError(
                f"document {docs.repeated!r} is listed twice for query {qid!r}",
                path=str(path),
                hint="list each document once per query",
            )


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
