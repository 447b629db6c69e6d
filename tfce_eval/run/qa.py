"""Running a model on a question-answering dataset: context, requests, and the score.

Everything a run is (the run directory and its lock, resume, retries, progress, run.json)
is the function-calling run's machinery; this module gives it what is particular to
questions: each item's context (none, the gold passage, BM25 over a corpus, or a run
file's top k), the request (fc mode: one forced `answer` tool; prompt mode: the `ANSWER:`
template), the outputs line (the model's text and the tool's argument, with the chunks
it was shown), and the score of the answers (`qa.score_outputs`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import builtin_dir, recorded
from tfce_eval.decode.answer import decode_output
from tfce_eval.errors import UsageError
from tfce_eval.jsonl import JsonLines
from tfce_eval.model import TaskKind
from tfce_eval.providers.base import (
    Mode,
    Provider,
    ProviderError,
    RequestOptions,
    Response,
    message_text,
)
from tfce_eval.qa import (
    TOOL_NAME,
    QaDataset,
    QaItem,
    QaOutput,
    RetrievedChunk,
    chat_parts,
)
from tfce_eval.retrieval import (
    detect_layout,
    load_retrieval,
    read_run,
    retrieve,
)
from tfce_eval.retrieval.dataset import corpus_sha256
from tfce_eval.retrieval.layouts import locate, splits_of
from tfce_eval.retrieval.ranking import Run
from tfce_eval.run.asking import tries
from tfce_eval.run.config import Context, ContextSpec
from tfce_eval.run.directory import CONTEXT_DIR
from tfce_eval.schema.wire import name_map
from tfce_eval.scoring.rundir import file_sha256
from tfce_eval.tasks.load import chunk_texts


@dataclass(frozen=True, slots=True)
class QaRequest:
    """One question as it is asked: the item, the passages shown, the chunks they came from."""

    item: QaItem
    passages: tuple[str, ...] = ()
    retrieved: tuple[RetrievedChunk, ...] | None = None

    @property
    def id(self) -> str:
        return self.item.id


@dataclass(frozen=True, slots=True)
class QaAsker:
    """The asker of question answering (see run.asking.Asker)."""

    mode: Mode
    context: Context

    def request(
        self, provider: Provider, req: QaRequest, options: RequestOptions
    ) -> dict[str, Any]:
        messages, functions, force = chat_parts(req.item, req.passages, fc=self.mode is Mode.FC)
        return provider.build_chat(messages, options, functions=functions, force=force)

    def answer(self, req: QaRequest, raw: dict[str, Any], response: Response) -> dict[str, Any]:
        answer: Any = None
        if self.mode is Mode.FC:
            _, docs, _ = chat_parts(req.item, (), fc=True)
            decoded = decode_output(raw, name_map=name_map(docs), item_id=req.id)
            for call in decoded.calls or ():
                if call.name == TOOL_NAME and "answer" in call.arguments:
                    answer = call.arguments["answer"]
                    break
        return {
            **self._base(req),
            "raw": raw,
            "response": message_text(raw),
            "answer": answer,
            "error": None,
            "usage": response.usage.to_json(),
            "latency_s": round(response.latency_s, 4),
            "finish_reason": response.finish_reason,
        }

    def error(self, req: QaRequest, error: ProviderError, attempts: int) -> dict[str, Any]:
        return {
            **self._base(req),
            "raw": None,
            "response": None,
            "answer": None,
            "error": error.message + tries(attempts),
            "usage": None,
            "latency_s": None,
            "finish_reason": None,
        }

    def _base(self, req: QaRequest) -> dict[str, Any]:
        retrieved = None
        if req.retrieved is not None:
            retrieved = [
                {"chunk_id": c.chunk_id, "source": c.source, "score": c.score}
                for c in req.retrieved
            ]
        return {
            "id": req.id,
            "answer_type": str(req.item.answer_type),
            "context": str(self.context),
            "retrieved": retrieved,
        }


def default_corpus(data: Path) -> Path | None:
    """The corpus a QA dataset comes with: a Telco split's `corpus/` folder, or QASPER-RAG's
    own chunks (the dataset directory itself)."""
    if detect_layout(data) is not None:
        return data
    if (data / "corpus").is_dir() and detect_layout(data / "corpus") is not None:
        return data / "corpus"
    return None


def build_requests(
    dataset: QaDataset,
    ids: Sequence[str],
    spec: ContextSpec,
    *,
    corpus: Path | None,
    work_dir: Path,
    cache_dir: Path,
    run: Run | None = None,
    every: Sequence[str] = (),
) -> dict[str, QaRequest]:
    """Each selected item with its context. BM25's run is kept in `work_dir` (context/);
    `run` is a `run:FILE` context's, when the caller has read it already (with its
    scores).

    `every`: all the run's questions, when `ids` are those a resumed run has left: BM25
    ranks them all, so that the run kept in context/ covers the whole run."""
    items = {item.id: item for item in dataset.items}
    chosen = [items[i] for i in ids]
    if spec.kind is Context.NONE:
        return {item.id: QaRequest(item) for item in chosen}
    if spec.kind is Context.GOLD:
        return {
            item.id: QaRequest(item, (item.source_text,) if item.source_text.strip() else ())
            for item in chosen
        }
    if corpus is None:
        raise UsageError(
            f"--context {spec.kind}: this dataset has no corpus of its own; give --corpus DIR "
            "(a retrieval dataset: BEIR corpus.jsonl, HF corpus/ or chunk documents/)"
        )
    chunks = load_retrieval(corpus, split=corpus_split(corpus), name=str(corpus))
    texts = chunk_texts(chunks)
    # What a chunk is from: the corpus's own `source` (Telco: the spec), else its title.
    sources = {doc.id: doc.source or doc.title for doc in chunks.iter_corpus()}
    if spec.kind is Context.BM25:
        known = set(every)
        ranked_ids = [*every, *(i for i in ids if i not in known)] if every else ids
        questions = dataclasses.replace(
            chunks, queries={i: items[i].question for i in ranked_ids if i in items}
        )
        result = retrieve(questions, k=spec.k, out_dir=work_dir / CONTEXT_DIR, cache_dir=cache_dir)
        # Questions BM25 finds nothing for (an empty run, too) are asked without context.
        run = read_run(result.run_path, scores=True)
    else:
        assert spec.run_file is not None
        if run is None:
            run = read_run(spec.run_file, scores=True)
    rankings, scores = run.rankings, run.scores or {}
    requests = {}
    for item in chosen:
        ranked = list(rankings.get(item.id, {}))[: spec.k]
        missing = [d for d in ranked if d not in texts]
        if missing:
            raise UsageError(
                f"--context: the run names chunk {missing[0]!r} (question {item.id}), which "
                f"the corpus {corpus} does not hold; give the --corpus the run was made from"
            )
        given = scores.get(item.id, {})
        retrieved = tuple(RetrievedChunk(d, sources.get(d, ""), given.get(d)) for d in ranked)
        requests[item.id] = QaRequest(item, tuple(texts[d] for d in ranked), retrieved)
    return requests


def corpus_split(corpus: Path) -> str | None:
    """The split a context's corpus is loaded with: only its chunks are read, so any of
    its splits will do (`test` when it has one); never a question to the user, whose
    `--split` names the QA dataset's split, not the corpus's."""
    root = builtin_dir(corpus, TaskKind.RETRIEVAL) or Path(corpus)
    layout = detect_layout(root)
    if layout is None:
        return None  # not a retrieval dataset: the loader says so
    splits = splits_of(root, layout)
    if not splits:
        return None  # the loader says what is missing
    return "test" if "test" in splits else splits[0]


def context_identity(spec: ContextSpec, corpus: Path | None) -> dict[str, str]:
    """What a retrieved context is made from, by digest: the corpus's files and a run
    file's bytes. Part of a run's identity: a resume with another corpus, or an edited
    run file, would show the model other passages than the run's first items saw."""
    if spec.kind not in (Context.BM25, Context.RUN):
        return {}
    found: dict[str, str] = {}
    if corpus is not None:  # the digest `retrieve` records in context/run.json
        root = builtin_dir(corpus, TaskKind.RETRIEVAL) or corpus
        found["corpus_sha256"] = corpus_sha256(locate(root, split=corpus_split(corpus)).corpus)
    if spec.run_file is not None:
        found["run_sha256"] = file_sha256(spec.run_file)
    return found


