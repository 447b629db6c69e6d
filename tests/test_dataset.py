"""The dataset loader: file shapes, categories, ground-truth styles, errors and streaming."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.dataset.category import parse_category, unsupported_category
from tfce_eval.dataset.load import Dataset, load_dataset
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLimits, JsonLines, LineReader
from tfce_eval.model import AnswerStyle, Category, ExpectedParam, Finding, Level

FIXTURES = Path(__file__).parent / "fixtures"

INT_DOC = {
    "name": "f",
    "description": "Test function.",
    "parameters": {
        "type": "dict",
        "properties": {"x": {"type": "integer", "description": "x"}},
        "required": ["x"],
    },
}
ARRAY_DOC = {
    "name": "g",
    "description": "Takes a list.",
    "parameters": {
        "type": "dict",
        "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
        "required": ["xs"],
    },
}


def write_lines(path: Path, rows: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")
    return path


def question(item_id: str, doc: dict[str, Any] = INT_DOC, **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "question": "问题", "function": [doc], **extra}


def answer(item_id: str, ground_truth: Any) -> dict[str, Any]:
    return {"id": item_id, "ground_truth": ground_truth}


def simple_dataset(root: Path, n: int = 2, answers_dir: str = "answers") -> Path:
    write_lines(root / "questions" / "simple.jsonl", [question(f"s_{i}") for i in range(n)])
    write_lines(
        root / answers_dir / "simple.jsonl",
        [answer(f"s_{i}", {"f": {"x": i}}) for i in range(n)],
    )
    return root


# -- categories -------------------------------------------------------------------------

CATEGORY_NAMES = [
    # plain names and category fields
    ("simple", Category.SIMPLE),
    ("multiple", Category.MULTIPLE),
    ("parallel", Category.PARALLEL),
    ("parallel_multiple", Category.PARALLEL_MULTIPLE),
    ("parallel_multi", Category.PARALLEL_MULTIPLE),
    ("irrelevance", Category.IRRELEVANCE),
    ("simple.jsonl", Category.SIMPLE),
    # TFCE file names
    ("TFCE_simple", Category.SIMPLE),
    ("TFCE_multiple_function.json", Category.MULTIPLE),
    ("TFCE_parallel_function", Category.PARALLEL),
    ("TFCE_parallel_multiple_function.json", Category.PARALLEL_MULTIPLE),
    # BFCL file names, v1 to v4
    ("gorilla_openfunctions_v1_test_parallel_multiple_function.json", Category.PARALLEL_MULTIPLE),
    ("BFCL_v3_simple.json", Category.SIMPLE),
    ("BFCL_v3_multiple.json", Category.MULTIPLE),
    ("BFCL_v3_parallel.json", Category.PARALLEL),
    ("BFCL_v3_parallel_multiple.json", Category.PARALLEL_MULTIPLE),
    ("BFCL_v3_live_simple.json", Category.SIMPLE),
    ("BFCL_v3_live_parallel_multiple.json", Category.PARALLEL_MULTIPLE),
    ("BFCL_v3_irrelevance.json", Category.IRRELEVANCE),
    ("BFCL_v3_live_irrelevance.json", Category.IRRELEVANCE),
    ("BFCL_v4_simple_python", Category.SIMPLE),
    ("BFCL_v4_simple_python.json", Category.SIMPLE),
    ("live_simple", Category.SIMPLE),
    ("live_parallel_multiple", Category.PARALLEL_MULTIPLE),
    # ids
    ("base_simple_0", Category.SIMPLE),
    ("base_multiple_12", Category.MULTIPLE),
    ("base_parallel_3", Category.PARALLEL),
    ("base_parallel_multi_7", Category.PARALLEL_MULTIPLE),
    ("simple_python_0", Category.SIMPLE),
    ("simple_10", Category.SIMPLE),
    ("live_multiple_3-1-0", Category.MULTIPLE),
    ("live_parallel_multiple_0-0-0", Category.PARALLEL_MULTIPLE),
    ("irrelevance_4", Category.IRRELEVANCE),
    ("live_irrelevance_12-0-3", Category.IRRELEVANCE),
    # a directory never decides
    ("/data/parallel/simple.jsonl", Category.SIMPLE),
    # refused or unknown
    ("simple_java", None),
    ("simple_javascript", None),
    ("BFCL_v3_java.json", None),
    ("BFCL_v3_exec_simple.json", None),
    ("BFCL_v3_sql.json", None),
    ("BFCL_v3_multi_turn_base.json", None),
    ("BFCL_v3_live_relevance.json", None),
    ("BFCL_v3_rest.json", None),
    ("BFCL_v4_web_search.json", None),
    ("simple_multiple", None),
    ("questions", None),
    ("singles", None),
    ("", None),
]


@pytest.mark.parametrize(("text", "expected"), CATEGORY_NAMES)
def test_parse_category(text: str, expected: Category | None) -> None:
    assert parse_category(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("simple_java", "java"),
        ("BFCL_v3_multi_turn_base.json", "multi_turn"),
        ("BFCL_v3_exec_parallel", "exec"),
        ("BFCL_v3_live_relevance", "relevance"),
        ("BFCL_v3_live_irrelevance", None),
        ("simple", None),
    ],
)
def test_unsupported_category(text: str, expected: str | None) -> None:
    assert unsupported_category(text) == expected


def test_category_field_wins_over_file_name_and_file_name_over_id(tmp_path: Path) -> None:
    write_lines(
        tmp_path / "questions" / "multiple.jsonl",
        [
            question("base_simple_0", category="parallel"),
            question("base_simple_1"),
        ],
    )
    write_lines(
        tmp_path / "qs" / "things.jsonl",
        [question("base_parallel_multi_0"), question("x_1", category="irrelevance")],
    )
    write_lines(
        tmp_path / "answers" / "all.jsonl",
        [
            answer("base_simple_0", [{"f": {"x": 1}}, {"f": {"x": 2}}]),
            answer("base_simple_1", {"f": {"x": 1}}),
            answer("base_parallel_multi_0", {"f": {"x": 1}}),
        ],
    )
    data = load_dataset(
        questions=[tmp_path / "questions" / "multiple.jsonl", tmp_path / "qs" / "things.jsonl"],
        answers=[tmp_path / "answers"],
    )
    assert data.category_of("base_simple_0") is Category.PARALLEL  # field
    assert data.category_of("base_simple_1") is Category.MULTIPLE  # file name
    assert data.category_of("base_parallel_multi_0") is Category.PARALLEL_MULTIPLE  # id
    assert data.category_of("x_1") is Category.IRRELEVANCE
    assert data.get("x_1").expected == ()


# -- file shapes --------------------------------------------------------------------------

ROWS = [question("simple_0"), question("simple_1"), question("simple_2")]


def as_json_lines(path: Path) -> None:
    path.write_text("\n\n".join(json.dumps(r) for r in ROWS) + "\n\n", encoding="utf-8")


def as_array(path: Path) -> None:
    path.write_text(json.dumps(ROWS, indent=2), encoding="utf-8")


def as_one_line_array(path: Path) -> None:
    path.write_text(json.dumps(ROWS) + "\n", encoding="utf-8")


def as_wrapped(path: Path) -> None:
    path.write_text(json.dumps({"version": 2, "data": ROWS}, indent=1), encoding="utf-8")


def as_wrapped_other_key(path: Path) -> None:
    path.write_text(json.dumps({"meta": [1, 2], "questions": ROWS}), encoding="utf-8")


def as_bom_json_lines(path: Path) -> None:
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(json.dumps(r) for r in ROWS).encode())


@pytest.mark.parametrize(
    "writer",
    [
        as_json_lines,
        as_array,
        as_one_line_array,
        as_wrapped,
        as_wrapped_other_key,
        as_bom_json_lines,
    ],
)
@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".jsonlines"])
def test_file_shapes_load_the_same_items(tmp_path: Path, writer: Any, suffix: str) -> None:
    (tmp_path / "questions").mkdir()
    writer(tmp_path / "questions" / f"simple{suffix}")
    write_lines(
        tmp_path / "answers" / "simple.json",
        [answer(f"simple_{i}", {"f": {"x": i}}) for i in range(3)],
    )
    data = load_dataset(tmp_path)
    assert data.ids() == ["simple_0", "simple_1", "simple_2"]
    items = list(data.iter_items())
    assert [i.expected[0].params["x"].values for i in items] == [(0,), (1,), (2,)]
    assert all(i.functions[0].name == "f" for i in items)
    assert data.get("simple_2").source is not None


def test_source_lines_point_at_the_record(tmp_path: Path) -> None:
    (tmp_path / "q").mkdir()
    as_array(tmp_path / "q" / "simple.json")
    write_lines(
        tmp_path / "a" / "simple.json",
        [answer(f"simple_{i}", {"f": {"x": i}}) for i in range(3)],
    )
    data = load_dataset(questions=[tmp_path / "q"], answers=[tmp_path / "a"])
    text = (tmp_path / "q" / "simple.json").read_text().splitlines()
    line = data.question_source("simple_1").line
    assert '"id": "simple_1"' in "\n".join(text[line - 1 : line + 2])
    assert data.answer_source("simple_1") is not None
    assert data.answer_source("simple_1").line == 2  # type: ignore[union-attr]


def test_single_pretty_printed_object(tmp_path: Path) -> None:
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions" / "simple.json").write_text(json.dumps(ROWS[0], indent=2))
    write_lines(tmp_path / "answers" / "simple.json", [answer("simple_0", {"f": {"x": 0}})])
    assert load_dataset(tmp_path).ids() == ["simple_0"]


# -- ground truth -------------------------------------------------------------------------


def test_tfce_ground_truth_object_and_list(tmp_path: Path) -> None:
    write_lines(
        tmp_path / "questions" / "parallel.jsonl",
        [question("p_0", ARRAY_DOC), question("p_1", ARRAY_DOC)],
    )
    write_lines(
        tmp_path / "answers" / "parallel.jsonl",
        [
            answer("p_0", {"g": {"xs": [1, 2]}}),
            answer("p_1", [{"g": {"xs": [3]}}, {"g": {"xs": []}}]),
        ],
    )
    data = load_dataset(tmp_path)
    assert data.answer_styles[tmp_path / "answers" / "parallel.jsonl"] is AnswerStyle.TFCE
    first, second = data.get("p_0"), data.get("p_1")
    assert first.expected[0].params["xs"] == ExpectedParam(([1, 2],))
    assert [c.params["xs"].values for c in second.expected] == [([3],), ([],)]


def test_bfcl_ground_truth_with_may_omit(tmp_path: Path) -> None:
    doc = {
        "name": "h",
        "parameters": {
            "type": "dict",
            "properties": {"unit": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["n"],
        },
    }
    write_lines(tmp_path / "questions" / "simple.jsonl", [question("s_0", doc)])
    write_lines(
        tmp_path / "answers" / "simple.jsonl",
        [answer("s_0", [{"h": {"n": [1, 2], "unit": ["m", ""]}}])],
    )
    data = load_dataset(tmp_path)
    params = data.get("s_0").expected[0].params
    assert params["n"] == ExpectedParam((1, 2), may_omit=False, nested_alternatives=True)
    assert params["unit"] == ExpectedParam(("m",), may_omit=True, nested_alternatives=True)


STYLE_CASES = [
    # (doc, ground truths, answers directory name, detected style)
    ("scalar values", INT_DOC, [{"f": {"x": 1}}], "answers", AnswerStyle.TFCE),
    ("object form", INT_DOC, [{"f": {"x": [1]}}], "answers", AnswerStyle.TFCE),
    ("list for an integer", INT_DOC, [[{"f": {"x": [1]}}]], "answers", AnswerStyle.BFCL),
    ("flat list for an array", ARRAY_DOC, [[{"g": {"xs": [1, 2]}}]], "answers", AnswerStyle.TFCE),
    ("only empty arrays", ARRAY_DOC, [[{"g": {"xs": []}}]], "possible_answer", AnswerStyle.BFCL),
    ("only empty arrays", ARRAY_DOC, [[{"g": {"xs": []}}]], "answers", AnswerStyle.TFCE),
    ("no calls", INT_DOC, [[]], "possible_answer", AnswerStyle.BFCL),
    (
        "array with may-omit",
        ARRAY_DOC,
        [[{"g": {"xs": [[1], ""]}}]],
        "answers",
        AnswerStyle.BFCL,
    ),
    (
        "majority",
        INT_DOC,
        [[{"f": {"x": [1]}}], [{"f": {"x": [2, ""]}}], {"f": {"x": 3}}],
        "answers",
        AnswerStyle.BFCL,
    ),
]


@pytest.mark.parametrize(
    ("doc", "truths", "folder", "style"),
    [c[1:] for c in STYLE_CASES],
    ids=[f"{c[0]}-{c[3]}" for c in STYLE_CASES],
)
def test_answer_style_detection(
    tmp_path: Path, doc: dict[str, Any], truths: list[Any], folder: str, style: AnswerStyle
) -> None:
    ids = [f"s_{i}" for i in range(len(truths))]
    write_lines(tmp_path / "questions" / "parallel.jsonl", [question(i, doc) for i in ids])
    write_lines(
        tmp_path / folder / "parallel.jsonl",
        [answer(i, gt) for i, gt in zip(ids, truths, strict=True)],
    )
    if style is AnswerStyle.BFCL and any(isinstance(gt, dict) for gt in truths):
        with pytest.raises(DataError) as caught:
            load_dataset(tmp_path)
        assert caught.value.line == 3 and caught.value.hint
        return
    data = load_dataset(tmp_path)
    assert data.answer_styles[tmp_path / folder / "parallel.jsonl"] is style


def test_lists_of_lists_for_an_array_parameter_are_bfcl(tmp_path: Path) -> None:
    write_lines(tmp_path / "questions" / "simple.jsonl", [question("s_0", ARRAY_DOC)])
    write_lines(tmp_path / "answers" / "simple.jsonl", [answer("s_0", [{"g": {"xs": [[1, 2]]}}])])
    data = load_dataset(tmp_path)
    assert data.answer_styles[tmp_path / "answers" / "simple.jsonl"] is AnswerStyle.BFCL
    assert data.get("s_0").expected[0].params["xs"].values == ([1, 2],)


def test_mixed_styles_are_reported(tmp_path: Path) -> None:
    ids = ["s_0", "s_1", "s_2"]
    write_lines(tmp_path / "questions" / "simple.jsonl", [question(i, ARRAY_DOC) for i in ids])
    truths = [[{"g": {"xs": [1]}}], [{"g": {"xs": [2]}}], [{"g": {"xs": [[3]]}}]]
    write_lines(
        tmp_path / "answers" / "simple.jsonl",
        [answer(i, gt) for i, gt in zip(ids, truths, strict=True)],
    )
    data = load_dataset(tmp_path)
    assert data.answer_styles[tmp_path / "answers" / "simple.jsonl"] is AnswerStyle.TFCE
    (warning,) = data.warnings
    assert "both styles" in warning.message and "line 3" in warning.message


def test_answer_style_can_be_forced(tmp_path: Path) -> None:
    write_lines(tmp_path / "questions" / "simple.jsonl", [question("s_0", ARRAY_DOC)])
    write_lines(tmp_path / "answers" / "simple.jsonl", [answer("s_0", [{"g": {"xs": [[1, 2]]}}])])
    data = load_dataset(tmp_path, answer_style=AnswerStyle.TFCE)
    assert data.answer_styles[tmp_path / "answers" / "simple.jsonl"] is AnswerStyle.TFCE
    assert data.get("s_0").expected[0].params["xs"].values == ([[1, 2]],)
    with pytest.raises(DataError) as caught:
        load_dataset(simple_dataset(tmp_path / "b"), answer_style=AnswerStyle.BFCL)
    assert "single value" in caught.value.message and caught.value.line == 1


# -- the fixtures -------------------------------------------------------------------------


def test_bfcl_layout_loads_unchanged() -> None:
    root = FIXTURES / "bfcl_layout"
    data = load_dataset(root)
    assert data.counts() == {
        Category.SIMPLE: 5,
        Category.MULTIPLE: 1,
        Category.PARALLEL: 1,
        Category.PARALLEL_MULTIPLE: 1,
        Category.IRRELEVANCE: 2,
    }
    assert set(data.answer_styles.values()) == {AnswerStyle.BFCL}
    assert "java_0" not in data
    (warning,) = data.warnings
    assert "BFCL_v3_java.json (java)" in warning.message
    assert "possible_answer/BFCL_v3_java.json (java)" in warning.message
    item = data.get("simple_3")
    assert item.question == [
        [
            {"role": "system", "content": "You configure networks."},
            {"role": "user", "content": "Set up an n78 cell, alarm at 5."},
        ]
    ]
    config = item.expected[0].params["config"]
    assert config.nested_alternatives
    assert config.values == ({"band": ["n78", "N78"], "bw": [100, ""]},)
    weather = data.get("simple_1").expected[0]
    assert weather.name == "get weather"
    assert weather.params["units"].may_omit
    assert data.get("simple_0").functions[0].name == "math.factorial"
    assert data.get("irrelevance_1").expected == ()


def test_tfce_small_loads() -> None:
    data = load_dataset(FIXTURES / "tfce_small")
    assert len(data) == 10
    assert set(data.answer_styles.values()) == {AnswerStyle.TFCE}
    assert data.category_of("base_parallel_multi_0") is Category.PARALLEL_MULTIPLE
    pm = data.get("base_parallel_multi_0")
    assert [c.name for c in pm.expected] == ["compute_prb_count", "units.dbm_to_watts"]
    assert data.get("base_simple_2").expected[0].params["five_qi"].values == ([1, 5, 9],)
    assert data.ids([Category.PARALLEL]) == ["base_parallel_0", "base_parallel_1"]
    assert data.warnings == ()


def test_builtin_dataset_loads() -> None:
    assert any((builtin_data_dir() / "questions").glob("*.json*")), "no built-in dataset"
    data = load_dataset()
    assert len(data) > 0 and data.ids()
    assert sum(data.counts().values()) == len(data)
    for item in data.iter_items():
        assert item.functions
        assert item.category is Category.IRRELEVANCE or item.expected


# -- discovery ----------------------------------------------------------------------------


def test_question_files_not_named_after_a_category_are_listed(tmp_path: Path) -> None:
    simple_dataset(tmp_path)
    write_lines(tmp_path / "questions" / "notes.json", [{"anything": 1}])
    write_lines(tmp_path / "questions" / "BFCL_v3_multi_turn_base.json", [{"id": "m"}])
    (tmp_path / "questions" / "README.md").write_text("not data")
    data = load_dataset(tmp_path)
    (warning,) = data.warnings
    assert "notes.json (no category in the name)" in warning.message
    assert "multi_turn" in warning.message
    assert len(data) == 2


def test_explicit_questions_find_answers_beside_them(tmp_path: Path) -> None:
    simple_dataset(tmp_path)
    data = load_dataset(questions=[tmp_path / "questions" / "simple.jsonl"])
    assert data.answer_files == (tmp_path / "answers" / "simple.jsonl",)
    assert data.root is None
    bfcl = load_dataset(questions=[FIXTURES / "bfcl_layout" / "BFCL_v3_parallel.json"])
    assert bfcl.ids() == ["parallel_0"]


def test_explicit_files_load_whatever_their_name(tmp_path: Path) -> None:
    q = write_lines(tmp_path / "q.jsonl", [question("base_simple_0")])
    a = write_lines(tmp_path / "gt.jsonl", [answer("base_simple_0", {"f": {"x": 1}})])
    data = load_dataset(questions=[q], answers=[a])
    assert data.category_of("base_simple_0") is Category.SIMPLE


def test_sha256_covers_every_file(tmp_path: Path) -> None:
    root = simple_dataset(tmp_path)
    first = load_dataset(root).sha256
    assert load_dataset(root).sha256 == first and len(first) == 64
    path = root / "answers" / "simple.jsonl"
    path.write_text(path.read_text().replace('"x": 1', '"x": 7'))
    assert load_dataset(root).sha256 != first


def test_orphan_answers_are_a_warning(tmp_path: Path) -> None:
    root = simple_dataset(tmp_path)
    with (root / "answers" / "simple.jsonl").open("a") as handle:
        handle.write(json.dumps(answer("ghost_1", {"f": {"x": 1}})) + "\n")
    data = load_dataset(root)
    (warning,) = data.warnings
    assert "ghost_1" in warning.message and warning.path == str(root / "answers" / "simple.jsonl")


# -- errors -------------------------------------------------------------------------------


def broken(root: Path, lines: list[str], answers: list[str] | None = None) -> DataError:
    (root / "questions").mkdir(parents=True)
    (root / "answers").mkdir()
    (root / "questions" / "simple.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    answer_lines = answers
    if answer_lines is None:
        answer_lines = [json.dumps(answer(f"s_{i}", {"f": {"x": i}})) for i in range(3)]
    (root / "answers" / "simple.jsonl").write_text("\n".join(answer_lines) + "\n")
    with pytest.raises(DataError) as caught:
        load_dataset(root)
    return caught.value


GOOD = [json.dumps(question(f"s_{i}")) for i in range(3)]

ERROR_CASES = [
    # (name, question lines, answer lines or None, file, line, id, words in the message)
    ("bad JSON", [GOOD[0], '{"id": "s_1", "question": ', GOOD[2]], None, "q", 2, "s_1", "JSON"),
    ("not an object", [GOOD[0], "[1, 2]", GOOD[2]], None, "q", 2, None, "not an object"),
    (
        "no id",
        [GOOD[0], json.dumps({"question": "q", "function": [INT_DOC]})],
        None,
        "q",
        2,
        None,
        '"id"',
    ),
    ("number id", [json.dumps({**question("s"), "id": 3})], None, "q", 1, None, "not a string"),
    ("duplicate id", [GOOD[0], GOOD[1], GOOD[0]], None, "q", 3, "s_0", "line 1"),
    (
        "unknown category",
        [json.dumps(question("s_0", category="chitchat"))],
        None,
        "q",
        1,
        "s_0",
        "chitchat",
    ),
    (
        "java category",
        [json.dumps(question("s_0", category="java"))],
        None,
        "q",
        1,
        "s_0",
        "not supported",
    ),
    (
        "no question",
        [json.dumps({"id": "s_0", "function": [INT_DOC]})],
        None,
        "q",
        1,
        "s_0",
        "question",
    ),
    (
        "doc without name",
        [json.dumps(question("s_0", {"description": "d"}))],
        None,
        "q",
        1,
        "s_0",
        "no name",
    ),
    ("no function", [json.dumps({"id": "s_0", "question": "q"})], None, "q", 1, "s_0", "function"),
    (
        "missing answer",
        GOOD,
        [json.dumps(answer("s_0", {"f": {"x": 0}}))],
        "q",
        2,
        "s_1",
        "no ground truth",
    ),
    (
        "malformed ground truth",
        GOOD[:1],
        [json.dumps(answer("s_0", [{"f": 3}]))],
        "a",
        1,
        "s_0",
        "not an object",
    ),
    (
        "ground truth a string",
        GOOD[:1],
        [json.dumps(answer("s_0", "f(x=1)"))],
        "a",
        1,
        "s_0",
        "a string",
    ),
    (
        "no ground_truth key",
        GOOD[:1],
        [json.dumps({"id": "s_0", "answer": 1})],
        "a",
        1,
        "s_0",
        "ground_truth",
    ),
    (
        "duplicate answer",
        GOOD[:1],
        [json.dumps(answer("s_0", {"f": {"x": 0}}))] * 2,
        "a",
        2,
        "s_0",
        "duplicate",
    ),
]


@pytest.mark.parametrize(
    ("lines", "answers", "file", "line", "item_id", "words"),
    [c[1:] for c in ERROR_CASES],
    ids=[c[0] for c in ERROR_CASES],
)
def test_data_errors_name_file_line_id_and_fix(
    tmp_path: Path,
    lines: list[str],
    answers: list[str] | None,
    file: str,
    line: int,
    item_id: str | None,
    words: str,
) -> None:
    error = broken(tmp_path, lines, answers)
    folder = "questions" if file == "q" else "answers"
    assert error.path == str(tmp_path / folder / "simple.jsonl")
    assert error.line == line
    assert error.item_id == item_id
    assert words in error.message
    assert error.hint
    assert str(line) in str(error) and "fix:" in str(error)


def test_non_utf8_file_is_an_error_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "questions").mkdir()
    latin1 = json.dumps(question("s_1")).replace("\\u95ee\\u9898", "caf\xe9").encode("latin-1")
    (tmp_path / "questions" / "simple.jsonl").write_bytes(GOOD[0].encode() + b"\n" + latin1)
    write_lines(tmp_path / "answers" / "simple.jsonl", [answer("s_0", {"f": {"x": 0}})])
    with pytest.raises(DataError) as caught:
        load_dataset(tmp_path)
    assert caught.value.line == 2 and "UTF-8" in caught.value.message
    assert caught.value.hint


def test_broken_json_array_reports_json_line(tmp_path: Path) -> None:
    (tmp_path / "questions").mkdir()
    text = json.dumps(ROWS, indent=2).replace('"simple_1",', '"simple_1"', 1)
    (tmp_path / "questions" / "simple.json").write_text(text)
    with pytest.raises(DataError) as caught:
        load_dataset(tmp_path)
    lineno = next(n for n, t in enumerate(text.splitlines(), 1) if '"simple_1"' in t) + 1
    assert caught.value.line == lineno and "malformed JSON" in caught.value.message


def test_bfcl_file_with_a_single_value_is_an_error(tmp_path: Path) -> None:
    write_lines(tmp_path / "questions" / "simple.jsonl", [question(f"s_{i}") for i in range(3)])
    truths = [[{"f": {"x": [1]}}], [{"f": {"x": [2]}}], [{"f": {"x": 3}}]]
    write_lines(
        tmp_path / "possible_answer" / "simple.jsonl",
        [answer(f"s_{i}", gt) for i, gt in enumerate(truths)],
    )
    with pytest.raises(DataError) as caught:
        load_dataset(tmp_path)
    assert (caught.value.line, caught.value.item_id) == (3, "s_2")
    assert "--answer-style tfce" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"data": Path("does/not/exist")}, "no dataset directory"),
        ({"questions": [Path("does/not/exist.jsonl")]}, "no such file"),
    ],
)
def test_missing_paths(args: dict[str, Any], words: str) -> None:
    with pytest.raises(DataError) as caught:
        load_dataset(**args)
    assert words in caught.value.message and caught.value.hint


def test_no_answers_directory(tmp_path: Path) -> None:
    write_lines(tmp_path / "simple.jsonl", [question("s_0")])
    with pytest.raises(DataError) as caught:
        load_dataset(tmp_path)
    assert caught.value.item_id == "s_0"
    assert "possible_answer" in (caught.value.hint or "")


# -- the one JSON Lines reader -------------------------------------------------------------


def test_json_lines_records_carry_offsets_and_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a"}\n\n  \n{"id": "b"}\r\n{"id": "\xe5\x8c\x97"}')
    scan = JsonLines(path)
    records = list(scan)
    assert [(r.line, r.value) for r in records] == [
        (1, {"id": "a"}),
        (4, {"id": "b"}),
        (5, {"id": "北"}),
    ]
    assert not scan.torn_tail
    assert scan.digest() == hashlib.sha256(path.read_bytes()).hexdigest()
    with LineReader() as reader:
        for record in reversed(records):
            assert reader.read(path, record.offset, record.line) == record.value


def test_a_torn_last_line_is_dropped_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "outputs.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b", "te')
    *_, last = JsonLines(path)
    assert last.line == 2 and last.error is not None and "malformed JSON" in last.error
    tolerant = JsonLines(path, torn_tail_ok=True)
    assert [r.value for r in tolerant] == [{"id": "a"}] and tolerant.torn_tail
    whole = JsonLines(path, torn_tail_ok=True)
    path.write_bytes(b'{"id": "a"}\n{"id": "b"}')  # complete, only the newline missing
    assert [r.value for r in whole] == [{"id": "a"}, {"id": "b"}] and not whole.torn_tail


def test_a_file_with_cr_line_ends_is_reported_not_dropped_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "outputs.jsonl"
    path.write_bytes(b'{"id": "a"}\r{"id": "b"}\r{"id": "c"}\r')
    scan = JsonLines(path, torn_tail_ok=True)
    (record,) = scan
    assert not scan.torn_tail and record.line == 1
    assert record.error is not None and "carriage returns" in record.error
    assert "LF" in (record.hint or "")


def test_lines_beyond_the_limits_are_records_with_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    rows = [
        b'{"id": "a"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"n": ' + b"7" * 5000 + b"}",
        b'{"s": "' + b"[" * 300 + b'"}',  # brackets inside a string do not nest
        b'{"id": "z"}',
    ]
    path.write_bytes(b"\n".join(rows) + b"\n")
    records = list(JsonLines(path))
    assert [r.line for r in records] == [1, 2, 3, 4, 5]
    assert records[0].value == {"id": "a"} and records[4].value == {"id": "z"}
    assert "nest deeper than 128 levels (column 129)" in (records[1].error or "")
    assert "an integer with more than 4300 digits" in (records[2].error or "")
    assert records[3].value == {"s": "[" * 300}
    small = list(JsonLines(path, limits=JsonLimits(max_bytes=1000)))
    assert [r.line for r in small] == [1, 2, 3, 4, 5]
    assert "longer than the limit of 1000 bytes" in (small[1].error or "")
    assert small[4].value == {"id": "z"}
    with LineReader() as reader:
        assert reader.read(path, small[4].offset, 5) == {"id": "z"}
        with pytest.raises(DataError) as caught:
            reader.read(path, records[1].offset, 2)
        assert caught.value.line == 2 and caught.value.path == str(path)


def _reference_parse(raw: bytes) -> Any:
    """What parse_json does, in the plainest words: decode, scan the depth, json.loads."""
    import sys

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return ("not UTF-8", exc.start)
    if raw.count(b"[") + raw.count(b"{") > 128:
        return "deep"
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return (exc.msg, exc.lineno, exc.colno)
    except ValueError:
        return f"digits {sys.get_int_max_str_digits()}"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "a"}',
        b'{"id": "a"}\n',
        b'{"id": "a"}\r\n',
        b'{"id": "a"}  \n',
        b'  {"id": "a"}\n',
        b"\t[1, 2]\r\n",
        b'{"id": "a"} {"id": "b"}\n',
        b'{"id": "a"}x',
        b"\xef\xbb\xbf" + b'{"id": "a"}\n',
        b"\xef\xbb\xbf\xef\xbb\xbf" + b'{"id": "a"}\n',
        b"\xef\xbb\xbf",
        b'{"id": "\xe5\x8c"}\n',
        b"\xef\xbb\xbf" + b'{"id": "\xff"}\n',
        b'{"n": NaN, "m": -Infinity}\n',
        b'{"n": ' + b"9" * 5000 + b"}\n",
        b'{"id": "a"',
        b"",
        b"   ",
        b"[" * 200 + b"]" * 200,
        b'"\\ud83d"\n',
        b"1e999\n",
    ],
)
def test_parse_json_reads_as_json_loads_does(raw: bytes) -> None:
    """The reader's fast path (plain UTF-8, raw_decode) decides every value and refusal as
    utf-8-sig decoding and json.loads do, the refusal's position included."""
    from tfce_eval.jsonl import JsonRefused, parse_json

    expected = _reference_parse(raw)
    try:
        got: Any = parse_json(raw)
    except JsonRefused as exc:
        if isinstance(expected, tuple) and expected[0] == "not UTF-8":
            assert exc.encoding and exc.what.startswith("not UTF-8")
            assert exc.column == expected[1] + 1
        elif expected == "deep":
            assert "nest deeper" in exc.what
        elif isinstance(expected, str):
            assert "digits" in exc.what
        else:
            assert exc.what == f"malformed JSON: {expected[0]}"
            assert (exc.line, exc.column) == expected[1:]
        return
    assert repr(got) == repr(expected)


