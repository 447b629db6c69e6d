"""`tfce-eval score FILE`: score files made elsewhere against a dataset of any task.

The options are parsed here; `tfce_eval.verbs.score` chooses the task and scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tfce_eval.cli.options import (
    SPLIT_HELP,
    category_option,
    check_options,
    data_options,
    judge_options,
    policy_options,
    refuse_other_tasks_options,
    split_options,
    task_option,
)
from tfce_eval.model import AnswerStyle, TaskKind
from tfce_eval.scoring.options import MissingMode

if TYPE_CHECKING:
    from tfce_eval.verbs.settings import ScoreSettings


@click.command("score")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@data_options
@task_option
@split_options(
    SPLIT_HELP,
    "retrieval: which corpus of a chunk-span dataset the run ranked, whose chunks "
    "the gold spans judge: documents (default) or documents_coref.",
)
@click.option(
    "--measures",
    metavar='"M@k ..."',
    help="Retrieval measures (ir-measures names), separated by spaces or commas, e.g. "
    '"nDCG@10 RR@10 R@100"; SpanCov@k for span gold. '
    "Default: nDCG@10 RR@10 R@10 R@100 Success@1 Success@5.",
)
@category_option
@policy_options
@check_options
@judge_options
@click.option(
    "--run",
    "run_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    metavar="FILE",
    help="qa: a retrieval run (TREC, JSON Lines or JSON) whose top --k chunks per "
    'question give the canonical hit rate, as "retrieved" in the lines would (a line '
    "with its own is refused).",
)
@click.option(
    "--missing",
    type=click.Choice([str(m) for m in MissingMode]),
    default=str(MissingMode.COUNT),
    show_default=True,
    help="Items the file lacks: count them as wrong (fc: no_call; qa: request_error) or skip them.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where scores.jsonl, summary.json and the reports go. Default: beside FILE "
    "(several FILEs: beside them when they are in one directory; in several "
    "directories, --out is needed).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def score_command(
    files: tuple[str, ...], out_dir: Path | None, as_json: bool, **options: Any
) -> None:
    """Score FILE: fc outputs (JSON Lines {"id", and calls, tool_calls, content,
    text or result}), qa predictions ({"id", "response" or "answer"}), or a retrieval
    run (TREC `qid Q0 docid rank score tag`, JSON Lines, JSON; or the word `dataset`).

    Several FILEs of fc outputs (BFCL's result files, one per category:
    result/MODEL/*.json) are read as one set of answers, in the order given; an id
    in two of them counts as an id on two lines of one file: the last line counts,
    with a warning naming both."""
    from tfce_eval.verbs.score import score_files, score_task

    task = TaskKind(options["task"]) if options["task"] else None
    ref = score_task(files, options["data"], task, options["split"])
    refuse_other_tasks_options(ref.task)
    scored = score_files(files, ref, _settings(options), out_dir)
    from tfce_eval.cli.render import print_warnings

    print_warnings(scored.warnings)
    if scored.fc is not None and not as_json:
        from tfce_eval.cli.render import print_summary

        print_summary(scored.fc, scored.run_info)
    elif scored.document is not None and not as_json:
        from tfce_eval.cli.render import print_document, written_line

        print_document(scored.document)
        click.echo(written_line(scored.out_dir))
    else:
        click.echo(json.dumps(scored.summary, ensure_ascii=False, indent=2))


def _settings(o: dict[str, Any]) -> ScoreSettings:
    """The options of every task, parsed into what `score_files` reads."""
    from tfce_eval.cli.options import build_policy, parse_categories
    from tfce_eval.scoring.options import CheckMode
    from tfce_eval.verbs.settings import ScoreSettings

    return ScoreSettings(
        questions=o["questions"],
        answers=o["answers"],
        answer_style=AnswerStyle(o["answer_style"]) if o["answer_style"] else None,
        policy=build_policy(o["optional_params"], o["coerce_strings"], o["strict_strings"]),
        check=CheckMode(o["check_mode"]),
        categories=parse_categories(o["categories"]),
        functions_dir=o["functions_dir"],
        exec_timeout_s=o["exec_timeout"],
        missing=MissingMode(o["missing"]),
        split=o["split"],
        corpus=o["corpus"],
        qrels=o["qrels"],
        measures=o["measures"],
        judge=o["judge"],
        judge_base_url=o["judge_base_url"],
        k=o["k"],
        run_file=o["run_file"],
    )