def read_outputs(path: Path, ids: Sequence[str]) -> tuple[list[QaOutput], dict[str, Any]]:
    """The selected items' outputs from a run's outputs.jsonl (the last line of an id
    counts), and what summary.json records of the file read (`path`, `sha256`, `lines`,
    as a function-calling run's `outputs`)."""
    wanted = set(ids)
    latest: dict[str, QaOutput] = {}
    reader = JsonLines(path, torn_tail_ok=True)
    for record in reader:
        value = record.value
        if not isinstance(value, dict) or value.get("id") not in wanted:
            continue
        latest[value["id"]] = _output(value, record.line)
    described = {"path": recorded(path), "sha256": reader.digest(), "lines": reader.lines}
    return [latest[i] for i in ids if i in latest], described


def _output(value: Mapping[str, Any], line: int) -> QaOutput:
    retrieved = value.get("retrieved")
    chunks = None
    if isinstance(retrieved, list):
        chunks = tuple(
            RetrievedChunk(str(c.get("chunk_id", "")), str(c.get("source") or ""), c.get("score"))
            for c in retrieved
            if isinstance(c, dict)
        )
    error = value.get("error")
    return QaOutput(
        id=str(value["id"]),
        response=value.get("response") if isinstance(value.get("response"), str) else None,
        answer=value.get("answer"),
        error=str(error) if error is not None else None,
        retrieved=chunks,
        context=value.get("context"),
        line=line,
    )


def iter_requests(requests: Mapping[str, QaRequest], ids: Sequence[str]) -> Iterator[QaRequest]:
    return (requests[i] for i in ids)
