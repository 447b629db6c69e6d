"""Odd files given to `score`, `retrieve` and `validate`: one message naming the file (and
line or row) and the fix, exit 1, never a traceback nor a hang, and nothing written before
lost. Unreadable files, text that is not UTF-8 (in JSON Lines and in parquet), named pipes,
byte-order marks, CR line ends, a run object with a key given twice, an empty corpus, and
the detection of a dataset's task from such files."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.messages import unfold
from tests.retrieval_fixtures import (
    HF_QRELS,
    sample_beir,
    sample_hf,
    write_beir,
    write_trec_qrels,
    write_trec_run,
)
from tfce_eval.cli import main

EXE = Path(sys.executable).parent / "tfce-eval"
TELCO = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"
RUN = {"q1": [("p1_0", 3.0), ("p1_1", 2.0)], "q2": [("p2_0", 5.0)], "q3": [("p2_1", 1.0)]}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # relative outputs land there


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    assert "Traceback" not in result.output
    return unfold(result.output)


def command(*args: str, code: int = 1, unreadable: bool = False) -> str:
    """The installed command in a subprocess (a hang fails by the timeout); with
    `unreadable`, root's override of file permissions dropped, so that a file of mode
    0 cannot be read as it cannot by anyone else."""
    prefix: list[str] = []
    if unreadable and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "root reads every file: setpriv is needed to drop that"
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    proc = subprocess.run(
        [*prefix, str(EXE), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return unfold(proc.stderr)


def hf(tmp_path: Path, fmt: str = "jsonl") -> tuple[Path, Path]:
    """The small HF dataset and a run of it."""
    data = sample_hf(tmp_path / "hf", fmt)
    run = write_trec_run(tmp_path / "run.trec", RUN)
    return data, run


def test_an_unreadable_corpus_is_one_line_in_score_and_retrieve(tmp_path: Path) -> None:
    data, _ = hf(tmp_path)
    cache = str(tmp_path / "cache")
    out = tmp_path / "out"
    command("retrieve", "--data", str(data), "--out", str(out), "--cache-dir", cache, code=0)
    command("score", str(out / "run.trec"), "--data", str(data), code=0)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    corpus = data / "corpus" / "train.jsonl"
    corpus.chmod(0)
    try:
        for args in (
            ("score", str(out / "run.trec"), "--data", str(data)),
            ("retrieve", "--data", str(data), "--out", str(out), "--cache-dir", cache),
        ):
            said = command(*args, unreadable=True)
            assert said == (
                f"error: {corpus}: cannot read the file: Permission denied\n"
                "  fix: check the file's permissions"
            ), args
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    finally:
        corpus.chmod(0o644)


def test_a_corpus_line_not_utf8_is_named_by_retrieve_as_by_validate(tmp_path: Path) -> None:
    data, _ = hf(tmp_path)
    corpus = data / "corpus" / "train.jsonl"
    with corpus.open("ab") as fh:
        fh.write('{"id": "caf\xe9", "text": "x"}\n'.encode("latin-1"))
    said = invoke("validate", "--data", str(data), code=1)
    assert f"error: {corpus}:7: not UTF-8 (byte 0xe9) (column 12)" in said
    out = tmp_path / "out"
    cache = ("--cache-dir", str(tmp_path / "c"))
    said = invoke("retrieve", "--data", str(data), "--out", str(out), *cache, code=1)
    assert f"error: {corpus}, line 7: not UTF-8 (byte 0xe9) (column 12)" in said
    assert not out.exists()


def _bad_utf8(path: Path, column: str) -> None:
    """Row 1 of a parquet column holds the Latin-1 bytes of "café" as its string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    values = [str(v).encode() for v in table[column].to_pylist()]
    values[1] = "caf\xe9".encode("latin-1")
    bad = pa.array(values, pa.binary()).view(pa.string())
    pq.write_table(table.set_column(table.column_names.index(column), column, bad), path)


