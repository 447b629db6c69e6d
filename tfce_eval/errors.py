"""The exceptions that stop a command. Everything that concerns one item is data, not these.

`cli` turns each into a message on stderr and an exit code: 1 for bad input or a failed run,
2 for usage errors (click's own), 130 (Ctrl-C) or 143 (SIGTERM) for an interrupted run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tfce_eval.words import shown_path

if TYPE_CHECKING:
    from pathlib import Path


class TfceError(Exception):
    """Base of every error that stops a command."""

    exit_code = 1


class DataError(TfceError):
    """A dataset or outputs file is malformed: names the file, line, item id and the fix."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        item_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.item_id = item_id
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.path:
            where = shown_path(self.path) + (f", line {self.line}" if self.line else "")
        if self.item_id:
            where = f"{where} (id {self.item_id})" if where else f"id {self.item_id}"
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f"\n  fix: {self.hint}"
        return text


class UsageError(TfceError):
    """Options that cannot work together, found after click has parsed them."""

    exit_code = 2


class RunError(TfceError):
    """A model run cannot go on (authentication, unknown model, changed options on resume)."""


class HarnessError(TfceError):
    """A failure of tfce-eval itself (a bug, or a worker process that died), never of the
    model: it stops the command instead of being counted against the model's answer."""


class RunInterrupted(TfceError):
    """The user stopped a run; every finished item is saved and the run can be resumed.
    Exit 130, or 143 when SIGTERM stopped it (the command line knows which: `stopping`)."""

    exit_code = 130


def refuse_running_loop(call: str, instead: str) -> None:
    """A UsageError when `call` (which runs an event loop of its own) is called inside a
    running one, as in Jupyter or an async application: it says to await `instead`.
    Called first, before anything is written."""
    import asyncio  # only when a library entry point is called

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise UsageError(
        f"{call}() cannot run inside a running event loop (Jupyter, an async application): "
        f"use `await {instead}(...)` there"
    )


def check_number(
    value: object,
    name: str,
    low: float | None = None,
    high: float | None = None,
    *,
    whole: bool = False,
    optional: bool = False,
) -> None:
    """A UsageError unless `value` is a Python number from `low` to `high` (None too if
    `optional`): what a record a library caller builds checks, as the command line checks
    its options, before anything is sent or written. A `whole` number is an int that
    fits in 64 bits (as servers read seeds and counts); any other is finite as a float."""
    if value is None and optional:
        return
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if (
        isinstance(value, int | float)  # as `number`, spelled so that the type narrows
        and number
        and (
            INT64_MIN <= value <= INT64_MAX and isinstance(value, int) if whole else _finite(value)
        )
        and (low is None or value >= low)
        and (high is None or value <= high)
    ):
        return
    span = ""
    if low is not None and high is not None:
        span = f" from {low:g} to {high:g}"
    elif low is not None:
        span = f" of at least {low:g}"
    maybe = " (or None)" if optional else ""
    shown = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else "it"
    if len(shown) > 30:
        shown = shown[:30] + "..."
    if not number and value is not None and not isinstance(value, bool | str):
        # numpy's and Decimal's numbers are refused too: run.json and requests hold JSON.
        kind = "int" if whole else "int or float"
        raise UsageError(f"{name}: give a Python {kind}{span}{maybe}, not {shown}")
    kind = "a whole number" if whole else "a finite number"
    if whole and isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        span += " that fits in 64 bits"
    raise UsageError(f"{name}: {shown} is not {kind}{span}{maybe}")


#: The whole numbers a record holds: what servers read as a 64-bit integer.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _finite(value: int | float) -> bool:
    """Whether a number is finite as a float (an int past a float's range is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def first_line(exc: BaseException) -> str:
    """An exception's message, its first line only (its type's name when it has none)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def given_dataset_error(path: str, exc: Exception, kind: str) -> TfceError:
    """The error of a dataset the user named (`--data`) that cannot be loaded: the loader's
    own, or a DataError naming the directory and asking for a `kind` dataset."""
    if isinstance(exc, TfceError):
        return exc
    return DataError(
        f"cannot load the dataset: {first_line(exc)}",
        path=path,
        hint=f"give a {kind} dataset with --data",
    )


def check_paths(value: object, name: str) -> tuple[Path, ...]:
    """A sequence of paths (text or Path) as a tuple of Paths; a UsageError for one
    path given alone, which would otherwise be read letter by letter."""
    from pathlib import Path, PurePath  # here: errors are imported by every command

    if isinstance(value, str | bytes | PurePath):
        raise UsageError(f"{name}: give a sequence of paths, not one path ({str(value)!r})")
    try:
        return tuple(Path(p) for p in value)  # type: ignore[attr-defined]
    except TypeError:
        raise UsageError(f"{name}: give a sequence of paths, not {value!r}") from None


def check_path(value: object, name: str) -> Path | None:
    """A path given as text or a Path, as a Path; None for None or "" (an option given
    empty counts as not given); a UsageError naming `name` for anything else (a number,
    a list, bytes), before anything is read."""
    from pathlib import Path, PurePath

    if value is None or value == "":
        return None
    if isinstance(value, str | PurePath):
        return Path(value)
    raise UsageError(f"{name}: give a path (text or a Path), not {_shown(value)}")


def check_text(value: object, name: str, *, optional: bool = True) -> str | None:
    """`value` if it is text (or None when `optional`), else a UsageError naming
    `name`: a model, a URL, a split. Empty text is returned as None, not given, as an
    option given empty is; a field for which empty is not the same keeps its value."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value or None
    raise UsageError(f"{name}: give {'text or None' if optional else 'text'}, not {_shown(value)}")


def check_flag(value: object, name: str) -> None:
    """A UsageError naming `name` unless `value` is True or False: text such as "no"
    would otherwise count as true."""
    if not isinstance(value, bool):
        raise UsageError(f"{name}: give True or False, not {_shown(value)}")


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:40] + "..."
