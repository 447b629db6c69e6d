"""Reading each part of a retrieval dataset: queries, qrels, answers, candidates, corpus.

Field names follow the dataset cards (docs/retrieval.md). Every reader reports problems into a
`Problems` collector, with the file and line (or row) of the record, and goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.model import Level
from tfce_eval.retrieval.layouts import DatasetFiles
from tfce_eval.retrieval.records import Doc, Fragment, Layout, Origin, Span
from tfce_eval.retrieval.tables import Fields, Problems, iter_rows

Qrels = dict[str, dict[str, int]]
QrelOrigins = dict[tuple[str, str], Origin]

_QUERY_ID = ("id", "query_id", "_id")


@dataclass(frozen=True, slots=True)
class Refused:
    """The queries that were not read because of an error already reported: the ids of
    the refused rows, and whether a row or file that named no id was refused too. A
    judgement, answer or candidate row of such a query is not reported again as one of
    an unknown query: that error follows from the first."""

    ids: frozenset[str] = frozenset()
    unnamed: bool = False

    def explain(self, qid: str) -> bool:
        return self.unnamed or qid in self.ids


def read_queries(
    files: DatasetFiles, problems: Problems
) -> tuple[dict[str, str], dict[str, Origin], dict[str, tuple[Fragment, ...]], Refused]:
    """Query texts by id, where each came from, (chunk spans) the gold fragments, and the
    queries refused."""
    texts: dict[str, str] = {}
    origins: dict[str, Origin] = {}
    fragments: dict[str, tuple[Fragment, ...]] = {}
    refused: set[str] = set()
    unnamed = not files.queries  # read_dataset reports it
    spans = files.layout is Layout.CHUNK_SPAN
    row = 0
    for path in files.queries:
        if not path.is_file():
            problems.add(path, None, "file not found", "add the queries file")
            unnamed = True
            continue
        mark = problems.error_count
        for origin, record in iter_rows(path, problems):
            unnamed = unnamed or problems.error_count > mark  # a line that was not read
            fields = Fields(record, origin, problems, "a query")
            if spans:
                # No id field: the query's id is its 0-based row in file order (docs/retrieval.md).
                qid = fields.ident(*_QUERY_ID, required=False)
                qid = str(row) if qid is None else qid
                text = fields.text("query", "original_query")
            else:
                beir = files.layout is Layout.BEIR
                qid = fields.ident(*(("_id", "id") if beir else ("id", "_id")))
                text = fields.text("text")
            row += 1
            if qid is None:
                unnamed = True
            elif text is None:
                refused.add(qid)
            elif qid in origins:
                problems.at(
                    origin,
                    f"query id {qid!r} appears twice (first at {origins[qid].where(origin.path)})",
                    "give each query its own id",
                )
            else:
                texts[qid] = text
                origins[qid] = origin
                if spans:
                    fragments[qid] = _fragments(fields)
            mark = problems.error_count
        unnamed = unnamed or problems.error_count > mark  # a file that was not read
    return texts, origins, fragments, Refused(frozenset(refused), unnamed)


#: The largest grade read, either sign: trec_eval keeps an array entry per relevance level
#: (a grade of 2**31 takes gigabytes), and pytrec_eval cannot take one past 2**63.
MAX_GRADE = 1000


def _grade_out_of_range(rel: int) -> tuple[str, str]:
    shown = (
        str(rel)
        if rel.bit_length() <= 100
        else f"of about {int(rel.bit_length() * 0.30103) + 1} digits"
    )
    return (
        f"relevance grade {shown} is out of range (-{MAX_GRADE} to {MAX_GRADE})",
        "write graded judgements such as 0, 1, 2 and 3",
    )


def _fragments(fields: Fields) -> tuple[Fragment, ...]:
    """The gold fragments of one chunk-span query, checked for equal list lengths."""
    scores = fields.int_list("score")
    urls = fields.text_list("source_url")
    starts = fields.int_list("frag_start_char")
    ends = fields.int_list("frag_end_char")
    answers = fields.text_list("answer", required=False)
    n_gold = fields.integer("n_gold", required=False)
    if scores is None or urls is None or starts is None or ends is None:
        return ()
    lengths = {len(scores), len(urls), len(starts), len(ends)}
    if answers is not None:
        lengths.add(len(answers))
    if len(lengths) != 1:
        fields.problems.at(
            fields.origin,
            "score, source_url, frag_start_char, frag_end_char (and answer) have different lengths",
            "give one entry per gold fragment in each list",
        )
        return ()
    if n_gold is not None and n_gold != len(urls):
        fields.problems.at(
            fields.origin,
            f"n_gold is {n_gold} but the query lists {len(urls)} fragments",
            "set n_gold to the number of fragments",
            Level.WARNING,
        )
    out = []
    for i, (url, start, end, score) in enumerate(zip(urls, starts, ends, scores, strict=True)):
        if not 0 <= start < end:
            fields.problems.at(
                fields.origin,
                f"gold fragment {i} has the empty or negative span [{start}, {end})",
                "frag_start_char must be at least 0 and below frag_end_char",
            )
            continue
        if not -MAX_GRADE <= score <= MAX_GRADE:
            fields.problems.at(fields.origin, *_grade_out_of_range(score))
            continue
        answer = answers[i] if answers is not None else ""
        out.append(Fragment(Span(url, start, end), score, answer))
    return tuple(out)


def read_qrels_rows(
    paths: Iterable[Path],
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused = Refused(),
) -> tuple[Qrels, QrelOrigins]:
    """HF/MTEB qrels rows {query_id, corpus_id, score}."""
    qrels: Qrels = {}
    origins: QrelOrigins = {}
    for path in paths:
        for origin, record in iter_rows(path, problems):
            fields = Fields(record, origin, problems, "a qrels row")
            qid = fields.ident("query_id", "query-id")
            docid = fields.ident("corpus_id", "corpus-id")
            rel = fields.integer("score")
            if qid is not None and docid is not None and rel is not None:
                add_qrel(qrels, origins, problems, queries, refused, origin, qid, docid, rel)
    return qrels, origins


def add_qrel(
    qrels: Qrels,
    origins: QrelOrigins,
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused,
    origin: Origin,
    qid: str,
    docid: str,
    rel: int,
) -> None:
    """One judgement added, or reported: of an unknown query, judged twice, or with a
    grade out of range."""
    if not -MAX_GRADE <= rel <= MAX_GRADE:
        problems.at(origin, *_grade_out_of_range(rel))
        return
    if qid not in queries:
        if refused.explain(qid):
            return  # the query's own error is reported
        problems.at(
            origin,
            f"judgement for query {qid!r}, which is not among the queries of this split",
            "add the query to the queries file, or remove the judgement",
        )
        return
    if (qid, docid) in origins:
        problems.at(
            origin,
            f"query {qid!r} and document {docid!r} judged twice "
            f"(first at {origins[(qid, docid)].where(origin.path)})",
            "keep one judgement per query and document",
        )
        return
    qrels.setdefault(qid, {})[docid] = rel
    origins[(qid, docid)] = origin


def read_answers(
    paths: Iterable[Path],
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused = Refused(),
) -> dict[str, str]:
    """HF/MTEB answers rows {query_id, answer}: one reference answer per query."""
    answers: dict[str, str] = {}
    for path in paths:
        for origin, record in iter_rows(path, problems):
            fields = Fields(record, origin, problems, "an answers row")
            qid = fields.ident("query_id", "query-id")
            answer = fields.text("answer")
            if qid is None or answer is None:
                continue
            if qid not in queries:
                if not refused.explain(qid):
                    problems.at(
                        origin, f"answer for unknown query {qid!r}", "add the query or drop the row"
                    )
            elif qid in answers:
                problems.at(origin, f"query {qid!r} has two answers", "keep one answer row")
            else:
                answers[qid] = answer
    return answers


def read_top_ranked(
    paths: Iterable[Path],
    problems: Problems,
    queries: Mapping[str, str],
    refused: Refused = Refused(),
) -> tuple[dict[str, tuple[str, ...]], dict[str, Origin]]:
    """HF/MTEB top_ranked rows {query-id, corpus-ids}: each query's candidate pool."""
    pools: dict[str, tuple[str, ...]] = {}
    origins: dict[str, Origin] = {}
    for path in paths:
        for origin, record in iter_rows(path, problems):
            fields = Fields(record, origin, problems, "a top_ranked row")
            qid = fields.ident("query-id", "query_id")
            ids = fields.text_list("corpus-ids", "corpus_ids")
            if qid is None or ids is None:
                continue
            if qid not in queries:
                if not refused.explain(qid):
                    problems.at(
                        origin,
                        f"candidates for unknown query {qid!r}",
                        "add the query or drop the row",
                    )
            elif qid in pools:
                problems.at(origin, f"query {qid!r} has two candidate rows", "merge them")
            else:
                # A candidate listed twice would be ranked twice: keep its first place.
                pools[qid] = tuple(dict.fromkeys(ids))
                origins[qid] = origin
    return pools, origins


