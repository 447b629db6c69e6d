"""`tfce-eval score FILE`: score a file made elsewhere against a dataset of any task.

Function calling: a file of model outputs. Question answering: a predictions file.
Retrieval: a run (TREC, JSON Lines or JSON; `dataset` scores the dataset's own
retrieved_docs). The task comes from the dataset (`--task` overrides it), but for a file
of QA predictions given with a retrieval dataset that has answers (QASPER-RAG): those are
scored as question answering.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

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
from tfce_eval.cli.score_files import (
    existing,
    out_beside,
    refuse_another_runs_directory,
    refuse_another_tasks_file,
)
from tfce_eval.cli.text import shown
from tfce_eval.model import TaskKind
from tfce_eval.scoring.options import MissingMode

#: The word that scores a retrieval dataset's own retrieved_docs instead of a run file.
DATASET_RUN = "dataset"


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
    from tfce_eval.tasks import resolve_data

    task = TaskKind(options["task"]) if options["task"] else None
    ref = resolve_data(options["data"], task)
    # Only a retrieval dataset's files are looked at (a function-calling score loads
    # nothing of QA or retrieval).
    if (
        task is None
        and ref.task is TaskKind.RETRIEVAL
        and _qa_predictions_for_answers(files, ref.path, options["split"])
    ):
        ref = dataclasses.replace(ref, task=TaskKind.QA)  # as --task qa: QASPER-RAG
    refuse_other_tasks_options(ref.task)
    beside = out_beside(files, ref.task, out_given=out_dir is not None)
    out_dir = out_dir or beside
    runs: list[Path] = []
    if ref.task is not TaskKind.RETRIEVAL or files[0] != DATASET_RUN:
        runs = [existing(file, ref.task) for file in files]
        for run in runs:
            refuse_another_tasks_file(run, ref.task, options["data"])
    refuse_another_runs_directory(out_dir or (runs[0].parent if runs else None), runs)
    if ref.task is TaskKind.FC:
        _score_fc(runs, ref.path, out_dir, as_json, options)
    elif ref.task is TaskKind.RETRIEVAL:
        assert ref.path is not None
        # A built-in dataset is named as the user named it (builtin:NAME), not by its path.
        _score_retrieval(
            runs[0] if runs else None, ref.path, shown(str(ref.path)), out_dir, as_json, options
        )
    else:
        assert ref.path is not None
        _score_qa(runs[0], ref.path, shown(str(ref.path)), out_dir, as_json, options)


def _qa_predictions_for_answers(
    files: tuple[str, ...], data: Path | None, split: str | None
) -> bool:
    """Whether the one FILE holds QA predictions (its first line has an id and a response
    or answer, which no run's line has) and the retrieval dataset's split has answers
    (QASPER-RAG's answers/): then they are scored as question answering."""
    from tfce_eval.cli.score_files import _first_line_task
    from tfce_eval.tasks.load import has_answers

    if len(files) != 1 or data is None or not Path(files[0]).is_file():
        return False
    found = _first_line_task(Path(files[0]))
    return found is not None and found[0] is TaskKind.QA and has_answers(data, split)


def _score_fc(
    outputs: list[Path], data: Path | None, out_dir: Path | None, as_json: bool, o: dict[str, Any]
) -> None:
    from tfce_eval.cli.options import build_policy, parse_categories
    from tfce_eval.cli.render import print_summary, print_warnings
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.model import AnswerStyle
    from tfce_eval.report import FailureSource, RunView, write_run_reports
    from tfce_eval.scoring.options import CheckMode, ScoreOptions
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
    result = score_outputs(outputs, dataset, options, out_dir or outputs[0].parent)
    assert result.run_dir is not None  # scored into a directory
    path = result.run_dir.path
    view = RunView(path.resolve().name, path, result.summary, result.records, None)
    write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))
    print_warnings(result.warnings)
    if as_json:
        click.echo(json.dumps(result.summary, ensure_ascii=False, indent=2))
    else:
        print_summary(result)


def _score_retrieval(
    file: Path | None,
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
    if file is None:  # the word `dataset`
        run: Any = dataset_run(dataset)
        out = out_dir or Path("results") / f"{path.name}-retrieved_docs"
    else:
        run = file
        out = out_dir or run.parent
    result = score_run(run, dataset, o["measures"], out)
    # On stderr, as every score's; the report's notes repeat them below its figures.
    print_warnings(result.summary["warnings"])
    # Titled by the directory the scores went to, as `report` titles the run later.
    named = dataclasses.replace(result, name=out.resolve().name)
    show_scored(out, retrieval_document([named]), result.summary, as_json)


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
        missing=MissingMode(o["missing"]),
        run_file=o["run_file"],
    )
    print_warnings(result.warnings)
    show_scored(out, qa_document([load_qa_run(out)]), result.summary, as_json)
