"""Loading Telco-Retrieve QnA split files (a JSON object per split, or JSON Lines).

A Telco-Retrieve split is one JSON object `{"_corpus", "_description", "_generated",
"questions": [record, ...]}` or JSON Lines of records. A dataset directory holds one or
more split files side by side; the split is chosen by file stem (`set_105` also finds
`3gpp_question_set_105.json`, as the dataset card names its configs). `load_telco` raises a
`DataError` on the first problem; `validate_qa` reports them all, as `model.Finding`s. A
record of a JSON document has no line of its own: its findings name it in the path
(`set_2.json, record 2`), those of JSON Lines by their line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import builtin_dir, recorded
from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, JsonRefused, parse_json, read_document
from tfce_eval.model import Finding, Level, TaskKind
from tfce_eval.qa.items import (
    AnswerType,
    QaDataset,
    QaItem,
    normalise_spec,
    parse_canonical_source,
)
from tfce_eval.qa.options import find_label, read_option, squash
from tfce_eval.qa.splits import choose_split

_TYPE_ALIASES = {
    "mc": AnswerType.MC,
    "multiple_choice": AnswerType.MC,
    "tf": AnswerType.TF,
    "true_false": AnswerType.TF,
    "open": AnswerType.OPEN,
    "oe": AnswerType.OPEN,
    "open_ended": AnswerType.OPEN,
}
_TRUE_FALSE = {"true": "true", "false": "false"}


class _Source:
    """The raw records of one split file with their line (None in a JSON document).

    A JSON Lines file is read line by line as the records are iterated, so only one raw
    record is held at a time; `problems` gathers what kept records from being read, and
    `header` and `sha256` are complete once the iteration has finished.
    """

    def __init__(self, path: Path) -> None:
        self.path, self.where = path, str(path)
        self.header: dict[str, Any] = {}
        self.problems: list[Finding] = []
        self.sha256 = ""

    def problem(self, line: int | None, message: str, hint: str) -> None:
        self.problems.append(Finding(Level.ERROR, message, self.where, line, hint=hint))

    def problem_of(self, refused: JsonRefused, fix: str) -> None:
        """What kept a line (or the document) from being JSON, at its line."""
        self.problem(refused.line, refused.at_column("not JSON"), refused.fix(fix))

    def records(self) -> Iterator[tuple[int | None, Any]]:
        try:
            if self.path.suffix.lower() == ".json":
                data = read_document(self.path)
                self.sha256 = hashlib.sha256(data).hexdigest()
                fix = "repair the JSON (an object with a questions list, or JSON Lines)"
                try:
                    doc = parse_json(data, hint=fix)
                except JsonRefused as exc:
                    if exc.reason == "Extra data":  # a value, then more: JSON Lines
                        yield from self._lines()
                    else:
                        self.problem_of(exc, fix)
                    return
                yield from self._document(doc)
            else:
                yield from self._lines()
        except DataError as exc:  # the file cannot be read
            self.problem(exc.line, exc.message, exc.hint or "check the path")

    def _document(self, doc: Any) -> Iterator[tuple[int | None, Any]]:
        if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
            self.header = {k: v for k, v in doc.items() if k != "questions"}
            doc = doc["questions"]
        if not isinstance(doc, list):
            fix = 'write {"questions": [...]} or one record per line (JSON Lines)'
            self.problem(None, "no list of records under 'questions'", fix)
            return
        for raw in doc:
            yield None, raw

    def _lines(self) -> Iterator[tuple[int | None, Any]]:
        lines = JsonLines(self.path)
        for number, value, refused in lines.entries():
            if refused is None:
                yield number, value
            else:
                self.problem_of(refused, "each line must be one JSON object (a record)")
        self.sha256 = lines.digest()


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return str(value)


def _place(path: str, line: int | None, index: int) -> str:
    """The path a record's findings name: with its position when it has no line."""
    return path if line is not None else f"{path}, record {index}"


