"""Which files make a dataset (README "Data"): question files, answers files, and what was left out.

- `data` is a directory holding question files in `questions/` or at its top, and answers in
  `answers/` or BFCL's `possible_answer/`. With no paths at all, the built-in dataset.
- Explicit `questions` / `answers` paths (files or directories) replace what `data` would
  give for that side. Answers given neither explicitly nor by `data` are looked for beside
  the first question path: `answers/` or `possible_answer/` in its directory or the one above
  (so both `ds/questions/x.jsonl` and BFCL's `data/BFCL_v3_simple.json` find theirs).
- In a directory, files ending in `.json`, `.jsonl` or `.jsonlines` are read, in name order.
  In the question directory of `data`, a file is loaded only when its name names a supported
  category. In a directory given explicitly (questions or answers), every file is loaded
  unless its name names an unsupported category (`java`, `multi_turn`...). Files left out are
  listed in one warning. Files given by name are always loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.dataset.category import parse_category, unsupported_category
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.errors import DataError
from tfce_eval.model import Category

SUFFIXES = (".json", ".jsonl", ".jsonlines")
ANSWER_DIRS = ("answers", "possible_answer")


@dataclass(frozen=True)
class Layout:
    """The files of one dataset, before any is read."""

    root: Path | None
    questions: tuple[tuple[Path, Category | None], ...]  # with the category the name gives
    answers: tuple[Path, ...]
    left_out: tuple[tuple[Path, str], ...]  # file, why it is not loaded
    answers_searched: str  # where ground truth was looked for, for hints


def discover(
    data: Path | None, questions: Sequence[Path] = (), answers: Sequence[Path] = ()
) -> Layout:
    """The dataset's files; DataError when a given path does not exist or nothing is found."""
    if data is None and not questions and not answers:
        data = builtin_data_dir()
    if data is not None and not data.is_dir():
        raise DataError(
            "no dataset directory here",
            path=str(data),
            hint="give a directory holding questions/ and answers/ (or possible_answer/), "
            "or name the files with --questions and --answers",
        )
    left_out: list[tuple[Path, str]] = []
    if questions:
        question_sources = list(questions)
    elif data is not None:
        question_sources = [data / "questions" if (data / "questions").is_dir() else data]
    else:
        raise DataError(
            "answers were given but no questions",
            hint="give the question files too (--questions) or a dataset directory (--data)",
        )
    answer_sources, searched = _answer_sources(data, question_sources, answers)

    question_files: list[tuple[Path, Category | None]] = []
    for source in question_sources:
        for path in _expand(source):
            category = parse_category(path.name)
            unsupported = unsupported_category(path.name)
            if source == path or category is not None or (questions and unsupported is None):
                question_files.append((path, category))
            else:
                left_out.append((path, unsupported or "no category in the name"))
    answer_files: list[Path] = []
    for source in answer_sources:
        for path in _expand(source):
            unsupported = unsupported_category(path.name)
            if source == path or unsupported is None:
                answer_files.append(path)
            else:
                left_out.append((path, unsupported))
    if not question_files:
        raise DataError(
            "no question files found",
            path=", ".join(str(s) for s in question_sources),
            hint="name question files after their category (simple.jsonl, "
            "BFCL_v3_parallel.json...) or give them with --questions",
        )
    return Layout(data, tuple(question_files), tuple(answer_files), tuple(left_out), searched)


def _answer_sources(
    data: Path | None, question_sources: Sequence[Path], answers: Sequence[Path]
) -> tuple[list[Path], str]:
    if answers:
        return list(answers), ", ".join(str(a) for a in answers)
    if data is not None:
        bases = [data]
    else:
        first = question_sources[0]
        near = first if first.is_dir() else first.parent
        bases = [near, near.parent]
    candidates = [base / name for base in dict.fromkeys(bases) for name in ANSWER_DIRS]
    for candidate in candidates:
        if candidate.is_dir():
            return [candidate], str(candidate)
    return [], "no answers/ or possible_answer/ directory in " + ", ".join(
        str(b) for b in dict.fromkeys(bases)
    )


def _expand(source: Path) -> list[Path]:
    if source.is_dir():
        return sorted(
            (p for p in source.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES),
            key=lambda p: p.name,
        )
    if source.is_file():
        return [source]
    raise DataError(
        "no such file or directory",
        path=str(source),
        hint="check the path given with --questions / --answers",
    )
