"""Failing items shown in a report: question, expected calls, received calls and the error.

The scorer stores the expected and the decoded calls in each record's details; the question
comes from the dataset, which may be gone or moved by the time a report is made. Nothing
here raises because of that: a failure without its question says the question is unavailable
and why. Model text is shown verbatim (renderers escape it) but cut to a bounded length.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.model import (
    CATEGORY_ORDER,
    ErrorCode,
    ExpectedCall,
    Item,
    ScoreRecord,
    render_call,
    show_value,
)
from tfce_eval.report.runs import RunView
from tfce_eval.report.source import FailureSource
from tfce_eval.scoring.outputs import index_outputs_files
from tfce_eval.scoring.rundir import RunDir, scored_file
from tfce_eval.words import of_failing

#: Longest text shown for one question, call list or raw answer.
MAX_TEXT = 2000
_RAW_KEYS = ("raw", "content", "text", "tool_calls", "result")


@dataclass(frozen=True)
class Failure:
    """One failing item as every format shows it: a heading (id, code, error), then fields."""

    id: str
    error_type: str | None
    error: str | None
    question: str | None  # None: unavailable (see RunFailures.note)
    expected: str
    received: str
    raw: str | None  # the model's answer as sent, when nothing could be decoded from it

    def fields(self) -> tuple[tuple[str, str], ...]:
        """The labelled texts under the heading, in the order every format shows them."""
        shown = [
            ("question", self.question if self.question is not None else "(unavailable)"),
            ("expected", self.expected),
            ("received", self.received),
        ]
        if self.raw is not None:
            shown.append(("answer as sent", self.raw))
        return tuple(shown)


@dataclass(frozen=True)
class CategoryFailures:
    category: str
    failing: int  # every failing item of the category
    shown: tuple[Failure, ...]


@dataclass(frozen=True)
class RunFailures:
    run: str
    categories: tuple[CategoryFailures, ...]
    note: str | None  # about the questions: why some are missing, or may not be the ones asked


class Piece(StrEnum):
    """What one line of a failures section is; each format has one way to show each."""

    TITLE = "title"
    RUN = "run"  # which run the failures below are of (several runs only)
    NOTE = "note"  # about the questions
    CATEGORY = "category"
    ITEM = "item"


@dataclass(frozen=True)
class Line:
    piece: Piece
    text: str
    failure: Failure | None = None  # for ITEM

    @property
    def item(self) -> Failure:
        """The failing item of an ITEM line."""
        if self.failure is None:
            raise ValueError(f"a {self.piece} line has no failing item")
        return self.failure


def outline(
    runs: Sequence[RunFailures], per_category: int, names: Sequence[str] | None = None
) -> list[Line]:
    """The failures section of a report, in order: what each format renders, line by line.

    `names`: how to head each run's failures when there are several (default: its name).
    """
    out = [Line(Piece.TITLE, f"Failures (up to {per_category} per category)")]
    for i, run in enumerate(runs):
        if len(runs) > 1:
            out.append(Line(Piece.RUN, names[i] if names else run.run))
        if run.note:
            out.append(Line(Piece.NOTE, f"Questions: {run.note}"))
        if not any(cat.failing for cat in run.categories):
            out.append(Line(Piece.NOTE, "No item failed."))
        for cat in run.categories:
            if not cat.failing:
                continue  # a category every item got right has nothing to list
            heading = f"{cat.category}: {of_failing(len(cat.shown), cat.failing)}"
            out.append(Line(Piece.CATEGORY, heading))
            out.extend(Line(Piece.ITEM, f.id, f) for f in cat.shown)
    return out


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """`text` cut to `limit` characters, lone surrogates escaped (`\\ud83d`) so it can be
    written as UTF-8 whatever a model or a dataset put in it."""
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    return show_value(value, MAX_TEXT)


def format_calls(calls: Any) -> str:
    """Calls as `name(arg=value, ...)`, one a line; anything else as JSON."""
    if isinstance(calls, list) and all(
        isinstance(c, Mapping)
        and isinstance(c.get("name"), str)
        and isinstance(c.get("arguments"), Mapping)
        for c in calls
    ):
        if not calls:
            return "(no calls)"
        lines = [render_call(c["name"], c["arguments"], None, value_limit=MAX_TEXT) for c in calls]
        return clip("\n".join(lines))
    return clip(_value(calls))


def _expected_from_item(expected: Sequence[ExpectedCall]) -> str:
    lines = []
    for call in expected:
        args = []
        for name, param in call.params.items():
            shown = (
                _value(param.values[0])
                if len(param.values) == 1
                else "one of " + _value(list(param.values))
            )
            args.append(f"{name}={shown}" + (" (may be omitted)" if param.may_omit else ""))
        lines.append(f"{call.name}({', '.join(args)})")
    return clip("\n".join(lines)) if lines else "(no calls)"


def format_question(question: Any) -> str:
    """A question string, or a chat (BFCL turns of messages) as `role: content` lines."""
    if isinstance(question, str):
        return clip(question)
    lines: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, Mapping) and "content" in node:
            lines.append(f"{node.get('role', 'user')}: {node['content']}")
        else:
            lines.append(_value(node))

    walk(question)
    return clip("\n".join(lines))


def _raw_answers(run: RunView, ids: set[str]) -> dict[str, str]:
    """The stored answers of undecodable items, from the files the run was scored from
    while they are still what was scored; none otherwise."""
    paths = _outputs_files(run) if ids else []
    if not paths:
        return {}
    try:
        index = index_outputs_files(paths, tolerate_torn_tail=True)
        wanted = [i for i in ids if i in index.offsets]
        found: dict[str, str] = {}
        for item_id, record in index.read_many(wanted):
            payload = next((record[k] for k in _RAW_KEYS if record.get(k) is not None), None)
            if payload is not None:
                found[item_id] = clip(payload if isinstance(payload, str) else _value(payload))
        return found
    except (DataError, OSError):
        return {}


def _outputs_files(run: RunView) -> list[Path]:
    """The files summary.json's `outputs` names (docs/files.md 8.4), each found where it
    was or beside the moved run directory, the same bytes as scored; none when one is
    not. A summary that names none (written before it did): the run's outputs.jsonl."""
    if run.path is None:
        return []
    recorded = _recorded_outputs(run.summary)
    if recorded is None:
        own = RunDir(run.path).outputs
        return [own] if own.is_file() else []
    found = []
    for path, sha256 in recorded:
        file, _ = scored_file(path, run.path, sha256)
        if file is None:
            return []  # gone, or changed: its lines may not be the answers scored
        found.append(file)
    return found


