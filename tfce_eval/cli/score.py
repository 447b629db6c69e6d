"""`tfce-eval score FILE`: score a file made elsewhere against a dataset of any task.

Function calling: a file of model outputs. Question answering: a predictions file.
Retrieval: a run (TREC, JSON Lines or JSON; `dataset` scores the dataset's own
retrieved_docs). The task comes from the dataset (`--task` overrides it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tfce_eval.cli.options import (
    category_option,
    check_options,
    data_options,
    judge_options,
    policy_options,
    split_options,
    task_option,
)

#: The word that scores a retrieval dataset's own retrieved_docs instead of a run file.
DATASET_RUN = "dataset"


@click.command("score")
@click.argument("file", metavar="FILE")
@data_options
@task_option
@split_options
@click.option(
    "--measures",
    metavar='"M@k ..."',
    help="Retrieval measures (ir-measures names), e.g. "
    '"nDCG@10 RR@10 R@100"; SpanCov@k for span gold. '
    "Default: nDCG@10 RR@10 R@10 R@100 Success@1 Success@5.",
)
@category_option
@policy_options
@check_options
@judge_options
@click.option(
    "--missing",
    type=click.Choice(["count", "skip"]),
    default="count",
    show_default=True,
    help="Items the file lacks: count them as wrong (fc: no_call; qa: request_error) or skip them.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where scores.jsonl, summary.json and the reports go. Default: beside FILE.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def score_command(file: str, out_dir: Path | None, as_json: bool, **options: Any) -> None:
    """Score FILE: fc outputs (JSON Lines {"id", and calls, tool_calls, content,
    text or result}), qa predictions ({"id", "response" or "answer"}), or a retrieval
    run (TREC `qid Q0 docid rank score tag`, JSON Lines, JSON; or the word `dataset`)."""
    from tfce_eval.tasks import TaskKind, resolve_data

    task = TaskKind(options["task"]) if options["task"] else None
    if options["data"] is None and task in (None, TaskKind.FC):
        path = _existing(file)
        _refuse_a_run_without_data(path)
        _score_fc(path, None, out_dir, as_json, options)
        return
    ref = resolve_data(options["data"], task)
    if ref.task is TaskKind.FC:
        _score_fc(_existing(file), ref.path, out_dir, as_json, options)
    elif ref.task is TaskKind.RETRIEVAL:
        assert ref.path is not None
        _score_retrieval(file, ref.path, str(options["data"]), out_dir, as_json, options)
    else:
        assert ref.path is not None
        _score_qa(_existing(file), ref.path, str(options["data"]), out_dir, as_json, options)


def _refuse_a_run_without_data(path: Path) -> None:
    """A retrieval run given without --data would be read as fc outputs: say what to do."""
    with path.open("rb") as fh:
        first = fh.readline(4096).decode("utf-8", "replace").split()
    if len(first) == 6 and first[1] in ("Q0", "0") and first[3].isdigit():
        from tfce_eval.errors import DataError

        raise DataError(
            "a TREC run, not function-calling outputs",
            path=str(path),
            line=1,
            hint="name its retrieval dataset: --data DIR or --data builtin:NAME",
        )


def _existing(file: str) -> Path:
    path = Path(file)
    if not path.is_file():
        from tfce_eval.errors import DataError

        raise DataError(
            "no such file" if not path.exists() else "is not a file",
            path=file,
            hint="give the file of outputs, predictions or the run to score",
        )
    return path


def _score_fc(
    outputs: Path, data: Path | None, out_dir: Path | None, as_json: bool, o: dict[str, Any]
) -> None:
    from tfce_eval.cli.options import build_policy, parse_categories
    from tfce_eval.cli.render import print_summary, print_warnings
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.model import AnswerStyle
    from tfce_eval.report import FailureSource, RunView, write_run_reports
    from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions
    from tfce_eval.scoring.score import score_outputs

    dataset = load_dataset(
        data,
        questions=o["questions"],
        answers=o["answers"],
        answer_style=AnswerStyle(o["answer_style"]) if o["answer_style"] else None,
    )
    options = ScoreOptions(
        policy=build_policy(o["optional_params"], o["coerce_strings"], o["strict_strings"]),
        check=CheckMode(o["check_mode"]),
        categories=parse_categories(o["categories"]),
        missing=MissingMode(o["missing"]),
        functions_dir=o["functions_dir"],
        exec_timeout_s=o["exec_timeout"],
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


def _score_retrieval(
    file: str,
    path: Path,
    name: str,
    out_dir: Path | None,
    as_json: bool,
    o: dict[str, Any],
) -> None:
    from tfce_eval.cli.render import print_warnings, show_scored
    from tfce_eval.retrieval import dataset_run, load_retrieval, retrieval_document, score_run

    dataset = load_retrieval(
        path, split=o["split"], corpus=o["corpus"], qrels=o["qrels"], name=name
    )
    if file == DATASET_RUN:
        run: Any = dataset_run(dataset)
        out = out_dir or Path("results") / f"{Path(name).name}-retrieved_docs"
    else:
        run = _existing(file)
        out = out_dir or run.parent
    result = score_run(run, dataset, o["measures"], out)
    if as_json:  # the tables below repeat the warnings under the figures they concern
        print_warnings(result.summary["warnings"])
    show_scored(out, retrieval_document([result]), result.summary, as_json)


def _score_qa(
    file: Path,
    path: Path,
    name: str,
    out_dir: Path | None,
    as_json: bool,
    o: dict[str, Any],
) -> None:
    from tfce_eval.cli.judging import make_judge
    from tfce_eval.cli.render import print_warnings, show_scored
    from tfce_eval.qa import score_predictions
    from tfce_eval.qa.report import qa_document
    from tfce_eval.qa.runs import load_qa_run
    from tfce_eval.tasks.load import load_qa_dataset

    dataset = load_qa_dataset(path, split=o["split"], name=name)
    out = out_dir or file.parent
    judge = make_judge(o, model_under_test=None)
    result = score_predictions(
        file,
        dataset,
        out_dir=out,
        judge=judge,
        judge_name=judge.name if judge else None,
        k=o["k"],
        missing=o["missing"],
    )
    print_warnings(result.warnings)
    show_scored(out, qa_document([load_qa_run(out)]), result.summary, as_json)
