"""`tfce-eval report RUN_DIR [RUN_DIR ...]`: one run, or several side by side (README "Reports")."""

from __future__ import annotations

from pathlib import Path

import click

from tfce_eval.cli.numbers import Finite
from tfce_eval.cli.text import fold, shown
from tfce_eval.errors import INT64_MAX, TfceError
from tfce_eval.report.formats import ReportFormat
from tfce_eval.report.prices import MAX_PRICE


class _ReportFailure(click.ClickException):
    """An error of the report as `error: ...` on stderr with its exit code (1 a bad run
    directory, 2 runs that cannot be reported together), also when run outside the group;
    folded at 80 columns like every other error."""

    def __init__(self, error: TfceError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code  # type: ignore[misc]

    def show(self, file: object = None) -> None:
        click.echo(fold(shown(self.format_message()), "error: "), err=True)


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice([str(f) for f in ReportFormat]),
    default="table",
    show_default=True,
    help="table: terminal; md: Markdown; json, csv: for programs; html: one self-contained page.",
)
@click.option(
    "--failures",
    type=click.IntRange(min=0, max=INT64_MAX),
    default=0,
    show_default=True,
    metavar="N",
    help="List failures of each run: fc, N failing items per category (question, "
    "expected and received calls, error); qa, N items per answer type not right "
    "(question, reference, extracted answer, response); retrieval, the N queries "
    "lowest on the first measure (its text, every measure, the top 10 marked "
    "relevant or not, relevant documents not retrieved).",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR|builtin:NAME",
    help="Dataset the failing items' questions (retrieval: queries and judgements) "
    "come from (with --failures). Default: the one the run recorded (fc: or the "
    "built-in one if it is the same).",
)
@click.option(
    "--price-in",
    type=Finite(min=0, max=MAX_PRICE),
    metavar="USD",
    help="Price of a million input tokens, to show the cost of each run.",
)
@click.option(
    "--price-out",
    type=Finite(min=0, max=MAX_PRICE),
    metavar="USD",
    help="Price of a million output tokens, to show the cost of each run.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of printing it.",
)
def report_command(
    run_dirs: tuple[Path, ...],
    fmt: str,
    failures: int,
    data: Path | None,
    price_in: float | None,
    price_out: float | None,
    output: Path | None,
) -> None:
    """Report one or more scored runs (fc, qa or retrieval); several side by side.

    For two runs over the same items a paired section says whether the difference is
    real: fc and qa (mc, tf) the exact McNemar p-value per category or answer type; qa
    open answers and retrieval measures a paired randomization test (and, retrieval, a
    paired t-test). A small p means the difference is unlikely to be noise.
    """
    from tfce_eval.report import Prices
    from tfce_eval.verbs.report import report_runs

    prices = None
    if price_in is not None or price_out is not None:
        prices = Prices(price_in or 0.0, price_out or 0.0)
    try:
        reported = report_runs(run_dirs, failures=failures, data=data, prices=prices, on_note=_note)
        if ReportFormat(fmt) is ReportFormat.TABLE and output is None:
            from tfce_eval.cli.render import stdout_console

            console = stdout_console()
            for part in reported.renderables():
                console.print(part)
            return
        text = reported.render(fmt)
    except TfceError as exc:
        raise _ReportFailure(exc) from exc
    _emit(text, output)


def _note(text: str) -> None:
    """A note on stderr, as soon as the report knows it."""
    click.echo(fold(text, "note: "), err=True)


def _emit(text: str, output: Path | None) -> None:
    if output is not None:
        from tfce_eval.scoring.rundir import write_text_atomic

        write_text_atomic(output, text)
        click.echo(fold(shown(f"written: {output}")), err=True)
    else:
        click.echo(text, nl=False)
