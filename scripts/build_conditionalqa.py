"""Build the built-in ConditionalQA-shaped dataset from pages.txt and questions.txt.

Run once from the repository root after editing the sources:

    .venv/bin/python scripts/build_conditionalqa.py

It writes the chunk-span layout of ConditionalQA's chunk-level retrieval set next to this
folder. Each page becomes one source document: its passages (headings, and each sentence
of each paragraph) joined with "\\n", as DAPR reconstructs documents. documents/ holds the
passages with their character offsets in that text; documents_coref/ the same passages
with references resolved and the same offsets (so one gold serves both); queries/ the
questions, without ids, each gold fragment being the span of a whole passage. The output
is deterministic, so tests rebuild it and compare.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

#: The sources the built-in dataset is made from, beside it in the package.
HERE = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "conditionalqa" / "source"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z{])")
_MARK = re.compile(r"\{([^|{}]*)\|([^|{}]*)\}")


def render(text: str, coref: bool) -> str:
    """The plain or the resolved reading of text with {plain|resolved} marks."""
    return _MARK.sub(lambda m: m.group(2 if coref else 1), text)


def parse_pages(text: str) -> list[dict[str, Any]]:
    """Pages with their passages, each passage as (plain, resolved)."""
    pages: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("=== "):
            page, title = (part.strip() for part in line[4:].split("|", 1))
            pages.append({"id": page, "title": title, "passages": []})
            continue
        if not pages:
            sys.exit(f"pages.txt, line {number}: a passage before any page")
        pieces = [line[3:]] if line.startswith("## ") else _SENTENCE_END.split(line)
        for piece in pieces:
            pages[-1]["passages"].append((render(piece, False), render(piece, True)))
    return pages


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def build(out: Path) -> None:
    pages = parse_pages((HERE / "pages.txt").read_text(encoding="utf-8"))
    plain_rows: list[dict[str, Any]] = []
    coref_rows: list[dict[str, Any]] = []
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for page in pages:
        document = "\n".join(plain for plain, _ in page["passages"])
        start = 0
        spans[page["id"]] = []
        for i, (plain, resolved) in enumerate(page["passages"]):
            end = start + len(plain)
            assert document[start:end] == plain
            row = {
                "chunk_id": f"{page['id']}-{i}",
                "chunk": plain,
                "source_url": page["id"],
                "title": page["title"],
                "chunk_idx": i,
                "chunk_start_char": start,
                "chunk_end_char": end,
            }
            plain_rows.append(row)
            coref_rows.append(dict(row, chunk=resolved))
            spans[page["id"]].append((start, end, plain))
            start = end + 1  # the "\n" between passages
    queries: list[dict[str, Any]] = []
    text = (HERE / "questions.txt").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        page_id, question, evidence = (p.strip() for p in line.split("|"))
        if page_id not in spans:
            sys.exit(f"questions.txt, line {number}: unknown page {page_id!r}")
        gold = []
        for phrase in (p.strip() for p in evidence.split(";;")):
            hits = [s for s in spans[page_id] if phrase in s[2]]
            if len(hits) != 1:
                sys.exit(f"questions.txt, line {number}: {phrase!r} is in {len(hits)} passages")
            gold.append(hits[0])
        gold.sort()
        queries.append(
            {
                "original_query": question,
                "query": question,
                "answer": [g[2] for g in gold],
                "score": [1 for _ in gold],
                "source_url": [page_id for _ in gold],
                "frag_start_char": [g[0] for g in gold],
                "frag_end_char": [g[1] for g in gold],
                "n_gold": len(gold),
            }
        )
    write_jsonl(out / "documents" / "test.jsonl", plain_rows)
    write_jsonl(out / "documents_coref" / "test.jsonl", coref_rows)
    write_jsonl(out / "queries" / "test.jsonl", queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE.parent, help="dataset directory")
    build(parser.parse_args().out)


if __name__ == "__main__":
    main()
