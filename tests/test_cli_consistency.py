"""The verbs agree with each other: what one refuses another does not pass, one refusal
has one exit code and a fix, help says what an option does for every task, and reports of
the tasks show the same things (one note where no paired test can be made, counts per
run)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.fakeserver import FakeConfig, FakeServer, qa_items
from tests.gt_outputs import write_perfect_outputs
from tests.messages import unfold
from tests.ports import dead_url
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"
TELCO = BUILTIN / "telco-qna" / "set_24.json"
DEAD_URL = dead_url()  # nothing listens: a refusal must come before a request


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def invoke(*args: object, code: int = 0) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """A server answering the built-in QA split's questions."""
    with FakeServer(FakeConfig(load_dataset(None), qa=qa_items(TELCO))) as running:
        yield running


@pytest.fixture
def fc_server() -> Iterator[FakeServer]:
    """A server answering the built-in function-calling items."""
    with FakeServer(FakeConfig(load_dataset(None))) as running:
        yield running


# -- 1. validate says what run and doctor say of a retrieval dataset without answers -----


def test_validate_as_qa_refuses_a_retrieval_dataset_without_answers(tmp_path: Path) -> None:
    copy = tmp_path / "cqa"
    shutil.copytree(BUILTIN / "conditionalqa", copy)
    for data in ("builtin:conditionalqa", copy):
        out = invoke("validate", "--data", data, "--task", "qa", code=1).output
        said = unfold(out)
        shown = "builtin:conditionalqa" if data == "builtin:conditionalqa" else str(copy)
        assert said.splitlines()[0] == (
            f"error: {shown}: a retrieval dataset without answers, nothing to ask a model: "
            "no qa dataset"
        )
        assert "  fix: validate it as retrieval (leave out --task qa)" in said
        assert words(out).endswith(f"qa dataset {shown}: 1 error, 0 warnings")
    # As a retrieval dataset it is sound; run and doctor give the same reason.
    invoke("validate", "--data", "builtin:conditionalqa")
    for verb in ("run", "doctor"):
        out = invoke(verb, "--data", "builtin:conditionalqa", "--model", "openai/m", code=2)
        assert "a retrieval dataset without answers, nothing to ask a model" in words(out.output)


# -- 7c. a built-in dataset of another task is named so, whatever the verb ----------------


@pytest.mark.parametrize(
    ("name", "task", "what"),
    [
        ("qasper-rag", "an fc", "retrieval"),
        ("conditionalqa", "an fc", "retrieval"),
        ("telco-qna", "an fc", "question answering"),
        ("telco-qna", "a retrieval", "question answering"),
        ("tfce", "a qa", "function calling"),
    ],
)
def test_validate_names_a_builtin_of_another_task(name: str, task: str, what: str) -> None:
    option = task.split()[1]
    said = unfold(invoke("validate", "--data", f"builtin:{name}", "--task", option, code=1).output)
    assert said.splitlines()[0] == f"error: builtin:{name}: not {task} dataset (it is for {what})"
    assert said.splitlines()[1].startswith(f"  fix: point --data at {task} dataset: builtin:")
    assert "no question files found" not in said and "(default: builtin:tfce)" not in said


# -- 7a, 7b. fixes name what the verb takes, never a library call -------------------------


def test_a_fix_names_the_verbs_own_data_option(tmp_path: Path) -> None:
    # retrieve has no default --data, report none either: no "(default: builtin:tfce)".
    out = unfold(
        invoke("retrieve", "--data", "builtin:tfce", "--out", tmp_path / "r", code=1).output
    )
    assert "fix: point --data at a retrieval dataset: builtin:qasper-rag" in out
    assert "default" not in out
    scored = tmp_path / "scored"
    invoke("score", "dataset", "--data", "builtin:qasper-rag", "--out", scored)
    out = unfold(invoke("report", scored, "--data", "builtin:tfce", "--failures", 1, code=1).output)
    assert out == (
        "error: builtin:tfce: not a retrieval dataset (it is for function calling)\n"
        "  fix: point --data at a retrieval dataset: builtin:qasper-rag, "
        "builtin:conditionalqa or a directory (tfce-eval datasets lists them)"
    )
    # An fc run's failures from a QA dataset: the CLI's words, no library function.
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="calls")
    invoke("score", outputs, "--out", tmp_path / "fc")
    out = unfold(
        invoke(
            "report", tmp_path / "fc", "--data", "builtin:telco-qna", "--failures", 1, code=1
        ).output
    )
    assert out == (
        "error: builtin:telco-qna: not an fc dataset (it is for question answering)\n"
        "  fix: point --data at an fc dataset: builtin:tfce or a directory (tfce-eval "
        "datasets lists them)"
    )


# -- 2, 3. QA reports: one note where no test can be made; counts per run -----------------


