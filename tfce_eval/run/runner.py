"""`run`: ask a model every selected item, keep every answer, score, and say what was done.

`run_eval(config)` loads the dataset, selects items (categories, ids, a per-category limit),
prepares the run directory (new, resumed, or refused when the run's identity changed), asks
the items not yet answered (session.py), then scores all of them (scoring.py) and completes
run.json. A run stopped at any moment keeps every finished item; the same call resumes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tfce_eval.dataset.load import Dataset, load_dataset
from tfce_eval.dataset.paths import recorded
from tfce_eval.errors import UsageError, refuse_running_loop
from tfce_eval.model import CATEGORY_ORDER, Category, ErrorCode, TaskKind
from tfce_eval.providers import Provider
from tfce_eval.providers.registry import default_run_name, make_provider, parse_model
from tfce_eval.run.asking import FcAsker
from tfce_eval.run.config import RunConfig, RunResult
from tfce_eval.run.directory import checked_run_name
from tfce_eval.run.driver import Plan, drive, drive_async, run_identity
from tfce_eval.run.progress import ProgressSink
from tfce_eval.run.qa_run import dump_qa_request, qa_plan
from tfce_eval.scoring.lock import RunLock
from tfce_eval.scoring.options import ScoreOptions, check_functions_dir
from tfce_eval.scoring.rundir import RunDir
from tfce_eval.scoring.score import ScoreResult, score_outputs
from tfce_eval.words import listed


def select_ids(dataset: Dataset, config: RunConfig) -> list[str]:
    """The run's items in natural order: categories, then --ids, then --limit per category."""
    ids = dataset.ids(config.categories)
    if config.ids:
        unknown = [i for i in config.ids if i not in dataset]
        if unknown:
            raise UsageError(f"--ids: not in the dataset: {listed(unknown)}")
        wanted = set(config.ids)
        ids = [i for i in ids if i in wanted]
    if config.limit is not None:
        taken: dict[Category, int] = {}
        limited: list[str] = []
        for item_id in ids:
            cat = dataset.category_of(item_id)
            if taken.get(cat, 0) < config.limit:
                taken[cat] = taken.get(cat, 0) + 1
                limited.append(item_id)
        ids = limited
    if not ids:
        raise UsageError(_nothing_selected(dataset, config))
    return ids


def _nothing_selected(dataset: Dataset, config: RunConfig) -> str:
    if config.ids and config.categories is not None:
        shown = listed(config.ids)
        verb = "is" if len(config.ids) == 1 else "are"
        theirs = sorted({str(dataset.category_of(i)) for i in config.ids})
        chosen = sorted(str(c) for c in config.categories)
        return (
            f"no items selected: --ids {shown} {verb} in {', '.join(theirs)}, not in "
            f"--category {', '.join(chosen)}"
        )
    return "no items selected: check --category, --ids and --limit"


def _load(config: RunConfig) -> Dataset:
    return load_dataset(
        config.data,
        questions=config.questions,
        answers=config.answers,
        answer_style=config.answer_style,
    )


def run_directory(config: RunConfig) -> Path:
    if config.run_name is not None:
        return config.out / checked_run_name(config.run_name)
    spec, name = parse_model(config.model)
    default = default_run_name(spec.name, name, config.mode)
    if config.task is TaskKind.QA:  # a QA run is named by its task and context too
        default = f"{default}-{config.task}-{config.context.kind}"
    return config.out / default


def dump_request(config: RunConfig, item_id: str) -> dict[str, Any]:
    """The exact request `run` would send for one item (key redacted). Sends nothing."""
    if config.task is TaskKind.QA:
        return dump_qa_request(config, item_id)
    dataset = _load(config)
    if item_id not in dataset:
        raise UsageError(f"--dump-request: no item {item_id!r} in the dataset")
    provider = make_provider(config.model, base_url=config.base_url, timeout_s=config.timeout_s)
    return {
        "method": "POST",
        "url": provider.request_url(),
        "headers": provider.redacted_headers(),
        "body": provider.build_request(dataset.get(item_id), config.request, config.mode),
    }


def _categories(dataset: Dataset, ids: list[str]) -> tuple[str, ...]:
    present = {dataset.category_of(i) for i in ids}
    return tuple(str(c) for c in CATEGORY_ORDER if c in present)