@pytest.mark.parametrize(
    ("part", "column", "commands"),
    [
        ("qrels", "query_id", ("score", "retrieve", "validate")),
        ("qrels", "corpus_id", ("score", "retrieve", "validate")),
        ("queries", "id", ("score", "retrieve", "validate")),
        ("queries", "text", ("score", "retrieve", "validate")),
        # score reads no document: only its files' bytes, for their SHA-256.
        ("corpus", "id", ("retrieve", "validate")),
        ("corpus", "text", ("retrieve", "validate")),
        ("corpus", "title", ("retrieve", "validate")),
    ],
)
def test_a_parquet_string_not_utf8_names_its_row(
    tmp_path: Path, part: str, column: str, commands: tuple[str, ...]
) -> None:
    data, run = hf(tmp_path, "parquet")
    split = "train" if part == "corpus" else "test"
    path = data / part / f"{split}-00000-of-00001.parquet"
    _bad_utf8(path, column)
    line = f"error: {path}, row 1: field {column!r} is not UTF-8 (byte 0xe9)"
    for name in commands:
        cache = ("--cache-dir", str(tmp_path / "c"))
        args = {
            "score": ("score", str(run), "--data", str(data), "--out", str(tmp_path / "s")),
            "retrieve": ("retrieve", "--data", str(data), "--out", str(tmp_path / "r"), *cache),
            "validate": ("validate", "--data", str(data)),
        }[name]
        said = invoke(*args, code=1)
        assert line in said, (name, said)
        assert "fix: write the file's text as UTF-8" in said
    assert not (tmp_path / "s").exists() and not (tmp_path / "r").exists()


def test_a_named_pipe_for_qrels_or_a_split_never_hangs(tmp_path: Path) -> None:
    data, run = hf(tmp_path)
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    gone = f"error: {fifo}: nothing wrote to the pipe within 5 s"
    for args in (
        ("score", str(run), "--data", str(data), "--out", str(tmp_path / "s")),
        ("validate", "--data", str(data)),
        ("retrieve", "--data", str(data), "--out", str(tmp_path / "r")),
    ):
        cache = ("--cache-dir", str(tmp_path / "c")) if args[0] == "retrieve" else ()
        said = command(*args, *cache, "--qrels", str(fifo))
        assert said.startswith(gone), (args, said)
    # A Telco split that is a named pipe: detection never opens it.
    split = tmp_path / "telco"
    split.mkdir()
    os.mkfifo(split / "set_24.json")
    said = command("validate", "--data", str(split))
    assert said.startswith(
        f"error: {split / 'set_24.json'}: cannot tell which task this dataset is for: "
        "a named pipe, not a file"
    )


def test_a_named_pipe_whose_writer_starts_later_is_read(tmp_path: Path) -> None:
    # `mkfifo q; (sleep 1; cat qrels > q) & tfce-eval score ... --qrels q`: it was
    # refused at once, and the writer then hung with no one to read.
    import threading
    import time

    data, run = hf(tmp_path)
    qrels = {q["query_id"]: {q["corpus_id"]: q["score"]} for q in HF_QRELS["test"]}
    text = write_trec_qrels(tmp_path / "q.txt", qrels).read_bytes()
    fifo = tmp_path / "late.fifo"
    os.mkfifo(fifo)

    def writer() -> None:
        time.sleep(0.5)
        fifo.write_bytes(text)

    late = threading.Thread(target=writer)
    late.start()
    out = tmp_path / "s"
    result = CliRunner().invoke(
        main, ["score", str(run), "--data", str(data), "--qrels", str(fifo), "--out", str(out)]
    )
    late.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert (out / "summary.json").is_file() and not late.is_alive()


def test_a_pipe_with_a_writer_is_read_as_qrels(tmp_path: Path) -> None:
    data, run = hf(tmp_path)
    qrels = {q["query_id"]: {q["corpus_id"]: q["score"]} for q in HF_QRELS["test"]}
    read, write = os.pipe()
    os.write(write, write_trec_qrels(tmp_path / "q.txt", qrels).read_bytes())
    os.close(write)
    try:
        proc = subprocess.run(
            [str(EXE), "score", str(run), "--data", str(data), "--qrels", f"/dev/fd/{read}"],
            capture_output=True,
            text=True,
            timeout=120,
            pass_fds=(read,),
            check=False,
        )
    finally:
        os.close(read)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "summary.json").read_text())["queries"] == 3


def scores_of(out: Path) -> dict[str, Any]:
    return {
        r["qid"]: r["measures"]
        for r in map(json.loads, (out / "scores.jsonl").read_text().splitlines())
    }


