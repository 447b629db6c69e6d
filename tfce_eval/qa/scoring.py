"""Scoring QA outputs: a predictions file (`score`, Q5) or a model run's outputs.

Both paths meet in `score_outputs_async`: each item of the dataset is scored from its
output (`records.score_item`), open answers are graded by the judge where one is given
(cached verdicts first, so a re-score asks nothing it already knows), and scores.jsonl
(sorted by id) and summary.json are written atomically into the output directory.

An item the outputs lack is a `request_error` marked `missing` (counted wrong, reported
apart) under the default policy `count`; `skip` leaves it out, as fc's `--missing skip`.
A judge that raises, or answers without a grade, makes its item `ungraded` with the reason;
it never stops the scoring.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tfce_eval.dataset.paths import recorded
from tfce_eval.errors import DataError, UsageError, refuse_running_loop
from tfce_eval.model import parse_choice
from tfce_eval.qa.grading import Grader
from tfce_eval.qa.items import QaDataset, QaItem
from tfce_eval.qa.judge import (
    CACHE_NAME,
    JUDGE_PROMPT_SHA256,
    Judge,
    VerdictCache,
)
from tfce_eval.qa.predictions import (
    PredictionReader,
    QaOutput,
    RetrievedChunk,
    read_context_run,
    refuse_own_retrieved,
)
from tfce_eval.qa.records import QaScore, score_item
from tfce_eval.qa.summary import summarise
from tfce_eval.scoring.options import MissingMode
from tfce_eval.scoring.rundir import write_scored
from tfce_eval.words import counted, listed

_T = TypeVar("_T")

#: Fields added to a summary: a mapping, or a callable giving one once the outputs are read.
Extra = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


@dataclass(frozen=True, slots=True)
class QaResult:
    """A scored run: its records (sorted by id), its summary, where they were written."""

    records: tuple[QaScore, ...]
    summary: dict[str, Any]
    out_dir: Path | None
    warnings: tuple[str, ...] = ()


def _score_all(
    outputs: Iterable[QaOutput],
    items: Mapping[str, QaItem],
    *,
    k: int,
    retrieved: Mapping[str, Sequence[RetrievedChunk]],
    qasper: bool,
) -> tuple[dict[str, QaScore], list[str], bool]:
    """Each output scored as it arrives (so no response is kept), by id; the warnings; and
    whether any output cited evidence."""
    scored: dict[str, QaScore] = {}
    repeated: list[str] = []
    cites = False
    for output in outputs:
        item = items.get(output.id)
        if item is None:
            raise DataError(
                f"id {output.id!r} is not in the dataset",
                line=output.line,
                hint="score outputs against the dataset and split they were made for",
            )
        if output.id in scored:
            repeated.append(output.id)
        cites = cites or output.evidence is not None
        scored[output.id] = score_item(
            item, output, k=k, retrieved=retrieved.get(output.id), evidence_scored=qasper
        )
    warnings = []
    if repeated:
        warnings.append(
            f"{counted(len(repeated), 'output repeats', 'outputs repeat')} an id given earlier "
            f"({listed(list(dict.fromkeys(repeated)))}); the later one counts"
        )
    return scored, warnings, cites


async def score_outputs_async(
    outputs: Iterable[QaOutput],
    dataset: QaDataset,
    *,
    out_dir: str | Path | None,
    judge: Judge | None = None,
    judge_name: str | None = None,
    retrieved: Mapping[str, Sequence[RetrievedChunk]] | None = None,
    k: int = 5,
    missing: MissingMode = MissingMode.COUNT,
    chunk_hit: bool | None = None,
    concurrency: int = 8,
    warnings: Sequence[str] = (),
    extra: Extra = None,
) -> QaResult:
    """Score outputs against the dataset and write scores.jsonl and summary.json.

    `outputs` may be a lazy iterable: each output is scored as it arrives and not kept.
    `extra` adds fields to the summary; a callable is called once the outputs are read,
    for figures known only then (a file's digest).

    `judge_name` names the judge model (it keys the cache); with a name and no judge, only
    cached verdicts grade. `retrieved` gives chunks per item id for items whose output names
    none (a run file); `chunk_hit` says whether retrieved chunk ids are the gold's (None:
    yes when any top-k id is one). With `out_dir` None nothing is written.
    """
    if judge is not None and not judge_name:
        raise UsageError("a judge needs its model name (judge_name): it keys the verdict cache")
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")
    missing = parse_choice(MissingMode, missing, "missing")
    items = {item.id: item for item in dataset.items}
    lookup = retrieved or {}
    qasper = dataset.kind == "qasper"
    scored, repeated, cites = _score_all(outputs, items, k=k, retrieved=lookup, qasper=qasper)
    notes = [*warnings, *dataset.warnings, *repeated]
    records: list[QaScore] = []
    absent: list[str] = []
    for item_id in sorted(items):
        record = scored.get(item_id)
        if record is None:
            absent.append(item_id)
            if missing is MissingMode.SKIP:
                continue
            record = score_item(
                items[item_id], None, k=k, retrieved=lookup.get(item_id), evidence_scored=qasper
            )
        if qasper and not cites:  # Evidence-F1 only when the outputs cite evidence at all
            record = dataclasses.replace(record, evidence_f1=None)
        records.append(record)
    del scored
    n_missing = len(absent)
    if n_missing:
        one = n_missing == 1
        if missing is MissingMode.COUNT:
            verb = "counts as a request error" if one else "count as request errors"
        else:
            verb = "is left out" if one else "are left out"
        notes.append(
            f"{counted(n_missing, 'item has', 'items have')} no output and {verb} "
            f"({listed(absent)})"
        )
    out = None if out_dir is None else Path(out_dir)
    judge_info = None
    if judge_name:
        cache = VerdictCache(None if out is None else out / CACHE_NAME)
        grader = Grader(judge, judge_name, cache, concurrency)
        records = await grader.grade_open(items, records)
        judge_info = {"model": judge_name, "prompt_sha256": JUDGE_PROMPT_SHA256, **grader.counts}
        if grader.first_failure is not None:
            failed = grader.counts["failed"]
            notes.append(
                f"the judge failed on {failed} of "
                f"{counted(grader.counts['asked'], 'open answer')}: "
                f"{'it is' if failed == 1 else 'they are'} ungraded (left out of its mean); "
                f"first: {grader.first_failure}"
            )
        if cache.torn:
            notes.append(f"{cache.torn} unreadable lines of {CACHE_NAME} were skipped")
    comparable = chunk_hit if chunk_hit is not None else any(r.chunk_hit for r in records)
    if not comparable:
        records = [
            dataclasses.replace(r, chunk_hit=None) if r.chunk_hit is not None else r
            for r in records
        ]
    summary = summarise(
        records,
        dataset,
        k=k,
        judge=judge_info,
        chunks_comparable=comparable,
        missing=n_missing,
        missing_policy=missing,
        warnings=notes,
        extra=extra() if callable(extra) else extra,
    )
    # Scoring without a judge never awaits, so a Ctrl-C (asyncio cancels the task) would
    # be heard only after the files were written: it is heard here, before.
    await asyncio.sleep(0)
    if out is not None:
        write_scored(out, (r.to_json() for r in records), summary)
    return QaResult(tuple(records), summary, out, tuple(notes))


def run_to_end(scoring: Coroutine[Any, Any, _T]) -> _T:
    """Run a scoring coroutine to its end in an event loop of its own. The result travels
    outside the main task: when asyncio.run restores the SIGINT handler it formats the
    task, result included, and a result of 100,000 records would take a second to format.
    """
    holder: list[_T] = []

    async def main() -> None:
        holder.append(await scoring)

    asyncio.run(main())
    return holder[0]


def score_outputs(
    outputs: Iterable[QaOutput],
    dataset: QaDataset,
    *,
    out_dir: str | Path | None,
    judge: Judge | None = None,
    judge_name: str | None = None,
    retrieved: Mapping[str, Sequence[RetrievedChunk]] | None = None,
    k: int = 5,
    missing: MissingMode = MissingMode.COUNT,
    chunk_hit: bool | None = None,
    concurrency: int = 8,
    warnings: Sequence[str] = (),
    extra: Extra = None,
) -> QaResult:
    """`score_outputs_async` for callers outside an event loop (same options); inside one
    (Jupyter, an async application) a UsageError says to await that instead."""
    refuse_running_loop("score_outputs", "score_outputs_async")
    return run_to_end(
        score_outputs_async(
            outputs,
            dataset,
            out_dir=out_dir,
            judge=judge,
            judge_name=judge_name,
            retrieved=retrieved,
            k=k,
            missing=missing,
            chunk_hit=chunk_hit,
            concurrency=concurrency,
            warnings=warnings,
            extra=extra,
        )
    )


def score_predictions(
    path: str | Path,
    dataset: QaDataset,
    *,
    out_dir: str | Path | None,
    judge: Judge | None = None,
    judge_name: str | None = None,
    retrieved: Mapping[str, Sequence[RetrievedChunk]] | None = None,
    k: int = 5,
    missing: MissingMode = MissingMode.COUNT,
    chunk_hit: bool | None = None,
    concurrency: int = 8,
    run_file: str | Path | None = None,
    extra_summary: Mapping[str, Any] | None = None,
    warnings: Sequence[str] = (),
) -> QaResult:
    """Score a predictions file (Q5): read it within bounds, then as `score_outputs`.

    `run_file`, a retrieval run (any form `score` reads), gives each question's top `k`
    chunks for the canonical hit rate, as the lines' own "retrieved" would; a line that
    carries its own beside it is a UsageError. A bad line stops with a DataError naming
    it before anything is written. Inside an event loop (Jupyter, an async application)
    await `score_predictions_async` instead. `extra_summary`: more keys for
    summary.json (a run's `run`, when its own outputs are scored again); `warnings`:
    the caller's, said first with the score's own.
    """
    refuse_running_loop("score_predictions", "score_predictions_async")
    return run_to_end(
        score_predictions_async(
            path,
            dataset,
            out_dir=out_dir,
            judge=judge,
            judge_name=judge_name,
            retrieved=retrieved,
            k=k,
            missing=missing,
            chunk_hit=chunk_hit,
            concurrency=concurrency,
            run_file=run_file,
            extra_summary=extra_summary,
            warnings=warnings,
        )
    )


async def score_predictions_async(
    path: str | Path,
    dataset: QaDataset,
    *,
    out_dir: str | Path | None,
    judge: Judge | None = None,
    judge_name: str | None = None,
    retrieved: Mapping[str, Sequence[RetrievedChunk]] | None = None,
    k: int = 5,
    missing: MissingMode = MissingMode.COUNT,
    chunk_hit: bool | None = None,
    concurrency: int = 8,
    run_file: str | Path | None = None,
    extra_summary: Mapping[str, Any] | None = None,
    warnings: Sequence[str] = (),
) -> QaResult:
    """`score_predictions` in the caller's event loop (same options)."""
    ids = frozenset(i.id for i in dataset.items)
    reader = PredictionReader(path, ids)
    run = None
    if run_file is not None:
        if retrieved is not None:
            raise UsageError("give retrieved chunks or a run_file, not both")
        specs = any(item.spec for item in dataset.items)
        run = read_context_run(run_file, ids, k, specs=specs)
        retrieved = run.chunks
    notes = [*warnings, *(run.warnings if run else ())]

    def outputs() -> Iterator[QaOutput]:
        yield from reader if run_file is None else refuse_own_retrieved(reader, path, run_file)
        notes.extend(reader.warnings)  # a torn last line: known once the file is read

    def extra() -> dict[str, Any]:
        predictions = {"path": recorded(reader.path), "sha256": reader.sha256}
        found = {**(extra_summary or {}), "predictions": {**predictions, "lines": reader.lines}}
        return found if run is None else {**found, "retrieval_run": dict(run.described)}

    return await score_outputs_async(
        outputs(),
        dataset,
        out_dir=out_dir,
        judge=judge,
        judge_name=judge_name,
        retrieved=retrieved,
        k=k,
        missing=missing,
        chunk_hit=chunk_hit,
        concurrency=concurrency,
        warnings=notes,
        extra=extra,
    )