def _settings(config: RunConfig) -> dict[str, Any]:
    return {
        "policy": config.policy.to_json(),
        "check": str(config.check),
        "functions_dir": None if config.functions_dir is None else str(config.functions_dir),
        "exec_timeout_s": config.exec_timeout_s,
        "concurrency": config.concurrency,
        "timeout_s": config.timeout_s,
        "retry": config.retry.to_json(),
    }


#: Writes a run's reports once its scores are in: (score, dataset, run.json as it ends).
#: The report package sits above this one, so the caller hands its writer in (the command
#: line passes one built on tfce_eval.report.write_run_reports).
ReportWriter = Callable[[ScoreResult, Dataset, Mapping[str, Any]], None]
#: Writes a QA run's reports into its directory once its scores are in, before run.json
#: says the run finished (the QA report reads the scores, the summary and the model).
QaReportWriter = Callable[[Path], None]


def run_eval(
    config: RunConfig,
    *,
    progress: ProgressSink | None = None,
    write_reports: ReportWriter | None = None,
    write_qa_reports: QaReportWriter | None = None,
) -> RunResult:
    """Run (or resume) an evaluation and score it. RunError / RunInterrupted when it stops.

    The run directory is this run's alone while it runs: a second run there is a RunError
    that names the first (before it reads, asks or deletes anything). `write_reports` (a
    function-calling run) or `write_qa_reports` (a QA run), when given, writes report.md
    and report.html beside the new scores, while the directory is still the run's
    (scoring removes stale ones, so a run without its task's writer leaves no reports
    of an earlier score; the other task's writer is never called).

    It runs an event loop of its own: inside one (Jupyter, an async application) it is a
    UsageError, before anything is written; await `run_eval_async` there.
    """
    refuse_running_loop("run_eval", "run_eval_async")
    run_dir = RunDir(run_directory(config))
    with RunLock(run_dir.path):
        provider, plan = _plan(config, run_dir, write_reports, write_qa_reports)
        return drive(config, run_dir, provider, plan, progress)


async def run_eval_async(
    config: RunConfig,
    *,
    progress: ProgressSink | None = None,
    write_reports: ReportWriter | None = None,
    write_qa_reports: QaReportWriter | None = None,
) -> RunResult:
    """`run_eval` in the caller's event loop (same arguments, same files, same result).

    Cancelling the task stops the run as Ctrl-C does: every finished item is kept, run.json
    says interrupted, and the same call resumes it; the CancelledError goes on up.
    """
    run_dir = RunDir(run_directory(config))
    with RunLock(run_dir.path):
        provider, plan = _plan(config, run_dir, write_reports, write_qa_reports)
        return await drive_async(config, run_dir, provider, plan, progress)


def _plan(
    config: RunConfig,
    run_dir: RunDir,
    write_reports: ReportWriter | None,
    write_qa_reports: QaReportWriter | None,
) -> tuple[Provider, Plan]:
    if config.task is TaskKind.QA:
        return qa_plan(config, run_dir, write_qa_reports)
    return _fc_plan(config, run_dir, write_reports)


def _fc_plan(
    config: RunConfig, run_dir: RunDir, write_reports: ReportWriter | None
) -> tuple[Provider, Plan]:
    check_functions_dir(config.functions_dir, config.check)  # before anything is asked
    dataset = _load(config)
    ids = select_ids(dataset, config)
    provider = make_provider(config.model, base_url=config.base_url, timeout_s=config.timeout_s)

    def score(meta: Mapping[str, Any]) -> tuple[ScoreResult, int]:
        result = score_outputs(
            run_dir.outputs,
            dataset,
            ScoreOptions(
                policy=config.policy,
                check=config.check,
                categories=config.categories,
                ids=frozenset(ids),
                functions_dir=config.functions_dir,
                exec_timeout_s=config.exec_timeout_s,
            ),
            run_dir.path,
            extra_summary={
                "run": {
                    "provider": provider.name,
                    "model": provider.model,
                    "mode": str(config.mode),
                }
            },
        )
        if write_reports is not None:  # the reports describe the run as it ends
            write_reports(result, dataset, meta)
        errors = sum(1 for r in result.records if r.error_type is ErrorCode.REQUEST_ERROR)
        return result, errors

    plan = Plan(
        ids=ids,
        identity=run_identity(dataset.sha256, provider, config, ids, _categories(dataset, ids)),
        dataset_path=recorded(dataset.root) or [str(recorded(p)) for p in dataset.question_files],
        settings=_settings(config),
        asker=FcAsker(config.mode),
        items=lambda todo: dataset.iter_items(ids=todo),
        score=score,
    )
    return provider, plan
