"""Rendering helpers shared by the commands: warnings and the per-category table."""

from __future__ import annotations

from collections.abc import Iterable

import click

from tfce_eval.scoring import ScoreResult


def print_warnings(warnings: Iterable[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def print_summary(result: ScoreResult) -> None:
    summary = result.summary
    for cat in summary.get("categories", []):
        block = summary[cat]
        errs = ", ".join(f"{k} {v}" for k, v in block["errors"].items())
        click.echo(f"{cat:<20} {block['total']:>5} {block['correct']:>5} "
                   f"{100 * block['accuracy']:6.1f}%  {errs}")
    micro = summary["overall"]["micro"]
    if micro["accuracy"] is not None:
        click.echo(f"{'overall (micro)':<20} {micro['total']:>5} {micro['correct']:>5} "
                   f"{100 * micro['accuracy']:6.1f}%")
    click.echo(f"written: {result.run_dir.scores}, {result.run_dir.summary}")
