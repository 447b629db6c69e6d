"""Failing items of scored QA runs, for `report --failures N`: what a model got wrong.

Per answer type (mc, tf, open), up to N items that were not right, in id order: mc and tf
items not correct (parse and request errors included, their error shown); open items whose
judge score is below 1 (ungraded ones included) or, when no judge graded the run, whose
lexical token F1 is below 1. Each shows the question, the reference, the extracted answer
and, when the scored file holds it, the model's response, cut to `MAX_TEXT` characters.

The questions come from the dataset the run recorded (or the one given with `--data`),
which may be gone or changed by the time a report is made: nothing here raises because of
that. A failure without its question says it is unavailable and why. The responses come
from the run's outputs.jsonl, or the predictions file `score` read; model text is data,
shown inert by the renderers of `report.document`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError, first_line, given_dataset_error
from tfce_eval.jsonl import JsonLines
from tfce_eval.qa.items import AnswerType, QaDataset, QaItem
from tfce_eval.qa.predictions import LIMITS
from tfce_eval.qa.records import QaScore
from tfce_eval.qa.runs import QaRun
from tfce_eval.report.document import Cell, Document, Table, clip, run_letters
from tfce_eval.scoring.rundir import OUTPUTS, scored_file
from tfce_eval.words import counted

#: Longest text shown for one question, reference, answer or response.
MAX_TEXT = 2000
#: How a report says where the questions can be given from.
GIVE_DATA = "give it with `tfce-eval report --data DIR`"
#: (dataset path or builtin:NAME, split or None) -> the dataset; raises when it cannot.
Loader = Callable[[str, str | None], QaDataset]
_TYPES = (AnswerType.MC, AnswerType.TF, AnswerType.OPEN)


@dataclass(frozen=True)
class QaFailure:
    """One item that was not right, as every format shows it."""

    id: str
    answer_type: str
    problem: str  # "wrong", "parse_error: ...", "judge 0.5 (P)", "token F1 0.40"
    error_type: str | None
    error: str | None
    score: float | None  # the judge's score, or the lexical token F1 (open items)
    question: str | None  # None: unavailable (see QaRunFailures.note)
    reference: str
    extracted: str | None
    response: str | None  # None: not in the scored file

    def fields(self) -> tuple[tuple[str, str], ...]:
        """The labelled texts of the item, in the order every format shows them."""
        shown = [
            ("problem", self.problem),
            ("question", "(unavailable)" if self.question is None else self.question),
            ("reference", self.reference),
            ("extracted", "(none)" if self.extracted is None else self.extracted),
        ]
        if self.response is not None:
            shown.append(("response", self.response))
        return tuple(shown)


@dataclass(frozen=True)
class TypeFailures:
    answer_type: str
    failing: int  # every item of the type that was not right
    total: int
    shown: tuple[QaFailure, ...]


@dataclass(frozen=True)
class QaRunFailures:
    run: str
    types: tuple[TypeFailures, ...]
    open_basis: str | None  # "judge" or "lexical token F1"; None without open items
    note: str | None  # why questions or responses are missing, or may not be the ones asked


def _judged(run: QaRun) -> bool:
    return isinstance(run.summary.get("judge"), dict)


def _failing(record: QaScore, judged: bool) -> bool:
    if record.answer_type is not AnswerType.OPEN:
        return record.correct is not True
    value = record.score if judged else record.token_f1
    return value is None or value < 1


def _error(record: QaScore) -> str:
    return f"{record.error_type}: {record.error}" if record.error else str(record.error_type)


def _problem(record: QaScore, judged: bool) -> tuple[str, float | None]:
    """What went wrong, in words, and the open item's score (judge's, else token F1)."""
    if record.answer_type is not AnswerType.OPEN:
        return ("wrong" if record.error_type is None else _error(record)), None
    value = record.score if judged else record.token_f1
    if value is None:  # a judged run's item the judge did not grade
        return (_error(record) if record.error_type else "not graded"), None
    if judged:
        said = f"judge {value:g}" + (f" ({record.grade})" if record.grade is not None else "")
    else:
        said = f"token F1 {value:.2f} (lexical)"
    if record.error_type is not None:
        said += f"; {_error(record)}"
    return said, value


def question_text(item: QaItem) -> str:
    """The question as the model read it: with its options, one a line, for mc."""
    lines = [item.question, *(f"{label}. {text}" for label, text in item.options)]
    return clip("\n".join(lines), MAX_TEXT)


class QuestionSource:
    """Where failures get their questions: `--data`, else each run's recorded dataset.

    Datasets are loaded once per (path, split). A `--data` that cannot be loaded raises
    (the user named it); a recorded one that cannot be loaded makes a note instead."""

    def __init__(self, load: Loader, data: str | None = None) -> None:
        self.load, self.data = load, data
        self._cache: dict[tuple[str, str | None], QaDataset | str] = {}

    def _dataset(self, path: str, split: str | None, given: bool) -> QaDataset | str:
        key = (path, split)
        if key not in self._cache:
            try:
                self._cache[key] = self.load(path, split)
            except Exception as exc:  # moved, edited, unreadable: the report goes on
                if given:
                    raise given_dataset_error(path, exc, "question-answering") from exc
                first = first_line(exc).removeprefix(f"{path}: ")  # the path is said once
                self._cache[key] = f"unavailable, could not load {path}: {first}; {GIVE_DATA}"
        return self._cache[key]

    def questions(self, run: QaRun, ids: Collection[str]) -> tuple[dict[str, str], str | None]:
        """The questions with these ids, and a note when some or all cannot be had."""
        recorded = run.summary.get("dataset")
        recorded = recorded if isinstance(recorded, dict) else {}
        split = str(recorded.get("split") or "") or None
        path = self.data if self.data is not None else str(recorded.get("path") or "")
        if not path:
            return {}, f"unavailable, the run recorded no dataset; {GIVE_DATA}"
        dataset = self._dataset(path, split, given=self.data is not None)
        if isinstance(dataset, str):
            return {}, dataset
        found = {i.id: question_text(i) for i in dataset.items if i.id in ids}
        sha = run.dataset_sha256
        if sha and dataset.sha256 and dataset.sha256 != sha:
            return found, f"{path} changed since the run; they may differ from those asked"
        if len(found) < len(ids):
            lost = len(ids) - len(found)
            verb = "is" if lost == 1 else "are"
            return found, f"{lost} of {counted(len(ids), 'shown item')} {verb} not in {path}"
        return found, None


def _scored_file(run: QaRun) -> tuple[Path | None, str | None]:
    """The file the run's answers were scored from, still the bytes scored; or None and
    why its responses are not shown."""
    predictions = run.summary.get("predictions")
    if not isinstance(predictions, dict) or not predictions.get("path"):
        # A model run: its answers are the directory's own outputs.jsonl.
        return ((run.path / OUTPUTS) if (run.path / OUTPUTS).is_file() else None), None
    sha = str(predictions.get("sha256") or "")
    path, why = scored_file(str(predictions["path"]), run.path, sha)
    # A changed file's lines may be other answers than those scored.
    return path, None if path is not None else f"responses not shown: {why}"


def responses(run: QaRun, ids: Collection[str]) -> tuple[dict[str, str], str | None]:
    """The model's response texts of these items from the scored file (the last line of an
    id counts, as in scoring), and a note when the file is gone, changed or unreadable."""
    path, note = _scored_file(run)
    if path is None or not ids:
        return {}, note
    found: dict[str, str] = {}
    try:
        for _, value, _ in JsonLines(path, limits=LIMITS, torn_tail_ok=True).entries():
            if not isinstance(value, dict):
                continue
            item_id = value.get("id", value.get("question_id"))
            text = value.get("response")
            if isinstance(item_id, str | int) and str(item_id) in ids:
                if isinstance(text, str):
                    found[str(item_id)] = clip(text, MAX_TEXT)
                else:
                    found.pop(str(item_id), None)
    except (DataError, OSError) as exc:
        return {}, f"responses unavailable, {exc}".splitlines()[0]
    return found, None


def collect_qa_failures(
    run: QaRun, name: str, per_type: int, source: QuestionSource
) -> QaRunFailures:
    """Up to `per_type` items of each answer type that were not right, in id order."""
    if not run.records:
        none = "no per-item records (scores.jsonl), so failing items cannot be listed"
        return QaRunFailures(name, (), None, none)
    judged = _judged(run)
    by_type: dict[AnswerType, list[QaScore]] = {}
    for record in run.records:
        by_type.setdefault(record.answer_type, []).append(record)
    picked = []
    for kind in _TYPES:
        if kind in by_type:
            failing = sorted((r for r in by_type[kind] if _failing(r, judged)), key=lambda r: r.id)
            picked.append((kind, failing, len(by_type[kind])))
    shown = {r.id for _, failing, _ in picked for r in failing[:per_type]}
    notes: list[str] = []
    questions: dict[str, str] = {}
    texts: dict[str, str] = {}
    if shown:
        questions, note = source.questions(run, shown)
        texts, said = responses(run, shown)
        notes += [f"Questions: {note}"] if note else []
        notes += [said[:1].upper() + said[1:]] if said else []
    types = []
    for kind, failing, total in picked:
        items = []
        for r in failing[:per_type]:
            problem, score = _problem(r, judged)
            items.append(
                QaFailure(
                    id=r.id,
                    answer_type=str(kind),
                    problem=clip(problem, MAX_TEXT),
                    error_type=None if r.error_type is None else str(r.error_type),
                    error=None if r.error is None else clip(r.error, MAX_TEXT),
                    score=score,
                    question=questions.get(r.id),
                    reference=clip(r.reference, MAX_TEXT),
                    extracted=None if r.extracted is None else clip(r.extracted, MAX_TEXT),
                    response=texts.get(r.id),
                )
            )
        types.append(TypeFailures(str(kind), len(failing), total, tuple(items)))
    basis = None
    if AnswerType.OPEN in by_type:
        basis = "judge" if judged else "lexical token F1"
    return QaRunFailures(name, tuple(types), basis, ". ".join(notes) or None)


def _tables(failures: QaRunFailures, label: str) -> list[Table]:
    prefix = f"{label}: " if label else ""
    if not failures.types:
        return [
            Table("failures", f"{prefix}Failures", ("id", "field", "text"), (), failures.note or "")
        ]
    tables = []
    for block in failures.types:
        if not block.failing:
            continue  # said once below, when no type has any
        rows: list[tuple[Cell, ...]] = [
            (f.id, field, text) for f in block.shown for field, text in f.fields()
        ]
        title = (
            f"{prefix}Failures, {block.answer_type}: {len(block.shown)} of "
            f"{block.failing} not right ({counted(block.total, 'item')})"
        )
        if block.answer_type == AnswerType.OPEN:
            notes = [
                "Open items with a judge score below 1 (ungraded ones included)"
                if failures.open_basis == "judge"
                else "Open items with a token F1 below 1 (lexical: no judge graded this run)"
            ]
        else:
            notes = ["Parse and request errors count as not right"]
        if failures.note:
            notes.append(failures.note)
        note = ". ".join(notes) + "."
        tables.append(Table("failures", title, ("id", "field", "text"), tuple(rows), note))
    if not tables:
        right = f"Every one of the {counted(sum(b.total for b in failures.types), 'item')} "
        tables.append(
            Table(
                "failures",
                f"{prefix}Failures: none",
                ("id", "field", "text"),
                (),
                f"{right}was right." + (f" {failures.note}." if failures.note else ""),
            )
        )
    return tables


def _json(failures: QaRunFailures, label: str) -> dict[str, Any]:
    return {
        "label": label or "A",
        "run": failures.run,
        "open_basis": failures.open_basis,
        "note": failures.note,
        "answer_types": [
            {
                "answer_type": block.answer_type,
                "failing": block.failing,
                "total": block.total,
                "shown": [asdict(f) for f in block.shown],
            }
            for block in failures.types
        ],
    }


def with_qa_failures(
    document: Document, runs: Sequence[QaRun], per_type: int, source: QuestionSource
) -> Document:
    """`document` (the runs' report) followed by each run's failing items, under its letter
    when there are several; `--format json` gets them under `"failures"`."""
    labels = run_letters(len(runs)) if len(runs) > 1 else [""]
    collected = [collect_qa_failures(r, r.name, per_type, source) for r in runs]
    tables = [t for f, lab in zip(collected, labels, strict=True) for t in _tables(f, lab)]
    data: Mapping[str, Any] = {
        **document.data,
        "failures": [_json(f, lab) for f, lab in zip(collected, labels, strict=True)],
    }
    return replace(document, tables=(*document.tables, *tables), data=data)
