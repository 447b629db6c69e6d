"""`tfce-eval run`: ask a model every item, save each answer as it arrives, score, report.

The options are parsed into a `RunConfig`; `tfce_eval.verbs.run.run_model` does the work
(`run_eval`, and the reports of either task) and this module prints its result: the
per-category table or a QA report, where the files are, and what was not sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tfce_eval.cli.numbers import Finite
from tfce_eval.cli.options import (
    OPTION_TASKS,
    RUN_OPTION_TASKS,
    Temperature,
    base_url_option,
    build_policy,
    category_option,
    check_options,
    data_options,
    judge_options,
    parse_categories,
    policy_options,
    refuse_other_tasks_options,
    split_option,
    timeout_option,
)
from tfce_eval.cli.text import fold, fold_command, shown
from tfce_eval.errors import INT64_MAX, INT64_MIN
from tfce_eval.model import AnswerStyle, TaskKind
from tfce_eval.providers.base import Mode, RequestOptions, ToolChoice
from tfce_eval.scoring.options import CheckMode
from tfce_eval.words import counted

if TYPE_CHECKING:
    from tfce_eval.run.config import RunResult


def _task_data(data: Path | str | None) -> tuple[TaskKind, Path | None]:
    """`--data` (a directory or builtin:NAME) as (task, directory); runs ask fc and qa."""
    from tfce_eval.run.config import run_data

    return run_data(data, None)


def _split_ids(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i.strip() for v in values for i in v.split(",") if i.strip()))


def _resume_command() -> str | None:
    """The command line to run again to resume (without --force, which would start over),
    on lines of its own under the message, continued with a backslash past 80 columns."""
    argv = sys.argv[1:]
    if "run" not in argv:
        return None
    args = [a for a in argv[argv.index("run") :] if a != "--force"]
    return fold_command("    tfce-eval", args)


@click.command("run")
@click.option(
    "--model",
    required=True,
    metavar="PROVIDER/NAME",
    help="openai/..., anthropic/..., or a local OpenAI-compatible server: vllm/..., "
    "sglang/..., ollama/..., llamacpp/..., lmstudio/...",
)
@click.option(
    "--mode",
    type=click.Choice([str(m) for m in Mode]),
    default="fc",
    show_default=True,
    help="fc: functions as tools (native calling); prompt: docs in the system prompt, "
    "answer in Python call syntax.",
)
@category_option
@data_options
@split_option
@click.option(
    "--corpus",
    metavar="DIR|builtin:NAME",
    help="qa --context bm25: the retrieval dataset whose chunks are searched. Default: "
    "the QA dataset's own (the corpus/ beside Telco-Retrieve's splits; QASPER-RAG's "
    "chunks).",
)
@click.option(
    "--context",
    default="none",
    show_default=True,
    metavar="none|gold|bm25|run:FILE",
    help="qa: what the model sees besides the question: nothing (closed-book), the gold "
    "passage, the top --k chunks of BM25 over --corpus, or of a retrieval run file.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="qa --context bm25: where indexes are kept. Default: "
    "$XDG_CACHE_HOME/tfce-eval/bm25, else ~/.cache/tfce-eval/bm25.",
)
@judge_options
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("results"),
    show_default=True,
    help="Directory that holds run directories.",
)
@click.option(
    "--run-name",
    help="Run directory name. Default: <provider>-<model>-<mode>, and for a QA run "
    "-qa-<context> after it.",
)
@click.option(
    "--ids",
    "ids",
    multiple=True,
    metavar="ID[,ID...]",
    help="Only these items. Repeatable, or comma-separated.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1, max=INT64_MAX),
    metavar="N",
    help="At most N items per category (fc) or answer type (qa), the first in id order.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=INT64_MAX),
    default=8,
    show_default=True,
    help="Requests in flight at once.",
)
@base_url_option
@click.option(
    "--temperature",
    type=Temperature(),
    default="0",
    show_default=True,
    help="Sampling temperature; 'none' leaves it out.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1, max=INT64_MAX),
    metavar="N",
    help="Most tokens per answer. Default: the server's (Anthropic: 4096).",
)
@click.option(
    "--seed",
    type=click.IntRange(INT64_MIN, INT64_MAX),
    help="Sampling seed, where the server takes one (64-bit).",
)
@click.option(
    "--tool-choice",
    type=click.Choice([str(t) for t in ToolChoice]),
    default="auto",
    show_default=True,
    help="fc mode: let the model choose, require a call, or forbid.",
)
@click.option(
    "--no-parallel-tool-calls",
    is_flag=True,
    help="Do not send parallel_tool_calls: true for the parallel categories (for "
    "servers that refuse the field).",
)
@timeout_option
@click.option(
    "--max-retries",
    type=click.IntRange(min=0, max=INT64_MAX),
    default=4,
    show_default=True,
    help="Retries of a request after a connection error, timeout, 408, 409, 429 or 5xx.",
)
@click.option(
    "--retry-delay",
    type=Finite(min=0),
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="Ceiling of the first backoff (doubles each retry, with jitter; a server's "
    "Retry-After is honoured instead).",
)
@check_options
@policy_options
@click.option("--force", is_flag=True, help="Start over: delete the run directory's files first.")
@click.option(
    "--dump-request",
    metavar="ID",
    help="Print the exact request for item ID (key redacted) and send nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def run_command(
    model: str,
    mode: str,
    categories: tuple[str, ...],
    data: str | None,
    questions: tuple[Path, ...],
    answers: tuple[Path, ...],
    answer_style: str | None,
    out: Path,
    run_name: str | None,
    ids: tuple[str, ...],
    limit: int | None,
    concurrency: int,
    base_url: str | None,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    tool_choice: str,
    no_parallel_tool_calls: bool,
    timeout: float,
    max_retries: int,
    retry_delay: float,
    check_mode: str,
    functions_dir: Path | None,
    exec_timeout: float,
    optional_params: str,
    coerce_strings: bool,
    strict_strings: bool,
    force: bool,
    dump_request: str | None,
    as_json: bool,
    split: str | None,
    corpus: str | None,
    context: str,
    cache_dir: Path | None,
    judge: str | None,
    judge_base_url: str | None,
    allow_self_judge: bool,
    k: int | None,
) -> None:
    """Evaluate a model: ask every selected item, save each answer, score, report.

    \b
    tfce-eval run --model openai/gpt-4o-mini
    tfce-eval run --category parallel --model vllm/Qwen/Qwen2.5-7B-Instruct

    Answers go to <out>/<run-name>/outputs.jsonl as they arrive. Running the same command
    again resumes: finished items are kept, failed requests are asked again. Stopped with
    Ctrl-C (exit 130) or SIGTERM (exit 143), a run saves what it has and says how to resume.
    """
    from tfce_eval.run.config import ContextSpec, RunConfig
    from tfce_eval.run.progress import make_progress
    from tfce_eval.run.retry import RetryPolicy
    from tfce_eval.run.runner import dump_request as request_for

    task, data_dir = _task_data(data)
    refuse_other_tasks_options(task, table={**OPTION_TASKS, **RUN_OPTION_TASKS})
    config = RunConfig(
        model=model,
        mode=Mode(mode),
        data=data_dir,
        task=task,
        split=split,
        context=ContextSpec.parse(context, 5 if k is None else k),
        corpus=Path(corpus) if corpus else None,
        cache_dir=cache_dir,
        judge=judge,
        judge_base_url=judge_base_url,
        allow_self_judge=allow_self_judge,
        questions=questions,
        answers=answers,
        answer_style=AnswerStyle(answer_style) if answer_style else None,
        categories=parse_categories(categories),
        ids=_split_ids(ids),
        limit=limit,
        out=out,
        run_name=run_name,
        base_url=base_url,
        request=RequestOptions(
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            tool_choice=ToolChoice(tool_choice),
            parallel_tool_calls=not no_parallel_tool_calls,
        ),
        concurrency=concurrency,
        timeout_s=timeout,
        retry=RetryPolicy(max_retries=max_retries, base_delay_s=retry_delay),
        policy=build_policy(optional_params, coerce_strings, strict_strings),
        check=CheckMode(check_mode),
        functions_dir=functions_dir,
        exec_timeout_s=exec_timeout,
        force=force,
        resume_command=_resume_command(),
    )
    if dump_request is not None:
        request = request_for(config, dump_request)
        click.echo(json.dumps(request, ensure_ascii=False, indent=2))
        return
    # Ctrl-C and SIGTERM are heard by the command line (tfce_eval.cli): a run stopped
    # while it asks says how to resume (RunInterrupted), and exits 130 or 143.
    from tfce_eval.verbs.run import run_model

    ran = run_model(config, progress=make_progress(sys.stderr))
    result = ran.result
    from tfce_eval.cli.render import print_warnings

    print_warnings(result.score.warnings)
    if as_json:
        click.echo(json.dumps(result.score.summary, ensure_ascii=False, indent=2))
        return
    if ran.document is not None:  # a QA run's report
        from tfce_eval.cli.render import print_document

        print_document(ran.document)
        _print_counts(result)
        return
    _print_result(result)


def _print_result(result: RunResult) -> None:
    from tfce_eval.cli.render import stdout_console
    from tfce_eval.report import load_run, render_table

    stdout_console().print(render_table([load_run(result.run_dir)]))
    _print_counts(result)


def _print_counts(result: RunResult) -> None:
    for note in result.notes:
        click.echo(fold(shown(note), "note: "))
    line = counted(result.selected, "item")
    if result.resumed:
        line += f" ({result.resumed} answered earlier, {result.asked} asked now)"
    if result.request_errors:
        them = "it" if result.request_errors == 1 else "them"
        line += (
            f"; {result.request_errors} could not be asked (request_error): run the same "
            f"command again to ask {them} again"
        )
    click.echo(fold(line))
    click.echo(fold(f"written: {result.run_dir}"))
