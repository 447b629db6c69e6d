"""Retrieval through the command line behaves as function calling and QA do: `retrieve`
refuses another run's directory as `score` does, and never leaves a new run beside the
scores of another; a missing run directory, two runs on different gold and the warnings
of a score are said as the other tasks say them; each help says what the option does
for its command; `retrieve --json` prints run.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, config

from tests.messages import unfold
from tests.retrieval_fixtures import sample_beir
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.run.runner import run_eval

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"
QASPER = ("--data", "builtin:qasper-rag")


def invoke(*args: str | Path, code: int = 0) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def retrieve(out: Path, cache: Path, *extra: str, code: int = 0) -> Any:
    return invoke("retrieve", *QASPER, "--out", out, "--cache-dir", cache, *extra, code=code)


def contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def fc_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real function-calling run directory (run.json, outputs.jsonl, scores)."""
    out = tmp_path_factory.mktemp("fc")
    with FakeServer(FakeConfig(load_dataset(DATA))) as server:
        result = run_eval(config(server, out))
    assert (result.run_dir / "run.json").is_file()
    assert (result.run_dir / "outputs.jsonl").is_file()
    return result.run_dir


def test_retrieve_refuses_a_model_runs_directory(fc_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "cp_fc"
    shutil.copytree(fc_run, copy)
    before = contents(copy)
    result = retrieve(copy, tmp_path / "cache", code=2)
    assert unfold(result.stderr) == (
        f"error: {copy} holds a run (run.json) that retrieve did not write: run.trec "
        "and run.json would overwrite or mix with it; give another --out"
    )
    assert contents(copy) == before
    # `score` refuses the same directory for a retrieval run's scores.
    own = retrieve(tmp_path / "rt", tmp_path / "cache")
    assert own.exit_code == 0
    result = invoke("score", tmp_path / "rt" / "run.trec", *QASPER, "--out", copy, code=2)
    assert "holds a run (run.json)" in unfold(result.stderr)
    assert contents(copy) == before


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("outputs.jsonl", "outputs.jsonl"),
        ("run.trec", "run.trec with no run.json beside it"),
        ("run.json", "run.json"),
    ],
)
def test_retrieve_refuses_a_file_of_another_run(tmp_path: Path, name: str, what: str) -> None:
    out = tmp_path / "d"
    out.mkdir()
    (out / name).write_text('{"model": "openai/m"}\n' if name != "run.trec" else "1 Q0 a 1 1 x\n")
    before = contents(out)
    result = retrieve(out, tmp_path / "cache", code=2)
    assert unfold(result.stderr).startswith(
        f"error: {out} holds a run ({what}) that retrieve did not write"
    )
    assert contents(out) == before


SCORED = "summary.json, scores.jsonl, report.md, report.html"


def test_scores_beside_the_run_are_kept_only_for_the_same_run(tmp_path: Path) -> None:
    rt, cache = tmp_path / "rt", tmp_path / "cache"
    retrieve(rt, cache)
    invoke("score", rt / "run.trec", *QASPER)
    scored = contents(rt)
    # The same run again: the scores are still true of it, and kept.
    again = retrieve(rt, cache)
    assert unfold(again.stderr).endswith(
        f"note: kept in {rt}: {SCORED}, the scores of this same run"
    )
    now = contents(rt)
    assert {n: b for n, b in now.items() if n != "run.json"} == {
        n: b for n, b in scored.items() if n != "run.json"
    }
    # Another run would sit beside scores of the first: refused before any work.
    result = retrieve(rt, cache, "--k", "5", code=2)
    assert unfold(result.stderr) == (
        f"error: {rt} holds the scores of another run ({SCORED}): its k was 100, now 5; "
        "give another --out, or move those files away first"
    )
    result = retrieve(rt, cache, "--split", "dev", code=2)
    assert "its split was 'test', now 'dev'" in unfold(result.stderr)
    assert contents(rt) == now
    # A run.trec changed since it was scored is no longer the run the scores are of.
    run = rt / "run.trec"
    run.write_bytes(b"".join(run.read_bytes().splitlines(keepends=True)[:-1]))
    result = retrieve(rt, cache, code=2)
    assert f"({SCORED}): run.trec changed since it was scored;" in unfold(result.stderr)
    # Scored again as edited: the scores are of it, which retrieve would not write again.
    invoke("score", run, *QASPER)
    result = retrieve(rt, cache, code=2)
    assert "the new run.trec differs from the one scored;" in unfold(result.stderr)
    assert contents(rt)["run.trec"] == run.read_bytes()
    # Scores of the dataset's own run, with no run of retrieve's beside them.
    own = tmp_path / "own"
    invoke("score", "dataset", *QASPER, "--out", own)
    before = contents(own)
    result = retrieve(own, cache, code=2)
    assert "no run of retrieve's is beside them (run.json)" in unfold(result.stderr)
    assert contents(own) == before


