"""`tfce-eval run` on question-answering data, through the real SDKs, against the loopback
server (which answers the built-in Telco-Retrieve split from its own reading of the file)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.fakeserver import FakeConfig, FakeServer, qa_items
from tests.messages import assert_folded, unfold
from tests.ports import dead_url
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset

SPLIT = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"
TRUTH = qa_items(SPLIT / "set_24.json")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def serve(**options: Any) -> FakeServer:
    return FakeServer(FakeConfig(load_dataset(None), qa=TRUTH, **options))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serve() as running:
        yield running


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(main, ["run", "--data", "builtin:telco-qna", *args])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def summary(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_every_answer_right_in_both_modes_and_apis(
    server: FakeServer, tmp_path: Path, mode: str, api: str
) -> None:
    model = "vllm/qa-model" if api == "openai" else "anthropic/claude-test"
    url = server.base_url if api == "openai" else server.root_url
    out = run("--model", model, "--base-url", url, "--mode", mode, "--out", str(tmp_path)).output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert run_dir.name.endswith(f"-{mode}-qa-none")
    result = summary(run_dir)
    assert result["task"] == "qa"
    assert result["answer_types"]["mc"]["accuracy"] == 1.0
    assert result["answer_types"]["tf"]["accuracy"] == 1.0
    assert result["answer_types"]["open"]["exact_match"] == 1.0
    assert "mc" in out and (run_dir / "report.md").is_file() and (run_dir / "report.html").is_file()
    outputs = lines(run_dir / "outputs.jsonl")
    assert len(outputs) == len(TRUTH)
    first = server.log[0].body
    if mode == "fc":
        assert all(o["answer"] is not None for o in outputs)
        tools = first["tools"]
        assert len(tools) == 1
        choice = first["tool_choice"]
        assert choice in (
            {"type": "function", "function": {"name": "answer"}},
            {"type": "tool", "name": "answer"},
        )
    else:
        assert "tools" not in first
        assert all("ANSWER:" in o["response"] for o in outputs)


def test_bm25_context_records_chunks_and_canonical_hits(server: FakeServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    printed = run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--context",
        "bm25",
        "--k",
        "3",
        "--cache-dir",
        str(cache),
        "--out",
        str(tmp_path / "r"),
    )
    (run_dir,) = list((tmp_path / "r").iterdir())
    outputs = lines(run_dir / "outputs.jsonl")
    assert all(o["context"] == "bm25" and len(o["retrieved"]) == 3 for o in outputs)
    body = server.log[0].body["messages"][-1]["content"]
    assert "[1]" in body and "[3]" in body
    hit = summary(run_dir)["canonical_hit"]
    assert hit["k"] == 3 and 0.5 <= hit["rate"] <= 1.0
    assert (run_dir / "context" / "run.trec").is_file()
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["task"] == "qa" and meta["request_options"]["context"] == "bm25"
    # The corpus is named as the user named the dataset, and every line fits 80 columns.
    assert "note: context: bm25, top 3 chunks of builtin:telco-qna/corpus" in printed.output
    assert_folded(printed.output)


def test_gold_context_shows_the_source_passage(server: FakeServer, tmp_path: Path) -> None:
    run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--context",
        "gold",
        "--out",
        str(tmp_path),
        "--ids",
        TRUTH[0].id,
    )
    split = json.loads((SPLIT / "set_24.json").read_text(encoding="utf-8"))
    source = next(q for q in split["questions"] if q["question_id"] == TRUTH[0].id)
    assert source["source_text"].strip() in server.log[0].body["messages"][-1]["content"]


def test_a_run_file_gives_the_context(server: FakeServer, tmp_path: Path) -> None:
    first = TRUTH[0].id
    run_file = tmp_path / "ctx.trec"
    chunk = json.loads((SPLIT / "corpus" / "corpus.jsonl").read_text().splitlines()[0])["_id"]
    run_file.write_text(f"{first} Q0 {chunk} 1 9.5 mine\n", encoding="utf-8")
    run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--context",
        f"run:{run_file}",
        "--ids",
        first,
        "--out",
        str(tmp_path / "o"),
    )
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = lines(run_dir / "outputs.jsonl")
    assert [c["chunk_id"] for c in output["retrieved"]] == [chunk]


def _context_run(tmp_path: Path, text: str, *ids: str, code: int = 0) -> Any:
    run_file = tmp_path / "ctx.trec"
    run_file.write_text(text, encoding="utf-8")
    return CliRunner().invoke(
        main,
        ["run", "--data", "builtin:telco-qna", "--model", "vllm/m"]
        + ["--base-url", dead_url(), "--context", f"run:{run_file}"]
        + [x for i in ids for x in ("--ids", i)]
        + ["--out", str(tmp_path / "o")],
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "the run is empty"),
        ("other_question Q0 some_chunk 1 9.5 mine\n", "ranks none of the 2 questions"),
    ],
)
def test_a_run_file_that_gives_no_context_stops_before_anything_is_written(
    tmp_path: Path, text: str, said: str
) -> None:
    # Port 9 (discard): nothing may be sent, and nothing may be written, not even run.json.
    result = _context_run(tmp_path, text, TRUTH[0].id, TRUTH[1].id)
    assert result.exit_code in (1, 2), result.output
    assert said in unfold(result.output)
    assert "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_questions_a_run_file_does_not_rank_are_named(server: FakeServer, tmp_path: Path) -> None:
    first, second = TRUTH[0].id, TRUTH[1].id
    chunk = json.loads((SPLIT / "corpus" / "corpus.jsonl").read_text().splitlines()[0])["_id"]
    (tmp_path / "ctx.trec").write_text(f"{first} Q0 {chunk} 1 9.5 mine\n", encoding="utf-8")
    result = run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--context",
        f"run:{tmp_path / 'ctx.trec'}",
        "--ids",
        first,
        "--ids",
        second,
        "--out",
        str(tmp_path / "o"),
    )
    said = unfold(result.output)
    assert f"ranks nothing for 1 of 2 questions ({second})" in said
    (run_dir,) = list((tmp_path / "o").iterdir())
    outputs = {o["id"]: o for o in lines(run_dir / "outputs.jsonl")}
    assert [c["chunk_id"] for c in outputs[first]["retrieved"]] == [chunk]
    assert outputs[second]["retrieved"] == []


def test_a_changed_context_on_resume_is_refused(server: FakeServer, tmp_path: Path) -> None:
    args = [
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--out",
        str(tmp_path),
        "--run-name",
        "r",
        "--ids",
        TRUTH[0].id,
    ]
    run(*args)
    out = run(*args, "--context", "gold", code=2).output
    assert "context" in out


def test_request_errors_are_asked_again_on_resume(tmp_path: Path) -> None:
    target = TRUTH[1].id
    with serve(faults={target: ["500"]}) as server:
        args = [
            "--model",
            "vllm/m",
            "--base-url",
            server.base_url,
            "--out",
            str(tmp_path),
            "--run-name",
            "r",
            "--max-retries",
            "0",
        ]
        first = run(*args).output
        assert "request_error" in first
        result = summary(tmp_path / "r")
        assert (
            sum(t["request_errors"] for k, t in result["answer_types"].items() if k != "open")
            + result["answer_types"]["open"].get("request_errors", 0)
            >= 1
        )
        again = run(*args).output
        assert "asked now" in again
        asked = [e.item_id for e in server.log if e.item_id == target]
        assert len(asked) == 2
    final = summary(tmp_path / "r")
    assert final["answer_types"]["mc"]["accuracy"] == 1.0


def test_the_judge_grades_open_answers_once(tmp_path: Path) -> None:
    with serve(judge_grade="P") as server:
        args = [
            "--model",
            "vllm/m",
            "--base-url",
            server.base_url,
            "--out",
            str(tmp_path),
            "--run-name",
            "r",
            "--judge",
            "vllm/judge",
            "--judge-base-url",
            server.base_url,
        ]
        run(*args)
        judged = [e for e in server.log if e.fault == "judge"]
        opened = sum(1 for t in TRUTH if t.answer_type == "open")
        assert len(judged) == opened
        block = summary(tmp_path / "r")["answer_types"]["open"]
        assert block["mean"] == 0.5 and block["judge"] == "vllm/judge"
        run(*args)  # everything answered: scored again from the cached verdicts
        assert len([e for e in server.log if e.fault == "judge"]) == opened


def test_the_model_may_not_judge_itself(server: FakeServer, tmp_path: Path) -> None:
    out = run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--judge",
        "vllm/m",
        "--out",
        str(tmp_path),
        code=2,
    ).output
    assert "--allow-self-judge" in out
    assert not server.log


def test_dump_request_sends_nothing(server: FakeServer, tmp_path: Path) -> None:
    out = run(
        "--model",
        "vllm/m",
        "--base-url",
        server.base_url,
        "--dump-request",
        TRUTH[0].id,
        "--out",
        str(tmp_path),
    ).output
    body = json.loads(out)["body"]
    assert body["tools"][0]["function"]["name"] == "answer"
    assert not server.log


def test_rag_lift_between_a_closed_book_and_a_rag_run(tmp_path: Path) -> None:
    wrong = frozenset(t.id for t in TRUTH[::2] if t.answer_type != "open")
    with serve(qa_wrong=wrong) as closed_server:
        run(
            "--model",
            "vllm/m",
            "--base-url",
            closed_server.base_url,
            "--out",
            str(tmp_path),
            "--run-name",
            "closed",
        )
    with serve() as rag_server:
        run(
            "--model",
            "vllm/m",
            "--base-url",
            rag_server.base_url,
            "--out",
            str(tmp_path),
            "--run-name",
            "rag",
            "--context",
            "gold",
        )
    out = CliRunner().invoke(
        main, ["report", str(tmp_path / "closed"), str(tmp_path / "rag"), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    rows = {r["category"]: r for r in json.loads(out.output)["paired"]["rows"]}
    assert rows["mc"]["only_b"] + rows["tf"]["only_b"] == len(wrong)
    assert rows["mc"]["only_a"] == 0 and rows["mc"]["p_value"] <= 1.0


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_doctor_checks_the_forced_tool_and_the_answer_line(server: FakeServer, api: str) -> None:
    model = "vllm/m" if api == "openai" else "anthropic/claude-test"
    url = server.base_url if api == "openai" else server.root_url
    result = CliRunner().invoke(
        main, ["doctor", "--model", model, "--base-url", url, "--data", "builtin:telco-qna"]
    )
    assert result.exit_code == 0, result.output
    assert "forced `answer` tool was called" in result.output
    assert "ANSWER: line was read" in result.output
    assert "fc mode: the answer is right" in result.output
    assert len(server.log) == 2
    forced, prompted = (entry.body for entry in server.log)
    assert "tools" in forced and "tools" not in prompted


def test_doctor_says_when_the_server_ignores_the_forced_tool() -> None:
    with serve(always=("qa_text",)) as server:
        result = CliRunner().invoke(
            main,
            [
                "doctor",
                "--model",
                "vllm/m",
                "--base-url",
                server.base_url,
                "--data",
                "builtin:telco-qna",
            ],
        )
    assert result.exit_code == 1, result.output
    assert "PROBLEM  fc mode: no `answer` tool call came back" in result.output
    assert "ANSWER: line was read" in result.output  # prompt mode still works
    assert "Traceback" not in result.output


def test_doctor_names_the_mode_of_each_failed_request() -> None:
    with serve(schedule=lambda n: "500") as server:
        args = ["--model", "vllm/m", "--base-url", server.base_url]
        result = CliRunner().invoke(main, ["doctor", *args, "--data", "builtin:telco-qna"])
    assert result.exit_code == 1, result.output
    said = unfold(result.output)
    assert "PROBLEM  fc mode: the request failed: HTTP 500" in said
    assert "PROBLEM  prompt mode: the request failed: HTTP 500" in said
    assert "fix: the server failed this request: try again" in said


@pytest.mark.parametrize("select", [("--limit", "3"), ("--ids", "")])
def test_only_the_selected_items_are_scored(
    server: FakeServer, tmp_path: Path, select: tuple[str, str]
) -> None:
    """Items a run never asks (outside --limit or --ids) are neither missing answers nor
    request errors: the scores, the summary and run.json's counts cover the asked ones."""
    flag, value = select
    value = value or f"{TRUTH[0].id},{TRUTH[1].id}"
    printed = run(
        "--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path), flag, value
    )
    (run_dir,) = list(tmp_path.iterdir())
    asked = len(lines(run_dir / "outputs.jsonl"))
    assert asked == (9 if flag == "--limit" else 2)  # --limit: N per answer type
    assert len(lines(run_dir / "scores.jsonl")) == asked
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["counts"] == {"items": asked, "answered": asked, "request_errors": 0}
    assert summary(run_dir)["missing"] == 0
    assert "no output" not in printed.output


