"""Gold given as character spans: which chunks are relevant, and SpanCov@k.

In the chunk-span layout (ConditionalQA) a query's gold is a list of fragments, each a
half-open range [start, end) of a source document with a relevance score. A chunk is
relevant iff it shares the source document with some fragment and their ranges overlap
(touching at a boundary is not overlapping); its relevance is the largest score among the
fragments it overlaps (docs/retrieval.md). The plain and coreference-resolved corpora share their
offsets, so one gold serves both.

SpanCov@k asks how much of the gold the top k chunks cover: the fraction of a query's
relevant fragments overlapped by at least one of them. Unlike recall over chunks it does
not change when the same text is cut into more, smaller chunks, so it compares retrievers
over different chunkings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice

from tfce_eval.retrieval.records import Fragment, Origin, Span
from tfce_eval.retrieval.tables import Problems


def chunks_by_source(chunks: Mapping[str, Span]) -> dict[str, list[tuple[int, int, str]]]:
    """Each source document's chunks as (start, end, chunk id), in offset order."""
    by_source: dict[str, list[tuple[int, int, str]]] = {}
    for chunk_id, span in chunks.items():
        by_source.setdefault(span.source_url, []).append((span.start, span.end, chunk_id))
    for entries in by_source.values():
        entries.sort()
    return by_source


def span_gold(
    fragments: Mapping[str, Sequence[Fragment]],
    chunks: Mapping[str, Span],
    problems: Problems,
    origins: Mapping[str, Origin],
    corpus_name: str = "documents",
) -> dict[str, dict[str, int]]:
    """Qrels from span gold: chunk -> largest score among the fragments it overlaps."""
    by_source = chunks_by_source(chunks)
    qrels: dict[str, dict[str, int]] = {}
    for qid, frags in fragments.items():
        judged: dict[str, int] = {}
        for i, frag in enumerate(frags):
            hits = overlapping(frag.span, by_source)
            if not hits:
                problems.at(
                    origins[qid],
                    f"gold fragment {i} ({frag.span.source_url} "
                    f"[{frag.span.start}, {frag.span.end})) overlaps no chunk of {corpus_name}/",
                    "check the fragment's source_url and offsets against the documents",
                )
            for chunk_id in hits:
                judged[chunk_id] = max(judged.get(chunk_id, frag.score), frag.score)
        if judged:
            qrels[qid] = judged
    return qrels


def overlapping(span: Span, by_source: Mapping[str, list[tuple[int, int, str]]]) -> list[str]:
    """The ids of the chunks whose [start, end) overlaps the span's."""
    out = []
    for start, end, chunk_id in by_source.get(span.source_url, ()):
        if start >= span.end:
            break  # sorted by start: every later chunk begins past the span
        if span.start < end:
            out.append(chunk_id)
    return out


def span_coverage(
    fragments: Sequence[Fragment],
    ranking: Iterable[str],
    chunks: Mapping[str, Span],
    k: int,
    rel: int = 1,
) -> float:
    """SpanCov@k: the share of relevant fragments overlapped by one of the top k chunks.

    `ranking` gives the retrieved chunk ids best first.

    A fragment is relevant when its score is at least `rel`; a query without relevant
    fragments scores 0. Retrieved ids that are not chunks of the corpus cover nothing.
    """
    gold = [f.span for f in fragments if f.score >= rel]
    if not gold:
        return 0.0
    top = [chunks[c] for c in islice(ranking, k) if c in chunks]
    covered = sum(1 for g in gold if any(g.overlaps(t) for t in top))
    return covered / len(gold)
