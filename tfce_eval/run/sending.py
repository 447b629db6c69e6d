"""Sending a run's requests, for any task: the session, run.json while it runs, and what
a stopped or interrupted run says (the command to resume shows no URL's credentials)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tfce_eval import stopping
from tfce_eval.errors import RunError, RunInterrupted
from tfce_eval.providers import Provider
from tfce_eval.providers.secrets import redact_urls
from tfce_eval.run.appender import AppendFailed, OutputsAppender
from tfce_eval.run.asking import Asker
from tfce_eval.run.config import RunConfig
from tfce_eval.run.directory import save_run_json
from tfce_eval.run.metadata import now_iso, recorded_url
from tfce_eval.run.progress import ProgressSink
from tfce_eval.run.session import Session, SessionStats, SessionStopped
from tfce_eval.scoring.rundir import RunDir, write_json
from tfce_eval.words import shown_path


def run_notes(meta: Mapping[str, Any]) -> tuple[str, ...]:
    notes = meta.get("request_notes") or {}
    return tuple(f"{k} {v}" for k, v in notes.items())


def request_notes(
    provider: Provider, config: RunConfig, dropped: Mapping[str, str]
) -> dict[str, str]:
    notes = dict(provider.fixed_notes(config.request))
    for param, reason in dropped.items():
        notes[param] = f"dropped: {reason}"
    return notes


class Sending:
    """One session of a run's requests, for any task (`asker` says how): run.json says it
    is running from `open`, and records how it ended whatever happens (`end`). The
    requests themselves are sent by `ask_items` (its own event loop) or `ask_items_async`
    (the caller's); everything else is this one class."""

    def __init__(
        self,
        provider: Provider,
        asker: Asker,
        config: RunConfig,
        meta: dict[str, Any],
        run_dir: RunDir,
        dropped: dict[str, str],
        progress: ProgressSink,
        *,
        total: int,
        done: int,
    ) -> None:
        self.provider, self.config, self.meta, self.run_dir = provider, config, meta, run_dir
        self.progress, self.total, self.done = progress, total, done
        self.log: dict[str, Any] = {"started_at": now_iso(), "items": total - done}
        self.appender = OutputsAppender(run_dir.outputs)
        self.session = Session(
            provider,
            asker,
            config.request,
            concurrency=config.concurrency,
            retry=config.retry,
            appender=self.appender,
            progress=progress,
            dropped=dropped,
        )

    def open(self) -> None:
        """run.json says the run is running; the appender opens. Called inside the `try`
        whose end is `end`: run.json never stays `running` (a signal included)."""
        meta = self.meta
        meta.setdefault("sessions", []).append(self.log)
        meta["status"] = "running"
        if "base_url" in meta:  # a run.json of a version that kept the credentials
            meta["base_url"] = recorded_url(meta["base_url"])
        write_json(self.run_dir.run_json, meta)
        self.progress.start(self.total, self.done)
        self.appender.__enter__()

    def close(self) -> None:
        # Signals held: every answer queued is written before a stop is raised.
        with stopping.held():
            self.progress.stop()
            self.appender.close()  # everything queued is written, or AppendFailed

    def end(self, error: BaseException | None) -> SessionStats:
        """Record how the session ended; raise what the caller is told, or the counts.

        A cancelled task (an async caller's) is recorded as interrupted and stays
        cancelled: CancelledError goes on up. Signals are held while run.json is saved:
        one that comes then is raised after it (or goes with the error raised)."""
        with stopping.held():
            return self._end(error)

    def _end(self, error: BaseException | None) -> SessionStats:
        if error is None and stopping.asked() is not None:
            error = KeyboardInterrupt()  # a stop the session did not hear in time
        status = "sent" if error is None else "interrupted"
        failure: BaseException | None = error
        answered = self.done + self.session.stats.answered
        if isinstance(error, SessionStopped):
            status = "stopped"
            self.log["error"] = error.error.message
            failure = RunError(
                error.error.render()
                + f"\n  {answered} of {self.total} items are answered and saved in "
                f"{self.run_dir.outputs}; after fixing it, run the same command again to resume"
            )
        elif isinstance(error, AppendFailed):
            status = "stopped"
            self.log["error"] = error.reason
            failure = RunError(
                f"{error}\n  what was written before is kept; free some space (or choose "
                "another --out) and run the same command again to resume"
            )
        elif isinstance(error, KeyboardInterrupt):
            failure = RunInterrupted(interrupted(self.run_dir, answered, self.total, self.config))
        stats = self.session.stats
        sessions = self.meta.setdefault("sessions", [])
        if not any(log is self.log for log in sessions):  # stopped inside `open`
            sessions.append(self.log)
        self.log.update(
            ended_at=now_iso(),
            status=status,
            asked=stats.asked,
            answered=stats.answered,
            request_errors=stats.request_errors,
        )
        self.meta["status"] = status
        self.meta["dropped_params"] = stats.dropped
        self.meta["request_notes"] = request_notes(self.provider, self.config, stats.dropped)
        unsaved = save_run_json(self.run_dir, self.meta)
        if isinstance(failure, (RunError, RunInterrupted)):
            if unsaved:
                failure = type(failure)(f"{failure}\n  ({unsaved})")
            raise failure from None
        if failure is not None:
            raise failure
        if unsaved:
            raise RunError(unsaved)
        return stats


def ask_items(sending: Sending, items: Iterator[Any]) -> SessionStats:
    """Send the session's requests in an event loop of its own (a stop, a signal heard
    by the command line, cancels them: `stopping.run`)."""
    try:
        try:
            sending.open()
            stopping.run(lambda: _send_all(sending.session, sending.provider, items))
        finally:
            sending.close()
    except BaseException as exc:
        return sending.end(exc)
    try:
        return sending.end(None)
    except KeyboardInterrupt:  # a stop that came while run.json was saved
        return sending.end(KeyboardInterrupt())


async def ask_items_async(sending: Sending, items: Iterator[Any]) -> SessionStats:
    """Send the session's requests in the caller's event loop."""
    try:
        try:
            sending.open()
            await _send_all(sending.session, sending.provider, items)
        finally:
            sending.close()
    except BaseException as exc:
        return sending.end(exc)
    return sending.end(None)


async def _send_all(session: Session, provider: Provider, items: Iterator[Any]) -> None:
    async with provider:
        await session.run(items)


def interrupted(run_dir: RunDir, saved: int | None, total: int, config: RunConfig) -> str:
    """What an interrupted run says: what is saved, and the command that resumes it. A
    URL's credentials in that command are shown as ***: the user puts them back."""
    command = config.resume_command or "    the same command"
    shown = redact_urls(command)
    again = (
        "run again" if shown == command else "run again, with each password shown as *** put back"
    )
    outputs = shown_path(run_dir.outputs)
    if saved is None:
        where = f"interrupted while scoring: every answer is saved in {outputs}"
    else:
        where = f"interrupted: {saved} of {total} items are answered and saved in {outputs}"
    return f"{where}\n  to resume, {again}:\n{shown}"