def test_a_missing_json_lines_file_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        list(JsonLines(tmp_path / "nope.jsonl"))
    assert caught.value.message == "file not found"


def test_warnings_are_findings(tmp_path: Path) -> None:
    root = simple_dataset(tmp_path)
    with (root / "answers" / "simple.jsonl").open("a") as handle:
        handle.write(json.dumps(answer("ghost_1", {"f": {"x": 1}})) + "\n")
    (warning,) = load_dataset(root).warnings
    assert isinstance(warning, Finding) and warning.level is Level.WARNING


# -- streaming ----------------------------------------------------------------------------


@pytest.mark.slow
def test_streams_a_large_dataset(tmp_path: Path) -> None:
    """Loading keeps an index (a few hundred bytes per item), never the items; iterating
    holds one item at a time. Both are measured: holding every item would take about
    2,500 bytes per item here, 50 MB in all."""
    import tracemalloc

    n = 20_000
    (tmp_path / "questions").mkdir()
    (tmp_path / "answers").mkdir()
    with (
        (tmp_path / "questions" / "parallel.json").open("w", encoding="utf-8") as q,
        (tmp_path / "answers" / "parallel.json").open("w", encoding="utf-8") as a,
    ):
        for i in reversed(range(n)):
            q.write(json.dumps(question(f"base_parallel_{i}"), ensure_ascii=False) + "\n")
            a.write(json.dumps(answer(f"base_parallel_{i}", [{"f": {"x": i}}] * 2)) + "\n")
    tracemalloc.start()
    try:
        data = load_dataset(tmp_path)
        held, load_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        seen = 0
        for item in data.iter_items():
            assert item.expected[0].params["x"].values == (int(item.id.rsplit("_", 1)[1]),)
            seen += 1
        _, iter_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == n
    # The index: an id, two locations and an order entry per item, and one line at a time.
    assert load_peak < 700 * n + 4_000_000, load_peak
    # Iterating adds one item (and one line) at a time, whatever n is.
    assert iter_peak - held < 1_000_000, iter_peak - held
    assert len(data) == n
    assert data.ids()[:3] == ["base_parallel_0", "base_parallel_1", "base_parallel_2"]
    assert data.get("base_parallel_12345").expected[1].params["x"].values == (12345,)
    assert "base_parallel_19999" in data and "base_parallel_20000" not in data
    chosen = ["base_parallel_7", "base_parallel_3"]
    assert [i.id for i in data.iter_items(ids=chosen)] == sorted(chosen)


