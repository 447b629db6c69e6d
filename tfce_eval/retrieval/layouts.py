"""Which of the three layouts a directory has, its splits, and the files of one split.

HF/MTEB (QASPER-RAG): sub-directories corpus/, queries/, qrels/, answers/, top_ranked/,
retrieved_docs/ of files `<split>-*.parquet` or `<split>*.jsonl`; the corpus is shared by
every split. BEIR: corpus.jsonl, queries.jsonl and qrels/<split>.tsv. Chunk spans
(ConditionalQA): documents/ or documents_coref/ and queries/, the gold given as spans.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfce_eval.errors import DataError, TfceError, UsageError
from tfce_eval.retrieval.records import Layout
from tfce_eval.retrieval.tables import data_files, split_of

#: The two corpora of the chunk-span layout: plain and coreference-resolved text.
SPAN_CORPORA = ("documents", "documents_coref")

#: The split used when none is asked for and the dataset has it.
DEFAULT_SPLIT = "test"

LAYOUT_HINT = (
    "point --data at a retrieval dataset: corpus/ queries/ qrels/ (HF/MTEB, as "
    "QASPER-RAG), corpus.jsonl queries.jsonl qrels/ (BEIR) or documents/ queries/ "
    "(chunk spans, as ConditionalQA)"
)


@dataclass(frozen=True, slots=True)
class DatasetFiles:
    """The files of one split of a dataset (empty tuples for parts the layout lacks)."""

    root: Path
    layout: Layout
    split: str
    splits: tuple[str, ...]
    corpus_name: str  # corpus, documents or documents_coref
    corpus: tuple[Path, ...]
    queries: tuple[Path, ...]
    qrels: tuple[Path, ...] = ()
    answers: tuple[Path, ...] = ()
    top_ranked: tuple[Path, ...] = ()
    retrieved_docs: tuple[Path, ...] = ()


def detect_layout(path: str | Path) -> Layout | None:
    """The layout of a dataset directory, or None when it has none of the three."""
    root = Path(path)
    if not root.is_dir():
        return None
    if (root / "queries").is_dir() and any((root / name).is_dir() for name in SPAN_CORPORA):
        return Layout.CHUNK_SPAN
    if (root / "corpus").is_dir() and (root / "queries").is_dir():
        return Layout.HF
    if (root / "corpus.jsonl").is_file() and (root / "queries.jsonl").is_file():
        return Layout.BEIR
    return None


def splits_of(root: Path, layout: Layout) -> tuple[str, ...]:
    """The query splits a dataset offers, sorted."""
    if layout is Layout.BEIR:
        folder = root / "qrels"
        names = {p.stem for p in folder.glob("*.tsv")} if folder.is_dir() else set()
    else:
        names = {split_of(p.name) for p in data_files(root / "queries")}
        if layout is Layout.HF:
            names |= {split_of(p.name) for p in data_files(root / "qrels")}
    return tuple(sorted(n for n in names if n))


def choose_split(splits: tuple[str, ...], split: str | None, root: Path) -> str:
    """The split asked for, or `test` when present, or the only one."""
    listed = ", ".join(splits) or "none"
    if split is not None:
        if split not in splits:
            raise UsageError(f"{root} has no split {split!r}; its splits: {listed}")
        return split
    if DEFAULT_SPLIT in splits:
        return DEFAULT_SPLIT
    if len(splits) == 1:
        return splits[0]
    if not splits:
        raise DataError(
            "no query split found",
            path=str(root),
            hint="name the query files <split>-*.parquet or <split>.jsonl "
            "(qrels/<split>.tsv for BEIR)",
        )
    raise UsageError(f"{root} has several splits ({listed}); choose one with --split")


def choose_corpus(root: Path, layout: Layout, corpus: str | None) -> str:
    """The corpus to read: documents (default) or documents_coref for chunk spans."""
    if layout is not Layout.CHUNK_SPAN:
        if corpus not in (None, "corpus"):
            raise UsageError(
                f"--corpus {corpus} applies to the chunk-span layout only; {root} has one corpus"
            )
        return "corpus"
    present = [name for name in SPAN_CORPORA if (root / name).is_dir()]
    if corpus is None:
        return present[0]
    if corpus not in SPAN_CORPORA:
        raise UsageError(f"--corpus must be one of {', '.join(SPAN_CORPORA)}, not {corpus!r}")
    if corpus not in present:
        raise UsageError(f"{root} has no {corpus}/ (it has {', '.join(present)})")
    return corpus


def locate(
    path: str | Path, *, split: str | None = None, corpus: str | None = None
) -> DatasetFiles:
    """The files of one split; DataError when the directory is no retrieval dataset."""
    root = Path(path)
    if not root.is_dir():
        what = "is a file, not a dataset directory" if root.exists() else "no such directory"
        raise DataError(
            what,
            path=str(root),
            hint="give a retrieval dataset's directory, or builtin:NAME (tfce-eval datasets)",
        )
    layout = detect_layout(root)
    if layout is None:
        raise DataError("not a retrieval dataset", path=str(root), hint=LAYOUT_HINT)
    splits = splits_of(root, layout)
    chosen = choose_split(splits, split, root)
    corpus_name = choose_corpus(root, layout, corpus)
    if layout is Layout.BEIR:
        return DatasetFiles(
            root,
            layout,
            chosen,
            splits,
            corpus_name,
            corpus=(root / "corpus.jsonl",),
            queries=(root / "queries.jsonl",),
            qrels=(root / "qrels" / f"{chosen}.tsv",),
        )
    if layout is Layout.CHUNK_SPAN:
        return DatasetFiles(
            root,
            layout,
            chosen,
            splits,
            corpus_name,
            corpus=tuple(data_files(root / corpus_name)),
            queries=tuple(data_files(root / "queries", chosen)),
        )

    def part(name: str) -> tuple[Path, ...]:
        return tuple(data_files(root / name, chosen))

    return DatasetFiles(
        root,
        layout,
        chosen,
        splits,
        corpus_name,
        corpus=tuple(data_files(root / "corpus")),
        queries=part("queries"),
        qrels=part("qrels"),
        answers=part(ANSWERS),
        top_ranked=part("top_ranked"),
        retrieved_docs=part("retrieved_docs"),
    )


#: QASPER-RAG's folder of answers: a retrieval dataset with it has questions to ask.
ANSWERS = "answers"


def has_answers(root: str | Path) -> bool:
    """Whether a retrieval dataset holds answers (QASPER-RAG's answers/), so that its
    queries are also open questions a model can be asked: what `run` and
    `validate --task qa` ask of it before reading it as question answering."""
    return (Path(root) / ANSWERS).is_dir()


def split_has_answers(root: str | Path, split: str | None = None) -> bool:
    """Whether the split's queries have answers, so that a file of QA predictions given
    with the dataset is scored as question answering. Never raises: a directory that is
    no retrieval dataset, or has no such split, has none."""
    if not has_answers(root):
        return False
    try:
        return bool(locate(root, split=split).answers)
    except TfceError:
        return False
