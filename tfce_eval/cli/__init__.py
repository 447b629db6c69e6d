"""The `tfce-eval` command line: a layer that parses options, calls the library and
renders the result. Only this package prints or exits. `score`, `report` and
`validate` also choose here which task's library calls a file or directory gets.

Commands are imported when they are invoked, not before: `tfce-eval --help` lists them from
the table below without importing any of them (or the libraries they use).

Exit codes: 0 done (whatever the accuracy), 1 bad input or a failed run, 2 usage error,
130 interrupted by Ctrl-C, 143 by SIGTERM (resumable). Both signals are heard, for every
command, from the moment the `tfce-eval` script starts (`tfce_eval.__main__` notes one
that comes while this package loads; `tfce_eval.stopping`).
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from tfce_eval import __version__, stopping
from tfce_eval.errors import RunInterrupted, TfceError

#: name -> (module, attribute, one-line help shown by `tfce-eval --help`).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": (
        "tfce_eval.cli.run",
        "run_command",
        "Ask a model every item (fc or qa), then score the answers.",
    ),
    "score": (
        "tfce_eval.cli.score",
        "score_command",
        "Score outputs, predictions or a retrieval run made elsewhere.",
    ),
    "retrieve": (
        "tfce_eval.cli.retrieve",
        "retrieve_command",
        "Rank a retrieval corpus for each query with BM25; write a run.",
    ),
    "report": (
        "tfce_eval.cli.report",
        "report_command",
        "Show one run, compare two (paired tests), or several side by side.",
    ),
    "validate": (
        "tfce_eval.cli.validate",
        "validate_command",
        "Check a dataset of any task; errors exit 1, warnings do not.",
    ),
    "datasets": (
        "tfce_eval.cli.datasets",
        "datasets_command",
        "List the built-in datasets with their task, size and layout.",
    ),
    "doctor": (
        "tfce_eval.cli.doctor",
        "doctor_command",
        "Check that a model server answers in the shapes a run needs.",
    ),
    "call": (
        "tfce_eval.cli.call",
        "call_command",
        "Execute one function of the built-in library; print the result.",
    ),
}


class _Failure(click.ClickException):
    """A library error shown as `error: ...` on stderr with its exit code."""

    def __init__(self, error: TfceError) -> None:
        super().__init__(str(error))
        stopped = isinstance(error, RunInterrupted)
        self.exit_code = _stopped_by()[1] if stopped else error.exit_code  # type: ignore[misc]
        # An interrupted run is no error: its message begins `interrupted:` of itself.
        self.label = "" if stopped else "error: "

    def show(self, file: Any = None) -> None:
        from tfce_eval.cli.text import fold, shown

        stopping.winding_down()  # a signal now would cut the message short
        click.echo(fold(shown(self.format_message()), self.label), err=True)


def _stopped_by() -> tuple[str, int]:
    """How the command was stopped, in words, and its exit status (128 + the signal's
    number); Ctrl-C when no signal was heard (a KeyboardInterrupt raised by other means)."""
    if stopping.asked() == signal.SIGTERM:
        return "SIGTERM", 128 + signal.SIGTERM
    return "Ctrl-C", 128 + signal.SIGINT


class Interrupted(click.ClickException):
    """Ctrl-C (exit 130), or SIGTERM (143), outside a run's request loop (which says how
    to resume)."""

    def __init__(self) -> None:
        how, self.exit_code = _stopped_by()  # type: ignore[misc]
        super().__init__(f"stopped by {how} before the command finished")

    def show(self, file: Any = None) -> None:
        import sys

        stopping.winding_down()
        if sys.stderr.isatty():
            click.echo(err=True)  # past the terminal's ^C
        click.echo(f"interrupted: {self.format_message()}", err=True)


class _FoldedUsage(click.UsageError):
    """Click's usage error as click shows it, its message folded at 80 columns."""

    def show(self, file: Any = None) -> None:
        from tfce_eval.cli.text import fold

        stopping.winding_down()
        if self.ctx is not None:
            click.echo(self.ctx.get_usage(), err=True)
            click.echo(f"Try '{self.ctx.command_path} --help' for help.\n", err=True)
        click.echo(fold(self.format_message(), "Error: "), err=True)


#: A non-breaking hyphen stands in for "-" while help text is wrapped, so that a flag
#: (`--enable-auto-tool-choice`) or a name (`tfce-eval`) is never cut at a line end.
_HYPHEN = "\u2011"


class _Formatter(click.HelpFormatter):
    """click's help formatter, wrapping only at spaces."""

    def write_text(self, text: str) -> None:
        super().write_text(text.replace("-", _HYPHEN))

    def write_dl(
        self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        kept = [(term, text.replace("-", _HYPHEN)) for term, text in rows]
        super().write_dl(kept, col_max, col_spacing)

    def getvalue(self) -> str:
        return super().getvalue().replace(_HYPHEN, "-")


class _Context(click.Context):
    formatter_class = _Formatter


class _LazyGroup(click.Group):
    """A group that imports a command's module only when that command runs."""

    context_class = _Context

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attribute, _ = entry
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        command.context_class = _Context  # its help wraps as the group's does
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The one-line helps come from the table: listing them imports no command.
        rows = [(name, help_text) for name, (_, _, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Started as the `tfce-eval` script or `python -m tfce_eval`, the command is the
        # process: its handlers stay until it exits, so that a signal as it exits is
        # ignored rather than a traceback. Called by a program that goes on afterwards
        # (click's test runner, a script catching SystemExit), they are put back.
        whole_process = not args and kwargs.get("args") is None and _started_as_tfce_eval()
        with stopping.listening(restore=not whole_process):
            return super().main(*args, **kwargs)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        # A stop while the options are parsed is said as any stop is, not as click's
        # "Aborted!" (exit 1).
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise Interrupted() from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            stopping.check()  # Ctrl-C while the command line loaded (`hear_early`)
            result = super().invoke(ctx)
            stopping.check()  # a stop that some code swallowed: the command is stopped
            return result
        except RunInterrupted as exc:
            raise _Failure(exc) from exc
        except TfceError as exc:
            if stopping.asked() is not None:  # a failure the signal caused (a worker it
                raise Interrupted() from exc  # killed): the stop is what is said
            raise _Failure(exc) from exc
        except click.UsageError as exc:
            raise _FoldedUsage(exc.format_message(), exc.ctx) from exc
        except KeyboardInterrupt as exc:
            raise Interrupted() from exc
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BaseException as exc:
            if stopping.asked() is None or isinstance(exc, SystemExit):
                raise
            raise Interrupted() from exc  # e.g. an event loop's CancelledError


def _started_as_tfce_eval() -> bool:
    """Whether the process was started to run tfce-eval: `__main__` is the `tfce-eval`
    console script or `python -m tfce_eval`, not a program calling `main()`."""
    started = sys.modules.get("__main__")
    spec = getattr(started, "__spec__", None)
    if spec is not None:
        return bool(spec.name == "tfce_eval.__main__")
    return Path(getattr(started, "__file__", None) or "").name == "tfce-eval"


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 80},
)
@click.version_option(__version__, prog_name="tfce-eval")
def main() -> None:
    """Evaluate language models on telecom and RAG datasets: function calling (TFCE,
    BFCL-style data), question answering (Telco-Retrieve QnA, QASPER) and retrieval
    (QASPER-RAG, ConditionalQA chunks)."""
