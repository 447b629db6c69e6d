"""Predictions files for `score` (Q5), and the outputs a model run hands to the scorer.

A predictions file is JSON Lines, one object per answered item:
`{"id" or "question_id", "response": "<model text>"}` or `{"id", "answer": <label,
true/false or text>}`, with optional `"retrieved": [{"chunk_id", "source", "score"}, ...]`
(rank order; plain chunk ids also do), `"evidence": [chunk ids]` (QASPER's cited
paragraphs), `"context"` and `"error"` (the request failed: a request error when the line
has neither a response nor an answer).

The file is data from elsewhere, so it is read within bounds (`LIMITS`, by the one JSON
reader, `tfce_eval.jsonl`): a line longer than 1 MB, nested deeper than 64 levels or with
an integer beyond Python's digit limit is refused with one clear line, as is a line that is
not a JSON object, an id the dataset lacks, or a line with neither a response nor an answer.
An id given twice warns; the later line counts. A last line without its line end that is
not JSON (what a run stopped mid-write leaves) is left out with a warning naming it, and the
item it held counts as missing.

A retrieval run file may stand in for the lines' `"retrieved"` (`read_context_run`): each
question's top k chunks of the run, in trec_eval's order. The two are not mixed: a line
that carries its own `"retrieved"` beside a run file stops the score (`refuse_own_retrieved`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError, UsageError
from tfce_eval.jsonl import JsonLimits, JsonLines, JsonRefused, torn_line_warning
from tfce_eval.qa.items import normalise_spec
from tfce_eval.words import counted, listed

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
        # As for function-calling outputs: an answer given is scored, whatever "error" says.
        error=str(error) if error and response is None and answer is None else None,
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
        warnings.append(
            f"{counted(len(repeated), 'prediction repeats', 'predictions repeat')} an id "
            f"given earlier ({listed(list(dict.fromkeys(repeated)))}); "
            "the later line counts"
        )
    return Predictions(str(reader.path), tuple(seen.values()), reader.sha256, tuple(warnings))


@dataclass(frozen=True, slots=True)
class ContextRun:
    """A retrieval run read for the canonical hit rate of a predictions file: each question's
    top k chunks (none for a question the run ranks nothing for), what summary.json records
    of the run file (its absolute path, form, counts and SHA-256), and what was noticed."""

    chunks: Mapping[str, tuple[RetrievedChunk, ...]]
    described: Mapping[str, object] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def read_context_run(
    path: str | Path, known_ids: set[str] | frozenset[str], k: int, *, specs: bool = False
) -> ContextRun:
    """The top `k` chunks per question of a run file in any form `score` reads for
    retrieval (TREC, JSON Lines, JSON). DataError naming the file when it ranks none of the
    dataset's questions; a question it ranks nothing for gets no chunk (a miss), and queries
    the dataset lacks are ignored, each with a warning. A run knows its chunks by id only,
    so a chunk's spec is read from its id: with `specs` (the questions have canonical
    specs) a warning says so when no chunk id names one."""
    from tfce_eval.retrieval.runs import described, read_run

    run = read_run(path)
    ranked = sorted(q for q in known_ids if run.rankings.get(q))
    if not ranked:
        known = listed(sorted(run.rankings)) or "none"
        raise DataError(
            f"the run ranks none of the dataset's {counted(len(known_ids), 'question')} "
            f"(its query ids: {known})",
            path=str(path),
            hint="give a run made for this dataset's question ids and split",
        )
    warnings = list(run.warnings)
    unranked = sorted(set(known_ids) - set(ranked))
    if unranked:
        warnings.append(
            f"the run ranks nothing for {len(unranked)} of the "
            f"{counted(len(known_ids), 'question')} ({listed(unranked)}): they count as "
            "canonical misses"
        )
    unknown = sorted(set(run.rankings) - set(known_ids))
    if unknown:
        warnings.append(
            f"{counted(len(unknown), 'query', 'queries')} of the run "
            f"{'is' if len(unknown) == 1 else 'are'} not in the dataset ({listed(unknown)}); "
            "ignored"
        )
    chunks = {
        qid: tuple(RetrievedChunk(d) for d in list(run.rankings.get(qid, {}))[:k])
        for qid in sorted(known_ids)
    }
    top = [c.chunk_id for ranking in chunks.values() for c in ranking]
    if specs and not any(normalise_spec(chunk) for chunk in top):
        shown = listed(list(dict.fromkeys(top)))
        warnings.append(
            f"no chunk id in the run's top {k} names a 3GPP spec ({shown}): every "
            "question is a canonical miss; name chunks by spec (38331-j00_12), or give "
            'the lines "retrieved" with a "source" instead of --run'
        )
    return ContextRun(chunks, described(run), tuple(warnings))


def refuse_own_retrieved(
    outputs: Iterable[QaOutput], where: str | Path, run: str | Path
) -> Iterator[QaOutput]:
    """The outputs as they come; UsageError at the first that names its own retrieved
    chunks while a run file gives them: one hit rate would mix two retrievals."""
    for output in outputs:
        if output.retrieved is not None:
            line = f", line {output.line}" if output.line else ""
            raise UsageError(
                f'{where}{line}: carries its own "retrieved" and --run {run} gives the '
                "chunks too; the hit rate would mix two retrievals: give one of them"
            )
        yield output
