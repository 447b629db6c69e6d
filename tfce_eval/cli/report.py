"""`tfce-eval report RUN_DIR [RUN_DIR ...]`: one run, or several side by side (README "Reports")."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from tfce_eval.cli.numbers import Finite
from tfce_eval.cli.text import fold, shown
from tfce_eval.errors import TfceError
from tfce_eval.model import TaskKind

if TYPE_CHECKING:
    from tfce_eval.qa import QaDataset

FORMATS = ("table", "md", "json", "csv", "html")


class _ReportFailure(click.ClickException):
    """An error of the report as `error: ...` on stderr with its exit code (1 a bad run
    directory, 2 runs that cannot be reported together), also when run outside the group;
    folded at 80 columns like every other error."""

    def __init__(self, error: TfceError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code  # type: ignore[misc]

    def show(self, file: object = None) -> None:
        click.echo(fold(shown(self.format_message()), "error: "), err=True)


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: terminal; md: Markdown; json, csv: for programs; html: one self-contained page.",
)
@click.option(
    "--failures",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="List failures of each run: fc, N failing items per category (question, "
    "expected and received calls, error); qa, N items per answer type not right "
    "(question, reference, extracted answer, response); retrieval, the N queries "
    "lowest on the first measure (its text, every measure, the top 10 marked "
    "relevant or not, relevant documents not retrieved).",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR|builtin:NAME",
    help="Dataset the failing items' questions (retrieval: queries and judgements) "
    "come from (with --failures). Default: the one the run recorded (fc: or the "
    "built-in one if it is the same).",
)
@click.option(
    "--price-in",
    type=Finite(min=0),
    metavar="USD",
    help="Price of a million input tokens, to show the cost of each run.",
)
@click.option(
    "--price-out",
    type=Finite(min=0),
    metavar="USD",
    help="Price of a million output tokens, to show the cost of each run.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of printing it.",
)
def report_command(
    run_dirs: tuple[Path, ...],
    fmt: str,
    failures: int,
    data: Path | None,
    price_in: float | None,
    price_out: float | None,
    output: Path | None,
) -> None:
    """Report one or more scored runs (fc, qa or retrieval); several side by side.

    For two runs over the same items a paired section says whether the difference is
    real: fc and qa (mc, tf) the exact McNemar p-value per category or answer type; qa
    open answers and retrieval measures a paired randomization test (and, retrieval, a
    paired t-test). A small p means the difference is unlikely to be noise.
    """
    try:
        task = _task_of(run_dirs)
        if task is not TaskKind.FC:
            _note_fc_only(prices=(price_in, price_out))
            text = _render_task(task, run_dirs, fmt, output, failures, data)
            if text is None:
                return
            _emit(text, output)
            return
    except TfceError as exc:
        raise _ReportFailure(exc) from exc
    from tfce_eval.cli.render import stdout_console
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.report import FailureSource, Prices, ReportFormat, load_run, render, render_table

    prices = None
    if price_in is not None or price_out is not None:
        prices = Prices(price_in or 0.0, price_out or 0.0)
    try:
        # Details only for the failures listed: a run of 100,000 items holds
        # hundreds of MB of them.
        runs = [load_run(d, keep_details=failures) for d in run_dirs]
        source = None
        if data is not None and failures > 0:
            from tfce_eval.tasks import resolve_data

            source = FailureSource(dataset=load_dataset(resolve_data(data, TaskKind.FC).path))
        report_format = ReportFormat(fmt)
        if report_format is ReportFormat.TABLE and output is None:
            table = render_table(runs, failures=failures, prices=prices, failure_source=source)
            stdout_console().print(table)
            return
        text = render(runs, report_format, failures=failures, prices=prices, failure_source=source)
    except TfceError as exc:
        raise _ReportFailure(exc) from exc
    _emit(text, output)


def _note_fc_only(*, prices: tuple[float | None, ...]) -> None:
    """A note on stderr when prices are given that only function-calling reports use,
    rather than ignore them without a word."""
    if any(p is not None for p in prices):
        line = "--price-in/--price-out: for function-calling runs only"
        click.echo(fold(line, "note: "), err=True)


def _emit(text: str, output: Path | None) -> None:
    if output is not None:
        from tfce_eval.scoring.rundir import write_text_atomic

        write_text_atomic(output, text)
        click.echo(fold(shown(f"written: {output}")), err=True)
    else:
        click.echo(text, nl=False)


def _task_of(run_dirs: tuple[Path, ...]) -> TaskKind:
    """The task every run directory's summary.json names (fc when it names none).

    A directory without summary.json has no task yet: the loader of the others' task says
    what is missing there (it is never taken for a run of another task)."""
    from tfce_eval.errors import DataError, UsageError
    from tfce_eval.jsonl import read_json
    from tfce_eval.scoring.rundir import SUMMARY

    tasks: list[str | None] = []
    for given in run_dirs:
        # A run may be named by its summary.json, as every task's loader accepts it.
        run_dir = given.parent if given.name == SUMMARY and given.is_file() else given
        summary = run_dir / SUMMARY
        task: str | None = TaskKind.FC
        if not summary.exists():
            task = _task_of_scores(run_dir)
        else:
            if not summary.is_file():  # a directory, a FIFO: never opened
                raise DataError(
                    "not a file", path=str(summary), hint="score the run again to rewrite it"
                )
            head = read_json(summary, hint="score the run again to rewrite it")
            if not isinstance(head, dict):
                raise DataError(
                    "not a summary (a JSON object is expected)",
                    path=str(summary),
                    hint="score the run again to rewrite it",
                )
            if isinstance(head.get("task"), str):
                task = head["task"]
        tasks.append(task)
    if len({t for t in tasks if t}) > 1:
        named = ", ".join(f"{d} ({t})" for d, t in zip(run_dirs, tasks, strict=True) if t)
        raise UsageError(
            f"runs of different tasks cannot share a report: {named}\n"
            "  fix: report the runs of each task apart (tfce-eval report RUN_DIR... once "
            "per task)"
        )
    task = next((t for t in tasks if t), TaskKind.FC)
    try:
        return TaskKind(task)
    except ValueError:
        raise DataError(
            f"{SUMMARY} names an unknown task {task!r}",
            path=str(run_dirs[0] / SUMMARY),
            hint="expected fc, qa or retrieval: score the run again",
        ) from None


def _task_of_scores(run_dir: Path) -> str | None:
    """The task of a directory with scores.jsonl but no summary.json, read from its first
    record (QA records have an answer type, retrieval ones measures); None when unknown."""
    from tfce_eval.errors import DataError
    from tfce_eval.jsonl import JsonLines
    from tfce_eval.scoring.rundir import SCORES

    scores = run_dir / SCORES
    if not scores.is_file():
        return None
    try:
        first = next(iter(JsonLines(scores)), None)
    except DataError:
        return None  # the task's loader says what is wrong with it
    value = None if first is None else first.value
    if isinstance(value, dict) and "answer_type" in value:
        return TaskKind.QA
    if isinstance(value, dict) and "measures" in value and "qid" in value:
        return TaskKind.RETRIEVAL
    return None


def _render_task(
    task: TaskKind,
    run_dirs: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    failures: int = 0,
    data: Path | None = None,
) -> str | None:
    """A qa or retrieval report: its Document, printed as tables or rendered as text;
    with `failures`, each run's failing items or queries after it."""
    from tfce_eval.report.document import render_document

    directory = None if data is None or failures == 0 else _data_dir(data, task)
    if task is TaskKind.RETRIEVAL:
        from tfce_eval.retrieval import load_scored_run, retrieval_document

        scored = [load_scored_run(d) for d in run_dirs]
        document = retrieval_document(scored)
        if failures > 0:
            from tfce_eval.retrieval.failures import GoldSource, with_failing_queries

            document = with_failing_queries(document, scored, failures, GoldSource(directory))
    else:  # TaskKind.QA; report_command reports fc runs itself
        from tfce_eval.qa.report import qa_document
        from tfce_eval.qa.runs import load_qa_run

        runs = [load_qa_run(d) for d in run_dirs]
        document = qa_document(runs)
        if failures > 0:
            from tfce_eval.qa.failures import QuestionSource, with_qa_failures

            given = None if directory is None else str(directory)
            source = QuestionSource(_load_qa, given)
            document = with_qa_failures(document, runs, failures, source)
    if fmt == "table" and output is None:
        from tfce_eval.cli.render import print_document

        print_document(document)
        return None
    return render_document(document, fmt)


def _data_dir(data: Path, task: TaskKind) -> Path:
    """`--data` (a directory or builtin:NAME) as the directory of a `task` dataset."""
    from tfce_eval.tasks import resolve_data

    return resolve_data(data, task).directory


def _load_qa(path: str, split: str | None) -> QaDataset:
    """The QA dataset a run recorded (a directory or builtin:NAME) or `--data` names."""
    from tfce_eval.dataset.paths import builtin_dir
    from tfce_eval.tasks.load import load_qa_dataset

    # builtin:NAME, or builtin:NAME/FILE as a summary records a built-in split file.
    where = builtin_dir(path, TaskKind.QA, also=TaskKind.RETRIEVAL) or Path(path)
    return load_qa_dataset(where, split=split, name=path)
