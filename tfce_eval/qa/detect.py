"""Telling a question-answering dataset from the others, and where the built-in one lives.

`is_telco_dataset` looks only at the start of the first split file, so the command line can
pick the task kind of a `--data` path cheaply: a record of a Telco-Retrieve split has a
`question`, an `answer_type` and a `reference_answer`.
"""

from __future__ import annotations

import re
from pathlib import Path

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonRefused, parse_json
from tfce_eval.qa.splits import split_files

#: How much of a JSON split file is looked at.
_PEEK = 65_536
_KEYS = ("question", "answer_type", "reference_answer")
_QUOTED = [re.compile(rf'"{key}"\s*:') for key in _KEYS]


def builtin_telco_dir() -> Path:
    """The directory of the built-in split (`builtin:telco-qna`); its corpus is `corpus/`."""
    return Path(__file__).resolve().parent.parent / "builtin" / "telco-qna"


def is_telco_dataset(path: str | Path) -> bool:
    """Whether `path` (a split file or a directory of them) holds Telco-Retrieve QnA
    records. Never raises: an unreadable path is simply not one."""
    try:
        files = split_files(Path(path))
    except DataError:
        return False
    first = next(iter(files.values()))
    try:
        with first.open("rb") as handle:
            raw = handle.read(_PEEK)
    except OSError:
        return False
    try:
        record = parse_json(raw.split(b"\n", 1)[0])
    except JsonRefused:
        record = None
    if isinstance(record, dict) and all(key in record for key in _KEYS):
        return True
    # A JSON document: a record's keys near its start.
    head = raw.decode("utf-8", errors="replace")
    return all(pattern.search(head) for pattern in _QUOTED)
