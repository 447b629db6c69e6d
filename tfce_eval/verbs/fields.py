"""The fields `score`'s and `validate`'s settings share, parsed once as a library caller
may give them: paths as text, the answer style as its name."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from tfce_eval.errors import check_paths
from tfce_eval.model import AnswerStyle, parse_choice


class DatasetFields(Protocol):
    """What both settings records hold of the dataset they read."""

    @property
    def questions(self) -> tuple[Path, ...]: ...
    @property
    def answers(self) -> tuple[Path, ...]: ...
    @property
    def answer_style(self) -> AnswerStyle | None: ...
    @property
    def qrels(self) -> Path | None: ...


def parse_dataset_fields(settings: DatasetFields) -> None:
    """Parse the shared fields of a frozen settings record in place (from __post_init__):
    a lone path for `questions` or `answers` is refused, not read letter by letter."""
    set_field = object.__setattr__
    set_field(settings, "questions", check_paths(settings.questions, "questions"))
    set_field(settings, "answers", check_paths(settings.answers, "answers"))
    if settings.answer_style is not None:
        style = parse_choice(AnswerStyle, settings.answer_style, "answer_style")
        set_field(settings, "answer_style", style)
    if settings.qrels is not None:
        set_field(settings, "qrels", Path(settings.qrels))
