"""Reading a scored retrieval run back (summary.json + scores.jsonl) for the reports.

Every field is checked for its type; a file that does not hold what `score` writes is a
DataError naming the file, the line and the field.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, read_json
from tfce_eval.model import TaskKind
from tfce_eval.retrieval.score import QueryScore, ScoredRun
from tfce_eval.scoring.rundir import SCORES, SUMMARY, check_run_task, no_run_directory

_HINT = "score the run again: tfce-eval score RUN --data DIR --out DIR"
#: What a report says of a directory that is not there, as fc and QA reports say it.
_DIR_HINT = "give a directory written by `tfce-eval score --out` on a retrieval run"


def is_scored_run(path: str | Path) -> bool:
    """Whether a directory holds a scored retrieval run (summary.json with its task)."""
    summary = Path(path) / SUMMARY
    if not summary.is_file() or not (Path(path) / SCORES).is_file():
        return False
    try:
        data = read_json(summary)
    except DataError:
        return False
    return isinstance(data, dict) and data.get("task") == TaskKind.RETRIEVAL


def _number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def load_scored_run(path: str | Path, name: str | None = None) -> ScoredRun:
    """A scored run directory; DataError naming the file and line of anything wrong."""
    root = Path(path)
    if root.is_file() and root.name == SUMMARY:  # DIR/summary.json, as fc and QA read it
        root = root.parent
    if not root.is_dir():
        raise DataError(no_run_directory(root), path=str(root), hint=_DIR_HINT)
    check_run_task(root, TaskKind.RETRIEVAL)
    summary = _read_summary(root / SUMMARY)
    measures = list(summary["measures"])
    queries = _read_scores(root / SCORES, measures)
    if len(queries) != summary["queries"]:
        raise DataError(
            f"{len(queries)} query records, but summary.json counts {summary['queries']}",
            path=str(root / SCORES),
            hint=_HINT,
        )
    # Named by its directory, as `score` names it and as fc runs are (`report .` too).
    return ScoredRun(name or root.resolve().name, root, summary, tuple(queries))


def _read_summary(path: Path) -> dict[str, Any]:
    where = str(path)
    if not path.exists():
        raise DataError("no summary.json: not a scored run directory", path=where, hint=_HINT)
    data = read_json(path, hint=_HINT)

    def bad(message: str) -> DataError:
        return DataError(message, path=where, hint=_HINT)

    if not isinstance(data, dict):
        raise bad("not a JSON object")
    if data.get("task") != TaskKind.RETRIEVAL:
        raise bad(f"task is {data.get('task')!r}, not 'retrieval'")
    measures = data.get("measures")
    if not isinstance(measures, dict) or not measures:
        raise bad("'measures' must be an object of measures")
    for name, entry in measures.items():
        if not isinstance(entry, dict) or not _number(entry.get("mean")):
            raise bad(f"measure {name!r} has no numeric 'mean'")
        ci = entry.get("ci95")
        if not isinstance(ci, list) or len(ci) != 2 or not all(_number(v) for v in ci):
            raise bad(f"measure {name!r}: 'ci95' must be two numbers")
    if not _count(data.get("queries")):
        raise bad("'queries' must be a count")
    coverage = data.get("coverage")
    if not isinstance(coverage, dict) or not all(
        _count(coverage.get(k)) for k in ("answered", "total")
    ):
        raise bad("'coverage' must be {answered, total} counts")
    warnings = data.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise bad("'warnings' must be a list of strings")
    for key in ("dataset", "run"):
        if not isinstance(data.get(key, {}), dict):
            raise bad(f"{key!r} must be an object")
    return data


def _read_scores(path: Path, measures: list[str]) -> list[QueryScore]:
    where = str(path)
    out: list[QueryScore] = []
    seen: set[str] = set()
    for number, record, refused in JsonLines(path).entries():
        if refused is not None:
            raise refused.error(path, _HINT)

        def bad(message: str, line: int = number) -> DataError:
            return DataError(message, path=where, line=line, hint=_HINT)

        if not isinstance(record, dict):
            raise bad("not a JSON object")
        qid = record.get("qid")
        if not isinstance(qid, str):
            raise bad("'qid' must be a string")
        if qid in seen:
            raise bad(f"query {qid!r} appears twice")
        seen.add(qid)
        values = record.get("measures")
        if not isinstance(values, dict):
            raise bad("'measures' must be an object")
        for name in measures:
            if not _number(values.get(name)):
                raise bad(f"measure {name!r} is missing or not a number")
        for key in ("n_relevant", "n_retrieved"):
            if not _count(record.get(key)):
                raise bad(f"{key!r} must be a count")
        out.append(
            QueryScore(
                qid,
                {m: float(values[m]) for m in measures},
                record["n_relevant"],
                record["n_retrieved"],
            )
        )
    return out