#: Corpus field names per layout: id, text, title, section.
CORPUS_FIELDS = {
    Layout.HF: (("id", "_id"), ("text",), "section_name"),
    Layout.BEIR: (("_id", "id"), ("text",), "section_name"),
    Layout.CHUNK_SPAN: (("chunk_id",), ("chunk",), ""),
}

SPAN_COLUMNS = ("chunk_id", "source_url", "chunk_start_char", "chunk_end_char")


def iter_docs(files: DatasetFiles, problems: Problems) -> Iterator[tuple[Origin, Doc]]:
    """The corpus documents in file order, each with its origin."""
    id_names, text_names, section = CORPUS_FIELDS[files.layout]
    spans = files.layout is Layout.CHUNK_SPAN
    if not files.corpus:
        problems.add(
            files.root / files.corpus_name, None, "no corpus files", "add the corpus files"
        )
    for path in files.corpus:
        for origin, record in iter_rows(path, problems):
            fields = Fields(record, origin, problems, "a corpus row")
            docid = fields.ident(*id_names)
            text = fields.text(*text_names)
            title = fields.text("title", required=False) or ""
            part = (fields.text(section, required=False) or "") if section else ""
            # Optional and free-form (Telco's names the spec): a non-text one is not used.
            source = record.get("source")
            source = source if isinstance(source, str) else ""
            if docid is None or text is None:
                continue
            if spans:
                span = _chunk_span(fields)
                if span is None:
                    continue
                yield (
                    origin,
                    Doc(docid, text, title, part, span.source_url, span.start, span.end, source),
                )
            else:
                yield origin, Doc(docid, text, title, part, source=source)