def _recorded_outputs(summary: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """(path, SHA-256) of each file summary.json's `outputs` names; None when it names none."""
    outputs = summary.get("outputs")
    if not isinstance(outputs, Mapping):
        return None
    entries = outputs.get("files", [outputs])
    if not isinstance(entries, list):
        return None
    recorded = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            return None
        path, digest = entry.get("path"), entry.get("sha256")
        if not isinstance(path, str) or not isinstance(digest, str):
            return None
        recorded.append((path, digest))
    return recorded


def _received(record: ScoreRecord) -> str:
    if record.error_type is ErrorCode.REQUEST_ERROR:
        return "(the model could not be asked)"
    if record.details.get("missing"):
        return "(no output for this item)"
    calls = record.details.get("calls")
    return "(no calls could be decoded)" if calls is None else format_calls(calls)


def _pick(records: Iterable[ScoreRecord], n: int) -> tuple[list[ScoreRecord], int]:
    failing = [r for r in records if not r.valid]
    # Model errors first: a request error says nothing about the model's answers.
    failing.sort(key=lambda r: r.error_type is ErrorCode.REQUEST_ERROR)
    return failing[:n], len(failing)


def _failure(record: ScoreRecord, item: Item | None, raw: str | None) -> Failure:
    expected = record.details.get("expected")
    if expected is not None:
        shown_expected = format_calls(expected)
    elif item is not None:
        shown_expected = _expected_from_item(item.expected)
    else:
        shown_expected = "(unavailable)"
    return Failure(
        id=record.id,
        error_type=None if record.error_type is None else str(record.error_type),
        error=None if record.error is None else clip(record.error),
        question=None if item is None else format_question(item.question),
        expected=shown_expected,
        received=_received(record),
        raw=raw,
    )


def collect_failures(
    run: RunView, name: str, per_category: int, source: FailureSource | None
) -> RunFailures:
    """Up to `per_category` failing items of each category, with what is needed to read them.

    `source` None: the dataset the run names is loaded, only if there is a failure to show.
    """
    if not run.records:
        return RunFailures(
            name, (), "no per-item verdicts (scores.jsonl), so failing items cannot be listed"
        )
    by_cat: dict[str, list[ScoreRecord]] = {}
    for r in run.records:
        by_cat.setdefault(str(r.category), []).append(r)
    picked = [
        (str(c), *_pick(by_cat[str(c)], per_category)) for c in CATEGORY_ORDER if str(c) in by_cat
    ]
    shown = [r for _, records, _ in picked for r in records]
    items: dict[str, Item] = {}
    note = None
    if shown:
        src = FailureSource.for_run(run) if source is None else source.for_run_digest(run)
        items, note = src.items({r.id for r in shown})
    undecoded = {
        r.id
        for r in shown
        if r.details.get("calls") is None and r.error_type is not ErrorCode.REQUEST_ERROR
    }
    raw = _raw_answers(run, undecoded)
    categories = tuple(
        CategoryFailures(
            cat, failing, tuple(_failure(r, items.get(r.id), raw.get(r.id)) for r in records)
        )
        for cat, records, failing in picked
    )
    return RunFailures(name, categories, note)
