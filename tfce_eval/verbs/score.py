"""`score`'s core: files made elsewhere scored against a dataset of any task.

Function calling: files of model outputs, read as one set of answers. Question
answering: a predictions file. Retrieval: a run (TREC, JSON Lines or JSON), or the word
`dataset` for the dataset's own retrieved_docs. The task comes from the dataset (or is
given), but a file of QA predictions given with a retrieval dataset that has answers
(QASPER-RAG) is scored as question answering. Scores, summary and both reports are
written into one directory; the result says what a caller shows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import UsageError, check_path
from tfce_eval.model import TaskKind
from tfce_eval.report.document import printable
from tfce_eval.tasks import DataRef, resolve_data
from tfce_eval.verbs.file_checks import (
    existing,
    first_line_task,
    out_beside,
    refuse_another_runs_directory,
    refuse_another_tasks_file,
)
from tfce_eval.verbs.settings import ScoreSettings, refuse_other_tasks_settings

if TYPE_CHECKING:
    from tfce_eval.report.document import Document
    from tfce_eval.retrieval.ranking import Run
    from tfce_eval.scoring.score import ScoreResult

#: The word that scores a retrieval dataset's own retrieved_docs instead of a run file.
DATASET_RUN = "dataset"


@dataclass(frozen=True, slots=True)
class Scored:
    """A score done: where its files went, what it found and what to show.

    `fc` is function calling's result (its records feed the terminal table);
    `document` the report of a QA or retrieval score, as written into report.md.
    """

    task: TaskKind
    out_dir: Path
    summary: Mapping[str, Any]
    warnings: tuple[str, ...]
    fc: ScoreResult | None = None
    document: Document | None = None
    #: run.json of the run whose own outputs were scored again (its model, mode, times).
    run_info: Mapping[str, Any] | None = None


def score_task(
    files: Sequence[str | Path],
    data: str | Path | None,
    task: TaskKind | str | None = None,
    split: str | None = None,
) -> DataRef:
    """The dataset `data` names and the task its FILEs are scored as: the dataset's own
    (or `task`), but QA for one file of QA predictions given with a retrieval dataset
    whose `split` has answers (QASPER-RAG's answers/). UsageError for an unknown
    built-in name, DataError for a dataset that cannot be read."""
    if split is not None and not isinstance(split, str):
        raise UsageError(f"split: give the name of a split, not {split!r}")
    split = split or None  # given empty: not given
    ref = resolve_data(data, task)
    # Only a retrieval dataset's files are looked at: a function-calling score loads
    # nothing of QA or retrieval.
    if (
        task is None
        and ref.task is TaskKind.RETRIEVAL
        and _qa_predictions_for_answers(_file_names(files), ref.path, split)
    ):
        ref = dataclasses.replace(ref, task=TaskKind.QA)  # as task qa: QASPER-RAG
    return ref


def score_files(
    files: Sequence[str | Path],
    ref: DataRef | str | Path | None = None,
    settings: ScoreSettings | None = None,
    out_dir: str | Path | None = None,
) -> Scored:
    """Score `files` against a dataset: `ref` as `score_task` found it, or the dataset
    itself (a directory or builtin:NAME; None, the built-in function-calling one), whose
    task `score_task` then finds.

    The settings and files are checked first (a setting for another task's datasets,
    how many files the task takes, one given twice, another task's file, a run
    directory from other answers), then read and scored; scores.jsonl, summary.json,
    report.md and report.html go to `out_dir`: by default beside the FILE (fc: several
    FILEs in one directory), retrieval's `dataset` under results/. The directory is
    this score's while it works: a run or score there is a RunError naming it. A
    UsageError or DataError comes before anything is written.
    """
    plan = _plan(files, ref, settings, out_dir)
    from tfce_eval.scoring.lock import RunLock

    if plan.ref.task is TaskKind.QA:  # its judge is awaited in a loop of its own
        from tfce_eval.errors import refuse_running_loop

        refuse_running_loop("score_files", "score_files_async")
    # The directory is this score's while it writes (a run's too, when it is one's): no
    # other score, and no run, writes scores, summary or reports there meanwhile.
    with RunLock(plan.target, "score"):
        refuse_another_runs_directory(plan.target, plan.runs)
        if plan.ref.task is not TaskKind.QA:
            return _score_other(plan)
        from tfce_eval.qa.scoring import run_to_end

        return run_to_end(_score_qa(plan))


async def score_files_async(
    files: Sequence[str | Path],
    ref: DataRef | str | Path | None = None,
    settings: ScoreSettings | None = None,
    out_dir: str | Path | None = None,
) -> Scored:
    """`score_files` in the caller's event loop (Jupyter, an async application), where a
    QA score's judge is awaited: the same checks, files and result. Cancelling the task
    while it scores writes nothing, as for `qa.score_predictions_async`."""
    plan = _plan(files, ref, settings, out_dir)
    from tfce_eval.scoring.lock import RunLock

    with RunLock(plan.target, "score"):
        refuse_another_runs_directory(plan.target, plan.runs)
        if plan.ref.task is not TaskKind.QA:
            return _score_other(plan)
        return await _score_qa(plan)


@dataclass(frozen=True, slots=True)
class _Plan:
    """A score checked and ready: the dataset and task, the settings, the FILEs (none
    for retrieval's `dataset`) and the directory the files go to."""

    ref: DataRef
    settings: ScoreSettings
    runs: list[Path]
    target: Path


def _plan(
    files: Sequence[str | Path],
    ref: DataRef | str | Path | None,
    settings: ScoreSettings | None,
    out_dir: str | Path | None,
) -> _Plan:
    """Everything checked before the directory is locked: the settings, the FILEs and
    where the files go. UsageError or DataError before anything is written."""
    names = _file_names(files)
    settings = settings or ScoreSettings()
    if not isinstance(settings, ScoreSettings):
        raise UsageError(f"settings: give a ScoreSettings, not {settings!r}")
    if not isinstance(ref, DataRef):
        ref = score_task(names, ref, split=settings.split)
    refuse_other_tasks_settings(settings, ref.task, ref.name)
    out = check_path(out_dir, "out_dir")
    beside = out_beside(tuple(names), ref.task, out_given=out is not None)
    out = out or beside
    runs: list[Path] = []
    if ref.task is not TaskKind.RETRIEVAL or names[0] != DATASET_RUN:
        runs = [existing(name, ref.task) for name in names]
        for run in runs:
            refuse_another_tasks_file(run, ref.task, _data_named(ref))
    # By default beside the (first) FILE; the dataset's retrieved_docs under results/.
    target = out or (runs[0].parent if runs else _retrieved_docs_dir(ref))
    return _Plan(ref, settings, runs, target)


def _score_other(plan: _Plan) -> Scored:
    """A function-calling or retrieval score (no event loop: no judge to await)."""
    if plan.ref.task is TaskKind.FC:
        return _score_fc(plan.runs, plan.ref, plan.settings, plan.target)
    run = plan.runs[0] if plan.runs else None
    return _score_retrieval(run, plan.ref, plan.settings, plan.target)


def _file_names(files: Sequence[str | Path]) -> list[str]:
    """The FILEs as text; a UsageError for one path given alone (read letter by letter
    it would be a puzzle of one-letter files) or for none."""
    if isinstance(files, str | Path):
        raise UsageError(f"files: give a sequence of files, not one path ({str(files)!r})")
    try:
        names = [str(file) for file in files]
    except TypeError:
        raise UsageError(f"files: give a sequence of files, not {files!r}") from None
    if not names:
        raise UsageError("give at least one FILE to score")
    return names


def _retrieved_docs_dir(ref: DataRef) -> Path:
    """Where the scores of a retrieval dataset's own retrieved_docs go by default."""
    return Path("results") / f"{ref.directory.name}-retrieved_docs"


def _data_named(ref: DataRef) -> Path | None:
    """The dataset as messages name it: None for the default, built-in function-calling
    one (the user may not know --data at all)."""
    return None if ref.builtin == "tfce" and ref.path is None else ref.path


def _qa_predictions_for_answers(
    files: Sequence[str | Path], data: Path | None, split: str | None
) -> bool:
    """Whether the one FILE holds QA predictions (its first line has an id and a response
    or answer, which no run's line has) and the retrieval dataset's split has answers."""
    from tfce_eval.retrieval.layouts import split_has_answers

    if len(files) != 1 or data is None or not Path(files[0]).is_file():
        return False
    found = first_line_task(Path(files[0]))
    return found is not None and found[0] is TaskKind.QA and split_has_answers(data, split)


def _score_fc(runs: list[Path], ref: DataRef, settings: ScoreSettings, out: Path) -> Scored:
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.report import write_score_reports
    from tfce_eval.scoring.score import score_outputs

    dataset = load_dataset(
        ref.path,
        questions=settings.questions,
        answers=settings.answers,
        answer_style=settings.answer_style,
    )
    own = _own_run(out, runs)
    result = score_outputs(
        runs, dataset, settings.fc_options(), out, extra_summary=_run_summary(own)
    )
    write_score_reports(result, dataset, own)
    return Scored(TaskKind.FC, out, result.summary, result.warnings, fc=result, run_info=own)


def _own_run(directory: Path, files: list[Path]) -> dict[str, Any] | None:
    """run.json of the run whose own outputs are scored again in its directory, so that
    the reports name its model as the run's did; None for any other score."""
    from tfce_eval.errors import DataError
    from tfce_eval.jsonl import read_json
    from tfce_eval.scoring.rundir import OUTPUTS, RUN_JSON

    run_json = directory / RUN_JSON
    if len(files) != 1 or not run_json.is_file():
        return None
    try:
        if not files[0].resolve().samefile(directory / OUTPUTS):
            return None
        info = read_json(run_json)
    except (OSError, DataError):
        return None  # the report names no model, as for any score
    return info if isinstance(info, dict) else None


def _run_summary(own: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The `run` key a run writes into its summary, from its run.json (a QA run's
    context too), so that a run's own outputs scored again keep it; None for any other
    score."""
    if own is None:
        return None
    run = {key: own.get(key) for key in ("provider", "model", "mode")}
    if not all(isinstance(v, str) for v in run.values()):
        return None
    options = own.get("request_options")
    if own.get("task") == TaskKind.QA and isinstance(options, dict):
        run.update((key, options.get(key)) for key in ("context", "k", "run_file"))
    return {"run": run}


def _score_retrieval(file: Path | None, ref: DataRef, settings: ScoreSettings, out: Path) -> Scored:
    from tfce_eval.report import write_document_reports
    from tfce_eval.retrieval import dataset_run, load_retrieval, retrieval_document, score_run

    path = ref.directory
    dataset = load_retrieval(
        path,
        split=settings.split,
        corpus=settings.corpus,
        qrels=settings.qrels,
        name=printable(ref.name),
    )
    run: Run | Path = dataset_run(dataset) if file is None else file  # None: `dataset`
    result = score_run(run, dataset, settings.measures, out)
    # Titled by the directory the scores went to, as `report` titles the run later.
    named = dataclasses.replace(result, name=out.resolve().name)
    document = retrieval_document([named])
    write_document_reports(out, document)
    return Scored(TaskKind.RETRIEVAL, out, result.summary, result.warnings, document=document)


async def _score_qa(plan: _Plan) -> Scored:
    from tfce_eval.qa import score_predictions_async
    from tfce_eval.run.judge import judge_for
    from tfce_eval.tasks.load import load_qa_dataset

    file, ref, settings, out = plan.runs[0], plan.ref, plan.settings, plan.target
    dataset = load_qa_dataset(ref.directory, split=settings.split, name=printable(ref.name))
    # No model under test here: any judge may grade the file's answers.
    judge = judge_for(settings.judge, settings.judge_base_url) if settings.judge else None
    own = _run_summary(_own_run(out, [file]))
    k, said = settings.k, []
    deepest = own["run"].get("k") if own is not None else None
    if isinstance(deepest, int):
        if k is not None and k > deepest:
            # The run's lines hold its top k chunks, no more: a deeper cut-off would be
            # named but not measured.
            said.append(
                f"the canonical hit rate is at k={deepest}, not {k}: the run's lines hold "
                f"its top {deepest} chunks (--k {deepest} when it ran)"
            )
        k = deepest if k is None else min(k, deepest)
    k = 5 if k is None else k
    result = await score_predictions_async(
        file,
        dataset,
        extra_summary=own,
        out_dir=out,
        judge=judge,
        judge_name=judge.name if judge else None,
        k=k,
        missing=settings.missing,
        run_file=settings.run_file,
        warnings=said,
    )
    document = write_qa_reports(out)
    return Scored(TaskKind.QA, out, result.summary, result.warnings, document=document)


def write_qa_reports(run_dir: Path) -> Document:
    """report.md and report.html of the QA run scored in `run_dir`, from its files (a
    score's, and a run's before it lets its directory go); the Document they show."""
    from tfce_eval.qa.report import qa_document
    from tfce_eval.qa.runs import load_qa_run
    from tfce_eval.report import write_document_reports

    document = qa_document([load_qa_run(run_dir)])
    write_document_reports(run_dir, document)
    return document
