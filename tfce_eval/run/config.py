"""What a run is given (`RunConfig`, built by the command line, with its parsed `--context`)
and what it returns."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from enum import StrEnum
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
from tfce_eval.model import AnswerStyle, Category, Policy, TaskKind, parse_choice, parse_choices
from tfce_eval.providers import Mode, RequestOptions
from tfce_eval.retrieval import detect_layout
from tfce_eval.retrieval.layouts import has_answers
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.scoring.options import EXEC_TIMEOUT_MAX_S, CheckMode
from tfce_eval.tasks import other_tasks_refusal, resolve_data


class Context(StrEnum):
    """What the model is shown besides the question (`--context`)."""

    NONE = "none"  # closed-book
    GOLD = "gold"  # the item's own source passage: the upper bound
    BM25 = "bm25"  # the top k chunks of BM25 over a corpus
    RUN = "run"  # the top k chunks of a retrieval run file


@dataclass(frozen=True, slots=True)
class ContextSpec:
    """`--context none|gold|bm25|run:FILE` with `--k` and the corpus it reads."""

    kind: Context
    k: int = 5
    run_file: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", parse_choice(Context, self.kind, "context"))
        if self.run_file is not None:
            object.__setattr__(self, "run_file", Path(self.run_file))

    @classmethod
    def parse(cls, text: str, k: int) -> ContextSpec:
        if text.startswith("run:"):
            path = Path(text[4:])
            if not path.is_file():
                raise UsageError(f"--context {text}: no such run file")
            return cls(Context.RUN, k, path)
        try:
            return cls(Context(text), k)
        except ValueError:
            raise UsageError(f"--context {text!r}: choose none, gold, bm25 or run:FILE") from None

    def to_json(self) -> dict[str, Any]:
        return {
            "context": str(self.kind),
            "k": self.k if self.kind in (Context.BM25, Context.RUN) else None,
            "run_file": None if self.run_file is None else str(self.run_file),
        }


def run_data(data: str | Path | None, task: TaskKind | str | None) -> tuple[TaskKind, Path | None]:
    """`--data` (a directory, `builtin:NAME` or nothing) and `--task` as the run's task and
    directory: the task read from the dataset's files when not given. A run asks fc or qa
    questions: QASPER-RAG, a retrieval dataset with answers, is run as qa."""
    chosen = None if task is None else parse_choice(TaskKind, task, "task")
    ref = resolve_data(data, chosen)
    layout = ref.path is not None and ref.task is not TaskKind.FC and detect_layout(ref.path)
    if ref.task is TaskKind.RETRIEVAL or layout:
        # Only a layout with answers (QASPER-RAG's answers/) has questions to ask.
        if ref.path is not None and layout and has_answers(ref.path):
            return TaskKind.QA, ref.path
        raise UsageError(
            f"--data {data}: a retrieval dataset without answers, nothing to ask a model; "
            "rank it with `tfce-eval retrieve`"
        )
    return ref.task, ref.path


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs; built by the command line from its options.

    A library caller may give closed choices as their text (`mode="prompt"`, `task="qa"`,
    `check="ast"`) and `data` as a directory or `builtin:NAME`; they are parsed here, once.
    Without `task`, it is read from the dataset's files, as the command line reads it.
    """

    model: str  # provider/name
    mode: Mode = Mode.FC
    data: Path | None = None  # a directory or builtin:NAME; None: the built-in fc data
    questions: tuple[Path, ...] = ()
    answers: tuple[Path, ...] = ()
    answer_style: AnswerStyle | None = None
    categories: frozenset[Category] | None = None  # None: all
    ids: tuple[str, ...] = ()
    limit: int | None = None  # at most this many items per category
    out: Path = Path("results")
    run_name: str | None = None
    base_url: str | None = None
    request: RequestOptions = field(default_factory=RequestOptions)
    concurrency: int = 8
    timeout_s: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    policy: Policy = field(default_factory=Policy)
    check: CheckMode = CheckMode.BOTH
    functions_dir: Path | None = None
    exec_timeout_s: float = 5.0
    force: bool = False
    resume_command: str | None = None  # lines shown under the message when interrupted
    # Question answering (task qa): the split, the context and the judge of open answers.
    task: TaskKind | None = None  # None: read from the data (fc without data); set after init
    split: str | None = None
    context: ContextSpec = ContextSpec(Context.NONE)  # --context with --k, parsed
    corpus: Path | None = None
    cache_dir: Path | None = None  # where BM25 indexes are kept
    judge: str | None = None
    judge_base_url: str | None = None
    allow_self_judge: bool = False

    def __post_init__(self) -> None:
        # Parsed here once, so that every `task is TaskKind.QA` downstream holds.
        set_field = object.__setattr__
        data = self.data
        given_data: object = data  # as the user named it, for messages
        check_text(self.model, "model", optional=False)
        if self.task is None or str(data).startswith("builtin:"):
            if self.task is None and data is None:
                set_field(self, "task", TaskKind.FC)
            else:
                task, directory = run_data(data, self.task)
                set_field(self, "task", task)
                set_field(self, "data", directory)
        else:
            set_field(self, "task", parse_choice(TaskKind, self.task, "task"))
            set_field(self, "data", None if data is None else Path(data))
        set_field(self, "mode", parse_choice(Mode, self.mode, "mode"))
        set_field(self, "check", parse_choice(CheckMode, self.check, "check"))
        set_field(self, "categories", parse_choices(Category, self.categories, "categories"))
        if self.answer_style is not None:
            style = parse_choice(AnswerStyle, self.answer_style, "answer_style")
            set_field(self, "answer_style", style)
        context: object = self.context
        if isinstance(context, str):
            set_field(self, "context", ContextSpec.parse(context, 5))
        out: object = self.out
        if out is None:
            raise UsageError("out: give the directory runs go into, not None")
        if out == "":
            set_field(self, "out", _default("out"))  # given empty: not given
        for name in ("out", "corpus", "functions_dir", "cache_dir"):
            set_field(self, name, check_path(getattr(self, name), name))
        for name in ("run_name", "base_url"):  # `run` refuses these given empty
            check_text(getattr(self, name), name)
        for name in ("split", "judge", "judge_base_url"):
            set_field(self, name, check_text(getattr(self, name), name))
        for name in ("force", "allow_self_judge"):
            check_flag(getattr(self, name), name)
        set_field(self, "questions", check_paths(self.questions, "questions"))
        set_field(self, "answers", check_paths(self.answers, "answers"))
        ids: object = self.ids
        if isinstance(ids, str):
            raise UsageError(f"ids: give a sequence of ids, not {ids!r}")
        set_field(self, "ids", tuple(self.ids))
        if not all(isinstance(i, str) for i in self.ids):
            raise UsageError(f"ids: give ids as text, not {self.ids[:3]!r}")
        self._refuse_other_tasks_fields(given_data)
        # The limits the command line's options have, for a library caller too.
        check_number(self.concurrency, "concurrency", 1, whole=True)
        check_number(self.limit, "limit", 1, whole=True, optional=True)
        check_number(self.timeout_s, "timeout_s", 0.001)
        check_number(self.exec_timeout_s, "exec_timeout_s", 0.1, EXEC_TIMEOUT_MAX_S)

    def _refuse_other_tasks_fields(self, given_data: object) -> None:
        """A UsageError naming each field given (not at its default) for another task's
        datasets, as the command line refuses the options: ignored, it would make a run
        that is not the one asked for. The data is named as given: the question files
        given in its place, else the built-in dataset."""
        data = str(given_data) if given_data is not None else "builtin:tfce"
        if given_data is None and self.questions:
            first, *more = map(str, self.questions)
            data = first + (f" (with {len(more)} more)" if more else "")
        given = [
            (name, tasks)
            for name, tasks in _RUN_FIELD_TASKS.items()
            if self.task not in tasks and _field(self, name) != _default(name)
        ]
        if given:
            raise other_tasks_refusal(given, self.task or TaskKind.FC, data)


