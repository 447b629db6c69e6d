"""`tfce-eval score OUTPUTS`: score a file of model outputs against a dataset (SPEC 9)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tfce_eval.cli.options import (
    build_policy,
    category_option,
    check_options,
    data_options,
    parse_categories,
    policy_options,
)
from tfce_eval.cli.render import print_summary, print_warnings
from tfce_eval.dataset.load import load_dataset
from tfce_eval.model import AnswerStyle
from tfce_eval.report import FailureSource, RunView, write_run_reports
from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions
from tfce_eval.scoring.score import score_outputs


@click.command("score")
@click.argument("outputs", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@data_options
@category_option
@policy_options
@check_options
@click.option(
    "--missing",
    type=click.Choice([str(m) for m in MissingMode]),
    default="count",
    show_default=True,
    help="Items of a scored category that the file lacks: count them as wrong "
    "(no_call) or skip them.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where scores.jsonl, summary.json and the reports go. Default: beside OUTPUTS.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def score_command(
    outputs: Path,
    data: Path | None,
    questions: tuple[Path, ...],
    answers: tuple[Path, ...],
    answer_style: str | None,
    categories: tuple[str, ...],
    optional_params: str,
    coerce_strings: bool,
    strict_strings: bool,
    check_mode: str,
    functions_dir: Path | None,
    exec_timeout: float,
    missing: str,
    out_dir: Path | None,
    as_json: bool,
) -> None:
    """Score OUTPUTS (JSON Lines: {"id", and one of calls, tool_calls, content, text, result})."""
    dataset = load_dataset(
        data,
        questions=questions,
        answers=answers,
        answer_style=AnswerStyle(answer_style) if answer_style else None,
    )
    options = ScoreOptions(
        policy=build_policy(optional_params, coerce_strings, strict_strings),
        check=CheckMode(check_mode),
        categories=parse_categories(categories),
        missing=MissingMode(missing),
        functions_dir=functions_dir,
        exec_timeout_s=exec_timeout,
    )
    result = score_outputs(outputs, dataset, options, out_dir or outputs.parent)
    path = result.run_dir.path
    view = RunView(path.resolve().name, path, result.summary, result.records, None)
    write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))
    print_warnings(result.warnings)
    if as_json:
        click.echo(json.dumps(result.summary, ensure_ascii=False, indent=2))
    else:
        print_summary(result)
