"""What `score` and `validate` read besides their dataset: one record each, whose fields
are the commands' options, parsed once as a library caller may give them (paths and
closed choices as text), and refused when given for a dataset of another task, as the
command line refuses those options, rather than silently ignored."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.errors import (
    UsageError,
    check_flag,
    check_number,
    check_path,
    check_paths,
    check_text,
)
from tfce_eval.model import AnswerStyle, Category, Policy, TaskKind, parse_choice
from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions

_FC = (TaskKind.FC,)
_RANKED = (TaskKind.RETRIEVAL, TaskKind.QA)


@dataclass(frozen=True, slots=True)
class ScoreSettings:
    """What a score reads besides its files and its dataset; each task reads its own.

    Function calling: `questions`, `answers` and `answer_style` choose the dataset's
    files; `policy`, `check`, `categories`, `functions_dir` and `exec_timeout_s` how its
    answers are checked (as `scoring.ScoreOptions`). Function calling and question
    answering: `missing`, what an item the file lacks counts as. Retrieval: `split`,
    `corpus`, `qrels`, `measures`. Question answering: `split`, the judge of open
    answers (`judge`, `judge_base_url`), `k` and `run_file`.
    """

    questions: tuple[Path, ...] = ()
    answers: tuple[Path, ...] = ()
    answer_style: AnswerStyle | None = None
    policy: Policy = field(default_factory=Policy)
    check: CheckMode = CheckMode.BOTH
    categories: frozenset[Category] | None = None
    functions_dir: Path | None = None
    exec_timeout_s: float = 5.0
    missing: MissingMode = MissingMode.COUNT
    split: str | None = None
    corpus: str | None = None
    qrels: Path | None = None
    measures: str | Sequence[str] | None = None
    judge: str | None = None
    judge_base_url: str | None = None
    k: int | None = None  # 5; a run's own outputs scored again: the run's
    run_file: Path | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        _parse_dataset_fields(self)
        # The checker's options, checked and parsed as ScoreOptions does it.
        options = self.fc_options()
        for name in ("check", "categories", "missing", "functions_dir"):
            set_field(self, name, getattr(options, name))
        check_number(self.k, "k", 1, whole=True, optional=True)
        set_field(self, "run_file", check_path(self.run_file, "run_file"))
        for name in ("judge", "judge_base_url"):
            set_field(self, name, check_text(getattr(self, name), name))
        measures: object = self.measures
        if not (
            measures is None
            or isinstance(measures, str)
            or (isinstance(measures, Sequence) and all(isinstance(m, str) for m in measures))
        ):
            raise UsageError(f"measures: give text or a sequence of names, not {measures!r}")

    def fc_options(self) -> ScoreOptions:
        """How function-calling answers are checked."""
        return ScoreOptions(
            policy=self.policy,
            check=self.check,
            categories=self.categories,
            missing=self.missing,
            functions_dir=self.functions_dir,
            exec_timeout_s=self.exec_timeout_s,
        )


#: The fields of ScoreSettings that are for some tasks only.
SCORE_FIELD_TASKS: Mapping[str, tuple[TaskKind, ...]] = {
    "questions": _FC,
    "answers": _FC,
    "answer_style": _FC,
    "policy": _FC,
    "check": _FC,
    "categories": _FC,
    "functions_dir": _FC,
    "exec_timeout_s": _FC,
    "missing": (TaskKind.FC, TaskKind.QA),
    "split": _RANKED,
    "corpus": (TaskKind.RETRIEVAL,),
    "qrels": (TaskKind.RETRIEVAL,),
    "measures": (TaskKind.RETRIEVAL,),
    "judge": (TaskKind.QA,),
    "judge_base_url": (TaskKind.QA,),
    "k": (TaskKind.QA,),
    "run_file": (TaskKind.QA,),
}


@dataclass(frozen=True, slots=True)
class ValidateSettings:
    """What `validate` reads besides the dataset. Function calling: which files
    (`questions`, `answers`, `answer_style`) and the implementations (`functions_dir`;
    `exec_checks` False checks nothing against them). Retrieval and QA: `split`;
    retrieval: `corpus` and `qrels`."""

    questions: tuple[Path, ...] = ()
    answers: tuple[Path, ...] = ()
    answer_style: AnswerStyle | None = None
    functions_dir: Path | None = None
    exec_checks: bool = True
    split: str | None = None
    corpus: str | None = None
    qrels: Path | None = None

    def __post_init__(self) -> None:
        _parse_dataset_fields(self)
        object.__setattr__(self, "functions_dir", check_path(self.functions_dir, "functions_dir"))
        check_flag(self.exec_checks, "exec_checks")


#: The fields of ValidateSettings that are for some tasks only.
VALIDATE_FIELD_TASKS: Mapping[str, tuple[TaskKind, ...]] = {
    "questions": _FC,
    "answers": _FC,
    "answer_style": _FC,
    "functions_dir": _FC,
    "exec_checks": _FC,
    "split": _RANKED,
    "corpus": (TaskKind.RETRIEVAL,),
    "qrels": (TaskKind.RETRIEVAL,),
}


def _parse_dataset_fields(settings: ScoreSettings | ValidateSettings) -> None:
    """The fields both records share: a lone path for `questions` or `answers` is
    refused, not read letter by letter; the answer style may be its name."""
    set_field = object.__setattr__
    set_field(settings, "questions", check_paths(settings.questions, "questions"))
    set_field(settings, "answers", check_paths(settings.answers, "answers"))
    if settings.answer_style is not None:
        style = parse_choice(AnswerStyle, settings.answer_style, "answer_style")
        set_field(settings, "answer_style", style)
    set_field(settings, "qrels", check_path(settings.qrels, "qrels"))
    for name in ("split", "corpus"):
        set_field(settings, name, check_text(getattr(settings, name), name))


def refuse_other_tasks_settings(
    settings: ScoreSettings | ValidateSettings, task: TaskKind, data: str
) -> None:
    """UsageError naming each field given (not left at its default) that is for datasets
    of other tasks than `task`, as the command line names its options:
    `split is for retrieval and question-answering datasets; builtin:tfce is a
    function-calling dataset`."""
    from tfce_eval.tasks import other_tasks_refusal

    table = SCORE_FIELD_TASKS if isinstance(settings, ScoreSettings) else VALIDATE_FIELD_TASKS
    defaults = {f.name: _default(f) for f in dataclasses.fields(settings)}
    given = [
        (name, tasks)
        for name, tasks in table.items()
        if task not in tasks and _given(getattr(settings, name), defaults[name])
    ]
    if given:
        raise other_tasks_refusal(given, task, data)


def _given(value: object, default: object) -> bool:
    """Whether a field was given: not its default, and not empty (None, "", an empty
    collection), as the command line counts an option given empty as not given."""
    if value is None or value == "" or (isinstance(value, Sized) and not len(value)):
        return False
    return value != default


def _default(spec: dataclasses.Field[Any]) -> Any:
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return spec.default
