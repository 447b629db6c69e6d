"""Sending a run's requests, for any task: the session, run.json while it runs, and what
a stopped or interrupted run says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from typing import Any

from tfce_eval.errors import RunError, RunInterrupted
from tfce_eval.providers import Provider
from tfce_eval.run.appender import AppendFailed, OutputsAppender
from tfce_eval.run.asking import Asker
from tfce_eval.run.config import RunConfig
from tfce_eval.run.directory import save_run_json
from tfce_eval.run.metadata import now_iso
from tfce_eval.run.progress import ProgressSink
from tfce_eval.run.session import Session, SessionStats, SessionStopped
from tfce_eval.scoring.rundir import RunDir, write_json


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


def ask_items(
    provider: Provider,
    asker: Asker,
    config: RunConfig,
    meta: dict[str, Any],
    run_dir: RunDir,
    items: Iterator[Any],
    dropped: dict[str, str],
    progress: ProgressSink,
    *,
    total: int,
    done: int,
) -> SessionStats:
    """Send the session's requests (any task: `asker` says how); run.json records the
    session however it ends."""
    log: dict[str, Any] = {"started_at": now_iso(), "items": total - done}
    meta.setdefault("sessions", []).append(log)
    meta["status"] = "running"
    write_json(run_dir.run_json, meta)
    appender = OutputsAppender(run_dir.outputs)
    session = Session(
        provider,
        asker,
        config.request,
        concurrency=config.concurrency,
        retry=config.retry,
        appender=appender,
        progress=progress,
        dropped=dropped,
    )
    status = "interrupted"
    failure: RunError | RunInterrupted | None = None
    progress.start(total, done)
    try:
        try:
            appender.__enter__()
            asyncio.run(_send_all(session, provider, items))
        finally:
            progress.stop()
            appender.close()  # everything queued is written, or AppendFailed
        status = "sent"
    except SessionStopped as stopped:
        status = "stopped"
        log["error"] = stopped.error.message
        failure = RunError(
            stopped.error.render()
            + f"\n  {done + session.stats.answered} of {total} items are answered and saved in "
            f"{run_dir.outputs}; after fixing it, run the same command again to resume"
        )
    except AppendFailed as failed:
        status = "stopped"
        log["error"] = failed.reason
        failure = RunError(
            f"{failed}\n  what was written before is kept; free some space (or choose "
            "another --out) and run the same command again to resume"
        )
    except KeyboardInterrupt:
        saved = done + session.stats.answered
        failure = RunInterrupted(interrupted(run_dir, saved, total, config))
    finally:
        stats = session.stats
        log.update(
            ended_at=now_iso(),
            status=status,
            asked=stats.asked,
            answered=stats.answered,
            request_errors=stats.request_errors,
        )
        meta["status"] = status
        meta["dropped_params"] = stats.dropped
        meta["request_notes"] = request_notes(provider, config, stats.dropped)
        unsaved = save_run_json(run_dir, meta)
    if failure is not None:
        if unsaved:
            failure = type(failure)(f"{failure}\n  ({unsaved})")
        raise failure
    if unsaved:
        raise RunError(unsaved)
    return session.stats


async def _send_all(session: Session, provider: Provider, items: Iterator[Any]) -> None:
    async with provider:
        await session.run(items)


def interrupted(run_dir: RunDir, saved: int | None, total: int, config: RunConfig) -> str:
    command = config.resume_command or "    the same command"
    if saved is None:
        where = f"interrupted while scoring: every answer is saved in {run_dir.outputs}"
    else:
        where = f"interrupted: {saved} of {total} items are answered and saved in {run_dir.outputs}"
    return f"{where}\n  to resume, run again:\n{command}"
