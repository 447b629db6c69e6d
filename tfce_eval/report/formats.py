"""The formats a report is rendered in: one closed set for every task's report and for
the command line's `--format`."""

from __future__ import annotations

from enum import StrEnum


class ReportFormat(StrEnum):
    """table: for a terminal; md: Markdown; json, csv: for programs; html: one page."""

    TABLE = "table"
    MD = "md"
    JSON = "json"
    CSV = "csv"
    HTML = "html"