def test_a_scored_run_trec_removed_is_made_again_and_its_scores_kept(tmp_path: Path) -> None:
    rt, cache = tmp_path / "rt", tmp_path / "cache"
    retrieve(rt, cache)
    invoke("score", rt / "run.trec", *QASPER)
    scored = contents(rt)
    (rt / "run.trec").unlink()
    again = retrieve(rt, cache)
    assert unfold(again.stderr).endswith("the scores of this same run")
    assert contents(rt)["run.trec"] == scored["run.trec"]
    # Made otherwise, it is not the run the scores are of: refused, nothing written.
    (rt / "run.trec").unlink()
    result = retrieve(rt, cache, "--k", "5", code=2)
    assert "its k was 100, now 5" in unfold(result.stderr)
    assert "run.trec" not in contents(rt)


def test_scores_whose_summary_names_no_digest_are_said_so(tmp_path: Path) -> None:
    rt, cache = tmp_path / "rt", tmp_path / "cache"
    retrieve(rt, cache)
    invoke("score", rt / "run.trec", *QASPER)
    summary = json.loads((rt / "summary.json").read_text())
    del summary["run"]["sha256"]
    (rt / "summary.json").write_text(json.dumps(summary))
    result = retrieve(rt, cache, code=2)
    assert f"({SCORED}): summary.json records no SHA-256 of the run it scored;" in unfold(
        result.stderr
    )


def test_a_retrieve_stopped_between_its_two_files_is_completed_by_a_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run.json is written first: stopped before run.trec, the directory is still
    retrieve's own, and the same command completes it."""
    import tfce_eval.retrieval.bm25 as bm25

    rt, cache = tmp_path / "rt", tmp_path / "cache"
    writes = bm25.write_text_atomic

    def stopped(path: Path, text: str) -> None:
        if path.name == "run.trec":
            raise KeyboardInterrupt
        writes(path, text)

    monkeypatch.setattr(bm25, "write_text_atomic", stopped)
    result = CliRunner().invoke(
        main, ["retrieve", *QASPER, "--out", str(rt), "--cache-dir", str(cache)]
    )
    assert result.exit_code != 0 and sorted(contents(rt)) == ["run.json"]
    monkeypatch.setattr(bm25, "write_text_atomic", writes)
    retrieve(rt, cache)
    assert sorted(contents(rt)) == ["run.json", "run.trec"]


def test_scores_are_not_kept_for_a_corpus_changed_since(tmp_path: Path) -> None:
    data, rt, cache = sample_beir(tmp_path / "beir"), tmp_path / "rt", tmp_path / "cache"
    args = ("--data", data, "--out", rt, "--cache-dir", cache)
    invoke("retrieve", *args)
    invoke("score", rt / "run.trec", "--data", data)
    corpus = data / "corpus.jsonl"
    corpus.write_text(corpus.read_text(encoding="utf-8").replace("a", "e"), encoding="utf-8")
    before = contents(rt)
    result = invoke("retrieve", *args, code=2)
    assert "the corpus changed since (its SHA-256 differs);" in unfold(result.stderr)
    assert contents(rt) == before


