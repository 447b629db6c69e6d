"""Reading a run directory into the one value every report is made from.

A run directory holds summary.json (the figures), scores.jsonl (per-item verdicts, needed for
the paired test and for failures) and, for a model run, run.json (model, options, dataset).
Only the summary is required; a directory with scores.jsonl and no summary gets its summary
recomputed, so a report never disagrees with the verdicts it was made from.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.model import ScoreRecord, TaskKind
from tfce_eval.report.wellformed import check_score, check_summary
from tfce_eval.scoring.rundir import (
    SUMMARY,
    RunDir,
    check_run_task,
    no_run_directory,
    read_json,
    read_scores,
)
from tfce_eval.scoring.summary import summarize


@dataclass(frozen=True)
class RunView:
    """One scored run as the report sees it."""

    name: str
    path: Path | None
    summary: dict[str, Any]
    records: tuple[ScoreRecord, ...]
    run_info: dict[str, Any] | None

    @property
    def model(self) -> str | None:
        value = (self.run_info or {}).get("model")
        return str(value) if value else None

    @property
    def dataset_path(self) -> Path | None:
        """The dataset the run was scored against, when run.json or the summary names it."""
        for source in (self.run_info or {}, self.summary):
            value = source.get("dataset")
            if isinstance(value, dict):
                value = value.get("path")
            if value is None:
                value = source.get("dataset_path")
            if isinstance(value, str) and value:
                return Path(value)
        return None

    @property
    def dataset_sha256(self) -> str | None:
        for source in (self.run_info or {}, self.summary):
            value = source.get("dataset")
            sha = value.get("sha256") if isinstance(value, dict) else source.get("dataset_sha256")
            if isinstance(sha, str) and sha:
                return sha
        return None


def load_run(run_dir: str | Path, *, keep_details: int | None = None) -> RunView:
    """Read summary.json, scores.jsonl and run.json (the last two if present) from `run_dir`.

    `run_dir` may also be the summary.json inside it. A missing directory or a directory with
    neither summary nor scores is a DataError that says what to give instead; so is a figure
    or a verdict of the wrong type, naming the file, line and field.

    `keep_details`: None keeps every record's details (expected and received calls,
    problems). A number N keeps them only for the first N failing records of each category
    and kind (model error, request error), all a report listing N failures per category
    reads; 0 keeps none, for a report without failures. The figures are the same either way.
    """
    run_dir = Path(run_dir)
    if run_dir.is_file() and run_dir.name == SUMMARY:
        run_dir = run_dir.parent
    if not run_dir.is_dir():
        raise DataError(
            no_run_directory(run_dir),
            path=str(run_dir),
            hint="give a directory written by `tfce-eval run` or `tfce-eval score --out`",
        )
    check_run_task(run_dir, TaskKind.FC)
    files = RunDir(run_dir)
    records: tuple[ScoreRecord, ...] = ()
    if files.scores.is_file():
        # Each record checked as it is read: the reader takes any value for true or false.
        check = partial(check_score, path=files.scores)
        records = tuple(read_scores(files.scores, check=check, keep_details=keep_details))
    if files.summary.is_file():
        summary = read_json(files.summary)
        check_summary(summary, files.summary)
    elif records:
        summary = summarize(records)
    else:
        hint = "score it first: tfce-eval score OUTPUTS.jsonl --out DIR"
        if files.outputs.is_file():
            # Quoted as a shell reads it: the user pastes it.
            outputs, out = shlex.quote(str(files.outputs)), shlex.quote(str(run_dir))
            hint = f"score it first: tfce-eval score {outputs} --out {out}"
        raise DataError(
            "no summary.json or scores.jsonl in this directory", path=str(run_dir), hint=hint
        )
    run_info = read_json(files.run_json) if files.run_json.is_file() else None
    return RunView(
        name=run_dir.resolve().name,
        path=run_dir,
        summary=summary,
        records=records,
        run_info=run_info if isinstance(run_info, dict) else None,
    )
