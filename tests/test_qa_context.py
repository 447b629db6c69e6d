"""A QA run's retrieved context, through the command line against the loopback server:
BM25's top k is trec_eval's top k when scores tie across the cut, questions BM25 finds
nothing for are asked without context (and so is --dump-request), and each retrieved
chunk keeps its score and its corpus's own source."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.fakeserver import FakeConfig, FakeServer, qa_items
from tests.messages import assert_folded
from tests.retrieval_fixtures import write_beir
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset

SPLIT = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"
TRUTH = qa_items(SPLIT / "set_24.json")
# "Which 5G core network function provides registration management, ... reachability ..."
FIRST = TRUTH[0]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer(FakeConfig(load_dataset(None), qa=TRUTH)) as running:
        yield running


def corpus(root: Path, docs: list[dict[str, Any]]) -> Path:
    """A BEIR corpus for --corpus (its one query and judgement are not used)."""
    return write_beir(
        root,
        corpus=docs,
        queries=[{"_id": "q", "text": "anything"}],
        qrels={"test": [("q", docs[0]["_id"], 1)]},
    )


def run(server: FakeServer, tmp_path: Path, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(
        main,
        [
            *("run", "--data", "builtin:telco-qna", "--model", "vllm/m", "--mode", "prompt"),
            *("--base-url", server.base_url, "--cache-dir", str(tmp_path / "cache")),
            *args,
        ],
    )
    assert result.exit_code == code, (result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def outputs(run_dir: Path) -> dict[str, dict[str, Any]]:
    text = (run_dir / "outputs.jsonl").read_text(encoding="utf-8")
    return {o["id"]: o for o in map(json.loads, text.splitlines())}


def trec(path: Path) -> list[tuple[str, str, float]]:
    return [
        (q, d, float(s)) for q, _, d, _, s, _ in (x.split() for x in path.read_text().splitlines())
    ]


def test_bm25_keeps_trec_evals_top_k_when_scores_tie_across_it(
    server: FakeServer, tmp_path: Path
) -> None:
    # Twelve chunks alike, so all twelve tie: trec_eval ranks ties by id, descending,
    # whatever their order in the file (bm25s's own cut keeps the last ones listed).
    docs = [
        {"_id": f"c{i:02d}", "title": "", "text": "reachability", "source": "TS 23.501"}
        for i in reversed(range(12))
    ]
    docs.append({"_id": "other", "title": "Unrelated", "text": "beam failure recovery"})
    data = corpus(tmp_path / "corpus", docs)
    args = ["--context", "bm25", "--k", "5", "--corpus", str(data), "--ids", FIRST.id]
    run(server, tmp_path, *args, "--out", str(tmp_path / "o"))
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = outputs(run_dir).values()
    expected = ["c11", "c10", "c09", "c08", "c07"]
    assert [c["chunk_id"] for c in output["retrieved"]] == expected
    # The BM25 run kept beside the outputs is the same top 5, with the same scores.
    written = trec(run_dir / "context" / "run.trec")
    assert [d for _, d, _ in written] == expected
    assert [c["score"] for c in output["retrieved"]] == [s for *_, s in written]
    assert all(c["score"] > 0 for c in output["retrieved"])
    # The chunks' source is the corpus's own `source` field.
    assert {c["source"] for c in output["retrieved"]} == {"TS 23.501"}
    # What the model was shown is those five chunks, best first.
    asked = server.log[0].body["messages"][-1]["content"]
    assert asked.count("reachability") >= 5


def test_bm25_that_finds_nothing_asks_without_context(server: FakeServer, tmp_path: Path) -> None:
    # No question word is in this corpus: BM25's run is empty.
    docs = [{"_id": "z1", "title": "", "text": "zyzzyva quokka"}]
    data = corpus(tmp_path / "corpus", docs)
    ids = [x for t in TRUTH[:2] for x in ("--ids", t.id)]
    result = run(
        server,
        tmp_path,
        "--context",
        "bm25",
        "--corpus",
        str(data),
        *ids,
        "--out",
        str(tmp_path / "o"),
    )
    assert_folded(result.output)
    (run_dir,) = list((tmp_path / "o").iterdir())
    got = outputs(run_dir)
    assert sorted(got) == sorted(t.id for t in TRUTH[:2])
    assert all(o["retrieved"] == [] and o["error"] is None for o in got.values())
    assert (run_dir / "context" / "run.trec").read_bytes() == b""
    meta = json.loads((run_dir / "context" / "run.json").read_text(encoding="utf-8"))
    assert meta["answered"] == 0 and meta["entries"] == 0
    assert (run_dir / "summary.json").is_file() and len(server.log) == 2
    # The request is the question alone, as --dump-request shows it too.
    dumped = run(
        server, tmp_path, "--context", "bm25", "--corpus", str(data), "--dump-request", FIRST.id
    ).output
    body = json.loads(dumped)["body"]
    sent = [r.body["messages"][-1]["content"] for r in server.log]
    assert body["messages"][-1]["content"] in sent
    assert FIRST.question in body["messages"][-1]["content"]
    assert "[1]" not in body["messages"][-1]["content"]


def test_a_run_files_scores_and_sources_are_recorded(server: FakeServer, tmp_path: Path) -> None:
    lines = (SPLIT / "corpus" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = (json.loads(x) for x in lines[:2])
    run_file = tmp_path / "ctx.trec"
    run_file.write_text(
        f"{FIRST.id} Q0 {second['_id']} 2 7.25 mine\n{FIRST.id} Q0 {first['_id']} 1 9.5 mine\n",
        encoding="utf-8",
    )
    run(
        server,
        tmp_path,
        "--context",
        f"run:{run_file}",
        "--ids",
        FIRST.id,
        "--out",
        str(tmp_path / "o"),
    )
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = outputs(run_dir).values()
    assert output["retrieved"] == [
        {"chunk_id": first["_id"], "source": first["source"], "score": 9.5},
        {"chunk_id": second["_id"], "source": second["source"], "score": 7.25},
    ]
    assert first["source"] != first["title"]  # the source field, not the title


def test_a_ranked_list_has_no_scores_and_a_title_is_the_source(
    server: FakeServer, tmp_path: Path
) -> None:
    docs = [
        {"_id": "a", "title": "TS 38.331: RRC", "text": "reachability"},
        {"_id": "b", "title": "TS 23.501: AMF", "text": "registration"},
    ]
    data = corpus(tmp_path / "corpus", docs)
    run_file = tmp_path / "ctx.jsonl"
    run_file.write_text(json.dumps({"qid": FIRST.id, "docids": ["b", "a"]}) + "\n")
    args = ["--context", f"run:{run_file}", "--corpus", str(data), "--ids", FIRST.id]
    run(server, tmp_path, *args, "--out", str(tmp_path / "o"))
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = outputs(run_dir).values()
    # Ranked lists give an order, not scores: none is made up.
    assert output["retrieved"] == [
        {"chunk_id": "b", "source": "TS 23.501: AMF", "score": None},
        {"chunk_id": "a", "source": "TS 38.331: RRC", "score": None},
    ]