class _Record:
    """Builds one item from one raw record, noting each problem on the way."""

    def __init__(self, where: str, line: int | None, index: int, raw: Any) -> None:
        self.where, self.line, self.raw = _place(where, line, index), line, raw
        self.problems: list[Finding] = []
        self.item_id: str | None = None

    def problem(self, message: str, hint: str, level: Level = Level.ERROR) -> None:
        self.problems.append(Finding(level, message, self.where, self.line, self.item_id, hint))

    def build(self) -> QaItem | None:
        raw = self.raw
        if not isinstance(raw, dict):
            self.problem("a record must be a JSON object", "write each question as an object")
            return None
        raw_id = raw.get("question_id", raw.get("id"))
        if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) and str(raw_id):
            self.item_id = str(raw_id)
        else:
            self.problem("no question_id", "give every record a unique question_id")
        question = raw.get("question")
        if not isinstance(question, str) or not question.strip():
            self.problem("no question text", "give the record a non-empty question string")
        kind = _TYPE_ALIASES.get(_text(raw.get("answer_type")).strip().lower())
        if kind is None:
            self.problem(
                f"answer_type {raw.get('answer_type')!r} is not mc, tf or open",
                'set answer_type to "mc", "tf" or "open"',
            )
        reference = raw.get("reference_answer", raw.get("answer"))
        if reference is None or (isinstance(reference, str) and not reference.strip()):
            self.problem("no reference_answer", "give the record its reference_answer")
        if self.problems or kind is None or not isinstance(question, str):
            return None
        options: tuple[tuple[str, str], ...] = ()
        if kind is AnswerType.MC:
            options = self._options(raw.get("options"))
            ref = self._mc_reference(options, reference) if options else None
        elif kind is AnswerType.TF:
            ref = self._tf_reference(reference)
        else:
            ref = _text(reference).strip()
        if kind is not AnswerType.MC and raw.get("options"):
            self.problem(
                f"{kind} item has options; they are ignored",
                "drop them or use mc",
                Level.WARNING,
            )
        if ref is None or self.item_id is None:
            return None
        return self._item(raw, kind, question, ref, options)

    def _options(self, raw: Any) -> tuple[tuple[str, str], ...]:
        if not isinstance(raw, dict) or len(raw) < 2:
            self.problem(
                "an mc item needs options: an object of at least two label -> text",
                'write "options": {"A": "...", "B": "..."}',
            )
            return ()
        options = tuple((str(k).strip(), _text(v).strip()) for k, v in raw.items())
        if any(not label for label, _ in options):
            self.problem("an option has an empty label", "give every option a label")
            return ()
        if len({label.casefold() for label, _ in options}) < len(options):
            self.problem("two option labels differ only in case", "make the labels distinct")
            return ()
        texts = [squash(t) for _, t in options]
        if len(set(texts)) < len(texts):
            self.problem(
                "two options have the same text", "make every option distinct", Level.WARNING
            )
        return options

    def _mc_reference(self, options: tuple[tuple[str, str], ...], value: Any) -> str | None:
        text = _text(value)
        label = find_label(options, text.strip()) or read_option(options, text)
        if label is None:
            labels = ", ".join(label for label, _ in options)
            same = [k for k, option in options if squash(option) == squash(text)]
            if len(same) > 1:  # the options share a text (warned of above)
                self.problem(
                    f"reference_answer {text[:60]!r} is the text of options {', '.join(same)}",
                    f"give the correct option's label ({labels}) or make the texts differ",
                )
                return None
            self.problem(
                f"reference_answer {text[:60]!r} matches no option",
                f"give the correct option's label ({labels}) or its exact text",
            )
        return label

    def _tf_reference(self, value: Any) -> str | None:
        if isinstance(value, bool):
            return "true" if value else "false"
        ref = _TRUE_FALSE.get(_text(value).strip().lower())
        if ref is None:
            self.problem(
                f"tf reference_answer {value!r} is not true or false",
                'write "true" or "false" (any case) or a JSON boolean',
            )
        return ref

    def _item(
        self,
        raw: dict[str, Any],
        kind: AnswerType,
        question: str,
        reference: str,
        options: tuple[tuple[str, str], ...],
    ) -> QaItem:
        assert self.item_id is not None
        canonical = _text(raw.get("canonical_source")).strip()
        chunk_id = _text(raw.get("chunk_id")).strip()
        source = parse_canonical_source(canonical)
        spec = source.spec or normalise_spec(chunk_id)
        if not source.spec:  # say what the series and the canonical hit come from, if any
            what = f"no spec number in canonical_source {canonical!r}" if canonical else ""
            what = what or "no canonical_source"
            if spec:
                what += f": series {spec[:2]} and spec {spec} taken from chunk_id {chunk_id!r}"
            else:
                what += f" and none in chunk_id {chunk_id!r}" if chunk_id else " and no chunk_id"
                what += ": no series, no canonical hit"
            fix = "write it as " if canonical else 'add e.g. "canonical_source": '
            fix += '"TS 38.331 (Rel-17)"'
            self.problem(what, fix, Level.WARNING)
        release = (
            source.release
            or parse_canonical_source(
                "Rel-" + _text(raw.get("release")).removeprefix("Rel-").strip()
            ).release
        )
        keywords = raw.get("keywords")
        return QaItem(
            id=self.item_id,
            question=question,
            answer_type=kind,
            reference=reference,
            options=options,
            source_text=_text(raw.get("source_text")),
            canonical_source=canonical,
            series=spec[:2],
            spec=spec,
            release=release,
            difficulty=_text(raw.get("difficulty")).strip() or "unspecified",
            chunk_id=chunk_id,
            keywords=tuple(_text(k) for k in keywords) if isinstance(keywords, list) else (),
            explanation=_text(raw.get("explanation")),
            evidence=(chunk_id,) if chunk_id else (),
        )


