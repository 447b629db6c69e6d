"""The `tfce-eval` command line: a thin layer that parses options, calls one library
function per command, and renders its result. Only this package prints or exits.

Exit codes: 0 done (whatever the accuracy), 1 bad input or a failed run, 2 usage error,
130 interrupted (resumable).
"""

from __future__ import annotations

from typing import Any

import click

from tfce_eval import __version__
from tfce_eval.errors import TfceError


class _Failure(click.ClickException):
    """A library error shown as `error: ...` on stderr with its exit code."""

    def __init__(self, error: TfceError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TfceError as exc:
            raise _Failure(exc) from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tfce-eval")
def main() -> None:
    """Evaluate how well language models call telecom functions (TFCE, BFCL-style data)."""


def _register() -> None:
    from tfce_eval.cli.call import call_command
    from tfce_eval.cli.doctor import doctor_command
    from tfce_eval.cli.report import report_command
    from tfce_eval.cli.run import run_command
    from tfce_eval.cli.score import score_command
    from tfce_eval.cli.validate import validate_command

    main.add_command(run_command)
    main.add_command(score_command)
    main.add_command(validate_command)
    main.add_command(call_command)
    main.add_command(report_command)
    main.add_command(doctor_command)


_register()
