"""`tfce-eval validate`: check a dataset before anyone scores against it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from tfce_eval.cli.options import (
    SPLIT_HELP,
    data_options,
    refuse_other_tasks_options,
    split_options,
    task_option,
)
from tfce_eval.cli.text import fold, shown
from tfce_eval.model import AnswerStyle, Finding, Level, TaskKind
from tfce_eval.words import counted


@click.command("validate")
@data_options
@task_option
@split_options(
    SPLIT_HELP,
    "retrieval: which corpus of a chunk-span dataset is checked: documents "
    "(default) or documents_coref.",
)
@click.option(
    "--functions",
    "functions_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Implementations to check the docs and ground truth against. "
    "Default: functions/ beside the dataset, when there is one.",
)
@click.option("--no-exec", is_flag=True, help="Do not check against the implementations.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def validate_command(
    data: Path | None,
    questions: tuple[Path, ...],
    answers: tuple[Path, ...],
    answer_style: str | None,
    functions_dir: Path | None,
    no_exec: bool,
    as_json: bool,
    task: str | None,
    split: str | None,
    corpus: str | None,
    qrels: Path | None,
) -> None:
    """Check a dataset: files, ids, fields and gold of any task (fc: also category shapes,
    docs and ground truth against the implementations). Errors exit 1; warnings do not."""
    kind = TaskKind(task) if task else None
    if data is not None or (kind is not None and kind is not TaskKind.FC):
        from tfce_eval.tasks import resolve_data

        ref = resolve_data(data, kind)
        if ref.task is not TaskKind.FC:
            refuse_other_tasks_options(ref.task)
            _validate_other(ref.directory, ref.task, split, corpus, qrels, as_json)
            return
    refuse_other_tasks_options(TaskKind.FC)
    from tfce_eval.dataset.load import Dataset
    from tfce_eval.dataset.validate import validate_dataset
    from tfce_eval.exec.records import ExecOptions, default_functions_dir
    from tfce_eval.exec.validate import exec_findings

    def against_implementations(dataset: Dataset) -> list[Finding]:
        found = functions_dir or default_functions_dir(dataset.root)
        if found is None or not found.is_dir():
            return []
        return exec_findings(dataset, ExecOptions(functions_dir=found))

    report = validate_dataset(
        data,
        questions=questions,
        answers=answers,
        answer_style=AnswerStyle(answer_style) if answer_style else None,
        extra_checks=() if no_exec else (against_implementations,),
    )
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        for finding in report.findings:
            click.echo(_folded(finding), err=finding.level == "error")
        name = "(--questions)" if questions else str(data or "builtin:tfce")
        counts = {str(c): n for c, n in report.counts.items()}
        size = _size(report.items, "item", counts)
        click.echo(_summary(TaskKind.FC, name, size, len(report.errors), len(report.warnings)))
    if report.errors:
        raise SystemExit(1)


def _validate_other(
    path: Path,
    task: TaskKind,
    split: str | None,
    corpus: str | None,
    qrels: Path | None,
    as_json: bool,
) -> None:
    """validate for a retrieval or QA dataset: every finding at once, then the counts."""
    from tfce_eval.retrieval import detect_layout
    from tfce_eval.retrieval.validate import check_retrieval

    findings: list[Finding]
    size: str | None = None
    if task is TaskKind.QA and detect_layout(path) is None:
        from tfce_eval.qa.loader import check_qa

        items, findings = check_qa(path, split)
        kinds = Counter(str(item.answer_type) for item in items)
        if items:  # none read whole: the errors say why, not a count of 0
            size = _size(len(items), "question", {k: kinds[k] for k in ("mc", "tf", "open")})
    elif task is TaskKind.QA and not (path / "answers").is_dir():  # as `run` tells it
        findings = [_no_answers(path)]
    else:  # a retrieval dataset, or QASPER-RAG's answers: the retrieval checks
        checked = check_retrieval(path, split=split, corpus=corpus, qrels=qrels)
        findings = checked.findings
        counts = checked.answers if task is TaskKind.QA else checked.queries
        if counts:
            noun = "question" if task is TaskKind.QA else "query"
            size = _size(sum(counts.values()), noun, dict(counts))
    errors = [f for f in findings if f.level is Level.ERROR]
    if as_json:
        rows = [f.to_json() for f in findings]
        click.echo(json.dumps({"task": str(task), "findings": rows}, ensure_ascii=False, indent=2))
    else:
        for finding in findings:
            click.echo(_folded(finding), err=finding.level is Level.ERROR)
        if errors:  # a count of what could not be read whole would mislead
            size = None
        warnings = len(findings) - len(errors)
        click.echo(_summary(task, str(path), size, len(errors), warnings))
    if errors:
        raise SystemExit(1)


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


#: Glues the words of a count (`24 questions`, `mc 11`, `0 errors, 0 warnings`) so that
#: folding never parts them; no shown text holds it (control characters are escaped).
_GLUE = "\x01"


def _size(total: int, noun: str, counts: dict[str, int]) -> str:
    """`24 questions (mc 11, tf 8, open 5)`: the total and its parts, none left out
    (a split's name, from a file's, shown as every name is)."""
    parts = ", ".join(f"{shown(name)}{_GLUE}{n}" for name, n in counts.items() if n)
    plural = "queries" if noun == "query" else f"{noun}s"
    return counted(total, noun, plural).replace(" ", _GLUE) + (f" ({parts})" if parts else "")


def _summary(task: TaskKind, name: str, size: str | None, errors: int, warnings: int) -> str:
    """validate's last line, for every task: `qa dataset builtin:telco-qna: 24 questions
    (mc 11, tf 8, open 5): 0 errors, 0 warnings`, folded at 80 columns."""
    found = f"{counted(errors, 'error')}, {counted(warnings, 'warning')}".replace(" ", _GLUE)
    text = shown(f"{task} dataset {name}: ") + (f"{size}: " if size else "") + found
    return fold(text).replace(_GLUE, " ")


def _folded(finding: Finding) -> str:
    """A finding as `str(finding)` shows it, folded at 80 columns: its place (file, line or
    row, id) stays whole on the first line; the message and the fix fold under themselves.
    A built-in dataset's files are named `builtin:NAME/...`."""
    where = shown(finding.where)
    head = f"{finding.level}: " + (f"{where}: " if where else "")
    text = fold(shown(finding.message), head, "    ")
    if finding.hint:
        text += "\n" + fold(shown(finding.hint), "  fix: ", "       ")
    return text
