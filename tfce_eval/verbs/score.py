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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import UsageError, check_number
from tfce_eval.model import AnswerStyle, TaskKind
from tfce_eval.scoring.options import MissingMode, ScoreOptions
from tfce_eval.tasks import DataRef, resolve_data
from tfce_eval.verbs.fields import parse_dataset_fields
from tfce_eval.verbs.score_files import (
    existing,
    first_line_task,
    out_beside,
    refuse_another_runs_directory,
    refuse_another_tasks_file,
)

if TYPE_CHECKING:
    from tfce_eval.report.document import Document
    from tfce_eval.scoring.score import ScoreResult

#: The word that scores a retrieval dataset's own retrieved_docs instead of a run file.
DATASET_RUN = "dataset"


@dataclass(frozen=True, slots=True)
class ScoreSettings:
    """What a score reads besides its files and its dataset; each task reads its own.

    Function calling: `questions`, `answers` and `answer_style` choose the dataset's
    files, `fc` how answers are checked (its `missing` is every task's). Retrieval:
    `split`, `corpus`, `qrels`, `measures`. Question answering: `split`, the judge of
    open answers (`judge`, `judge_base_url`), `k` and `run_file`.
    """

    fc: ScoreOptions = field(default_factory=ScoreOptions)
    questions: tuple[Path, ...] = ()
    answers: tuple[Path, ...] = ()
    answer_style: AnswerStyle | None = None
    split: str | None = None
    corpus: str | None = None
    qrels: Path | None = None
    measures: str | Sequence[str] | None = None
    judge: str | None = None
    judge_base_url: str | None = None
    k: int = 5
    run_file: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fc, ScoreOptions):
            raise UsageError(f"fc: give a ScoreOptions, not {self.fc!r}")
        parse_dataset_fields(self)
        check_number(self.k, "k", 1, whole=True)
        if self.run_file is not None:
            object.__setattr__(self, "run_file", Path(self.run_file))

    @property
    def missing(self) -> MissingMode:
        return self.fc.missing


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


def score_task(
    files: Sequence[str | Path],
    data: str | Path | None,
    task: TaskKind | None = None,
    split: str | None = None,
) -> DataRef:
    """The dataset `data` names and the task its FILEs are scored as: the dataset's own
    (or `task`), but QA for one file of QA predictions given with a retrieval dataset
    whose split has answers (QASPER-RAG's answers/). DataError for a bad dataset."""
    ref = resolve_data(data, task)
    # Only a retrieval dataset's files are looked at: a function-calling score loads
    # nothing of QA or retrieval.
    if (
        task is None
        and ref.task is TaskKind.RETRIEVAL
        and _qa_predictions_for_answers(files, ref.path, split)
    ):
        ref = dataclasses.replace(ref, task=TaskKind.QA)  # as task qa: QASPER-RAG
    return ref


def score_files(
    files: Sequence[str | Path],
    ref: DataRef,
    settings: ScoreSettings | None = None,
    out_dir: str | Path | None = None,
) -> Scored:
    """Score `files` against the dataset `ref` names (`score_task` finds it).

    The files are checked first (how many the task takes, one given twice, another
    task's file, a run directory from other answers), then read and scored; scores.jsonl,
    summary.json, report.md and report.html go to `out_dir`: by default beside the
    FILE (fc: several FILEs in one directory), retrieval's `dataset` under results/.
    UsageError or DataError before anything is written when something is wrong.
    """
    settings = settings or ScoreSettings()
    names = [str(file) for file in files]
    if not names:
        raise UsageError("give at least one FILE to score")
    out = Path(out_dir) if out_dir is not None else None
    beside = out_beside(tuple(names), ref.task, out_given=out is not None)
    out = out or beside
    runs: list[Path] = []
    if ref.task is not TaskKind.RETRIEVAL or names[0] != DATASET_RUN:
        runs = [existing(name, ref.task) for name in names]
        for run in runs:
            refuse_another_tasks_file(run, ref.task, _data_named(ref))
    target = out or (runs[0].parent if runs else None)
    from tfce_eval.scoring.lock import RunLock

    # The directory is this score's while it writes (a run's too, when it is one's): no
    # other score, and no run, writes scores, summary or reports there meanwhile.
    with RunLock(target or _retrieved_docs_dir(ref), "score"):
        refuse_another_runs_directory(target, runs)
        if ref.task is TaskKind.FC:
            return _score_fc(runs, ref, settings, out or runs[0].parent)
        if ref.task is TaskKind.RETRIEVAL:
            return _score_retrieval(runs[0] if runs else None, ref, settings, out)
        return _score_qa(runs[0], ref, settings, out or runs[0].parent)


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
    from tfce_eval.report import FailureSource, RunView, write_run_reports
    from tfce_eval.scoring.score import score_outputs

    dataset = load_dataset(
        ref.path,
        questions=settings.questions,
        answers=settings.answers,
        answer_style=settings.answer_style,
    )
    result = score_outputs(runs, dataset, settings.fc, out)
    assert result.run_dir is not None  # scored into a directory
    path = result.run_dir.path
    view = RunView(path.resolve().name, path, result.summary, result.records, None)
    write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))
    return Scored(TaskKind.FC, path, result.summary, result.warnings, fc=result)


def _score_retrieval(
    file: Path | None, ref: DataRef, settings: ScoreSettings, out: Path | None
) -> Scored:
    from tfce_eval.report import write_document_reports
    from tfce_eval.retrieval import dataset_run, load_retrieval, retrieval_document, score_run
    from tfce_eval.retrieval.ranking import Run

    path = ref.directory
    dataset = load_retrieval(
        path,
        split=settings.split,
        corpus=settings.corpus,
        qrels=settings.qrels,
        name=_shown_name(ref),
    )
    run: Run | Path
    if file is None:  # the word `dataset`
        run = dataset_run(dataset)
        out = out or _retrieved_docs_dir(ref)
    else:
        run = file
        out = out or file.parent
    result = score_run(run, dataset, settings.measures, out)
    # Titled by the directory the scores went to, as `report` titles the run later.
    named = dataclasses.replace(result, name=out.resolve().name)
    document = retrieval_document([named])
    write_document_reports(out, document)
    return Scored(TaskKind.RETRIEVAL, out, result.summary, result.warnings, document=document)


def _score_qa(file: Path, ref: DataRef, settings: ScoreSettings, out: Path) -> Scored:
    from tfce_eval.qa import score_predictions
    from tfce_eval.qa.report import qa_document
    from tfce_eval.qa.runs import load_qa_run
    from tfce_eval.report import write_document_reports
    from tfce_eval.run.judge import judge_for
    from tfce_eval.tasks.load import load_qa_dataset

    dataset = load_qa_dataset(ref.directory, split=settings.split, name=_shown_name(ref))
    # No model under test here: any judge may grade the file's answers.
    judge = judge_for(settings.judge, settings.judge_base_url) if settings.judge else None
    result = score_predictions(
        file,
        dataset,
        out_dir=out,
        judge=judge,
        judge_name=judge.name if judge else None,
        k=settings.k,
        missing=settings.missing,
        run_file=settings.run_file,
    )
    document = qa_document([load_qa_run(out)])
    write_document_reports(out, document)
    return Scored(TaskKind.QA, out, result.summary, result.warnings, document=document)


def _shown_name(ref: DataRef) -> str:
    """How summaries and messages name the dataset: `builtin:NAME` for a built-in one,
    as the user named it, not by its path inside the package; control characters as
    escapes."""
    from tfce_eval.report.document import printable
    from tfce_eval.tasks import builtin_names

    return printable(builtin_names(str(ref.directory)))
