"""`tfce-eval validate` on damaged files, through the command line: a file that cannot be
read is one error, not one more per id of the other side (with advice to delete good
ground truth); empty files, copies, skipped and dangling files are named; counts are in
words. Every message fits 80 columns once folded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.gt_outputs import write_perfect_outputs
from tests.messages import unfold
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.model import Category

DOC = {
    "name": "scale",
    "description": "Multiply.",
    "parameters": {
        "type": "dict",
        "properties": {"x": {"type": "float"}},
        "required": ["x"],
    },
}


def question(item_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "question": "把3.5放大两倍", "function": [DOC], **extra}


def answer(item_id: str, x: Any = 3.5) -> dict[str, Any]:
    return {"id": item_id, "ground_truth": {"scale": {"x": x}}}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text, encoding="utf-8")
    return path


def dataset(root: Path, ids: list[str]) -> Path:
    write(root / "questions" / "simple.jsonl", [question(i) for i in ids])
    write(root / "answers" / "simple.jsonl", [answer(i) for i in ids])
    return root


def validate(root: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(
        main, ["validate", "--data", str(root), "--no-exec"], catch_exceptions=False
    )
    assert "Traceback" not in result.output
    return result.exit_code, unfold(result.output).splitlines()


def lines_with(lines: list[str], words: str) -> list[str]:
    return [line for line in lines if words in line]


# -- 1. a file that cannot be read: its ids on the other side are said once ---------------


def _latin1(path: Path) -> None:
    path.write_bytes(
        path.read_text(encoding="utf-8").replace("把3.5放大两倍", "café").encode("latin-1")
    )


def _trailing_comma_array(path: Path) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1)[:-2] + ",\n]", "utf-8")


def _utf16(path: Path) -> None:
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))


@pytest.mark.parametrize(
    ("damage", "error", "fix"),
    [
        (_latin1, "not UTF-8 (byte 0xe9)", "save the file as UTF-8"),
        (_trailing_comma_array, "malformed JSON", "remove the comma that ends line"),
        (_utf16, "UTF-16 (a byte-order mark FF FE), not UTF-8", "save the file as UTF-8"),
    ],
    ids=["latin-1", "trailing comma", "utf-16"],
)
def test_an_unreadable_question_file_is_one_error_and_its_answers_one_warning(
    tmp_path: Path, damage: Any, error: str, fix: str
) -> None:
    root = dataset(tmp_path, ["s_0", "s_1", "s_2"])
    write(root / "answers" / "simple.jsonl", [answer(i) for i in ("s_0", "s_1", "s_2", "ghost")])
    questions = root / "questions" / "simple.jsonl"
    damage(questions)
    code, lines = validate(root)
    assert code == 1
    errors = lines_with(lines, "error: ")
    assert len(errors) == 2, lines  # the file, and the one answer no file holds
    assert lines_with(errors, error) and lines_with(lines, f"  fix: {fix}")
    assert lines_with(errors, "(ghost): the answer's id has no question")
    assert lines_with(lines, "warning: ") == [
        f"warning: {root}/answers/simple.jsonl: 3 answers (s_0, s_1, s_2) could not be "
        "matched with a question: questions/simple.jsonl could not be read"
    ]


def test_a_trailing_comma_in_an_array_is_called_one(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0", "s_1"])
    questions = root / "questions" / "simple.jsonl"
    _trailing_comma_array(questions)
    comma = len(questions.read_text(encoding="utf-8").splitlines()) - 1
    code, lines = validate(root)
    assert code == 1
    assert f"  fix: remove the comma that ends line {comma} (a trailing comma?)" in lines
    assert not lines_with(lines, "a missing comma?")


def test_an_unreadable_answer_line_is_not_a_question_without_ground_truth(
    tmp_path: Path,
) -> None:
    root = dataset(tmp_path, ["s_0", "s_1"])
    answers = root / "answers" / "simple.jsonl"
    first, second = answers.read_text(encoding="utf-8").splitlines()
    answers.write_text(first.replace("3.5}}", "3.5},}") + "\n" + second + "\n", "utf-8")
    code, lines = validate(root)
    assert code == 1
    assert not lines_with(lines, "has no ground truth")
    (error,) = lines_with(lines, "error: ")
    assert error.startswith(f"error: {answers}:1 (s_0): malformed JSON")
    assert "  fix: remove the comma before the } (a trailing comma?)" in lines
    assert lines_with(lines, "warning: ") == [
        f"warning: {root}/questions/simple.jsonl: 1 question (s_0) could not be matched "
        "with ground truth: line 1 of answers/simple.jsonl could not be read"
    ]


def test_an_answer_line_with_no_id_to_read_may_hold_the_missing_one(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0", "s_1", "s_2"])
    answers = root / "answers" / "simple.jsonl"
    lines_in = answers.read_text(encoding="utf-8").splitlines()
    lines_in[1] = "not json at all"
    answers.write_text("\n".join(lines_in) + "\n", "utf-8")
    code, lines = validate(root)
    assert code == 1
    assert not lines_with(lines, "has no ground truth")
    (error,) = lines_with(lines, "error: ")
    assert error.startswith(f"error: {answers}:2: malformed JSON")
    assert lines_with(lines, "warning: ") == [
        f"warning: {root}/questions/simple.jsonl: 1 question (s_1) could not be matched "
        "with ground truth: line 2 of answers/simple.jsonl could not be read"
    ]


def test_more_questions_unmatched_than_unreadable_lines_stay_errors(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0", "s_1", "s_2"])
    answers = root / "answers" / "simple.jsonl"
    first = answers.read_text(encoding="utf-8").splitlines()[0]
    answers.write_text(first + "\nnot json at all\n", "utf-8")
    code, lines = validate(root)
    assert code == 1
    assert not lines_with(lines, "could not be matched")
    assert len(lines_with(lines, "the question has no ground truth")) == 2


def test_an_answer_refused_for_its_ground_truth_leaves_its_question_unreported(
    tmp_path: Path,
) -> None:
    root = dataset(tmp_path, ["s_0", "s_1"])
    write(root / "answers" / "simple.jsonl", [{"id": "s_0", "answer": 1}, answer("s_1")])
    code, lines = validate(root)
    assert code == 1
    assert [line for line in lines if line.startswith(("error", "warning"))] == [
        f'error: {root}/answers/simple.jsonl:1 (s_0): the answer has no "ground_truth"'
    ]


# -- 2. empty files are named --------------------------------------------------------------


@pytest.mark.parametrize("side", ["questions", "answers"])
def test_an_empty_file_is_named_and_the_other_side_said_once(tmp_path: Path, side: str) -> None:
    root = dataset(tmp_path, ["s_0", "s_1"])
    write(root / "questions" / "multiple.jsonl", [question("m_0")])
    write(root / "answers" / "multiple.jsonl", [answer("m_0")])
    (root / side / "simple.jsonl").write_bytes(b"")
    code, lines = validate(root)
    assert code == 1
    assert f"warning: {root}/{side}/simple.jsonl: the file is empty" in lines
    other = "answers" if side == "questions" else "questions"
    what = "2 answers (s_0, s_1) could not be matched with a question"
    if side == "answers":
        what = "2 questions (s_0, s_1) could not be matched with ground truth"
    assert f"error: {root}/{other}/simple.jsonl: {what}: {side}/simple.jsonl is empty" in lines
    assert not lines_with(lines, "delete the line")
    assert not lines_with(lines, "has no ground truth")


def test_a_file_of_no_items_is_named(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0"])
    (root / "questions" / "multiple.json").write_text("[]\n", encoding="utf-8")
    code, lines = validate(root)
    assert code == 0
    assert f"warning: {root}/questions/multiple.json: the file holds no items" in lines


# -- 3. a copy is said once; many duplicates are capped ------------------------------------


def test_a_copied_file_is_one_error(tmp_path: Path) -> None:
    ids = [f"s_{i}" for i in range(12)]
    root = dataset(tmp_path, ids)
    original = root / "questions" / "simple.jsonl"
    (root / "questions" / "simple (copy).jsonl").write_bytes(original.read_bytes())
    code, lines = validate(root)
    assert code == 1
    assert not lines_with(lines, "duplicate id")
    assert lines_with(lines, "error: ") == [
        f"error: {root}/questions/simple (copy).jsonl: the file repeats all 12 ids of "
        "questions/simple.jsonl: a copy?"
    ]
    assert f"fc dataset {root}: 12 items (simple 12): 1 error, 0 warnings" in lines


@pytest.mark.parametrize("name", ["BFCL_v3_simple.json", "simple_link.jsonl"])
def test_a_link_to_another_file_is_named_a_link(tmp_path: Path, name: str) -> None:
    ids = [f"s_{i}" for i in range(4)]
    root = dataset(tmp_path, ids)
    (root / "questions" / name).symlink_to(root / "questions" / "simple.jsonl")
    code, lines = validate(root)
    assert code == 1
    assert not lines_with(lines, "duplicate id")
    assert lines_with(lines, "error: ") == [
        f"error: {root}/questions/{name}: the file is questions/simple.jsonl again "
        "(a link to the same file)"
    ]


def test_many_duplicate_ids_are_listed_first_few_then_counted(tmp_path: Path) -> None:
    ids = [f"s_{i}" for i in range(12)]
    root = dataset(tmp_path, ids)
    questions = root / "questions" / "simple.jsonl"
    write(questions, [question(i) for i in ids + ids[:8]])
    code, lines = validate(root)
    assert code == 1
    assert len(lines_with(lines, "duplicate id 's_")) == 5
    assert lines_with(lines, "error: ")[-1] == (
        f"error: {questions}:18: 3 more duplicate ids from this line on: s_5, s_6, s_7"
    )


# -- 4. files skipped are listed, with why --------------------------------------------------


def test_no_question_file_lists_the_files_skipped_and_why(tmp_path: Path) -> None:
    write(tmp_path / "questions" / "a.json", [question("base_simple_0")])
    write(tmp_path / "questions" / "b.json", [question("base_simple_1")])
    write(tmp_path / "answers" / "x.json", [answer("base_simple_0"), answer("base_simple_1")])
    code, lines = validate(tmp_path)
    assert code == 1
    assert lines == [
        f"error: {tmp_path}/questions: no question files found; skipped: a.json, b.json "
        "(no category in the name)",
        "  fix: name each file after its category (simple.jsonl, BFCL_v3_parallel.json...) "
        "or give it with --questions",
    ]


def test_a_broken_link_is_named(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0"])
    (root / "questions" / "parallel.json").symlink_to(tmp_path / "gone.json")
    code, lines = validate(root)
    assert code == 0
    assert lines[:2] == [
        f"warning: {root}: not loaded: questions/parallel.json (a broken link to "
        f"{tmp_path}/gone.json)",
        "  fix: point each broken link at its file, or remove it",
    ]


# -- 5. counts in words, articles ----------------------------------------------------------


def test_one_item_one_error_one_warning_in_words(tmp_path: Path) -> None:
    root = tmp_path
    write(root / "questions" / "irrelevance.jsonl", [question("i_0")])
    write(root / "answers" / "irrelevance.jsonl", [answer("i_0", 3)])
    code, lines = validate(root)
    assert code == 1
    assert (
        f"error: {root}/answers/irrelevance.jsonl:1 (i_0): an irrelevance item, but the "
        "ground truth has 1 call of 1 function among 1 doc" in lines
    )
    assert lines[-1] == f"fc dataset {root}: 1 item (irrelevance 1): 1 error, 1 warning"


def test_answers_in_both_styles_are_counted_in_words(tmp_path: Path) -> None:
    root = dataset(tmp_path, ["s_0", "s_1", "s_2"])
    bfcl = {"id": "s_2", "ground_truth": [{"scale": {"x": [1.0]}}]}
    write(root / "answers" / "simple.jsonl", [answer("s_0"), answer("s_1"), bfcl])
    _, lines = validate(root)
    assert lines_with(lines, "answers in both styles") == [
        f"warning: {root}/answers/simple.jsonl: answers in both styles: read as TFCE "
        "(2 lines), but 1 line looks BFCL-style (first: line 3)"
    ]


def test_score_names_categories_without_outputs_in_display_order(tmp_path: Path) -> None:
    data = load_dataset()
    perfect = write_perfect_outputs(data, tmp_path / "all.jsonl")
    simple = set(data.ids([Category.SIMPLE]))
    outputs = tmp_path / "simple.jsonl"
    outputs.write_text(
        "".join(
            line + "\n"
            for line in perfect.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["id"] in simple
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        main,
        ["score", str(outputs), "--check", "ast", "--out", str(tmp_path / "o")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert (
        "warning: no outputs at all for: multiple, parallel, parallel_multiple, irrelevance "
        "(shown as N/A)" in unfold(result.stderr).splitlines()
    )
