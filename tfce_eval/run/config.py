"""What a run is given (`RunConfig`, built by the command line) and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.model import AnswerStyle, Category, Policy
from tfce_eval.providers import Mode, RequestOptions
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.scoring.options import CheckMode


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
    # Question answering (task "qa"): the split, the context and the judge of open answers.
    task: str = "fc"
    split: str | None = None
    context: str = "none"  # none, gold, bm25 or run:FILE
    k: int = 5
    corpus: Path | None = None
    cache_dir: Path | None = None  # where BM25 indexes are kept
    judge: str | None = None
    judge_base_url: str | None = None
    allow_self_judge: bool = False


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    score: Any  # scoring.score.ScoreResult (fc) or qa.QaResult (qa)
    selected: int  # items in the run
    resumed: int  # of them, answered by an earlier session
    asked: int  # asked in this session
    request_errors: int  # items of the run that ended as request_error
    notes: tuple[str, ...]  # request options not sent or dropped, and why
