"""What a run is given (`RunConfig`, built by the command line, with its parsed `--context`)
and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from tfce_eval.errors import UsageError
from tfce_eval.model import AnswerStyle, Category, Policy, TaskKind
from tfce_eval.providers import Mode, RequestOptions
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.scoring.options import CheckMode


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


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs; built by the command line from its options."""

    model: str  # provider/name
    mode: Mode = Mode.FC
    data: Path | None = None
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
    task: TaskKind = TaskKind.FC
    split: str | None = None
    context: ContextSpec = ContextSpec(Context.NONE)  # --context with --k, parsed
    corpus: Path | None = None
    cache_dir: Path | None = None  # where BM25 indexes are kept
    judge: str | None = None
    judge_base_url: str | None = None
    allow_self_judge: bool = False

    def __post_init__(self) -> None:
        # A caller of the library may name the task as the command line does ("qa"):
        # parsed here once, so that every `task is TaskKind.QA` holds.
        try:
            object.__setattr__(self, "task", TaskKind(self.task))
        except ValueError:
            raise UsageError(f"unknown task {self.task!r}; choose fc, qa or retrieval") from None


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    score: Any  # scoring.score.ScoreResult (fc) or qa.QaResult (qa)
    selected: int  # items in the run
    resumed: int  # of them, answered by an earlier session
    asked: int  # asked in this session
    request_errors: int  # items of the run that ended as request_error
    notes: tuple[str, ...]  # request options not sent or dropped, and why
