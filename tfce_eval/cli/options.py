"""Options shared by several commands, and their parsing into library values."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from tfce_eval.cli.numbers import Finite
from tfce_eval.errors import INT64_MAX
from tfce_eval.model import AnswerStyle, Category, OptionalParams, Policy, TaskKind
from tfce_eval.scoring.options import EXEC_TIMEOUT_MAX_S, CheckMode

F = TypeVar("F", bound=Callable[..., Any])

CATEGORY_CHOICES = [str(c) for c in Category] + ["all"]


class DataParam(click.ParamType):  # type: ignore[type-arg]
    """`--data`: a directory, or `builtin:NAME` read as the built-in dataset's directory
    (`builtin:tfce`, the default function-calling dataset, as no directory at all)."""

    name = "data"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value is None or isinstance(value, Path):
            return value
        text = str(value)
        if not text.startswith("builtin:"):
            return Path(text)
        from tfce_eval.errors import UsageError
        from tfce_eval.tasks import builtin  # not for --help: the table of datasets

        try:
            entry = builtin(text[len("builtin:") :])
        except UsageError as exc:
            self.fail(str(exc), param, ctx)
        return None if entry.name == "tfce" else entry.path


DATA = DataParam()


class Temperature(click.ParamType[float | None]):
    """`--temperature`: a number from 0 to 2, or `none` (leave it out of requests)."""

    name = "NUMBER|none"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | None:
        if value is None or isinstance(value, float):
            return value
        if str(value).lower() in ("none", "off", "omit"):
            return None
        try:
            number = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number or 'none'", param, ctx)
        if not 0 <= number <= 2:
            self.fail(f"{number} is outside 0..2", param, ctx)
        return number


def data_options(func: F) -> F:
    """--data, --questions, --answers, --answer-style."""
    decorators = [
        click.option(
            "--data",
            type=DATA,
            metavar="DIR|builtin:NAME",
            help="Dataset directory or built-in dataset (tfce-eval datasets lists them). "
            "Default: builtin:tfce, the built-in function-calling dataset.",
        ),
        click.option(
            "--questions",
            type=click.Path(path_type=Path, exists=True),
            multiple=True,
            help="Question file or directory (instead of --data). Repeatable.",
        ),
        click.option(
            "--answers",
            type=click.Path(path_type=Path, exists=True),
            multiple=True,
            help="Ground-truth file or directory (with --questions). Repeatable.",
        ),
        click.option(
            "--answer-style",
            type=click.Choice([str(s) for s in AnswerStyle]),
            help="Ground-truth style; detected per file when not given.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def category_option(func: F) -> F:
    return click.option(
        "--category",
        "categories",
        multiple=True,
        metavar="NAME",
        help="Categories to include: "
        + ", ".join(CATEGORY_CHOICES)
        + ". Repeat or separate with commas. Default: all.",
    )(func)


def parse_categories(values: Sequence[str]) -> frozenset[Category] | None:
    """`--category a,b --category c` -> a set of categories; None means all."""
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not names or "all" in names:
        return None
    chosen: set[Category] = set()
    for name in names:
        try:
            chosen.add(Category(name))
        except ValueError:
            raise click.BadParameter(
                f"unknown category {name!r}; choose from {', '.join(CATEGORY_CHOICES)}",
                param_hint="--category",
            ) from None
    return frozenset(chosen)


def policy_options(func: F) -> F:
    """Checker policy (docs/checking.md 5.2.5, 5.3, 5.4)."""
    decorators = [
        click.option(
            "--optional-params",
            type=click.Choice([str(o) for o in OptionalParams]),
            default=str(OptionalParams.DEFAULT),
            show_default=True,
            help="An optional parameter the ground truth does not mention: allowed when "
            "null or equal to its default (default), any well-typed value (any), or "
            "never (forbid, BFCL's rule).",
        ),
        click.option(
            "--coerce-strings",
            is_flag=True,
            help='Accept "5" for a number and "true" for a boolean.',
        ),
        click.option(
            "--strict-strings",
            is_flag=True,
            help="Compare strings exactly (NFC only) instead of normalised.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def build_policy(optional_params: str, coerce_strings: bool, strict_strings: bool) -> Policy:
    return Policy(
        optional_params=OptionalParams(optional_params),
        coerce_strings=coerce_strings,
        strict_strings=strict_strings,
    )


def check_options(func: F) -> F:
    """--check, --functions, --exec-timeout (docs/exec.md 6)."""
    decorators = [
        click.option(
            "--check",
            "check_mode",
            type=click.Choice([str(m) for m in CheckMode]),
            default=str(CheckMode.BOTH),
            show_default=True,
            help="AST checking, exec checking where the functions are implemented, or both.",
        ),
        click.option(
            "--functions",
            "functions_dir",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            help="Directory of function implementations for exec checking. Default: "
            "functions/ beside the dataset.",
        ),
        click.option(
            "--exec-timeout",
            type=Finite(min=0.1, max=EXEC_TIMEOUT_MAX_S),
            default=5.0,
            show_default=True,
            help="Time limit per executed call, in seconds (at most a day).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def base_url_option(func: F) -> F:
    return click.option(
        "--base-url",
        help="Server URL, overriding the provider's default "
        "(OpenAI-compatible: ending in /v1; Anthropic: without /v1).",
    )(func)


def timeout_option(func: F) -> F:
    return click.option(
        "--timeout",
        type=Finite(min=0.001),
        default=60.0,
        show_default=True,
        metavar="SECONDS",
        help="Time limit of one request.",
    )(func)


#: What --split does wherever a retrieval or QA dataset is read.
SPLIT_HELP = (
    "The split (a file stem for Telco-Retrieve; train/dev/test for QASPER-RAG). "
    "Default: test when there is one, else the only one."
)


def split_option(func: F) -> F:
    """--split: which split of a retrieval or QA dataset to read."""
    return click.option(
        "--split",
        help=SPLIT_HELP,
    )(func)


def split_options(split_help: str, corpus_help: str) -> Callable[[F], F]:
    """--split, --corpus, --qrels: which part of a retrieval or QA dataset to read, the
    first two said as the command uses them."""

    def decorate(func: F) -> F:
        decorators = [
            click.option("--split", help=split_help),
            click.option("--corpus", help=corpus_help),
            click.option(
                "--qrels",
                type=click.Path(path_type=Path, dir_okay=False, exists=True),
                help="A TREC qrels file (qid 0 docid rel) replacing the dataset's judgements.",
            ),
        ]
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return decorate


def task_option(func: F) -> F:
    return click.option(
        "--task",
        type=click.Choice([str(t) for t in TaskKind]),
        help="The task, when the dataset's files do not say it (QASPER-RAG reads as "
        "retrieval; with --task qa its answers are the questions, as score finds by "
        "itself for a file of QA predictions).",
    )(func)


def judge_options(func: F) -> F:
    """--judge, --judge-base-url, --allow-self-judge, --k (question answering)."""
    decorators = [
        click.option(
            "--judge",
            metavar="PROVIDER/MODEL",
            help="An LLM that grades open answers C/P/I (verdicts cached in the run "
            "directory). Without it open answers get lexical scores only.",
        ),
        click.option("--judge-base-url", help="The judge's server URL (a local server)."),
        click.option(
            "--allow-self-judge",
            is_flag=True,
            help="Let the model under test grade its own answers (biased; off by default).",
        ),
        click.option(
            "--k",
            type=click.IntRange(min=1, max=INT64_MAX),
            help="qa: context passages given (run) and the cut-off of the canonical hit "
            "rate. Default: 5; a score of a run's own outputs: the run's --k.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


#: The options of `score`, `validate` and `run` that belong to some tasks only: option ->
#: (click's name of its value, the tasks whose datasets it is for). Given with a dataset
#: of another task they would be silently ignored, so they are refused.
OPTION_TASKS: dict[str, tuple[str, tuple[TaskKind, ...]]] = {
    "--questions": ("questions", (TaskKind.FC,)),
    "--answers": ("answers", (TaskKind.FC,)),
    "--answer-style": ("answer_style", (TaskKind.FC,)),
    "--functions": ("functions_dir", (TaskKind.FC,)),
    "--no-exec": ("no_exec", (TaskKind.FC,)),
    "--check": ("check_mode", (TaskKind.FC,)),
    "--exec-timeout": ("exec_timeout", (TaskKind.FC,)),
    "--optional-params": ("optional_params", (TaskKind.FC,)),
    "--coerce-strings": ("coerce_strings", (TaskKind.FC,)),
    "--strict-strings": ("strict_strings", (TaskKind.FC,)),
    "--category": ("categories", (TaskKind.FC,)),
    "--missing": ("missing", (TaskKind.FC, TaskKind.QA)),
    "--k": ("k", (TaskKind.QA,)),
    "--run": ("run_file", (TaskKind.QA,)),  # score's: chunks for the canonical hit rate
    "--split": ("split", (TaskKind.RETRIEVAL, TaskKind.QA)),
    "--corpus": ("corpus", (TaskKind.RETRIEVAL,)),
    "--qrels": ("qrels", (TaskKind.RETRIEVAL,)),
    "--measures": ("measures", (TaskKind.RETRIEVAL,)),
    "--judge": ("judge", (TaskKind.QA,)),
    "--judge-base-url": ("judge_base_url", (TaskKind.QA,)),
    "--allow-self-judge": ("allow_self_judge", (TaskKind.QA,)),
}


#: `run`'s own: what a question-answering run reads besides the table's.
RUN_OPTION_TASKS: dict[str, tuple[str, tuple[TaskKind, ...]]] = {
    "--context": ("context", (TaskKind.QA,)),
    "--corpus": ("corpus", (TaskKind.QA,)),  # the dataset --context bm25 searches
    "--cache-dir": ("cache_dir", (TaskKind.QA,)),
    "--tool-choice": ("tool_choice", (TaskKind.FC,)),  # a QA run forces its answer tool
    "--no-parallel-tool-calls": ("no_parallel_tool_calls", (TaskKind.FC,)),
}


def refuse_other_tasks_options(
    task: TaskKind,
    params: Mapping[str, Any] | None = None,
    table: Mapping[str, tuple[str, tuple[TaskKind, ...]]] = OPTION_TASKS,
) -> None:
    """UsageError when an option given (on the command line or from the environment, not
    by its default: by default, the current command's options) is for datasets of other
    tasks than `task` (by `table`), e.g. `--split is for retrieval and question-answering
    datasets; --data is a function-calling dataset`: every option refused, those for the
    same tasks named together. In `params` (click's values by name), absent, None, empty or False is
    not given."""
    from tfce_eval.tasks import other_tasks_refusal

    if params is None:
        params = _given_params(click.get_current_context())
    given = [
        (flag, tasks)
        for flag, (name, tasks) in table.items()
        if params.get(name) not in (None, (), "", False) and task not in tasks
    ]
    if not given:
        return
    data = "--data" if params.get("data") is not None else "builtin:tfce (the default --data)"
    raise other_tasks_refusal(given, task, data)


def _given_params(ctx: click.Context) -> dict[str, Any]:
    """The command's option values, None for those left to their defaults (a default is
    no choice of the user's, whatever the task)."""
    from click.core import ParameterSource

    defaults = (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None)
    given = {
        name: None if ctx.get_parameter_source(name) in defaults else value
        for name, value in ctx.params.items()
    }
    if "data" in given and ctx.get_parameter_source("data") not in defaults:
        given["data"] = given["data"] or "builtin:tfce"  # typed, though read as no directory
    return given