def test_lookups_of_unknown_ids(tmp_path: Path) -> None:
    data: Dataset = load_dataset(simple_dataset(tmp_path))
    with pytest.raises(KeyError):
        data.get("nope")
    with pytest.raises(KeyError):
        data.category_of("nope")
    with pytest.raises(KeyError):
        list(data.iter_items(ids=["s_0", "nope"]))
    assert data.ids([Category.PARALLEL]) == []
    assert [i.id for i in data.iter_items(categories=[Category.SIMPLE], ids=["s_1"])] == ["s_1"]


def test_a_file_changed_after_loading_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset too large to keep parsed is read back by offset: a line that moved since
    loading is an error, never another item's record."""
    monkeypatch.setattr("tfce_eval.dataset.index.KEEP_PARSED_BYTES", 0)
    root = simple_dataset(tmp_path, n=3)
    data = load_dataset(root)
    path = root / "questions" / "simple.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[1], lines[0], lines[2]]) + "\n")
    with pytest.raises(DataError) as caught:
        data.get("s_0")
    assert "changed" in caught.value.message and caught.value.path == str(path)
    assert data.get("s_2").id == "s_2"  # same length lines: s_2 did not move


def test_a_small_dataset_is_parsed_once(tmp_path: Path) -> None:
    """A small dataset keeps the records it loaded: its items are built from them, so a
    file changed (or removed) after loading changes nothing."""
    root = simple_dataset(tmp_path, n=3)
    data = load_dataset(root)
    (root / "questions" / "simple.jsonl").write_text("", encoding="utf-8")
    (root / "answers" / "simple.jsonl").unlink()
    assert [i.id for i in data.iter_items()] == ["s_0", "s_1", "s_2"]
    assert data.get("s_1").expected[0].params["x"].values == (1,)
