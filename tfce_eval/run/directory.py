"""The run directory: its name inside --out, what --force deletes, what resume reads.

A run directory is `<out>/<run-name>`. A name given with --run-name must stay inside --out
(it is written to and, with --force, its files deleted). A directory that holds a run is
resumed only when run.json says it is the same run; otherwise `OtherRun` lists what changed
(`metadata.identity_differences`). An answer counts as finished unless it is a
request_error, which is asked again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePath, PureWindowsPath
from typing import Any

from tfce_eval.errors import DataError, RunError, TfceError, UsageError
from tfce_eval.run.metadata import RunIdentity, identity_differences
from tfce_eval.scoring.rundir import (
    OUTPUTS,
    REPORT_HTML,
    REPORT_MD,
    RUN_JSON,
    RUN_TREC,
    SCORES,
    SUMMARY,
    RunDir,
    index_outputs,
    read_json,
    write_json,
)
from tfce_eval.scoring.writing import remove_temporaries


class OtherRun(RunError):
    """The run directory holds another run, or answers without run.json. The mistake is
    the directory or the options chosen, so it exits 2 as a usage error does (as `score
    --out` into a run's directory does); a RunError still, for library callers."""

    exit_code = 2


#: Files a run writes; `--force` removes exactly these before starting over.
RUN_FILES = (OUTPUTS, SCORES, SUMMARY, RUN_JSON, REPORT_MD, REPORT_HTML)
#: Where a QA run keeps the retrieval run its BM25 context came from, and its files.
CONTEXT_DIR = "context"
CONTEXT_FILES = (RUN_TREC, RUN_JSON)


def checked_run_name(name: str) -> PurePath:
    """`--run-name` as a relative path that stays inside `--out`; UsageError otherwise.

    A name may hold folders (`week1/qwen`), but no `..`, no absolute path and nothing
    empty: the run directory is written to and, with --force, its files deleted.
    """
    path = PurePath(name)
    if path.is_absolute() or PureWindowsPath(name).anchor:
        why = "it is an absolute path"
    elif ".." in path.parts:
        why = "it holds '..'"
    elif not name.strip() or not path.parts or path == PurePath("."):
        why = "it names no directory"
    else:
        return path
    raise UsageError(
        f"--run-name {name!r}: {why}; give a name inside --out, such as my-run or week1/qwen"
    )


def prepare_run_dir(
    run_dir: RunDir, identity: RunIdentity, *, force: bool
) -> dict[str, Any] | None:
    """The saved run.json of a run to resume, None for a new run; OtherRun if it differs.

    `force`: start over: the run's files are deleted first (the caller holds the lock).
    Temporary files that a killed run left (`.run.json.1a2b3c4d`) are removed first.
    """
    remove_temporaries(run_dir.path, RUN_FILES)
    remove_temporaries(run_dir.path / CONTEXT_DIR, CONTEXT_FILES)
    if force:
        for name in RUN_FILES:
            (run_dir.path / name).unlink(missing_ok=True)
        return None
    if run_dir.run_json.exists():
        saved = read_json(run_dir.run_json)
        if not isinstance(saved, dict):
            raise DataError(
                "run.json is not a JSON object",
                path=str(run_dir.run_json),
                hint="use --force to start the run over",
            )
        differences = identity_differences(saved, identity)
        if differences:
            raise OtherRun(
                f"{run_dir.path} holds a different run, so it cannot be resumed:\n  "
                + "\n  ".join(differences)
                + "\n  fix: run with --force to start over there, or choose another "
                "directory with --run-name or --out"
            )
        return saved
    if run_dir.outputs.exists() and run_dir.outputs.stat().st_size:
        raise OtherRun(
            f"{run_dir.outputs} exists but run.json does not, so it cannot be "
            "resumed\n  fix: use --force to start over, or another --run-name"
        )
    if run_dir.summary.exists():
        # Scores `score` wrote from a file of outputs: a run there would replace them.
        raise OtherRun(
            f"{run_dir.path} holds the scores of another file (summary.json), not a "
            "run\n  fix: use --force to start over there, or another --run-name"
        )
    return None


def finished_ids(outputs: Path) -> set[str]:
    """Ids with an answer in outputs.jsonl (request errors are not finished: they are re-asked)."""
    if not outputs.exists():
        return set()
    index = index_outputs(outputs, tolerate_torn_tail=True)
    return {
        item_id for item_id, record in index.read_many(index.offsets) if record.get("error") is None
    }


def save_run_json(run_dir: RunDir, meta: Mapping[str, Any]) -> str | None:
    """Write run.json; what went wrong (for a message), instead of raising, if it fails.

    Used where a run is already stopping for a reason of its own, which must not be lost.
    """
    try:
        write_json(run_dir.run_json, meta)
    except (OSError, TfceError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{run_dir.run_json} could not be updated either: {reason}"
    return None
