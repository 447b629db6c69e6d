"""Text qrels files: BEIR's qrels/<split>.tsv and TREC qrels (`--qrels FILE`).

Read line by line as UTF-8 (a byte-order mark at the start dropped), each problem reported
with its line and read on; a named pipe is read as it comes (`--qrels <(zcat q.gz)`), and
one no one writes to gives nothing, which is said.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tfce_eval.errors import DataError
from tfce_eval.retrieval.readers import QrelOrigins, Qrels, Refused, add_qrel
from tfce_eval.retrieval.records import Origin
from tfce_eval.retrieval.tables import Problems
from tfce_eval.retrieval.textfiles import (
    CR_FIX,
    cr_note,
    is_pipe,
    line_text,
    not_utf8,
    open_bytes,
    unreadable,
)
from tfce_eval.words import counted

_NONE_REFUSED = Refused()


def read_tsv_qrels(
    path: Path, problems: Problems, queries: Mapping[str, str], refused: Refused = _NONE_REFUSED
) -> tuple[Qrels, QrelOrigins]:
    """BEIR qrels/<split>.tsv: `query-id  corpus-id  score`, after a header line."""
    return _read_text_qrels(path, problems, queries, refused, trec=False)


def read_trec_qrels(
    path: Path, problems: Problems, queries: Mapping[str, str], refused: Refused = _NONE_REFUSED
) -> tuple[Qrels, QrelOrigins]:
    """A TREC qrels file: `qid iteration docid relevance` per line."""
    return _read_text_qrels(path, problems, queries, refused, trec=True)


def _read_text_qrels(
    path: Path,
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused,
    *,
    trec: bool,
) -> tuple[Qrels, QrelOrigins]:
    qrels: Qrels = {}
    origins: QrelOrigins = {}
    name = str(path)
    shape = "qid 0 docid relevance" if trec else "query-id<TAB>corpus-id<TAB>score"
    try:
        fh = open_bytes(path)
    except DataError as exc:
        problems.add(name, None, exc.message, "check the qrels file's path and permissions")
        return qrels, origins
    number = 0
    with fh:
        try:
            for number, raw in enumerate(fh, 1):
                _text_qrel(
                    raw, number, name, shape, trec, qrels, origins, problems, queries, refused
                )
        except OSError as exc:
            problems.add(name, None, unreadable(path, exc).message, "check the qrels file")
            return qrels, origins
        pipe = number == 0 and is_pipe(fh)
    if pipe:
        problems.add(
            name, None, "the pipe gave no data (nothing wrote to it)", "give the qrels file itself"
        )
    elif not qrels and not problems.errors:
        problems.add(name, None, "no judgements", f"write one `{shape}` line per judgement")
    return qrels, origins


def _text_qrel(
    raw: bytes,
    number: int,
    name: str,
    shape: str,
    trec: bool,
    qrels: Qrels,
    origins: QrelOrigins,
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused,
) -> None:
    """One line of a text qrels file, added to `qrels` or reported."""
    try:
        parts = line_text(raw, number).split()
    except UnicodeDecodeError as exc:
        problems.add(name, number, not_utf8(exc), "save the file as UTF-8")
        return
    if not parts:
        return
    if not trec and number == 1 and parts[:2] == ["query-id", "corpus-id"] and len(parts) == 3:
        return  # BEIR's header
    if len(parts) != (4 if trec else 3):
        what = f"{counted(len(parts), 'field')}, expected {shape}{cr_note(raw)}"
        problems.add(name, number, what, CR_FIX if cr_note(raw) else f"write {shape}")
        return
    qid, docid, rel_text = (parts[0], parts[2], parts[3]) if trec else parts
    try:
        rel = int(rel_text)
    except ValueError:
        problems.add(name, number, f"relevance {rel_text!r} is not an integer", f"write {shape}")
        return
    where = Origin(name, number)
    add_qrel(qrels, origins, problems, queries, refused, where, qid, docid, rel)
