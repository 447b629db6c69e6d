"""The records of question answering: items, datasets and 3GPP spec numbers.

A question-answering dataset is a tuple of `QaItem`s, each parsed once from its file: the
question, its answer type (multiple choice, true/false or open), the options of a multiple
choice item, the reference answer already normalised (an option label, `"true"`/`"false"`,
or free text), and what the report groups by (difficulty, 3GPP series, release).

3GPP specifications are named in many spellings: `TS 38.331`, `38.331`, the archive's file
names `38331-j00` (series, number, then a version code) and parts such as `TS 38.101-1`.
`normalise_spec` reads any of them as one canonical number (`38.331`, `38.101-1`), so a
question's canonical source can be compared with the chunks a retriever returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple


class AnswerType(StrEnum):
    """What kind of answer a question takes."""

    MC = "mc"
    TF = "tf"
    OPEN = "open"


@dataclass(frozen=True, slots=True)
class QaItem:
    """One question with its reference answer and where it comes from.

    `reference` is normalised: the correct option's label for mc, `"true"` or `"false"` for
    tf, the reference text for open. `evidence` lists the ids of the chunks that support the
    answer (QASPER's qrels; the Telco item's own `chunk_id`).
    """

    id: str
    question: str
    answer_type: AnswerType
    reference: str
    options: tuple[tuple[str, str], ...] = ()
    source_text: str = ""
    canonical_source: str = ""
    series: str = ""
    spec: str = ""
    release: str = ""
    difficulty: str = "unspecified"
    chunk_id: str = ""
    keywords: tuple[str, ...] = ()
    explanation: str = ""
    evidence: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        """The option labels of an mc item, in file order (empty for tf and open)."""
        return tuple(label for label, _ in self.options)


@dataclass(frozen=True, slots=True)
class QaDataset:
    """The items of one split, with what identifies the file they came from."""

    path: str
    split: str
    items: tuple[QaItem, ...]
    sha256: str = ""
    kind: str = "telco"  # "telco" (Telco-Retrieve QnA) or "qasper" (QASPER-RAG answers)
    description: str = ""
    warnings: tuple[str, ...] = ()


class SourceRef(NamedTuple):
    """A canonical source read apart: `("28", "28.312", "18")`; empty strings when absent."""

    series: str
    spec: str
    release: str


# Valid 3GPP series are 21-38, 41-52 and 55; requiring one keeps dates and chunk counters
# (`2026-08-27`, `chunk_00012`) from reading as spec numbers.
_SERIES = r"2[1-9]|3[0-8]|4[1-9]|5[0-5]"
# Series and number, with or without the dot; then an optional part (`-1`, one or two
# digits) that is not the start of a version code (`-j00`, `-800`: three characters).
_SPEC = re.compile(
    rf"(?<![\d.])({_SERIES})(?:\.|\s)?(\d{{3}})(?!\d)(?:-(\d{{1,2}})(?![0-9A-Za-z]))?"
)
_RELEASE = re.compile(r"\bRel(?:ease)?[-\s.]*(\d{1,2})\b", re.IGNORECASE)


@lru_cache(maxsize=65_536)  # a run names the same chunks and sources over and over
def normalise_spec(text: str) -> str:
    """The canonical number of the first 3GPP spec named in `text`, or "" when none is.

    `"TS 38.331"`, `"38331-j00"`, `"38.331"` and `"3GPP TS 38.331 V17.3.0"` all give
    `"38.331"`; `"TS 38.101-1"` and `"38101-1-i40"` give `"38.101-1"`.
    """
    match = _SPEC.search(text)
    if match is None:
        return ""
    series, number, part = match.groups()
    return f"{series}.{number}" + (f"-{part}" if part else "")


def same_spec(a: str, b: str) -> bool:
    """Whether two normalised spec numbers name one spec; a part-less number matches its
    parts (`38.101` and `38.101-1`), since citations often leave the part out."""
    if not a or not b:
        return False
    if a == b:
        return True
    base_a, _, part_a = a.partition("-")
    base_b, _, part_b = b.partition("-")
    return base_a == base_b and (not part_a or not part_b)


def parse_canonical_source(text: str) -> SourceRef:
    """`"TS 28.312 (Rel-18)"` -> `SourceRef("28", "28.312", "18")`; parts left out are ""."""
    spec = normalise_spec(text)
    release_match = _RELEASE.search(text)
    release = str(int(release_match.group(1))) if release_match else ""
    return SourceRef(spec[:2] if spec else "", spec, release)
