"""Build the built-in QASPER-shaped dataset from papers.txt and questions.txt.

Run once from the repository root after editing the sources:

    .venv/bin/python scripts/build_qasper_rag.py

It writes the HF/MTEB layout of QASPER-RAG next to this folder: corpus/, queries/,
qrels/, answers/, top_ranked/ (every chunk of the question's paper) and retrieved_docs/
(the top 10 of the embedded BM25 over the whole corpus). Each question's evidence is given
as phrases; a phrase must occur in exactly one chunk of its paper, which becomes relevant.
The output is deterministic, so tests rebuild it and compare.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

#: The sources the built-in dataset is made from, beside it in the package.
HERE = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "qasper-rag" / "source"
SPLITS = ("test", "dev")
RETRIEVED = 10


def parse_papers(text: str) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    """Corpus rows in order, and each paper's chunk ids."""
    rows: list[dict[str, str]] = []
    chunks: dict[str, list[str]] = {}
    paper = title = section = ""
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("=== "):
            paper, title = (part.strip() for part in line[4:].split("|", 1))
            chunks[paper] = []
            section, count = "", 0
        elif line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        else:
            if not paper or not section:
                sys.exit(f"papers.txt, line {number}: a paragraph before any paper or section")
            chunk_id = f"{paper}_abs" if section == "abstract" else f"{paper}_p{count:02d}"
            if section != "abstract":
                count += 1
            rows.append({"id": chunk_id, "title": title, "section_name": section, "text": line})
            chunks[paper].append(chunk_id)
    return rows, chunks


def parse_questions(
    text: str, rows: list[dict[str, str]], chunks: dict[str, list[str]]
) -> list[dict[str, Any]]:
    by_id = {r["id"]: r["text"] for r in rows}
    out = []
    per_paper: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        split, paper, question, answer, evidence = (p.strip() for p in line.split("|"))
        if split not in SPLITS or paper not in chunks:
            sys.exit(f"questions.txt, line {number}: unknown split or paper")
        gold = []
        for phrase in (p.strip() for p in evidence.split(";;")):
            hits = [c for c in chunks[paper] if phrase in by_id[c]]
            if len(hits) != 1:
                sys.exit(f"questions.txt, line {number}: {phrase!r} is in {len(hits)} chunks")
            gold.append(hits[0])
        per_paper[paper] = per_paper.get(paper, 0) + 1
        qid = f"{paper}-q{per_paper[paper]}"
        out.append(
            {
                "id": qid,
                "split": split,
                "paper": paper,
                "text": question,
                "answer": answer,
                "gold": sorted(set(gold)),
            }
        )
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def build(out: Path) -> None:
    rows, chunks = parse_papers((HERE / "papers.txt").read_text(encoding="utf-8"))
    questions = parse_questions((HERE / "questions.txt").read_text(encoding="utf-8"), rows, chunks)
    write_jsonl(out / "corpus" / "train.jsonl", rows)
    for split in SPLITS:
        mine = [q for q in questions if q["split"] == split]
        write_jsonl(
            out / "queries" / f"{split}.jsonl", [{"id": q["id"], "text": q["text"]} for q in mine]
        )
        write_jsonl(
            out / "qrels" / f"{split}.jsonl",
            [{"query_id": q["id"], "corpus_id": c, "score": 1} for q in mine for c in q["gold"]],
        )
        write_jsonl(
            out / "answers" / f"{split}.jsonl",
            [{"query_id": q["id"], "answer": q["answer"]} for q in mine],
        )
        write_jsonl(
            out / "top_ranked" / f"{split}.jsonl",
            [{"query-id": q["id"], "corpus-ids": chunks[q["paper"]]} for q in mine],
        )
    for split in SPLITS:
        write_jsonl(out / "retrieved_docs" / f"{split}.jsonl", retrieved(out, split))


def retrieved(root: Path, split: str) -> list[dict[str, Any]]:
    """The embedded BM25's top 10 over the whole corpus, with relevance from the qrels."""
    from tfce_eval.retrieval import load_retrieval, retrieve

    dataset = load_retrieval(root, split=split)
    with tempfile.TemporaryDirectory() as tmp:
        result = retrieve(dataset, k=RETRIEVED, out_dir=Path(tmp) / "run", cache_dir=Path(tmp))
        lines = result.run_path.read_text(encoding="utf-8").splitlines()
    rows = []
    for line in lines:
        qid, _, docid, rank, score, _ = line.split()
        rows.append(
            {
                "query_id": qid,
                "corpus_id": docid,
                "rank": int(rank),
                "retrieval_score": float(score),
                "is_relevant": dataset.qrels.get(qid, {}).get(docid, 0) > 0,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE.parent, help="dataset directory")
    build(parser.parse_args().out)


if __name__ == "__main__":
    main()
