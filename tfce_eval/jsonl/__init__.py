"""Reading JSON from files, within limits, record by record, and never giving up early.

Every read of JSON from a file in tfce-eval goes through here, bounded by `JsonLimits`: a
line (or a whole document) of at most `max_bytes`, arrays and objects nested at most
`max_depth` deep (checked by a linear scan before `json` parses anything), integers within
Python's digit limit. Whatever breaks a limit, or is not UTF-8 or not JSON, becomes a
`Record` with an `error` and a `hint` naming the line (and column), or a `JsonRefused`
(`JsonRefused.error`: the DataError that stops a command); never a RecursionError or a
traceback.

- `JsonLines` (`files`): one pass over a JSON Lines file, a `Record` per non-blank line
  with its byte offset and line number, or (`entries`) each value or its `JsonRefused`;
  optionally tolerant of a torn last line (what a writer killed in mid-line leaves).
- `LineReader` (`files`): reads such a record back by its byte offset.
- `read_document` and `read_json` (`files`): a file that is one JSON document, read whole
  within `max_bytes`, as its bytes or its value.
- `parse_json` (`values`): one bounded JSON value from bytes (dataset files that are one
  document use it, see `tfce_eval.dataset.files`).

Text must be UTF-8; a byte-order mark at the start is tolerated.
"""

from __future__ import annotations

from tfce_eval.jsonl.files import (
    Entry,
    JsonLines,
    LineReader,
    Record,
    Row,
    read_document,
    read_json,
    torn_line_warning,
)
from tfce_eval.jsonl.values import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonRefused,
    json_type,
    parse_json,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Entry",
    "JsonLimits",
    "JsonLines",
    "JsonRefused",
    "LineReader",
    "Record",
    "Row",
    "json_type",
    "parse_json",
    "read_document",
    "read_json",
    "torn_line_warning",
]
