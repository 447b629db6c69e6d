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
  unless its name names an unsupported category (`java`, `multi_turn`...). A link to a file
  that is not there is left out too. Files left out are listed in one warning (or, when no
  question file is left, in the error that says so), each with why. Files given by name are
  always loaded.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.dataset.category import parse_category, unsupported_category
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.dataset.records import named
from tfce_eval.errors import DataError
from tfce_eval.model import Category
from tfce_eval.words import listed

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
        for path in _expand(source, left_out):
            category = parse_category(path.name)
            unsupported = unsupported_category(path.name)
            if source == path or category is not None or (questions and unsupported is None):
                question_files.append((path, category))
            else:
                left_out.append((path, unsupported or NO_CATEGORY))
    answer_files: list[Path] = []
    for source in answer_sources:
        for path in _expand(source, left_out):
            unsupported = unsupported_category(path.name)
            if source == path or unsupported is None:
                answer_files.append(path)
            else:
                left_out.append((path, unsupported))
    if not question_files:
        skipped = [(p, why) for p, why in left_out if any(_within(p, s) for s in question_sources)]
        one = question_sources[0]
        named_from = one if len(question_sources) == 1 and one.is_dir() else data
        raise DataError(
            "no question files found"
            + (f"; skipped: {skipped_files(skipped, named_from)}" if skipped else ""),
            path=", ".join(str(s) for s in question_sources),
            hint=skipped_fix(skipped)
            or "name question files after their category (simple.jsonl, "
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


#: Why a file named like a dataset file is left out: a link to nothing.
BROKEN_LINK = "a broken link"
NO_CATEGORY = "no category in the name"


def skipped_files(left_out: Sequence[tuple[Path, str]], root: Path | None) -> str:
    """The files left out, grouped by why: `a.json, b.json (no category in the name)`; at
    most a few names for each reason, then how many more."""
    by_reason: dict[str, list[str]] = {}
    for path, why in left_out:
        by_reason.setdefault(why, []).append(named(path, root))
    parts = []
    for why, names in by_reason.items():
        parts.append(f"{listed(names)} ({why})")
    return "; ".join(parts)


def skipped_fix(left_out: Sequence[tuple[Path, str]]) -> str | None:
    """What to do about the files left out, when something can be done."""
    reasons = [why for _, why in left_out]
    fixes = []
    if NO_CATEGORY in reasons:
        fixes.append(
            "name each file after its category (simple.jsonl, BFCL_v3_parallel.json...) "
            "or give it with --questions"
        )
    if any(why.startswith(BROKEN_LINK) for why in reasons):
        fixes.append("point each broken link at its file, or remove it")
    return "; ".join(fixes) or None


def _within(path: Path, source: Path) -> bool:
    return path == source or path.parent == source


def _expand(source: Path, left_out: list[tuple[Path, str]]) -> list[Path]:
    """The dataset files of a file or directory; a broken link among them is added to
    `left_out`."""
    if source.is_dir():
        found = []
        for path in sorted(source.iterdir(), key=lambda p: p.name):
            if path.suffix.lower() not in SUFFIXES:
                continue
            if path.is_file():
                found.append(path)
            elif path.is_symlink() and not path.exists():
                left_out.append((path, f"{BROKEN_LINK} to {os.readlink(path)}"))
        return found
    if source.is_file():
        return [source]
    raise DataError(
        "no such file or directory",
        path=str(source),
        hint="check the path given with --questions / --answers",
    )
