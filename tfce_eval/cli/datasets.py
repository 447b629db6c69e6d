"""`tfce-eval datasets`: the built-in datasets, with their task, size and layout."""

from __future__ import annotations

import json

import click


@click.command("datasets")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def datasets_command(as_json: bool) -> None:
    """List the built-in datasets (use one as --data builtin:NAME)."""
    from tfce_eval.tasks.catalogue import describe_builtins

    rows = describe_builtins()
    if as_json:
        click.echo(json.dumps([row.to_json() for row in rows], ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    from tfce_eval.cli.render import stdout_console
    from tfce_eval.report.document import Trimmed

    table = Table(box=None, pad_edge=False)
    for name in ("name", "task", "size", "layout"):
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(f"builtin:{row.name}", str(row.task), row.size, row.layout)
    stdout_console().print(Trimmed(table))
