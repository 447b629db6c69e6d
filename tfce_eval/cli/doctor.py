"""`tfce-eval doctor`: check that a server returns structured (and parallel) tool calls."""

from __future__ import annotations

from pathlib import Path

import click

from tfce_eval.cli.options import (
    DATA,
    base_url_option,
    refuse_other_tasks_options,
    split_option,
    timeout_option,
)
from tfce_eval.cli.text import fold, shown
from tfce_eval.model import Level
from tfce_eval.words import counted

_MARK = {Level.OK: "ok     ", Level.WARNING: "warning", Level.ERROR: "PROBLEM"}


@click.command("doctor")
@click.option(
    "--model",
    required=True,
    metavar="PROVIDER/NAME",
    help="As for `run`: openai/..., anthropic/..., vllm/..., sglang/..., ollama/..., "
    "llamacpp/..., lmstudio/...",
)
@base_url_option
@click.option(
    "--data",
    type=DATA,
    metavar="DIR|builtin:NAME",
    help="Dataset to take the item from. Default: the built-in fc dataset. A QA "
    "dataset (builtin:telco-qna) checks the forced answer tool and the ANSWER: line.",
)
@split_option
@click.option(
    "--item",
    "item_id",
    metavar="ID",
    help="Item to send. Default: the parallel item with the most expected calls.",
)
@timeout_option
def doctor_command(
    model: str,
    base_url: str | None,
    data: Path | None,
    split: str | None,
    item_id: str | None,
    timeout: float,
) -> None:
    """Send one item and say whether the server answers as a run needs.

    fc data (the default): one parallel item with tools; are structured tool calls
    returned? Names the usual server misconfigurations: vLLM without
    --enable-auto-tool-choice --tool-call-parser, llama.cpp without --jinja, parallel
    calls off. QA data (--data builtin:telco-qna): one multiple-choice question with
    the forced answer tool, then as text; are the tool call and the ANSWER: line read?
    Exit status 0 when the server is usable for `run --mode fc` (warnings included: a
    wrong answer, or fewer calls than asked, is the model's choice), 1 otherwise.
    """
    from tfce_eval.run.config import run_data
    from tfce_eval.tasks import TaskKind

    task, _ = run_data(data, None)  # as `run` reads it: a retrieval dataset has no question
    refuse_other_tasks_options(task)  # --split of a function-calling dataset
    qa = data is not None and task is not TaskKind.FC
    if qa:
        from tfce_eval.providers.doctor_qa import diagnose_qa

        assert data is not None
        report = diagnose_qa(
            model, data=data, base_url=base_url, item_id=item_id, split=split, timeout_s=timeout
        )
    else:
        from tfce_eval.providers.doctor import diagnose

        report = diagnose(model, base_url=base_url, data=data, item_id=item_id, timeout_s=timeout)
    # What the server said is shown as escapes where it holds control characters.
    click.echo(fold(shown(f"doctor: {report.provider}/{report.model} at {report.base_url}")))
    if report.item_id and not qa:
        calls = counted(report.expected_calls, "call")
        click.echo(fold(shown(f"item: {report.item_id} ({calls} expected)")))
    elif report.item_id:
        click.echo(fold(shown(f"item: {report.item_id}")))
    for finding in report.findings:
        click.echo(fold(shown(f"{_MARK[finding.level]}  {finding.message}"), "", " " * 9))
        if finding.hint:
            click.echo(fold(shown(f"  fix: {finding.hint}")))
    if report.ok:
        click.echo("ready for `tfce-eval run --mode fc`" + (" and `--mode prompt`" if qa else ""))
    else:
        raise SystemExit(1)
