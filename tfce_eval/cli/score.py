"""`tfce-eval score FILE`: score a file made elsewhere against a dataset of any task.

Function calling: a file of model outputs. Question answering: a predictions file.
Retrieval: a run (TREC, JSON Lines or JSON; `dataset` scores the dataset's own
retrieved_docs). The task comes from the dataset (`--task` overrides it).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import click

from tfce_eval.cli.options import (
    TASK_WORDS,
    category_option,
    check_options,
    data_options,
    judge_options,
    policy_options,
    refuse_other_tasks_options,
    split_options,
    task_option,
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
@split_options
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
    refuse_other_tasks_options(ref.task, click.get_current_context().params)
    out_dir = out_dir or _out_beside(files, ref.task)
    runs: list[Path] = []
    if ref.task is not TaskKind.RETRIEVAL or files[0] != DATASET_RUN:
        runs = [_existing(file, ref.task) for file in files]
        for run in runs:
            _refuse_another_tasks_file(run, ref.task, options["data"])
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


def _out_beside(files: tuple[str, ...], task: TaskKind) -> Path | None:
    """Where the scores go without --out: beside the one FILE (None: the scorer's
    default), beside several FILEs when they share a directory. UsageError for several
    FILEs of a task that reads one, the same FILE twice, or FILEs in several directories
    (the scores could go to any of them, so --out must say where)."""
    if len(files) == 1:
        return None
    from tfce_eval.errors import UsageError

    if task is not TaskKind.FC:
        what = _WANTS[task][1]
        verb = "are" if what.endswith("s") else "is"
        raise UsageError(
            f"{what} {verb} one file: give one FILE, not {len(files)} "
            "(several FILEs are for function-calling outputs)"
        )
    from tfce_eval.scoring.rundir import SCORES, SUMMARY

    seen: dict[Path, str] = {}
    for file in files:
        path = Path(os.path.abspath(file))
        if path.name in (SUMMARY, SCORES):  # what `score DIR/*.json` picks up the 2nd time
            raise UsageError(
                f"{file} is a file a score writes, not outputs: leave it out of the FILEs "
                f"(BFCL's: {os.path.join(os.path.dirname(file), '*_result.json')})"
            )
        if path in seen:
            also = f" (also as {seen[path]})" if seen[path] != file else ""
            raise UsageError(f"{file} is given twice as FILE{also}: give it once")
        seen[path] = file
    # Each directory as the user spelled it first.
    directories = {path.parent: os.path.dirname(file) or "." for path, file in seen.items()}
    if len(directories) > 1:
        named = ", ".join(list(directories.values())[:3])
        more = ", ..." if len(directories) > 3 else ""
        raise UsageError(
            f"the FILEs are in {len(directories)} directories ({named}{more}): "
            "give --out DIR, the directory for the scores"
        )
    return Path(files[0]).parent


#: The longest first line read to tell which task's file it is.
_PEEK = 1 << 20
#: Per task: what its dataset is called, what `score` reads for it, and in what form.
_WANTS = {
    TaskKind.FC: (
        TASK_WORDS[TaskKind.FC],
        "function-calling outputs",
        'its items\' outputs (JSON Lines with "id" and "calls", "tool_calls", "content" or "text")',
    ),
    TaskKind.QA: (
        TASK_WORDS[TaskKind.QA],
        "QA predictions",
        'predictions for its questions (JSON Lines with "id" and "response" or "answer")',
    ),
    TaskKind.RETRIEVAL: (
        TASK_WORDS[TaskKind.RETRIEVAL],
        "a retrieval run",
        "a run of its queries (TREC `qid Q0 docid rank score tag`, JSON Lines or JSON)",
    ),
}


def _refuse_another_tasks_file(path: Path, task: TaskKind, data: Path | None) -> None:
    """A file that is surely another task's (by its first line) stops the score with a
    message saying whose it is and what the dataset wants, not a puzzle about its lines."""
    found = _first_line_task(path)
    if found is None or found[0] is task:
        return
    from tfce_eval.errors import DataError

    other, what, line = found
    kind, wanted, form = _WANTS[task]
    if data is None:  # the default dataset: the user may not know --data at all
        message = f"{what}, not {wanted}"
        hint = f"name its {_WANTS[other][0]} dataset: --data DIR or --data builtin:NAME"
    else:
        message = f"{what}, not {wanted}: {data} is a {kind} dataset"
        hint = f"score {form}, or give --data the dataset this file was made for"
    raise DataError(message, path=str(path), line=line, hint=hint)


def _first_line_task(path: Path) -> tuple[TaskKind, str, int] | None:
    """(task, what the file is, line) when the first non-blank line is surely another
    task's: a TREC run or a retrieval run's JSON line, fc outputs (an id and an answer
    key) or QA predictions (an id and a response or answer); None when unsure."""
    from tfce_eval.jsonl import JsonRefused, parse_json
    from tfce_eval.scoring.rundir import ANSWER_KEYS

    try:
        with path.open("rb") as fh:
            number, raw = 0, b""
            while not raw.strip() and (raw := fh.readline(_PEEK + 1)):
                number += 1
    except OSError:
        return None  # the scorer says why it cannot read the file
    if not raw.strip() or len(raw) > _PEEK:
        return None
    fields = raw.decode("utf-8", "replace").split()
    if len(fields) == 6 and fields[1] in ("Q0", "0") and fields[3].isdigit():
        return TaskKind.RETRIEVAL, "a TREC run", number
    try:
        record = parse_json(raw)
    except JsonRefused:
        return None
    if not isinstance(record, dict):
        return None
    if {"query_id", "corpus_id"} <= record.keys() or {"qid", "docids"} <= record.keys():
        return TaskKind.RETRIEVAL, "a retrieval run (JSON Lines)", number
    item_id = record.get("id", record.get("question_id"))
    if not isinstance(item_id, str | int) or isinstance(item_id, bool):
        return None  # a JSON run {qid: {docid: score}} maps every key to an object
    fc = any(key in record for key in ANSWER_KEYS if key != "raw")
    qa = "response" in record or "answer" in record
    if fc and not qa and "id" in record:
        return (
            TaskKind.FC,
            "function-calling outputs (JSON Lines of items with an id and calls)",
            number,
        )
    if qa and not fc:
        what = "QA predictions (JSON Lines of items with an id and a response or answer)"
        return TaskKind.QA, what, number
    return None


def _existing(file: str, task: TaskKind) -> Path:
    """FILE as a path; DataError when it is not a file, naming the file a run of `task`
    writes when FILE is a run directory that holds one."""
    path = Path(file)
    if path.is_file():
        return path
    from tfce_eval.errors import DataError

    hint = "give the file of outputs, predictions or the run to score"
    if path.is_dir():
        inside = [path / name for name in _run_files(task) if (path / name).is_file()]
        pattern = _outputs_pattern(file) if task is TaskKind.FC else None
        if inside:
            hint = f"give {inside[0]}, the file of the run in this directory"
        elif pattern:
            hint = f"give the files in it: {pattern} (several FILEs are read as one)"
        raise DataError("is a directory, not a file", path=file, hint=hint)
    raise DataError("no such file" if not path.exists() else "is not a file", path=file, hint=hint)


#: How many entries of a directory given as FILE are looked at for a hint.
_SCAN = 1000


def _outputs_pattern(directory: str) -> str | None:
    """`DIR/*_result.json` (BFCL's), `DIR/*.json` or `DIR/*.jsonl` when the directory
    holds such files, `DIR/*/*...` when its subdirectories do (BFCL v4's
    result/MODEL/non_live/...); else None."""
    from itertools import islice

    def suffix(where: str) -> str | None:
        try:
            with os.scandir(where) as entries:
                names = [e.name for e in islice(entries, _SCAN) if e.is_file()]
        except OSError:
            return None
        for ending in ("_result.json", ".json", ".jsonl"):  # BFCL's result files first
            if any(name.endswith(ending) for name in names):
                return ending
        return None

    found = suffix(directory)
    if found:
        return os.path.join(directory, "*" + found)
    try:
        with os.scandir(directory) as entries:
            subdirectories = [e.path for e in islice(entries, _SCAN) if e.is_dir()]
    except OSError:
        return None
    for subdirectory in subdirectories[:50]:
        found = suffix(subdirectory)
        if found:
            return os.path.join(directory, "*", "*" + found)
    return None


def _run_files(task: TaskKind) -> tuple[str, ...]:
    """The files a run of `task` writes that `score` reads, most likely first."""
    from tfce_eval.scoring.rundir import OUTPUTS, RUN_TREC

    if task is TaskKind.RETRIEVAL:
        return (RUN_TREC,)
    return (OUTPUTS, "predictions.jsonl") if task is TaskKind.QA else (OUTPUTS,)


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
    if as_json:  # the tables below repeat the warnings under the figures they concern
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
    )
    print_warnings(result.warnings)
    show_scored(out, qa_document([load_qa_run(out)]), result.summary, as_json)
