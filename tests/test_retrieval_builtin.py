"""The built-in retrieval datasets: rebuilt from their sources, sound, and usable offline."""

from __future__ import annotations

import filecmp
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from tfce_eval.model import Level
from tfce_eval.retrieval import (
    Layout,
    dataset_run,
    detect_layout,
    load_retrieval,
    retrieve,
    score_run,
    validate_retrieval,
)

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"
QASPER = BUILTIN / "qasper-rag"
CQA = BUILTIN / "conditionalqa"
SCRIPTS = {
    QASPER: BUILTIN.parent.parent / "scripts" / "build_qasper_rag.py",
    CQA: BUILTIN.parent.parent / "scripts" / "build_conditionalqa.py",
}
PARTS = {
    QASPER: ["corpus", "queries", "qrels", "answers", "top_ranked", "retrieved_docs"],
    CQA: ["documents", "documents_coref", "queries"],
}


@pytest.mark.parametrize("root", [QASPER, CQA], ids=["qasper-rag", "conditionalqa"])
def test_the_shipped_files_are_what_the_sources_build(tmp_path: Path, root: Path) -> None:
    out = tmp_path / "built"
    subprocess.run(
        [sys.executable, str(SCRIPTS[root]), "--out", str(out)],
        check=True,
        cwd=BUILTIN.parent.parent,
    )
    for part in PARTS[root]:
        shipped = sorted(p.name for p in (root / part).iterdir())
        assert shipped == sorted(p.name for p in (out / part).iterdir()), part
        for name in shipped:
            assert filecmp.cmp(root / part / name, out / part / name, shallow=False), name


def test_qasper_rag_shape_and_gold() -> None:
    assert detect_layout(QASPER) is Layout.HF
    # Only warnings: the shipped BM25 results have tied scores.
    problems = validate_retrieval(QASPER)
    assert problems and {p.level for p in problems} == {Level.WARNING}
    assert all("tied scores" in p.message for p in problems)
    assert all(p.path and p.hint and p.hint.startswith("nothing to do") for p in problems)
    test = load_retrieval(QASPER)
    dev = load_retrieval(QASPER, split="dev")
    assert (len(test.queries), len(dev.queries)) == (35, 13)
    docs = {d.id: d for d in test.iter_corpus()}
    assert len(docs) == 201 and len({d.title for d in docs.values()}) == 16
    # Checked by hand: each gold chunk holds its question's answer.
    assert test.queries["paper01-q2"] == "How many arms does each cell's bandit have?"
    assert test.qrels["paper01-q2"] == {"paper01_p06": 1}
    assert "giving 35 arms in total" in docs["paper01_p06"].text
    assert test.answers["paper01-q2"] == "35"
    assert test.qrels["paper02-q1"] == {"paper02_abs": 1, "paper02_p03": 1}
    assert "1,200 base stations" in docs["paper02_abs"].text
    assert "1,200 base stations in four regions" in docs["paper02_p03"].text
    assert dev.qrels["paper16-q3"] == {"paper16_p06": 1}
    assert "random forest" in docs["paper16_p06"].text
    # Every query's candidate pool is its paper and holds its gold.
    for qid, pool in test.top_ranked.items():
        paper = qid.split("-")[0]
        assert all(c.startswith(paper + "_") for c in pool)
        assert set(test.qrels[qid]) <= set(pool)
    own = score_run(dataset_run(test), test, "R@10", None)
    assert own.summary["coverage"] == {"answered": 35, "total": 35}


def test_conditionalqa_shape_and_span_gold() -> None:
    assert detect_layout(CQA) is Layout.CHUNK_SPAN
    assert validate_retrieval(CQA) == []
    plain = load_retrieval(CQA)
    coref = load_retrieval(CQA, corpus="documents_coref")
    assert plain.qrels == coref.qrels and len(plain.queries) == 36
    chunks = {d.id: d for d in plain.iter_corpus()}
    resolved = {d.id: d for d in coref.iter_corpus()}
    assert len(chunks) == 159
    # Query 0, checked by hand: the speed, ownership and tenant rules of the grant page.
    assert plain.queries["0"].startswith("I rent a farmhouse")
    assert plain.qrels["0"] == {"rural-grant-5": 1, "rural-grant-6": 1, "rural-grant-7": 1}
    assert chunks["rural-grant-7"].text.startswith("Tenants can apply")
    assert "30 megabits" in chunks["rural-grant-5"].text
    # The coreference-resolved text differs, the offsets do not.
    assert chunks["rural-grant-2"].text.startswith("It pays up to 3,000 pounds")
    assert resolved["rural-grant-2"].text.startswith("The grant pays up to 3,000 pounds")
    assert (chunks["rural-grant-2"].start, chunks["rural-grant-2"].end) == (
        resolved["rural-grant-2"].start,
        resolved["rural-grant-2"].end,
    )
    # Passages tile each page: one "\n" between neighbours.
    by_page: dict[str, list[tuple[int, int]]] = {}
    for d in chunks.values():
        assert d.start is not None and d.end is not None and d.source_url is not None
        assert d.end - d.start == len(d.text)
        by_page.setdefault(d.source_url, []).append((d.start, d.end))
    for spans in by_page.values():
        spans.sort()
        assert spans[0][0] == 0
        assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))


@pytest.mark.parametrize(
    ("root", "corpus", "measures"),
    [
        (QASPER, None, None),
        (CQA, "documents_coref", "nDCG@10 R@10 SpanCov@10"),
    ],
    ids=["qasper-rag", "conditionalqa"],
)
def test_retrieve_then_score_on_a_fresh_machine(
    tmp_path: Path, root: Path, corpus: str | None, measures: str | None
) -> None:
    dataset = load_retrieval(root, corpus=corpus, name=f"builtin:{root.name}")
    result = retrieve(dataset, out_dir=tmp_path / "run", cache_dir=tmp_path / "cache")
    scored = score_run(result.run_path, dataset, measures, tmp_path / "scored")
    assert scored.summary["dataset"]["name"] == f"builtin:{root.name}"
    # BM25 finds most of the hand-written gold: the data make sense to a retriever.
    recall = scored.summary["measures"]["R@10"]["mean"]
    assert 0.6 < recall <= 1.0
