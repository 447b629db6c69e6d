"""`tfce-eval report RUN_DIR [RUN_DIR ...]`: one run, or several side by side (SPEC 10)."""

from __future__ import annotations

from pathlib import Path

import click

from tfce_eval.cli.render import stdout_console
from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import TfceError
from tfce_eval.report import FailureSource, Prices, ReportFormat, load_run, render, render_table
from tfce_eval.scoring.rundir import write_text_atomic


class _ReportFailure(click.ClickException):
    """A bad run directory as `error: ...` on stderr, exit 1, also when run outside the group."""

    def show(self, file: object = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice([str(f) for f in ReportFormat]),
    default=str(ReportFormat.TABLE),
    show_default=True,
    help="table: terminal; md: Markdown; json, csv: for programs; html: one self-contained page.",
)
@click.option(
    "--failures",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="List N failing items per category: question, expected and received calls, error.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Dataset the failing items' questions come from (with --failures). "
    "Default: the one the run recorded, or the built-in one if it is the same.",
)
@click.option(
    "--price-in",
    type=click.FloatRange(min=0),
    metavar="USD",
    help="Price of a million input tokens, to show the cost of each run.",
)
@click.option(
    "--price-out",
    type=click.FloatRange(min=0),
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
    """Report one or more scored runs; several RUN_DIRs are shown side by side.

    For two runs over the same items, a paired section gives, per category, the items only
    one run got right and the exact McNemar p-value: a small p means the difference is
    unlikely to be noise.
    """
    prices = None
    if price_in is not None or price_out is not None:
        prices = Prices(price_in or 0.0, price_out or 0.0)
    try:
        runs = [load_run(d) for d in run_dirs]
        source = None
        if data is not None and failures > 0:
            source = FailureSource(dataset=load_dataset(data))
        report_format = ReportFormat(fmt)
        if report_format is ReportFormat.TABLE and output is None:
            table = render_table(runs, failures=failures, prices=prices, failure_source=source)
            stdout_console().print(table)
            return
        text = render(runs, report_format, failures=failures, prices=prices, failure_source=source)
    except TfceError as exc:
        raise _ReportFailure(str(exc)) from exc
    if output is not None:
        write_text_atomic(output, text)
        click.echo(f"written: {output}", err=True)
    else:
        click.echo(text, nl=False)