def test_a_builtin_dataset_is_recorded_by_name_not_install_path(tmp_path: Path) -> None:
    # An upgrade or another environment moves the package: a report must still find it.
    item = next(q for q in TRUTH if q.answer_type == "mc")
    with serve(qa_wrong=frozenset({item.id})) as server:
        run("--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path / "o"))
    (run_dir,) = list((tmp_path / "o").iterdir())
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["dataset"]["path"] == "builtin:telco-qna"
    assert summary(run_dir)["dataset"]["path"] == "builtin:telco-qna/set_24.json"
    shown = CliRunner().invoke(main, ["report", str(run_dir), "--failures", "1", "--format", "md"])
    assert shown.exit_code == 0, shown.output
    assert f"| {item.id} | question | {item.question.splitlines()[0][:40]}" in shown.output


def test_sigterm_while_the_context_is_built_exits_143_said_as_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal
    import time

    import tfce_eval.run.qa_run as qa_run

    def terminated(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)  # `kill`, `timeout`, Slurm: BM25 still indexing
        time.sleep(5)
        raise AssertionError("SIGTERM was not heard")

    monkeypatch.setattr(qa_run, "build_requests", terminated)
    result = CliRunner().invoke(
        main,
        [
            *("run", "--data", "builtin:telco-qna", "--model", "vllm/m"),
            *("--base-url", dead_url(), "--context", "bm25", "--out", str(tmp_path)),
        ],
    )
    assert result.exit_code == 143, result.output
    assert result.output.startswith("interrupted: stopped by SIGTERM")


def test_a_resumed_bm25_run_keeps_the_context_of_every_question(tmp_path: Path) -> None:
    target = TRUTH[1].id
    with serve(faults={target: ["500"]}) as server:
        args = ["--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path)]
        args += ["--run-name", "r", "--max-retries", "0", "--context", "bm25"]
        run(*args)
        first = (tmp_path / "r" / "context" / "run.trec").read_text(encoding="utf-8")
        again = run(*args).output
        assert "asked now" in again
    # Only the failed question was asked again, but the kept run still ranks them all.
    kept = (tmp_path / "r" / "context" / "run.trec").read_text(encoding="utf-8")
    assert kept == first
    assert {line.split()[0] for line in kept.splitlines()} == {t.id for t in TRUTH}
    # The corpus digest of the run's identity is the one the retriever records.
    meta = json.loads((tmp_path / "r" / "run.json").read_text(encoding="utf-8"))
    context = json.loads((tmp_path / "r" / "context" / "run.json").read_text(encoding="utf-8"))
    assert meta["request_options"]["corpus_sha256"] == context["corpus_sha256"]


@pytest.mark.parametrize("changed", ["corpus", "run file"])
def test_a_resume_on_other_passages_is_refused(
    server: FakeServer, tmp_path: Path, changed: str
) -> None:
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(SPLIT / "corpus", corpus)
    first = TRUTH[0].id
    chunk = json.loads((corpus / "corpus.jsonl").read_text().splitlines()[0])["_id"]
    run_file = tmp_path / "ctx.trec"
    run_file.write_text(f"{first} Q0 {chunk} 1 9.5 mine\n", encoding="utf-8")
    args = ["--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path / "o")]
    args += ["--run-name", "r", "--ids", first, "--corpus", str(corpus)]
    args += ["--context", f"run:{run_file}"]
    run(*args)
    if changed == "corpus":  # the same chunk ids, other texts: other passages shown
        lines = (corpus / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
        edited = [json.dumps({**json.loads(x), "text": "other words"}) for x in lines]
        (corpus / "corpus.jsonl").write_text("\n".join(edited) + "\n", encoding="utf-8")
        said = "corpus_sha256"
    else:
        run_file.write_text(f"{first} Q0 {chunk} 1 1.5 mine\n", encoding="utf-8")
        said = "run_sha256"
    refused = unfold(run(*args, code=2).output)
    assert "holds a different run" in refused and f"the context's {changed}, {said}" in refused


def test_a_run_recorded_before_its_context_digests_resumes(
    server: FakeServer, tmp_path: Path
) -> None:
    first, second = TRUTH[0].id, TRUTH[1].id
    chunk = json.loads((SPLIT / "corpus" / "corpus.jsonl").read_text().splitlines()[0])["_id"]
    run_file = tmp_path / "ctx.trec"
    run_file.write_text(f"{first} Q0 {chunk} 1 9.5 mine\n", encoding="utf-8")
    args = ["--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path / "o")]
    args += ["--run-name", "r", "--ids", first, "--ids", second, "--context", f"run:{run_file}"]
    run(*args)
    run_dir = tmp_path / "o" / "r"
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    for key in ("corpus_sha256", "run_sha256"):  # as a run.json of an earlier version
        del meta["request_options"][key]
    (run_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    kept = (run_dir / "outputs.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (run_dir / "outputs.jsonl").write_text(kept[0], encoding="utf-8")
    assert "1 asked now" in unfold(run(*args).output)


def test_a_corpus_with_several_query_splits_needs_no_split(
    server: FakeServer, tmp_path: Path
) -> None:
    # Only a corpus's chunks are read: its query splits (dev, train, no test) ask nothing
    # of the user, whose --split names the QA dataset's split.
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(SPLIT / "corpus", corpus)
    (qrels,) = (corpus / "qrels").iterdir()
    qrels.rename(corpus / "qrels" / "dev.tsv")
    shutil.copy(corpus / "qrels" / "dev.tsv", corpus / "qrels" / "train.tsv")
    first = TRUTH[0].id
    args = ["--model", "vllm/m", "--base-url", server.base_url, "--ids", first]
    run(*args, "--context", "bm25", "--corpus", str(corpus), "--out", str(tmp_path / "o"))
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = lines(run_dir / "outputs.jsonl")
    assert len(output["retrieved"]) == 5


def test_the_corpus_a_note_names_is_a_corpus_to_give(server: FakeServer, tmp_path: Path) -> None:
    # The note says `top 5 chunks of builtin:telco-qna/corpus`: given back as --corpus,
    # it is that folder (it was refused as "a built-in qa dataset, not a retrieval one").
    first = TRUTH[0].id
    args = ["--model", "vllm/m", "--base-url", server.base_url, "--ids", first]
    args += ["--context", "bm25", "--corpus", "builtin:telco-qna/corpus"]
    printed = run(*args, "--out", str(tmp_path / "o")).output
    assert "top 5 chunks of builtin:telco-qna/corpus" in unfold(printed)
    (run_dir,) = list((tmp_path / "o").iterdir())
    (output,) = lines(run_dir / "outputs.jsonl")
    assert len(output["retrieved"]) == 5


def test_a_qa_run_with_json_writes_its_reports_too(server: FakeServer, tmp_path: Path) -> None:
    """--json changes what is printed, not what is written: report.md and report.html
    are in the run directory, as for a function-calling run."""
    out = run(
        "--model", "vllm/qa-model", "--base-url", server.base_url, "--out", str(tmp_path), "--json"
    )
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert json.loads(out.stdout)["task"] == "qa"
    assert (run_dir / "report.md").is_file() and (run_dir / "report.html").is_file()
    assert (run_dir / "report.md").read_text(encoding="utf-8").startswith("# QA report: ")


def test_one_item_is_counted_as_one_item(server: FakeServer, tmp_path: Path) -> None:
    first = TRUTH[0].id
    out = run("--model", "vllm/qa-model", "--base-url", server.base_url, "--out", str(tmp_path))
    assert f"\n{len(TRUTH)} items\nwritten: " in out.stdout
    one = tmp_path / "one"
    said = run(
        "--model", "vllm/qa-model", "--base-url", server.base_url, "--ids", first, "--out", str(one)
    )
    assert "\n1 item\nwritten: " in said.stdout


def test_a_programs_qa_run_writes_its_reports_while_the_directory_is_its_own(
    server: FakeServer, tmp_path: Path
) -> None:
    """run_model writes a QA run's reports before the run lets its directory go: no
    score can come between the run's scores and its reports."""
    from tfce_eval.errors import RunError
    from tfce_eval.run import RunConfig, run_eval
    from tfce_eval.scoring.lock import RunLock
    from tfce_eval.verbs.run import run_model

    config = RunConfig(
        model="vllm/qa-model", base_url=server.base_url, data="builtin:telco-qna", out=tmp_path
    )
    ran = run_model(config)
    assert ran.document is not None and ran.result.score.summary["task"] == "qa"
    written = (ran.result.run_dir / "report.md").read_text(encoding="utf-8")
    from tfce_eval.report.document import render_document_markdown

    assert written == render_document_markdown(ran.document)
    held: list[str] = []

    def try_to_score_meanwhile(run_dir: Path) -> None:
        with pytest.raises(RunError, match="in use by another run") as caught:
            RunLock(run_dir, "score").acquire()
        held.append(str(caught.value))

    forced = RunConfig(
        model="vllm/qa-model",
        base_url=server.base_url,
        data="builtin:telco-qna",
        out=tmp_path,
        force=True,
    )
    run_eval(forced, write_qa_reports=try_to_score_meanwhile)
    assert len(held) == 1


def test_run_model_awaited_in_a_running_loop_writes_the_same_reports(
    server: FakeServer, tmp_path: Path
) -> None:
    import asyncio

    from tfce_eval.errors import UsageError
    from tfce_eval.run import RunConfig
    from tfce_eval.verbs import run_model, run_model_async

    config = RunConfig(
        model="vllm/qa-model", base_url=server.base_url, data="builtin:telco-qna", out=tmp_path
    )

    async def in_a_notebook() -> Any:
        with pytest.raises(UsageError, match=r"await run_model_async"):
            run_model(config)
        return await run_model_async(config)

    ran = asyncio.run(in_a_notebook())
    assert ran.document is not None
    report = (ran.result.run_dir / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# QA report: ")


def test_a_qa_runs_own_outputs_scored_again_keep_the_runs_summary_and_report(
    server: FakeServer, tmp_path: Path
) -> None:
    args = ["--model", "vllm/m", "--base-url", server.base_url, "--context", "bm25"]
    run(*args, "--k", "2", "--cache-dir", str(tmp_path / "c"), "--out", str(tmp_path / "r"))
    (run_dir,) = list((tmp_path / "r").iterdir())
    before = summary(run_dir)
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert before["run"] == {
        "provider": "vllm",
        "model": "m",
        "mode": "fc",
        "context": "bm25",
        "k": 2,
        "run_file": None,
    }
    # The report says what it is of, as function calling's does.
    digest = before["dataset"]["sha256"][:12]
    about = f"- {run_dir.name}: model vllm/m; mode fc; context bm25, top 2; dataset "
    about += f"builtin:telco-qna/set_24.json (sha256 {digest}); started "
    assert report.splitlines()[2].startswith(about), report
    argv = ["score", str(run_dir / "outputs.jsonl"), "--data", "builtin:telco-qna"]
    scored = CliRunner().invoke(main, argv)  # no --k: the run's own
    assert scored.exit_code == 0, scored.output
    assert "warning" not in scored.output
    after = summary(run_dir)
    assert after["run"] == before["run"] and after["overall"] == before["overall"]
    assert (run_dir / "report.md").read_text(encoding="utf-8") == report
    # A deeper cut-off than the run's is not measured: the score says so and uses 2.
    deeper = CliRunner().invoke(main, [*argv, "--k", "4"])
    assert deeper.exit_code == 0, deeper.output
    said = " ".join(deeper.stderr.split())
    assert "warning: the canonical hit rate is at k=2, not 4: the run's lines hold" in said
    assert summary(run_dir)["canonical_hit"]["k"] == 2


def test_the_lift_table_holds_paired_figures_only(tmp_path: Path) -> None:
    """A run over fewer items than the other: an answer type whose items differ is left
    out of the lift table (its note says why), and each row's accuracies are over the
    items both runs answered, as its test is."""
    wrong = frozenset(t.id for t in TRUTH if t.answer_type == "tf")
    mc = [t.id for t in TRUTH if t.answer_type == "mc"]
    fewer = [t.id for t in TRUTH if t.answer_type != "mc"] + mc[:1]
    with serve(qa_wrong=wrong) as server:
        common = ["--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path)]
        run(*common, "--run-name", "all")
    with serve() as server:
        common = ["--model", "vllm/m", "--base-url", server.base_url, "--out", str(tmp_path)]
        run(*common, "--run-name", "some", "--ids", ",".join(fewer))
    argv = ["report", str(tmp_path / "all"), str(tmp_path / "some"), "--format", "md"]
    shown = CliRunner().invoke(main, argv)
    assert shown.exit_code == 0, shown.output
    lift = shown.output.split("## RAG lift: B against A")[1].split("##")[0]
    rows = [line for line in lift.splitlines() if line.startswith("| ") and "---" not in line]
    kinds = [row.split("|")[1].strip() for row in rows[1:]]
    assert "mc" not in kinds and "tf" in kinds, lift
    assert "mc+tf" not in kinds  # tf alone is no pooled row
    (tf,) = [row for row in rows if row.startswith("| tf |")]
    n = sum(1 for t in TRUTH if t.answer_type == "tf")
    assert tf.startswith(f"| tf | {n} | 0.000 | 1.000 | 1.000 |"), tf
    assert "mc: " in shown.output  # the note says why mc is not paired
