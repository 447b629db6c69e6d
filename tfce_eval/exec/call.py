"""The `call` command's logic: read one call in Python syntax and run it in a worker."""

from __future__ import annotations

from tfce_eval.decode.pyliteral import LiteralError, parse_calls
from tfce_eval.exec.executor import Executor
from tfce_eval.exec.records import ExecOptions, ExecOutcome
from tfce_eval.model import render_call


def call_function(text: str, options: ExecOptions) -> ExecOutcome:
    """Read one call in Python syntax (`f(a=1)`) and run it; errors name the call.

    Raises DataError when the functions directory cannot be imported at all.
    """
    try:
        calls = parse_calls(text)
    except LiteralError as exc:
        return ExecOutcome(False, error=f"cannot read the call: {exc}")
    if len(calls) != 1:
        return ExecOutcome(False, error=f"expected exactly one call, got {len(calls)}")
    call = calls[0]
    with Executor(options) as executor:
        outcome = executor.run([call])[0]
    if outcome.ok:
        return outcome
    return ExecOutcome(False, error=f"{render_call(call.name, call.arguments)} {outcome.error}")
