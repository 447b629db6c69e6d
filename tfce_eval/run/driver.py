"""The course of every run, whatever its task: prepare the directory, ask what is left, score.

A task hands the driver a `Plan`: the selected ids, the run's identity and settings, the
asker, a way to make the items still to ask, and its scorer. The driver does the rest the
same way for every task: run.json (new, or resumed when the identity matches), the ids
already answered, the credentials check, the session, the score (interruptible), and the
final counts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfce_eval import stopping
from tfce_eval.errors import RunError, RunInterrupted
from tfce_eval.model import TaskKind
from tfce_eval.providers import Provider
from tfce_eval.providers.registry import parse_model
from tfce_eval.run.asking import Asker
from tfce_eval.run.config import RunConfig, RunResult
from tfce_eval.run.directory import finished_ids, prepare_run_dir
from tfce_eval.run.metadata import (
    RunIdentity,
    build_meta,
    dropped_from,
    now_iso,
    selection_digest,
)
from tfce_eval.run.progress import NullProgress, ProgressSink
from tfce_eval.run.sending import (
    Sending,
    ask_items,
    ask_items_async,
    interrupted,
    request_notes,
    run_notes,
)
from tfce_eval.run.session import SessionStats
from tfce_eval.scoring.rundir import RunDir, write_json

#: Scores every selected item's output once the session is over: given run.json as it
#: ends, returns the task's score result and how many items ended as request errors.
Scorer = Callable[[Mapping[str, Any]], tuple[Any, int]]
#: The same, awaited in the caller's event loop (a judge's requests are sent in it).
AsyncScorer = Callable[[Mapping[str, Any]], Awaitable[tuple[Any, int]]]


def run_identity(
    dataset_sha256: str,
    provider: Provider,
    config: RunConfig,
    ids: list[str],
    categories: tuple[str, ...],
    asked_with: Mapping[str, Any] | None = None,
) -> RunIdentity:
    """What makes a run the same run when it is resumed. `asked_with`: a task's own options
    that change what the model is asked (QA's context), kept with the request options."""
    return RunIdentity(
        dataset_sha256=dataset_sha256,
        provider=provider.name,
        model=provider.model,
        base_url=provider.base_url,
        mode=str(config.mode),
        request_options={**config.request.to_json(), **(asked_with or {})},
        categories=categories,
        selection_sha256=selection_digest(ids),
        selection={"limit": config.limit, "ids": list(config.ids) or None},
        task=str(config.task or TaskKind.FC),
    )


@dataclass(frozen=True)
class Plan:
    """What one task gives the shared run (see the module's docstring)."""

    ids: Sequence[str]
    identity: RunIdentity
    dataset_path: str | list[str]
    settings: Mapping[str, Any]
    asker: Asker
    items: Callable[[list[str]], Iterator[Any]]  # the items of these ids, in this order
    score: Scorer
    notes: tuple[str, ...] = ()
    score_async: AsyncScorer | None = None  # drive_async's scorer; `score` when None


def drive(
    config: RunConfig,
    run_dir: RunDir,
    provider: Provider,
    plan: Plan,
    progress: ProgressSink | None,
) -> RunResult:
    """Run (or resume) `plan` in `run_dir`, which the caller has locked."""
    course = _Course(config, run_dir, provider, plan, progress)
    items = course.items()
    if items is not None:
        course.stats = ask_items(course.sending(), items)
    try:
        stopping.check()  # a stop heard as the session ended
        result, request_errors = plan.score(course.final_meta())
        stopping.check()  # a stop that scoring swallowed: run.json does not say finished
        return course.finish(result, request_errors)
    except KeyboardInterrupt:
        raise RunInterrupted(interrupted(run_dir, None, len(course.ids), config)) from None


async def drive_async(
    config: RunConfig,
    run_dir: RunDir,
    provider: Provider,
    plan: Plan,
    progress: ProgressSink | None,
) -> RunResult:
    """`drive` in the caller's event loop: the requests (and a judge's) are awaited."""
    course = _Course(config, run_dir, provider, plan, progress)
    items = course.items()
    if items is not None:
        course.stats = await ask_items_async(course.sending(), items)
    try:
        stopping.check()
        if plan.score_async is not None:
            result, request_errors = await plan.score_async(course.final_meta())
        else:
            result, request_errors = plan.score(course.final_meta())
        stopping.check()
        return course.finish(result, request_errors)
    except KeyboardInterrupt:
        raise RunInterrupted(interrupted(run_dir, None, len(course.ids), config)) from None


class _Course:
    """What `drive` and `drive_async` share: run.json, what is left to ask, the end."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: RunDir,
        provider: Provider,
        plan: Plan,
        progress: ProgressSink | None,
    ) -> None:
        self.config, self.run_dir, self.provider, self.plan = config, run_dir, provider, plan
        self.progress = progress or NullProgress()
        self.ids = ids = list(plan.ids)
        saved = prepare_run_dir(run_dir, plan.identity, force=config.force)
        self.dropped = dropped_from(saved) if saved else {}
        self.meta = saved or build_meta(
            plan.identity,
            api=str(parse_model(config.model)[0].api),
            dataset_path=plan.dataset_path,
            selection={"items": len(ids), "limit": config.limit, "ids": list(config.ids) or None},
            settings=plan.settings,
            sdk=provider.sdk_versions(),
            request_notes=request_notes(provider, config, self.dropped),
            dropped_params=self.dropped,
            started_at=now_iso(),
        )
        if saved:
            self.meta.update(plan.settings, sdk=provider.sdk_versions())
        self.done = finished_ids(run_dir.outputs) & set(ids)
        self.todo = [i for i in ids if i not in self.done]
        self.stats = SessionStats(dropped=dict(self.dropped))

    def items(self) -> Iterator[Any] | None:
        """The items left to ask, or None when every item is answered. Made before run.json
        says the run is running: a context that cannot be built (an unreadable run file, a
        corpus without the chunks it names) stops the run with nothing written."""
        if not self.todo:
            return None
        problem = self.provider.credentials_problem()
        if problem:
            raise RunError(problem)
        return self.plan.items(self.todo)

    def sending(self) -> Sending:
        """The session that asks what is left (run.json says it is running from here)."""
        return Sending(
            self.provider,
            self.plan.asker,
            self.config,
            self.meta,
            self.run_dir,
            self.dropped,
            self.progress,
            total=len(self.ids),
            done=len(self.done),
        )

    def final_meta(self) -> dict[str, Any]:
        """run.json as the run ends, for the scorer (its reports describe it)."""
        self.meta["dropped_params"] = self.stats.dropped
        self.meta["request_notes"] = request_notes(self.provider, self.config, self.stats.dropped)
        return {**self.meta, "status": "finished"}

    def finish(self, result: Any, request_errors: int) -> RunResult:
        """run.json completed, signals held; then a stop that scoring swallowed (or that
        came meanwhile) is raised: KeyboardInterrupt, with every file consistent."""
        with stopping.held():
            run_result = self._finish(result, request_errors)
        stopping.check()
        return run_result

    def _finish(self, result: Any, request_errors: int) -> RunResult:
        meta, ids = self.meta, self.ids
        meta["status"] = "finished"
        meta["finished_at"] = now_iso()
        meta["counts"] = {
            "items": len(ids),
            "answered": len(ids) - request_errors,
            "request_errors": request_errors,
        }
        write_json(self.run_dir.run_json, meta)
        return RunResult(
            self.run_dir.path,
            result,
            len(ids),
            len(self.done),
            self.stats.asked,
            request_errors,
            (*run_notes(meta), *self.plan.notes),
        )
