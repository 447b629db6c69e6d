"""What a score says about its outputs file, in words: one line each, first ids named."""

from __future__ import annotations

from pathlib import Path

from tfce_eval.jsonl import torn_line_warning
from tfce_eval.scoring.rundir import OutputsIndex
from tfce_eval.words import counted


def first_ids(ids: list[str], n: int = 5) -> str:
    """`id a` for one id, `first: a, b, ...` (at most `n`) for several."""
    if len(ids) == 1:
        return f"id {ids[0]}"
    shown = ", ".join(ids[:n])
    return "first: " + shown + (", ..." if len(ids) > n else "")


def outputs_warnings(index: OutputsIndex, outputs: Path) -> list[str]:
    """What a score says about the outputs file itself: a torn last line, ids answered
    twice, request errors written after an answer."""
    warnings: list[str] = []
    if index.torn_line is not None:
        warnings.append(torn_line_warning(outputs, index.torn_line))
    if index.duplicates:
        dup = list(index.duplicates)
        each = "" if len(dup) == 1 else " of each"
        warnings.append(
            f"{outputs}: {counted(len(dup), 'id is', 'ids are')} answered on more than one "
            f"line; the last line{each} counts ({first_ids(dup)})"
        )
    if index.replaced_answers:
        lost = list(index.replaced_answers)
        verdict = (
            "its answer; the last line counts, so it is a request error"
            if len(lost) == 1
            else "their answer; the last line counts, so they are request errors"
        )
        warnings.append(
            f"{outputs}: {counted(len(lost), 'id has', 'ids have')} a request error on a "
            f"line after {verdict} ({first_ids(lost)})"
        )
    return warnings