def _field(config: RunConfig, name: str) -> object:
    """A field of `config`, or of its request options (`request.tool_choice`)."""
    head, _, rest = name.partition(".")
    value = getattr(config, head)
    return getattr(value, rest) if rest else value


def _default(name: str) -> object:
    """A RunConfig field's default (of RequestOptions' for `request.NAME`)."""
    head, _, rest = name.partition(".")
    if rest:
        return getattr(RequestOptions(), rest)
    spec = next(f for f in fields(RunConfig) if f.name == head)
    return spec.default_factory() if spec.default_factory is not MISSING else spec.default


_FC, _QA = (TaskKind.FC,), (TaskKind.QA,)
#: RunConfig's fields that belong to one task's runs: field -> the tasks it is for.
_RUN_FIELD_TASKS: dict[str, tuple[TaskKind, ...]] = {
    "questions": _FC,
    "answers": _FC,
    "answer_style": _FC,
    "categories": _FC,
    "policy": _FC,
    "check": _FC,
    "functions_dir": _FC,
    "exec_timeout_s": _FC,
    "request.tool_choice": _FC,  # a QA run forces its answer tool
    "request.parallel_tool_calls": _FC,
    "split": _QA,
    "context": _QA,
    "corpus": _QA,
    "cache_dir": _QA,
    "judge": _QA,
    "judge_base_url": _QA,
    "allow_self_judge": _QA,
}


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    score: Any  # scoring.score.ScoreResult (fc) or qa.QaResult (qa)
    selected: int  # items in the run
    resumed: int  # of them, answered by an earlier session
    asked: int  # asked in this session
    request_errors: int  # items of the run that ended as request_error
    notes: tuple[str, ...]  # request options not sent or dropped, and why