def test_a_run_directory_not_found_is_said_as_for_every_task(tmp_path: Path) -> None:
    rt = tmp_path / "rt"
    retrieve(rt, tmp_path / "cache")
    invoke("score", rt / "run.trec", *QASPER)
    nosuch = tmp_path / "nosuch"
    fc = invoke("report", nosuch, code=1)
    for args in ((rt, nosuch), (nosuch, rt)):
        result = invoke("report", *args, code=1)
        assert unfold(result.stderr).splitlines()[0] == f"error: {nosuch}: run directory not found"
        assert unfold(fc.stderr).splitlines()[0] == f"error: {nosuch}: run directory not found"


def graded_qrels(tmp_path: Path) -> Path:
    """The built-in QASPER-RAG's test judgements with the last one graded 2."""
    lines = []
    with (BUILTIN / "qasper-rag" / "qrels" / "test.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            lines.append(f"{row['query_id']} 0 {row['corpus_id']} {row['score']}")
    lines[-1] = lines[-1][:-1] + "2"
    path = tmp_path / "graded.qrels"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_runs_on_different_gold_are_shown_side_by_side_with_a_note(tmp_path: Path) -> None:
    runs = [str(tmp_path / name) for name in ("one", "graded", "two")]
    invoke("score", "dataset", *QASPER, "--out", runs[0])
    invoke("score", "dataset", *QASPER, "--qrels", graded_qrels(tmp_path), "--out", runs[1])
    invoke("score", "dataset", *QASPER, "--out", runs[2])
    two = invoke("report", runs[0], runs[1])
    text = unfold(two.stdout).replace("\n", " ")
    assert "No paired test: the runs were scored against different gold (qrels;" in text
    assert "p rand." not in text and "nDCG@10" in text
    data = json.loads(invoke("report", *runs[:2], "--format", "json").stdout)
    assert data["paired"]["rows"] == []
    assert data["paired"]["reason"].startswith("the runs were scored against different gold")
    assert data["side_by_side"]["rows"][0]["measure"] == "nDCG@10"
    three = " ".join(invoke("report", *runs).stdout.split())
    assert "The runs were scored against different gold (qrels; sha256 A, C " in three
    # Runs on the same gold: paired, and no such note.
    same = " ".join(invoke("report", runs[0], runs[2]).stdout.split())
    assert "p rand." in same and "different gold" not in same


def test_a_retrieval_score_warns_on_stderr_as_every_score(tmp_path: Path) -> None:
    rt = tmp_path / "rt"
    retrieve(rt, tmp_path / "cache")
    tie = "warning: 32 queries with tied scores (paper01-q1, paper01-q2,"
    for extra in ((), ("--json",)):
        result = invoke("score", rt / "run.trec", *QASPER, *extra)
        assert unfold(result.stderr).splitlines()[0].startswith(tie), result.stderr
        assert unfold(result.stderr).count("warning: ") == 1
    summary = json.loads((rt / "summary.json").read_text(encoding="utf-8"))
    assert summary["warnings"][0].startswith("32 queries with tied scores")
    assert "Warning: 32 queries with tied scores" in (rt / "report.md").read_text("utf-8")


def help_of(command: str, option: str) -> str:
    """An option's help, on one line."""
    text = invoke(command, "--help").stdout
    start = text.index(f"  {option} ")
    end = text.index("\n  -", start + 1)
    return " ".join(text[start:end].split()[2:])


def test_each_help_says_what_the_option_does_for_its_command() -> None:
    assert help_of("retrieve", "--split").startswith("The split whose queries are ranked")
    assert "Telco-Retrieve" not in help_of("retrieve", "--split")
    corpus = {c: help_of(c, "--corpus") for c in ("retrieve", "score", "validate")}
    assert corpus["retrieve"].startswith("Which corpus of a chunk-span dataset is ranked")
    assert corpus["score"].startswith("retrieval: which corpus of a chunk-span dataset the run")
    assert corpus["validate"].startswith("retrieval: which corpus of a chunk-span dataset is")
    for command, said in corpus.items():
        assert "--context" not in said, command


def test_retrieve_json_prints_run_json(tmp_path: Path) -> None:
    rt = tmp_path / "rt"
    result = retrieve(rt, tmp_path / "cache", "--json")
    printed = json.loads(result.stdout)
    assert printed == json.loads((rt / "run.json").read_text(encoding="utf-8"))
    assert printed["run"] == "run.trec" and printed["queries"] == 35
