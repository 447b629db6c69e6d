"""`tfce-eval call 'f(a=1)'`: run one function of a functions directory from the shell.

For dataset authors trying an implementation: the call is read by the same literal-only
decoder as model output and runs in a worker process under the same limits as `score`.
"""

from __future__ import annotations

from pathlib import Path

import click

from tfce_eval.cli.numbers import Finite
from tfce_eval.errors import DataError, RunError
from tfce_eval.scoring.options import EXEC_TIMEOUT_MAX_S


@click.command("call")
@click.argument("text", metavar="CALL")
@click.option(
    "--functions",
    "functions_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Directory of function implementations. Default: the built-in functions/.",
)
@click.option(
    "--exec-timeout",
    type=Finite(min=0.1, max=EXEC_TIMEOUT_MAX_S),
    default=5.0,
    show_default=True,
    help="Time limit for the call, in seconds (at most a day).",
)
def call_command(text: str, functions_dir: Path | None, exec_timeout: float) -> None:
    """Run CALL (Python syntax, keyword arguments only: `units.dbm_to_watts(power_dbm=30)`)
    and print its result as JSON."""
    from tfce_eval.exec.call import call_function
    from tfce_eval.exec.records import ExecOptions, default_functions_dir
    from tfce_eval.scoring.encoding import dumps_strict

    directory = functions_dir or default_functions_dir(None)
    if directory is None:
        raise DataError("there is no built-in functions directory", hint="pass --functions DIR")
    # Errors are shown, folded at 80 columns, by the command group (tfce_eval.cli).
    outcome = call_function(text, ExecOptions(functions_dir=directory, timeout_s=exec_timeout))
    if not outcome.ok:
        raise RunError(str(outcome.error))
    # Strict JSON, as scores.jsonl writes it: NaN and infinities as strings.
    click.echo(dumps_strict(outcome.value, indent=2))
