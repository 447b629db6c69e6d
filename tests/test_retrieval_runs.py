"""Reading runs in every form, trec_eval's order, and the warnings and errors of runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.retrieval_fixtures import sample_hf, write_table, write_trec_run
from tfce_eval.errors import DataError
from tfce_eval.retrieval import RunForm, dataset_run, detect_run_form, load_retrieval, read_run

# q1: d3 > d1 > d2; q2: d9 > d8 (scores strictly falling).
EXPECTED = {"q1": ["d3", "d1", "d2"], "q2": ["d9", "d8"]}
ENTRIES = [
    ("q1", "d3", 1, 3.5),
    ("q1", "d1", 2, 2.0),
    ("q1", "d2", 3, -1.0),
    ("q2", "d9", 1, 10.0),
    ("q2", "d8", 2, 9.0),
]


def _trec_text(sep: str = " ") -> str:
    return "".join(sep.join([q, "Q0", d, str(r), repr(s), "run"]) + "\n" for q, d, r, s in ENTRIES)


@pytest.mark.parametrize(
    ("name", "text", "form"),
    [
        ("space.trec", _trec_text(), RunForm.TREC),
        ("tab.trec", _trec_text("\t"), RunForm.TREC),
        ("spaces.trec", _trec_text("   "), RunForm.TREC),  # read by the Python reader
        ("crlf.trec", _trec_text().replace("\n", "\r\n"), RunForm.TREC),
        ("blank.trec", "\n" + _trec_text().replace("\n", "\n\n"), RunForm.TREC),
        (
            "rows.jsonl",
            "".join(
                json.dumps({"query_id": q, "corpus_id": d, "rank": r, "retrieval_score": s}) + "\n"
                for q, d, r, s in ENTRIES
            ),
            RunForm.ROWS,
        ),
        (
            "ranked.jsonl",
            '{"qid": "q1", "docids": ["d3", "d1", "d2"]}\n{"qid": "q2", "docids": ["d9", "d8"]}\n',
            RunForm.RANKED,
        ),
        (
            "object.json",
            json.dumps({"q1": {"d1": 2, "d2": 1, "d3": 3}, "q2": {"d8": 0.5, "d9": 0.7}}),
            RunForm.OBJECT,
        ),
        (
            "pretty.json",
            json.dumps({"q1": {"d1": 2, "d2": 1, "d3": 3}, "q2": {"d8": 0, "d9": 1}}, indent=2),
            RunForm.OBJECT,
        ),
    ],
)
def test_every_form_reads_the_same_rankings(
    tmp_path: Path, name: str, text: str, form: RunForm
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert detect_run_form(path) is form
    run = read_run(path)
    assert run.form is form and run.name == name
    assert {q: list(d) for q, d in run.rankings.items()} == EXPECTED
    assert run.entries == 5 and run.warnings == ()


def test_parquet_rows_and_the_datasets_own_retrieved_docs(tmp_path: Path) -> None:
    rows = [
        {"query_id": q, "corpus_id": d, "rank": r, "retrieval_score": s} for q, d, r, s in ENTRIES
    ]
    path = write_table(tmp_path / "run", rows, "parquet")
    assert detect_run_form(path) is RunForm.ROWS
    assert {q: list(d) for q, d in read_run(path).rankings.items()} == EXPECTED
    ds = load_retrieval(sample_hf(tmp_path / "hf", "parquet"))
    own = dataset_run(ds)
    assert own.form is RunForm.DATASET
    assert {q: list(d) for q, d in own.rankings.items()} == {
        "q1": ["p1_0", "p1_1"],
        "q2": ["p2_1", "p2_0"],
    }
    with pytest.raises(DataError, match="no retrieved_docs for split 'dev'"):
        dataset_run(load_retrieval(ds.root, split="dev"))


def test_ties_follow_trec_eval_and_are_counted(tmp_path: Path) -> None:
    # trec_eval: score descending, ties by document id descending (byte order).
    path = write_trec_run(
        tmp_path / "ties.trec",
        {
            "a": [("d1", 1.0), ("d10", 1.0), ("d2", 1.0), ("x", 5.0)],
            "b": [("B", 2.0), ("a", 2.0), ("é", 2.0), ("z", 2.0)],
            "c": [("k", 3.0), ("j", 2.0)],
            "t": [("z", 1.0), ("y", 1.0)],  # tied, but listed in trec_eval's order
        },
    )
    run = read_run(path)
    assert list(run.rankings["a"]) == ["x", "d2", "d10", "d1"]
    assert list(run.rankings["b"]) == ["é", "z", "a", "B"]
    assert list(run.rankings["c"]) == ["k", "j"]
    assert list(run.rankings["t"]) == ["z", "y"]
    assert run.tied == ("a", "b", "t") and run.reordered == ("a", "b")
    assert run.warnings[0] == (
        "3 queries with tied scores (a, b, t); 2 listed in another order (a, b) are "
        "ranked as trec_eval ranks ties, by document id descending"
    )
    in_order = read_run(write_trec_run(tmp_path / "t.trec", {"t": [("z", 1.0), ("y", 1.0)]}))
    assert in_order.warnings == (
        "1 query with tied scores (t), listed in trec_eval's order already (score "
        "descending, then document id descending)",
    )
    # The file lists x (score 5) at rank 4 below three documents scored 1.
    assert run.contradicted == ("a",)
    assert "1 query whose rank column contradicts the scores (a)" in run.warnings[1]
    # Each warning says what to change in the run file if the order was not meant.
    assert [fix for _, fix in run.warning_fixes] == [
        "to keep the file's order, give tied documents distinct scores",
        "make the rank column agree with the scores, or drop it",
    ]
    assert in_order.warning_fixes[0][1].startswith("nothing to do; ")


def test_a_rank_column_of_one_value_contradicts_nothing(tmp_path: Path) -> None:
    # Tools that do not rank write the same rank (0 or 1) on every line: equal ranks
    # order nothing, so they cannot contradict the scores.
    path = tmp_path / "flat.trec"
    path.write_text("q1 Q0 d1 0 3 r\nq1 Q0 d3 0 2 r\nq1 Q0 d2 0 2 r\nq2 Q0 e1 1 1 r\n")
    run = read_run(path)
    assert run.contradicted == () and run.tied == ("q1",) and run.reordered == ()
    assert list(run.rankings["q1"]) == ["d1", "d3", "d2"]


def test_a_query_split_over_two_blocks_is_one_ranking(tmp_path: Path) -> None:
    path = tmp_path / "split.trec"
    path.write_text(
        "q1 Q0 d1 1 3 r\nq2 Q0 e1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 e2 2 1 r\nq1 Q0 d3 3 1 r\n"
    )
    run = read_run(path)
    assert {q: list(d) for q, d in run.rankings.items()} == {
        "q1": ["d1", "d2", "d3"],
        "q2": ["e1", "e2"],
    }
    assert run.warnings == ()


@pytest.mark.parametrize("sep", [" ", "  "])
def test_a_document_twice_for_one_query_names_the_line(tmp_path: Path, sep: str) -> None:
    path = tmp_path / "dup.trec"
    lines = ["q1 Q0 d1 1 3 r", "q2 Q0 d1 1 3 r", "", "q1 Q0 d2 2 2 r", "q1 Q0 d1 3 1 r"]
    path.write_text("\n".join(line.replace(" ", sep) for line in lines) + "\n")
    with pytest.raises(DataError) as err:
        read_run(path)
    assert (err.value.path, err.value.line) == (str(path), 5)
    assert err.value.message == "document 'd1' is listed twice for query 'q1'"


def test_duplicates_in_the_json_forms(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"query_id": "q", "corpus_id": "a", "rank": 1, "retrieval_score": 2}\n'
        '{"query_id": "q", "corpus_id": "a", "rank": 2, "retrieval_score": 1}\n'
    )
    with pytest.raises(DataError) as err:
        read_run(rows)
    assert err.value.line == 2
    ranked = tmp_path / "ranked.jsonl"
    ranked.write_text('{"qid": "q", "docids": ["a"]}\n{"qid": "p", "docids": ["b", "c", "b"]}\n')
    with pytest.raises(DataError) as err:
        read_run(ranked)
    assert err.value.line == 2 and "'b' is listed twice for query 'p'" in err.value.message
    parquet = write_table(
        tmp_path / "r",
        [
            {"query_id": "q", "corpus_id": "a", "rank": 1, "retrieval_score": 2.0},
            {"query_id": "q", "corpus_id": "a", "rank": 2, "retrieval_score": 1.0},
        ],
        "parquet",
    )
    with pytest.raises(DataError) as err:
        read_run(parquet)
    assert str(err.value).startswith(f"{parquet}, row 1: document 'a' is listed twice")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2\n", 2, "5 columns, expected 6"),
        ("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 two r\n", 2, "score 'two' is not a number"),
        (
            "q1 Q0 d1 1 3 r\n\nq1 Q0 d2 2 nan r\n",
            3,
            "the score is not a finite number (read as nan",
        ),
        ("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 inf r\n", 2, "the score is not a finite number (read as inf"),
        ("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 1 r extra\n", 2, "7 columns, expected 6"),
        ("q1 Q0 d1 1 1e400 r\n", 1, "the score is not a finite number (read as inf"),
        ("\n\nq1 Q0 d\xe9 1 3 r\n", 3, "not UTF-8 (byte 8 of the line)"),
    ],
)
def test_malformed_trec_lines(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "bad.trec"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataError) as err:
        read_run(path)
    assert err.value.line == line and err.value.message.startswith(message)
    assert err.value.hint


def test_non_integer_ranks_are_ignored_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "r.trec"
    path.write_text("q1 Q0 d1 first 3 r\nq1 Q0 d2 second 2 r\n")
    run = read_run(path)
    assert list(run.rankings["q1"]) == ["d1", "d2"]
    assert run.warning_fixes == (
        (
            "the rank column is not all integers and is ignored, as trec_eval ignores it",
            "write the ranks as integers, or drop the rank column",
        ),
    )
    assert run.warnings == (run.warning_fixes[0][0],)


def test_empty_and_unknown_runs(tmp_path: Path) -> None:
    empty = tmp_path / "empty.trec"
    empty.write_text("\n\n")
    with pytest.raises(DataError, match="the run is empty"):
        read_run(empty)
    odd = tmp_path / "odd.txt"
    odd.write_text("q1 d1 3\n")
    with pytest.raises(DataError, match="cannot tell the form of this run") as err:
        read_run(odd)
    assert "qid Q0 docid rank score tag" in (err.value.hint or "")
    with pytest.raises(DataError, match="no such run file"):
        read_run(tmp_path / "missing.trec")
    bad = tmp_path / "bad.json"
    bad.write_text('{"q1": [1, 2]}')
    with pytest.raises(DataError, match="query 'q1' maps to list, not an object"):
        read_run(bad)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"query_id": "q", "corpus_id": "a", "rank": 1}\n')
    with pytest.raises(DataError, match="non-numeric retrieval_score") as err:
        read_run(rows)
    assert err.value.line == 1
