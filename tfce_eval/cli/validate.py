"""`tfce-eval validate`: check a dataset before anyone scores against it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tfce_eval.cli.options import data_options
from tfce_eval.model import AnswerStyle


@click.command("validate")
@data_options
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
) -> None:
    """Check files, ids, category shapes, docs and ground truth. Errors exit 1; warnings do not."""
    from tfce_eval.dataset.load import Dataset
    from tfce_eval.dataset.validate import Finding, validate_dataset
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
            click.echo(str(finding), err=finding.level == "error")
        counts = ", ".join(f"{c} {n}" for c, n in report.counts.items())
        click.echo(
            f"{report.items} items ({counts}): "
            f"{len(report.errors)} errors, {len(report.warnings)} warnings"
        )
    if report.errors:
        raise SystemExit(1)