def _chunk_span(fields: Fields) -> Span | None:
    url = fields.text("source_url")
    start = fields.integer("chunk_start_char")
    end = fields.integer("chunk_end_char")
    if url is None or start is None or end is None:
        return None
    if not 0 <= start <= end:
        fields.problems.at(
            fields.origin,
            f"chunk span [{start}, {end}) runs backwards",
            "chunk_start_char must be at least 0 and at most chunk_end_char",
        )
        return None
    return Span(url, start, end)


def read_chunk_spans(files: DatasetFiles, problems: Problems) -> dict[str, Span]:
    """The span of every chunk (chunk-span layout), read without the chunk texts."""
    spans: dict[str, Span] = {}
    for path in files.corpus:
        for origin, record in iter_rows(path, problems, SPAN_COLUMNS):
            fields = Fields(record, origin, problems, "a documents row")
            chunk_id = fields.ident("chunk_id")
            span = _chunk_span(fields)
            if chunk_id is None or span is None:
                continue
            if chunk_id in spans:
                problems.at(
                    origin, f"chunk id {chunk_id!r} appears twice", "give each chunk its own id"
                )
                continue
            spans[chunk_id] = span
    if not files.corpus:
        problems.add(
            files.root / files.corpus_name, None, "no corpus files", "add the documents files"
        )
    return spans
