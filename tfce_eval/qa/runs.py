"""Reading a scored QA run directory (summary.json and scores.jsonl) for the reports.

Every value is checked once, here: a record of the wrong shape is a DataError naming the
file, the line and the field, never a traceback later in a report. A directory with
scores.jsonl and no summary.json gets its summary recomputed from the records (without a
dataset, so the dataset fields are empty); run.json, when present, names the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, read_json
from tfce_eval.model import TaskKind
from tfce_eval.qa.items import AnswerType, QaDataset
from tfce_eval.qa.judge import Grade
from tfce_eval.qa.records import ErrorType, QaScore
from tfce_eval.qa.summary import summarise
from tfce_eval.scoring.options import MissingMode
from tfce_eval.scoring.rundir import RUN_JSON, SCORES, SUMMARY, check_run_task, no_run_directory

_HINT = "give a directory written by `tfce-eval score` or `tfce-eval run` on a QA dataset"


@dataclass(frozen=True, slots=True)
class QaRun:
    """One scored run: its name, directory, summary and per-item records (sorted by id);
    for a model's run, from its run.json, the model and when the run started."""

    name: str
    path: Path
    summary: dict[str, Any]
    records: tuple[QaScore, ...]
    model: str | None = None
    started: str | None = None

    @property
    def dataset_sha256(self) -> str:
        dataset = self.summary.get("dataset")
        return str(dataset.get("sha256") or "") if isinstance(dataset, dict) else ""


_OPTIONAL_TEXT = ("extracted", "error", "context")
_TEXT = ("difficulty", "series", "spec", "release", "reference")
_OPTIONAL_NUMBER = ("score", "exact_match", "token_f1", "evidence_f1")
_OPTIONAL_BOOL = ("correct", "canonical_hit", "chunk_hit")


def _field_error(path: Path, line: int, field: str, want: str) -> DataError:
    return DataError(
        f"field {field!r} must be {want}",
        path=str(path),
        line=line,
        hint="scores.jsonl is written by tfce-eval; score the predictions again",
    )


def _record(path: Path, line: int, rec: Any) -> QaScore:
    if not isinstance(rec, dict):
        raise DataError("a record must be a JSON object", path=str(path), line=line, hint=_HINT)
    if not isinstance(rec.get("id"), str):
        raise _field_error(path, line, "id", "text")
    try:
        kind = AnswerType(str(rec.get("answer_type")))
    except ValueError:
        raise _field_error(path, line, "answer_type", "mc, tf or open") from None
    try:
        error_type = None if rec.get("error_type") is None else ErrorType(rec["error_type"])
        grade = None if rec.get("grade") is None else Grade(rec["grade"])
    except ValueError:
        raise _field_error(path, line, "error_type or grade", "a known value") from None
    for name in _OPTIONAL_TEXT:
        if not isinstance(rec.get(name), str | None):
            raise _field_error(path, line, name, "text or null")
    for name in _TEXT:
        if not isinstance(rec.get(name, ""), str):
            raise _field_error(path, line, name, "text")
    for name in _OPTIONAL_NUMBER:
        value = rec.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1
        ):
            raise _field_error(path, line, name, "a number from 0 to 1, or null")
    for name in (*_OPTIONAL_BOOL, "missing"):
        if not isinstance(rec.get(name), bool | None):
            raise _field_error(path, line, name, "true, false or null")
    return QaScore(
        id=rec["id"],
        answer_type=kind,
        extracted=rec.get("extracted"),
        correct=rec.get("correct"),
        score=rec.get("score"),
        error_type=error_type,
        error=rec.get("error"),
        difficulty=rec.get("difficulty", ""),
        series=rec.get("series", ""),
        spec=rec.get("spec", ""),
        release=rec.get("release", ""),
        reference=rec.get("reference", ""),
        grade=grade,
        exact_match=rec.get("exact_match"),
        token_f1=rec.get("token_f1"),
        evidence_f1=rec.get("evidence_f1"),
        canonical_hit=rec.get("canonical_hit"),
        chunk_hit=rec.get("chunk_hit"),
        missing=bool(rec.get("missing")),
        context=rec.get("context"),
    )


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    for number, value, refused in JsonLines(path).entries():
        if refused is not None:
            raise refused.error(path, _HINT)
        yield number, value


def _summary(path: Path) -> dict[str, Any]:
    value = read_json(path, hint=_HINT)
    if not isinstance(value, dict) or value.get("task") != TaskKind.QA:
        raise DataError("not the summary of a QA run", path=str(path), hint=_HINT)
    types = value.get("answer_types")
    if not isinstance(types, dict) or not all(isinstance(block, dict) for block in types.values()):
        raise DataError("answer_types must be an object of objects", path=str(path), hint=_HINT)
    return value


def load_qa_run(path: str | Path, name: str | None = None) -> QaRun:
    """The scored run in `path` (a directory, or its summary.json)."""
    run_dir = Path(path)
    if run_dir.is_file() and run_dir.name == SUMMARY:
        run_dir = run_dir.parent
    if not run_dir.is_dir():
        raise DataError(no_run_directory(run_dir), path=str(run_dir), hint=_HINT)
    check_run_task(run_dir, TaskKind.QA)
    scores, summary_file = run_dir / SCORES, run_dir / SUMMARY
    if not scores.is_file() and not summary_file.is_file():
        raise DataError(f"neither {SUMMARY} nor {SCORES} here", path=str(run_dir), hint=_HINT)
    records: tuple[QaScore, ...] = ()
    if scores.is_file():
        records = tuple(
            sorted((_record(scores, n, r) for n, r in _lines(scores)), key=lambda r: r.id)
        )
    if summary_file.is_file():
        summary = _summary(summary_file)
    else:
        graded = any(r.grade is not None for r in records)
        judge = {"model": "unknown (recomputed)", "prompt_sha256": ""} if graded else None
        summary = summarise(
            records,
            QaDataset(path="", split="", items=()),
            k=5,
            judge=judge,
            chunks_comparable=any(r.chunk_hit is not None for r in records),
            missing=sum(1 for r in records if r.missing),
            missing_policy=MissingMode.COUNT,
        )
    model = started = None
    run_json = run_dir / RUN_JSON
    if run_json.is_file():
        try:
            info = read_json(run_json)
        except DataError:
            info = None
        if isinstance(info, dict):
            model = str(info["model"]) if info.get("model") else None
            started = info["started_at"] if isinstance(info.get("started_at"), str) else None
    return QaRun(name or run_dir.resolve().name, run_dir, summary, records, model, started)