def _predictions(path: Path, questions: list[dict[str, Any]], wrong_every: int) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i, q in enumerate(questions):
            answer = "x" if i % wrong_every == 0 else q["reference_answer"]
            out.write(json.dumps({"id": q["question_id"], "answer": answer}) + "\n")
    return path


@pytest.fixture
def qa_runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Three scored QA runs: two on the built-in split (24 questions), one on a copy of
    14 of its questions (another dataset)."""
    split = json.loads(TELCO.read_text(encoding="utf-8"))
    full = split["questions"]
    fewer = tmp_path / "fewer"
    fewer.mkdir()
    part = full[:10] + full[11:15]  # 10 mc, 4 tf
    (fewer / "set_24.json").write_text(json.dumps({**split, "questions": part}), "utf-8")
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    preds = _predictions(tmp_path / "a.jsonl", full, 3)
    invoke("score", preds, "--data", "builtin:telco-qna", "--out", a)
    invoke("score", _predictions(tmp_path / "b.jsonl", part, 2), "--data", fewer, "--out", b)
    preds = _predictions(tmp_path / "c.jsonl", full, 4)
    invoke("score", preds, "--data", "builtin:telco-qna", "--out", c)
    return a, b, c


def test_qa_runs_on_different_datasets_get_one_note_not_empty_tables(
    qa_runs: tuple[Path, Path, Path],
) -> None:
    a, b, _ = qa_runs
    out = invoke("report", a, b).output
    assert "RAG lift" not in out and "Paired items" not in out and "only A / only B" not in out
    assert words(out).count("No paired test") == 1
    assert "No paired test: the runs used different datasets" in words(out)
    md = invoke("report", a, b, "--format", "md").output
    assert "## Runs side by side" in md and "RAG lift" not in md and "Paired items" not in md
    assert json.loads(invoke("report", a, b, "--format", "json").output)["paired"]["rows"] == []


def test_qa_runs_side_by_side_show_how_many_items_each_had(
    qa_runs: tuple[Path, Path, Path],
) -> None:
    a, b, c = qa_runs
    out = invoke("report", a, b, c).output
    cells = (re.split(r"\s{2,}", line.strip()) for line in out.splitlines())
    rows = {row[0]: row[1:] for row in cells if len(row) == 4}
    assert rows["mc n"] == ["11", "10", "11"]
    assert rows["tf n"] == ["8", "4", "8"]
    assert rows["mc+tf n"] == ["19", "14", "19"]
    assert rows["open n"] == ["5", "-", "5"]
    csv_rows = [r for r in invoke("report", a, b, c, "--format", "csv").output.splitlines()]
    assert "runs,mc n,11,10,11" in csv_rows  # numbers, as fc's CSV has them
    # Two runs on the same items still get their paired tables, and the counts.
    two = invoke("report", a, c).output
    assert "RAG lift: B against A" in two and "Paired items (mc, tf)" in two
    assert re.search(r"^\s+mc n\s+11\s+11$", two, re.MULTILINE)


# -- 4. a QA run's summary records the outputs it scored ---------------------------------


def test_a_qa_runs_summary_records_its_outputs_digest(server: FakeServer, tmp_path: Path) -> None:
    args = ["run", "--data", "builtin:telco-qna", "--model", "vllm/m"]
    args += ["--base-url", server.base_url, "--out", tmp_path, "--run-name", "r", "--limit", 1]
    invoke(*args)
    run_dir = tmp_path / "r"
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    data = (run_dir / "outputs.jsonl").read_bytes()
    assert summary["outputs"] == {
        "path": str((run_dir / "outputs.jsonl").resolve()),
        "sha256": hashlib.sha256(data).hexdigest(),
        "lines": 3,  # one per answer type
    }
    assert summary["run"]["model"] == "m"
    # What docs/qa.md says the summary holds.
    doc = words((Path(__file__).parent.parent / "docs" / "qa.md").read_text(encoding="utf-8"))
    assert "`outputs` (a run's outputs.jsonl" in doc


# -- 5. run has no --qrels (it was refused for every dataset) -----------------------------


def test_run_has_no_qrels_option(tmp_path: Path) -> None:
    assert "--qrels" not in invoke("run", "--help").output
    qrels = tmp_path / "q.qrels"
    qrels.write_text("paper01-q1 0 x 1\n", encoding="utf-8")
    out = invoke(
        "run", "--data", "builtin:qasper-rag", "--qrels", qrels, "--model", "openai/m", code=2
    ).output
    assert "No such option '--qrels'" in out
    for doc in ("qa.md", "retrieval.md"):
        text = (Path(__file__).parent.parent / "docs" / doc).read_text(encoding="utf-8")
        assert not re.search(r"run [^\n`]*--qrels", text)


# -- 6. a run directory that holds another run: the task first, exit 2 like score's -------


def test_a_run_of_another_task_is_refused_by_its_task_alone(
    server: FakeServer, fc_server: FakeServer, tmp_path: Path
) -> None:
    fc = ["--model", "vllm/m", "--base-url", fc_server.base_url, "--out", tmp_path]
    invoke("run", *fc, "--run-name", "fc", "--limit", 1)
    base = ["--model", "vllm/m", "--base-url", server.base_url, "--out", tmp_path]
    out = invoke("run", *base, "--run-name", "fc", "--data", "builtin:telco-qna", code=2)
    said = unfold(out.output)
    assert said.splitlines() == [
        f"error: {tmp_path / 'fc'} holds a different run, so it cannot be resumed:",
        "  task: fc (saved) vs qa (now)",
        "  fix: run with --force to start over there, or choose another directory with "
        "--run-name or --out",
    ]
    # The other way round the same, and nothing of the options of either task.
    invoke("run", *base, "--run-name", "qa", "--data", "builtin:telco-qna", "--limit", 1)
    said = unfold(invoke("run", *fc, "--run-name", "qa", code=2).output)
    assert "  task: qa (saved) vs fc (now)" in said.splitlines()
    assert "--category" not in said and "context" not in said


def test_score_and_run_refuse_a_directory_of_another_run_alike(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "outputs.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
    base = ["--model", "openai/m", "--base-url", DEAD_URL, "--out", tmp_path]
    said = unfold(invoke("run", *base, "--run-name", "taken", code=2).output)
    assert "run.json does not, so it cannot be resumed" in said and "fix: " in said
    (taken / "run.json").write_text("{}", encoding="utf-8")
    preds = _predictions(tmp_path / "p.jsonl", json.loads(TELCO.read_text())["questions"], 2)
    said = invoke("score", preds, "--data", "builtin:telco-qna", "--out", taken, code=2).output
    assert "holds a run (run.json)" in words(said)


# -- 8. help says what each option does for every task ------------------------------------


def test_help_texts_cover_every_task() -> None:
    run_help = words(invoke("run", "--help").output)
    assert "--limit N At most N items per category (fc) or answer type (qa)" in run_help
    doctor = invoke("doctor", "--help").output
    description = words(doctor.split("Options:")[0])
    assert not description.startswith("Usage: tfce-eval doctor [OPTIONS] Send one parallel")
    assert "QA data" in description and "ANSWER: line" in description
    assert "--data DIR|builtin:NAME" in invoke("report", "--help").output


# -- 9. validate's last line: one form for every task -----------------------------------

SUMMARY = re.compile(
    r"^(fc|qa|retrieval) dataset (builtin:[a-z-]+): \d+ (items|questions|queries) "
    r"\([^()]+\): \d+ errors?, \d+ warnings?$"
)


@pytest.mark.parametrize(
    ("args", "task", "size"),
    [
        ((), "fc", "53 items (simple 16, multiple 10, parallel 10, parallel_multiple 12, "),
        (("--data", "builtin:telco-qna"), "qa", "24 questions (mc 11, tf 8, open 5)"),
        (("--data", "builtin:qasper-rag"), "retrieval", "48 queries (dev 13, test 35)"),
        (("--data", "builtin:qasper-rag", "--task", "qa"), "qa", "48 questions (dev 13, "),
        (("--data", "builtin:conditionalqa"), "retrieval", "36 queries (test 36)"),
    ],
)
def test_validate_ends_with_one_form_of_summary(
    args: tuple[str, ...], task: str, size: str
) -> None:
    out = invoke("validate", *args).output
    assert all(len(line) <= 80 for line in out.splitlines())
    last = unfold(out).splitlines()[-1]
    found = SUMMARY.match(last)
    assert found, last
    assert found.group(1) == task
    name = "builtin:tfce" if not args else args[1]
    assert last.startswith(f"{task} dataset {name}: {size}")


def test_validate_shows_a_split_named_with_a_control_character_as_its_escape(
    tmp_path: Path,
) -> None:
    from retrieval_fixtures import sample_beir

    root = sample_beir(tmp_path / "beir")
    (root / "qrels" / "train.tsv").rename(root / "qrels" / "tr\x1b[2Jain.tsv")
    said = invoke("validate", "--data", root, code=0).output
    assert "\x1b" not in said
    assert "tr\\x1b[2Jain 1" in unfold(said)


def test_run_and_retrieve_give_the_same_cache_default() -> None:
    """Both keep BM25 indexes in one cache, and say where alike."""
    from click.testing import CliRunner

    from tfce_eval.cli import main

    said = []
    for command in ("run", "retrieve"):
        shown = CliRunner().invoke(main, [command, "--help"])
        said.append(" ".join(shown.output.split("--cache-dir")[1].split("\n  --")[0].split()))
    assert all("$XDG_CACHE_HOME/tfce-eval/bm25, else ~/.cache/tfce-eval/bm25" in s for s in said)
