"""`tfce-eval validate`: check a dataset before anyone scores against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from tfce_eval.verbs.validate import Size


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
    from tfce_eval.tasks import resolve_data
    from tfce_eval.verbs.settings import ValidateSettings
    from tfce_eval.verbs.validate import validate_data

    ref = resolve_data(data, TaskKind(task) if task else None)
    refuse_other_tasks_options(ref.task)
    settings = ValidateSettings(
        questions=questions,
        answers=answers,
        answer_style=AnswerStyle(answer_style) if answer_style else None,
        functions_dir=functions_dir,
        exec_checks=not no_exec,
        split=split,
        corpus=corpus,
        qrels=qrels,
    )
    validated = validate_data(ref, settings)
    if as_json:
        click.echo(json.dumps(validated.to_json(), ensure_ascii=False, indent=2))
    else:
        for finding in validated.findings:
            click.echo(_folded(finding), err=finding.level is Level.ERROR)
        name = "(--questions)" if questions else ref.name
        size = None if validated.size is None else _size(validated.size)
        errors, warnings = len(validated.errors), len(validated.warnings)
        click.echo(_summary(ref.task, name, size, errors, warnings))
    if validated.errors:
        raise SystemExit(1)


#: Glues the words of a count (`24 questions`, `mc 11`, `0 errors, 0 warnings`) so that
#: folding never parts them; no shown text holds it (control characters are escaped).
_GLUE = "\x01"


def _size(size: Size) -> str:
    """`24 questions (mc 11, tf 8, open 5)`: the total and its parts, none left out
    (a split's name, from a file's, shown as every name is)."""
    parts = ", ".join(f"{shown(name)}{_GLUE}{n}" for name, n in size.parts.items() if n)
    plural = "queries" if size.noun == "query" else f"{size.noun}s"
    counts = counted(size.total, size.noun, plural).replace(" ", _GLUE)
    return counts + (f" ({parts})" if parts else "")


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