def test_a_byte_order_mark_starts_text_qrels_as_any_other_file(tmp_path: Path) -> None:
    data, run = hf(tmp_path)
    qrels = write_trec_qrels(tmp_path / "qrels.txt", {"q1": {"p1_0": 1}, "q2": {"p2_0": 1}})
    invoke("score", str(run), "--data", str(data), "--qrels", str(qrels), "--out", "a")
    qrels.write_bytes(codecs.BOM_UTF8 + qrels.read_bytes())
    with_bom = str(tmp_path / "b")
    invoke("score", str(run), "--data", str(data), "--qrels", str(qrels), "--out", with_bom)
    assert scores_of(Path(with_bom)) == scores_of(Path("a"))
    # BEIR's qrels/<split>.tsv keeps its header line.
    beir = sample_beir(tmp_path / "beir")
    tsv = beir / "qrels" / "test.tsv"
    tsv.write_bytes(codecs.BOM_UTF8 + tsv.read_bytes())
    said = invoke("validate", "--data", str(beir), "--split", "test")
    assert said.endswith("0 errors, 0 warnings")


def telco(tmp_path: Path, raw: bytes) -> Path:
    root = tmp_path / "telco"
    root.mkdir()
    (root / "set_24.json").write_bytes(raw)
    return root


@pytest.mark.parametrize("how", ["bom", "long description"])
def test_a_telco_split_is_told_by_its_questions_key_wherever_it_is(
    tmp_path: Path, how: str
) -> None:
    raw = (TELCO / "set_24.json").read_bytes()
    if how == "bom":
        raw = codecs.BOM_UTF8 + raw
    else:
        split = json.loads(raw)
        split = {k: v for k, v in split.items() if k != "_description"}
        raw = json.dumps({"_description": "x" * 10_000, **split}, indent=1).encode()
        assert raw.index(b'"questions"') > 4096
    said = invoke("validate", "--data", str(telco(tmp_path, raw)))
    assert said.startswith("qa dataset") and said.endswith("0 errors, 0 warnings")


@pytest.mark.parametrize(
    ("how", "why", "fix"),
    [
        ("utf16", "the file is UTF-16, not UTF-8", "save it as UTF-8"),
        ("empty", "the file is empty", "write the split into it"),
        ("unreadable", "cannot read the file: Permission denied", "check the file's permissions"),
    ],
)
def test_a_split_that_cannot_be_read_is_named_when_the_task_is_told(
    tmp_path: Path, how: str, why: str, fix: str
) -> None:
    raw = (TELCO / "set_24.json").read_bytes()
    raw = {"utf16": raw.decode().encode("utf-16"), "empty": b"", "unreadable": raw}[how]
    root = telco(tmp_path, raw)
    if how == "unreadable":
        (root / "set_24.json").chmod(0)
    said = command("validate", "--data", str(root), unreadable=how == "unreadable")
    assert said == (
        f"error: {root / 'set_24.json'}: cannot tell which task this dataset is for: {why}\n"
        f"  fix: {fix}, or say --task fc|qa|retrieval"
    )


@pytest.mark.parametrize(
    ("content", "says", "fix"),
    [
        (
            '{"q1": {"p1_0": 5, "p1_1": 4}, "q1": {"p2_0": 1}}',
            "query 'q1' is a key twice: one of its rankings would be lost",
            "give each query one object {docid: score}",
        ),
        (
            '{"q1": {"p1_0": 1, "p1_0": 2}}',
            "document 'p1_0' is listed twice for query 'q1'",
            "list each document once per query",
        ),
    ],
)
def test_a_key_twice_in_a_run_object_is_an_error(
    tmp_path: Path, content: str, says: str, fix: str
) -> None:
    data, _ = hf(tmp_path)
    run = tmp_path / "run.json"
    run.write_text(content)
    said = invoke("score", str(run), "--data", str(data), code=1)
    assert said == f"error: {run}: {says}\n  fix: {fix}"
    assert not (tmp_path / "summary.json").exists()


def test_validate_refuses_an_empty_corpus_as_retrieve_does(tmp_path: Path) -> None:
    data, _ = hf(tmp_path)
    corpus = data / "corpus" / "train.jsonl"
    corpus.write_bytes(b"")
    said = invoke("validate", "--data", str(data), code=1)
    assert f"error: {corpus}: the corpus has no documents" in said
    said = invoke("retrieve", "--data", str(data), "--cache-dir", "c", "--out", "r", code=1)
    assert f"error: {corpus}: the corpus has no documents" in said


