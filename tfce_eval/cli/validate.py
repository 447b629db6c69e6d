"""`tfce-eval validate`: check a dataset before anyone scores against it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tfce_eval.cli.options import (
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
@split_options
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
        counts = ", ".join(f"{c} {n}" for c, n in report.counts.items())
        click.echo(
            fold(
                counted(report.items, "item")
                + (f" ({counts})" if counts else "")
                + f": {counted(len(report.errors), 'error')}, "
                f"{counted(len(report.warnings), 'warning')}"
            )
        )
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
    findings: list[Finding]
    if task is TaskKind.RETRIEVAL:
        from tfce_eval.retrieval import validate_retrieval

        findings = validate_retrieval(path, split=split, corpus=corpus, qrels=qrels)
    else:
        from tfce_eval.qa import validate_qa
        from tfce_eval.retrieval import detect_layout, validate_retrieval

        if detect_layout(path) is not None:  # QASPER-RAG's answers: the retrieval checks
            findings = validate_retrieval(path, split=split, corpus=corpus, qrels=qrels)
        else:
            findings = validate_qa(path, split)
    errors = [f for f in findings if f.level is Level.ERROR]
    if as_json:
        rows = [f.to_json() for f in findings]
        click.echo(json.dumps({"task": str(task), "findings": rows}, ensure_ascii=False, indent=2))
    else:
        for finding in findings:
            click.echo(_folded(finding), err=finding.level is Level.ERROR)
        click.echo(
            fold(
                shown(
                    f"{task} dataset {path}: {counted(len(errors), 'error')}, "
                    f"{counted(len(findings) - len(errors), 'warning')}"
                )
            )
        )
    if errors:
        raise SystemExit(1)


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
