"""`validate` for retrieval datasets: every problem at once, each with file, line and fix.

Beyond what loading checks (fields, types, duplicate ids, judgements of unknown queries,
span gold that overlaps no chunk), validation reads the whole corpus and checks that the
judgements, the candidate pools and the dataset's own retrieved_docs name documents that
exist. Every split is checked unless one is named, and in the chunk-span layout both
corpora (documents and documents_coref) when present. A `--qrels` file replaces the gold
of one split only: the one named, else the one `score` reads (test, or the only one); the
other splits are checked against their own gold.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.dataset.paths import builtin_dir
from tfce_eval.errors import DataError
from tfce_eval.model import Finding, Level, TaskKind
from tfce_eval.retrieval.dataset import RetrievalDataset, read_dataset
from tfce_eval.retrieval.layouts import (
    LAYOUT_HINT,
    SPAN_CORPORA,
    choose_corpus,
    choose_split,
    detect_layout,
    locate,
    splits_of,
)
from tfce_eval.retrieval.ranking import RunForm
from tfce_eval.retrieval.readers import iter_docs, read_top_ranked
from tfce_eval.retrieval.records import Layout
from tfce_eval.retrieval.runs import read_run
from tfce_eval.retrieval.tables import Problems
from tfce_eval.words import counted, listed


@dataclass(frozen=True)
class RetrievalCheck:
    """What validating a retrieval dataset found, and the size of each split it read:
    queries, and answers (QASPER-RAG's, which a QA run asks)."""

    findings: list[Finding]
    queries: Mapping[str, int]
    answers: Mapping[str, int]


def validate_retrieval(
    path: str | Path,
    *,
    split: str | None = None,
    corpus: str | None = None,
    qrels: str | Path | None = None,
) -> list[Finding]:
    """Every finding of a retrieval dataset (errors and warnings); empty when it is sound.
    `path` may be `builtin:NAME`."""
    return check_retrieval(path, split=split, corpus=corpus, qrels=qrels).findings


def check_retrieval(
    path: str | Path,
    *,
    split: str | None = None,
    corpus: str | None = None,
    qrels: str | Path | None = None,
) -> RetrievalCheck:
    """`validate_retrieval`'s findings, with the queries and answers of each split read
    (counted once, in the first corpus checked)."""
    root = builtin_dir(path, TaskKind.RETRIEVAL) or Path(path)
    layout = detect_layout(root)
    if layout is None:
        what = "not a retrieval dataset"
        if not root.is_dir():
            what = "is a file, not a dataset directory" if root.exists() else "no such directory"
        return RetrievalCheck([Finding(Level.ERROR, what, str(root), hint=LAYOUT_HINT)], {}, {})
    problems = Problems()
    offered = splits_of(root, layout)
    splits = [choose_split(offered, split, root)] if split is not None else list(offered)
    # A --qrels file is one split's gold: the split named, else the one `score` reads.
    replaced = choose_split(offered, split, root) if qrels is not None and offered else None
    if not splits:
        problems.add(root / "queries", None, "no query split found", "add the query files")
    if layout is Layout.CHUNK_SPAN and corpus is None:
        corpora = [c for c in SPAN_CORPORA if (root / c).is_dir()]
    else:
        corpora = [choose_corpus(root, layout, corpus)]
    queries: dict[str, int] = {}
    answers: dict[str, int] = {}
    for corpus_name in corpora:
        ids = _check_corpus(root, layout, splits, corpus_name, problems)
        for name in splits:
            try:
                files = locate(root, split=name, corpus=corpus_name)
            except DataError as exc:
                problems.error(exc, root)
                continue
            gold = qrels if name == replaced else None
            dataset = read_dataset(files, problems, qrels=gold)
            queries.setdefault(name, len(dataset.queries))
            answers.setdefault(name, len(dataset.answers))
            _check_split(dataset, ids, problems)
    return RetrievalCheck(problems.finish(), queries, answers)


def _check_corpus(
    root: Path, layout: Layout, splits: list[str], corpus_name: str, problems: Problems
) -> set[str]:
    """Read the whole corpus: duplicate ids and empty texts. Returns the ids."""
    if not splits:
        return set()
    files = locate(root, split=splits[0], corpus=corpus_name)
    ids: set[str] = set()
    mark = problems.error_count
    for origin, doc in iter_docs(files, problems):
        if doc.id in ids:
            # The span reader of the chunk-span layout reports duplicate chunk ids already.
            if layout is not Layout.CHUNK_SPAN:
                problems.at(
                    origin, f"document id {doc.id!r} appears twice", "give each document its own id"
                )
            continue
        ids.add(doc.id)
        if not doc.text.strip() and not doc.title.strip():
            problems.at(
                origin,
                f"document {doc.id!r} has no text",
                "give it text, or drop it",
                Level.WARNING,
            )
    if not ids and problems.error_count == mark:  # files and rows all read: none there
        problems.add(
            ", ".join(str(p) for p in files.corpus),
            None,
            "the corpus has no documents",
            "add the documents to retrieve from",
        )
    return ids


def _check_split(dataset: RetrievalDataset, ids: set[str], problems: Problems) -> None:
    files = dataset.files
    # No judgements at all: one line, not one per query (and none beside the error that
    # says the qrels are missing or unreadable).
    if not dataset.qrels and dataset.query_origins and problems.error_count == 0:
        problems.add(
            files.root / "qrels",
            None,
            f"no query has judgements: none of its {len(dataset.query_origins)} queries "
            "would be scored",
            "add the qrels of this split, or give --qrels FILE",
            Level.WARNING,
        )
    for qid, origin in dataset.query_origins.items() if dataset.qrels else ():
        docs = dataset.qrels.get(qid)
        if docs is None:
            problems.at(
                origin,
                f"query {qid!r} has no judgements and is not scored",
                "judge it, or drop it",
                Level.WARNING,
            )
        elif not any(rel > 0 for rel in docs.values()):
            problems.at(
                origin,
                f"query {qid!r} has no relevant document and is not scored",
                "judge at least one document relevant, or drop the query",
                Level.WARNING,
            )
    if ids:
        for (_qid, docid), origin in dataset.qrel_origins.items():
            if docid not in ids:
                problems.at(
                    origin,
                    f"judgement of document {docid!r}, which is not in the corpus",
                    f"add the document to {files.corpus_name}, or remove the judgement",
                )
        _check_pools(files.top_ranked, dataset, ids, problems)
    _check_retrieved(files.retrieved_docs, dataset, ids, problems)


def _check_pools(
    paths: Iterable[Path], dataset: RetrievalDataset, ids: set[str], problems: Problems
) -> None:
    pools, origins = read_top_ranked(paths, Problems(), dataset.queries)  # reported already
    for qid, pool in pools.items():
        missing = [d for d in pool if d not in ids]
        if missing:
            problems.at(
                origins[qid],
                f"{counted(len(missing), 'candidate')} of query {qid!r} "
                f"{'is' if len(missing) == 1 else 'are'} not in the corpus "
                f"({listed(missing)})",
                "list only corpus ids in corpus-ids",
            )


def _check_retrieved(
    paths: Iterable[Path], dataset: RetrievalDataset, ids: set[str], problems: Problems
) -> None:
    for path in paths:
        try:
            run = read_run(path, form=RunForm.ROWS)
        except DataError as exc:
            problems.error(exc, path)
            continue
        # Queries whose rows were refused are reported already, with their own error.
        unknown = [
            q for q in run.rankings if q not in dataset.queries and not dataset.refused.explain(q)
        ]
        if unknown:
            problems.add(
                path,
                None,
                f"{counted(len(unknown), 'query is', 'queries are')} not in the split "
                f"({listed(unknown)})",
                "keep only the split's queries in its retrieved_docs",
            )
        if ids:
            absent = sorted({d for docs in run.rankings.values() for d in docs if d not in ids})
            if absent:
                problems.add(
                    path,
                    None,
                    f"{counted(len(absent), 'retrieved document is', 'retrieved documents are')}"
                    f" not in the corpus ({listed(absent)})",
                    "retrieve from this dataset's corpus",
                )
        for warning, fix in run.warning_fixes:
            problems.add(path, None, warning, fix, Level.WARNING)