def _parse(path: Path, split: str | None) -> tuple[QaDataset, list[Finding]]:
    stem, file = choose_split(path, split)
    source = _Source(file)
    problems: list[Finding] = []
    items: list[QaItem] = []
    first_seen: dict[str, int] = {}
    count = 0
    for index, (line, raw) in enumerate(source.records(), start=1):
        count = index
        problems.extend(source.problems)  # lines that were not JSON, in file order
        source.problems.clear()
        record = _Record(str(file), line, index, raw)
        item = record.build()
        problems.extend(record.problems)
        qid = record.item_id  # a copy is a duplicate even when either has other problems
        if qid is not None and qid in first_seen:
            problems.append(
                Finding(
                    Level.ERROR,
                    f"duplicate question_id (first at record {first_seen[qid]})",
                    _place(str(file), line, index),
                    line,
                    qid,
                    "give every record a unique question_id",
                )
            )
            continue
        if qid is not None:
            first_seen[qid] = index
        if item is not None:
            items.append(item)
    problems.extend(source.problems)
    if not count and not problems:
        problems.append(
            Finding(Level.ERROR, "no questions", str(file), hint="add records to the file")
        )
    header = source.header
    digest = source.sha256
    dataset = QaDataset(
        path=str(file),
        split=stem,
        items=tuple(items),
        sha256=digest,
        kind="telco",
        description=_text(header.get("_description")),
    )
    return dataset, problems


def load_telco(path: str | Path, split: str | None = None) -> QaDataset:
    """The items of one Telco-Retrieve QnA split; a DataError on the first problem.

    `path` is a split file, a directory of them, or `builtin:telco-qna` (the dataset is
    then named so, not by where the package is installed).
    """
    builtin = builtin_dir(path, TaskKind.QA)
    dataset, problems = _parse(builtin or Path(path), split)
    for problem in problems:
        if problem.level is Level.ERROR:
            raise problem.to_error()
    # Carried as text into a score's warnings, after "warning: ": where, what, the fix.
    warnings = tuple(
        f"{p.where}: {p.message}" + (f" (fix: {p.hint})" if p.hint else "") for p in problems
    )
    # A built-in split is named `builtin:telco-qna/FILE`, not where the package is installed.
    shown = (recorded(dataset.path) or dataset.path) if builtin is not None else dataset.path
    return QaDataset(
        shown,
        dataset.split,
        dataset.items,
        dataset.sha256,
        dataset.kind,
        dataset.description,
        warnings,
    )


def validate_qa(path: str | Path, split: str | None = None) -> list[Finding]:
    """Every finding of one split file (errors and warnings), in file order.

    A directory or split that cannot be chosen is one finding naming the choices.
    """
    return check_qa(path, split)[1]


def check_qa(
    path: str | Path, split: str | None = None
) -> tuple[tuple[QaItem, ...], list[Finding]]:
    """`validate_qa`'s findings, with the items that could be read (for their counts)."""
    try:
        dataset, problems = _parse(builtin_dir(path, TaskKind.QA) or Path(path), split)
    except DataError as exc:
        return (), [Finding.from_error(exc, path=str(path))]
    return dataset.items, problems
