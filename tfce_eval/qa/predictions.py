"""Predictions files for `score` (Q5), and the outputs a model run hands to the scorer.

A predictions file is JSON Lines, one object per answered item:
`{"id" or "question_id", "response": "<model text>"}` or `{"id", "answer": <label,
true/false or text>}`, with optional `"retrieved": [{"chunk_id", "source", "score"}, ...]`
(rank order; plain chunk ids also do), `"evidence": [chunk ids]` (QASPER's cited
paragraphs), `"context"` and `"error"` (the request failed: a request error).

The file is data from elsewhere, so it is read within bounds (`LIMITS`, by the one JSON
reader, `tfce_eval.jsonl`): a line longer than 1 MB, nested deeper than 64 levels or with
an integer beyond Python's digit limit is refused with one clear line, as is a line that is
not a JSON object, an id the dataset lacks, or a line with neither a response nor an answer.
An id given twice warns; the later line counts. A last line without its line end that is
not JSON (what a run stopped mid-write leaves) is left out with a warning naming it, and the
item it held counts as missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLimits, JsonLines, JsonRefused, torn_line_warning
from tfce_eval.words import counted

#: The bounds of one line: its length in bytes, and how deeply it may nest.
LIMITS = JsonLimits(max_bytes=1 << 20, max_depth=64)
MAX_LINE = LIMITS.max_bytes
MAX_DEPTH = LIMITS.max_depth


@dataclass(frozen=True, slots=True)
class RetrievedChunk:
    """One chunk a retriever returned for an item; `source` names its spec where known."""

    chunk_id: str
    source: str = ""
    score: float | None = None


@dataclass(frozen=True, slots=True)
class QaOutput:
    """One item's output: the model's text or its direct answer, or the request's error.

    `answer` is a direct answer (a tool argument, a predictions file's "answer"); when it is
    None the `response` text is extracted as Q3 says. `line` is the file line it came from.
    """

    id: str
    response: str | None = None
    answer: object = None
    error: str | None = None
    retrieved: tuple[RetrievedChunk, ...] | None = None
    evidence: tuple[str, ...] | None = None
    context: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Predictions:
    """The outputs read from a predictions file, its digest, and what the reader noticed."""

    path: str
    outputs: tuple[QaOutput, ...]
    sha256: str
    warnings: tuple[str, ...] = ()


def _refusal(where: str, refused: JsonRefused) -> DataError:
    """Why a line is not a prediction's JSON, as the error that stops the score."""
    if refused.limit == "depth":
        return DataError(
            f"nested deeper than {LIMITS.max_depth} levels",
            path=where,
            line=refused.line,
            hint="a prediction is a flat object: id, response or answer, retrieved",
        )
    return refused.error(where, "one JSON object per line", malformed="not JSON")


def _prediction(where: str, number: int, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DataError(
            "a prediction must be a JSON object",
            path=where,
            line=number,
            hint='write {"id": ..., "response": ...} or {"id": ..., "answer": ...}',
        )
    return value


def _retrieved(where: str, number: int, value: Any) -> tuple[RetrievedChunk, ...]:
    hint = 'write "retrieved": [{"chunk_id": ..., "source": ..., "score": ...}, ...]'
    if not isinstance(value, list):
        raise DataError("retrieved must be a list", path=where, line=number, hint=hint)
    chunks = []
    for entry in value:
        if isinstance(entry, str):
            chunks.append(RetrievedChunk(entry))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("chunk_id"), str | int):
            raise DataError(
                "each retrieved chunk needs a chunk_id", path=where, line=number, hint=hint
            )
        score = entry.get("score")
        chunks.append(
            RetrievedChunk(
                str(entry["chunk_id"]),
                str(entry.get("source") or ""),
                float(score) if isinstance(score, int | float) else None,
            )
        )
    return tuple(chunks)


def _output(where: str, number: int, rec: dict[str, Any]) -> QaOutput:
    raw_id = rec.get("id", rec.get("question_id"))
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool) or raw_id == "":
        raise DataError(
            "no id", path=where, line=number, hint='give each line its "id" (or "question_id")'
        )
    response, answer, error = rec.get("response"), rec.get("answer"), rec.get("error")
    if response is not None and not isinstance(response, str):
        raise DataError("response must be text", path=where, line=number, item_id=str(raw_id))
    if response is None and answer is None and not error:
        raise DataError(
            "neither a response nor an answer",
            path=where,
            line=number,
            item_id=str(raw_id),
            hint='add "response" (the model\'s text) or "answer" (label, true/false or text)',
        )
    evidence = rec.get("evidence")
    if evidence is not None and not (
        isinstance(evidence, list) and all(isinstance(e, str | int) for e in evidence)
    ):
        raise DataError(
            "evidence must be a list of chunk ids", path=where, line=number, item_id=str(raw_id)
        )
    context = rec.get("context")
    return QaOutput(
        id=str(raw_id),
        response=response,
        answer=answer,
        error=str(error) if error else None,
        retrieved=None
        if rec.get("retrieved") is None
        else _retrieved(where, number, rec["retrieved"]),
        evidence=None if evidence is None else tuple(str(e) for e in evidence),
        context=None if context is None else str(context),
        line=number,
    )


class PredictionReader:
    """The outputs of a predictions file, read line by line as they are iterated.

    Each line is checked as it is read (a DataError naming the line on the first bad one)
    and only the current line is held, so a caller that scores as it goes keeps no
    responses. A torn last line is left out: `torn_line` names it and `warnings` (a list
    that the iteration fills) says so. `sha256`, `lines`, `torn_line` and `warnings` are
    complete once the iteration has finished.
    """

    def __init__(self, path: str | Path, known_ids: set[str] | frozenset[str]) -> None:
        self.path = Path(path)
        self.known_ids = known_ids
        self.lines = 0
        self.torn_line: int | None = None
        self.warnings: list[str] = []
        self._file = self._open()

    def _open(self) -> JsonLines:
        return JsonLines(self.path, limits=LIMITS, torn_tail_ok=True)

    @property
    def sha256(self) -> str:
        return self._file.digest()

    def __iter__(self) -> Iterator[QaOutput]:
        where = str(self.path)
        self._file = self._open()
        self.warnings.clear()
        for number, value, refused in self._file.entries():
            self.lines = self._file.lines
            if refused is not None:
                raise _refusal(where, refused)
            output = _output(where, number, _prediction(where, number, value))
            if output.id not in self.known_ids:
                raise DataError(
                    f"id {output.id!r} is not in the dataset",
                    path=where,
                    line=number,
                    hint="score predictions against the dataset and split they were made for",
                )
            yield output
        self.lines = self._file.lines
        self.torn_line = self._file.torn_line
        if self.torn_line is not None:
            self.warnings.append(torn_line_warning(where, self.torn_line))


def read_predictions(path: str | Path, known_ids: set[str] | frozenset[str]) -> Predictions:
    """Every prediction of a file at once, checked against the dataset's ids; an id given
    twice warns and its later line counts."""
    reader = PredictionReader(path, known_ids)
    seen: dict[str, QaOutput] = {}
    repeated: list[str] = []
    for output in reader:
        if output.id in seen:
            repeated.append(output.id)
        seen[output.id] = output
    warnings = list(reader.warnings)
    if repeated:
        first = ", ".join(list(dict.fromkeys(repeated))[:3])
        warnings.append(
            f"{counted(len(repeated), 'prediction repeats', 'predictions repeat')} an id "
            f"given earlier ({first}); "
            "the later line counts"
        )
    return Predictions(str(reader.path), tuple(seen.values()), reader.sha256, tuple(warnings))