@pytest.mark.parametrize("columns", [5, 7])
def test_a_run_of_other_than_six_columns_says_how_many_from_line_1(
    tmp_path: Path, columns: int
) -> None:
    data, _ = hf(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text(" ".join(["q1", "Q0", "p1_0", "1", "2.0", "t", "x"][:columns]) + "\n")
    said = invoke("score", str(run), "--data", str(data), code=1)
    assert said.startswith(
        f"error: {run}, line 1: cannot tell the form of this run: {columns} columns, "
        "a TREC run has 6\n"
    )


def test_cr_line_ends_are_named(tmp_path: Path) -> None:
    data, run = hf(tmp_path)
    cr_fix = "  fix: save the file with LF (or CRLF) line ends: CR alone does not end a line"
    run.write_bytes(run.read_bytes().replace(b"\n", b"\r"))
    said = invoke("score", str(run), "--data", str(data), code=1)
    assert said == (
        f"error: {run}, line 1: cannot tell the form of this run: 24 columns, a TREC run "
        f"has 6; the line holds carriage returns (CR)\n{cr_fix}"
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"q1 0 p1_0 1\rq2 0 p2_0 1\r")
    said = invoke(
        "score", str(hf_run(tmp_path)), "--data", str(data), "--qrels", str(qrels), code=1
    )
    assert said == (
        f"error: {qrels}, line 1: 8 fields, expected qid 0 docid relevance; the line holds "
        f"carriage returns (CR)\n{cr_fix}"
    )
    beir = sample_beir(tmp_path / "beir")
    tsv = beir / "qrels" / "test.tsv"
    tsv.write_bytes(tsv.read_bytes().replace(b"\n", b"\r"))
    said = invoke("validate", "--data", str(beir), "--split", "test", code=1)
    assert (
        f"error: {tsv}:1: 12 fields, expected query-id<TAB>corpus-id<TAB>score; the line "
        f"holds carriage returns (CR)\n{cr_fix}"
    ) in said


def hf_run(tmp_path: Path) -> Path:
    return write_trec_run(tmp_path / "good.trec", RUN)


def test_one_field_is_said_in_the_singular(tmp_path: Path) -> None:
    data, run = hf(tmp_path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1\n")
    said = invoke("score", str(run), "--data", str(data), "--qrels", str(qrels), code=1)
    assert said.startswith(f"error: {qrels}, line 1: 1 field, expected qid 0 docid relevance")


@pytest.mark.parametrize("grade", ["99999999999999999999", "2147483648", "-1001"])
def test_a_grade_out_of_range_is_one_line_not_a_crash(tmp_path: Path, grade: str) -> None:
    # Past 2**63 pytrec_eval raised a SystemError; at 2**31 trec_eval took gigabytes.
    data = tmp_path / "beir"
    write_beir(
        data,
        corpus=[{"_id": "d1", "text": "x"}, {"_id": "d2", "text": "y"}],
        queries=[{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"}],
        qrels={"test": [("q1", "d1", 1), ("q2", "d1", 1)]},
    )
    qrels = data / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text().replace("q1\td1\t1", f"q1\td1\t{grade}"))
    run = write_trec_run(tmp_path / "run.trec", {"q1": [("d1", 2.0)], "q2": [("d1", 1.0)]})
    said = invoke("score", str(run), "--data", str(data), code=1)
    assert said == (
        f"error: {qrels}, line 2: relevance grade {grade} is out of range (-1000 to 1000)\n"
        "  fix: write graded judgements such as 0, 1, 2 and 3"
    )
    assert not (tmp_path / "summary.json").exists()
    said = invoke("validate", "--data", str(data), code=1)
    assert f"relevance grade {grade} is out of range" in said


def test_a_query_with_two_ranked_lists_is_an_error(tmp_path: Path) -> None:
    data, _ = hf(tmp_path)
    run = tmp_path / "ranked.jsonl"
    lists = [("q1", ["p1_0", "p1_1"]), ("q2", ["p2_0"]), ("q1", ["p2_1"])]
    run.write_text("".join(json.dumps({"qid": q, "docids": d}) + "\n" for q, d in lists))
    said = invoke("score", str(run), "--data", str(data), code=1)
    assert said == (
        f"error: {run}, line 3: query 'q1' has a second list (the first at line 1): one "
        "of its rankings would be lost\n"
        "  fix: give each query one line with all its documents, best first"
    )
