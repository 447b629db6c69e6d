"""`validate`'s core: every finding of a dataset of any task, and what it holds.

Function calling: files, ids, category shapes, docs and ground truth, and both checked
against the implementations (functions/ beside the dataset, or the one given). Question
answering: Telco-Retrieve split files, or QASPER-RAG's answers read by the retrieval
checks. Retrieval: corpus, queries and gold of one split.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import UsageError
from tfce_eval.model import Finding, Level, TaskKind
from tfce_eval.tasks import DataRef, resolve_data
from tfce_eval.verbs.settings import ValidateSettings, refuse_other_tasks_settings

if TYPE_CHECKING:
    from tfce_eval.dataset.load import Dataset
    from tfce_eval.dataset.validate import ValidationReport


@dataclass(frozen=True, slots=True)
class Size:
    """What a dataset holds: `24 questions (mc 11, tf 8, open 5)` in numbers."""

    total: int
    noun: str  # item, question or query
    parts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Validated:
    """A dataset checked: its findings in order, and its size (QA and retrieval: None
    when an error means a count of what was read whole would mislead; function calling
    counts its items whatever the errors). `fc` keeps function calling's own report,
    whose JSON form has its counts."""

    task: TaskKind
    findings: tuple[Finding, ...]
    size: Size | None
    fc: ValidationReport | None = None

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is Level.ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is not Level.ERROR)

    def to_json(self) -> dict[str, Any]:
        """What `validate --json` prints, one shape for every task: the task, the items
        (questions, queries) and their counts by kind (None and {} when an error means
        a count would mislead), the numbers of errors and warnings, and the findings."""
        if self.fc is not None:
            return {"task": str(self.task), **self.fc.to_json()}
        return {
            "task": str(self.task),
            "items": None if self.size is None else self.size.total,
            "counts": {} if self.size is None else dict(self.size.parts),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [f.to_json() for f in self.findings],
        }


def validate_data(
    ref: DataRef | str | Path | None = None, settings: ValidateSettings | None = None
) -> Validated:
    """Check a dataset and report every problem: `ref` as `tasks.resolve_data` found it,
    or the dataset itself (a directory or builtin:NAME; None, the built-in
    function-calling one). A UsageError for a setting of another task's datasets, an
    unknown built-in name, split or corpus, or a `functions_dir` that is no directory;
    a DataError only when there is no dataset to check, or `functions_dir` holds no
    functions package."""
    settings = settings or ValidateSettings()
    if not isinstance(settings, ValidateSettings):
        raise UsageError(f"settings: give a ValidateSettings, not {settings!r}")
    if not isinstance(ref, DataRef):
        ref = resolve_data(ref)
    refuse_other_tasks_settings(settings, ref.task, ref.name)
    if ref.task is TaskKind.FC:
        return _validate_fc(ref.path, settings)
    return _validate_other(ref.directory, ref.task, settings)


def _validate_fc(path: Path | None, settings: ValidateSettings) -> Validated:
    from tfce_eval.dataset.validate import validate_dataset
    from tfce_eval.exec.records import ExecOptions, default_functions_dir
    from tfce_eval.exec.validate import exec_findings

    given = settings.functions_dir
    if given is not None and settings.exec_checks:
        # A typo must not read as a dataset whose implementations all check out.
        if not given.is_dir():
            raise UsageError(f"functions_dir: {given} is not a directory")
        from tfce_eval.scoring.options import CheckMode, check_functions_dir

        check_functions_dir(given, CheckMode.EXEC, without="give --no-exec")

    def against_implementations(dataset: Dataset) -> list[Finding]:
        found = given or default_functions_dir(dataset.root)
        if found is None or not found.is_dir():
            return []
        return exec_findings(dataset, ExecOptions(functions_dir=found))

    report = validate_dataset(
        path,
        questions=settings.questions,
        answers=settings.answers,
        answer_style=settings.answer_style,
        extra_checks=(against_implementations,) if settings.exec_checks else (),
    )
    counts = {str(c): n for c, n in report.counts.items()}
    size = Size(report.items, "item", counts)
    return Validated(TaskKind.FC, report.findings, size, fc=report)


def _validate_other(path: Path, task: TaskKind, settings: ValidateSettings) -> Validated:
    """A retrieval or QA dataset: every finding at once, then the counts."""
    from tfce_eval.retrieval import detect_layout
    from tfce_eval.retrieval.layouts import has_answers
    from tfce_eval.retrieval.validate import check_retrieval

    findings: list[Finding]
    size: Size | None = None
    if task is TaskKind.QA and detect_layout(path) is None:
        from tfce_eval.qa.loader import check_qa

        items, findings = check_qa(path, settings.split)
        kinds = Counter(str(item.answer_type) for item in items)
        if items:  # none read whole: the errors say why, not a count of 0
            size = Size(len(items), "question", {k: kinds[k] for k in ("mc", "tf", "open")})
    elif task is TaskKind.QA and not has_answers(path):  # as `run` tells it
        findings = [_no_answers(path)]
    else:  # a retrieval dataset, or QASPER-RAG's answers: the retrieval checks
        checked = check_retrieval(
            path, split=settings.split, corpus=settings.corpus, qrels=settings.qrels
        )
        findings = checked.findings
        counts = checked.answers if task is TaskKind.QA else checked.queries
        if counts:
            noun = "question" if task is TaskKind.QA else "query"
            size = Size(sum(counts.values()), noun, dict(counts))
    if any(f.level is Level.ERROR for f in findings):
        size = None  # a count of what could not be read whole would mislead
    return Validated(task, tuple(findings), size)


def _no_answers(path: Path) -> Finding:
    """The finding of a retrieval dataset without answers validated as a QA one: what
    `run` and `doctor` say of it, and the fix."""
    return Finding(
        Level.ERROR,
        "a retrieval dataset without answers, nothing to ask a model: no qa dataset",
        str(path),
        hint="validate it as retrieval (leave out --task qa), or add its answers/ "
        "(QASPER-RAG's layout)",
    )
