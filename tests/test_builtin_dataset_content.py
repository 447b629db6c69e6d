"""Content checks of the built-in dataset (`questions/`, `answers/`) and its example outputs.

These read the JSON Lines files directly and need nothing from `tfce_eval`: ids, counts,
category shapes, function coverage, well-formed docs and ground-truth values of the declared
types. When `functions/` can be loaded as a package, every doc is also compared with the
implementation's signature and every ground-truth call is executed, so the dataset and the
functions cannot drift apart unnoticed.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import re
import sys
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "questions"
ANSWERS = ROOT / "answers"
EXAMPLES = ROOT / "examples"
FUNCTIONS_DIR = ROOT / "functions"

# category -> (id prefix, number of items)
CATEGORIES: dict[str, tuple[str, int]] = {
    "simple": ("base_simple_", 16),
    "multiple": ("base_multiple_", 10),
    "parallel": ("base_parallel_", 10),
    "parallel_multiple": ("base_parallel_multi_", 12),
    "irrelevance": ("base_irrelevance_", 5),
}

# The function library the dataset is written against (functions/, 28 functions).
FUNCTIONS = frozenset(
    {
        "nr_arfcn_to_frequency",
        "frequency_to_nr_arfcn",
        "lte_earfcn_to_frequency",
        "max_resource_blocks",
        "free_space_path_loss",
        "path_loss_38901",
        "shannon_capacity",
        "nr_peak_data_rate",
        "rsrq_db",
        "thermal_noise_dbm",
        "lte_transmission_bandwidth_rbs",
        "nr_slot_duration_ms",
        "gscn_to_frequency",
        "link_budget_max_path_loss",
        "sinr_db",
        "fresnel_zone_radius",
        "okumura_hata_path_loss",
        "nb_iot_max_coupling_loss",
        "lora_time_on_air_ms",
        "t3412_extended_seconds",
        "t3324_seconds",
        "qos_5qi_characteristics",
        "parse_imsi",
        "kdf_hmac_sha256",
        "security_algorithm_name",
        "eirp_dbm",
        "units.dbm_to_watts",
        "units.watts_to_dbm",
    }
)

# Functions that must be expected in at least two items.
USED_TWICE = (
    "nr_arfcn_to_frequency",
    "frequency_to_nr_arfcn",
    "lte_earfcn_to_frequency",
    "max_resource_blocks",
    "free_space_path_loss",
    "path_loss_38901",
    "shannon_capacity",
    "nr_peak_data_rate",
    "rsrq_db",
    "thermal_noise_dbm",
)

DOC_TYPES = frozenset({"integer", "float", "string", "boolean", "array", "dict"})
MODEL_ERROR_CODES = frozenset(
    {
        "parse_error",
        "no_call",
        "unexpected_call",
        "wrong_count",
        "wrong_function",
        "missing_required",
        "missing_param",
        "unexpected_param",
        "type_error",
        "value_error",
        "exec_error",
        "exec_mismatch",
    }
)
PAYLOAD_KEYS = ("tool_calls", "content", "text")
CJK = re.compile(r"[\u4e00-\u9fff]")

Record = dict[str, Any]
ExpectedCall = tuple[str, dict[str, Any]]


def read_jsonl(path: Path) -> list[Record]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record = json.loads(line)
        assert isinstance(record, dict), f"{path}:{number} is not a JSON object"
        records.append(record)
    return records


def questions(category: str) -> list[Record]:
    return read_jsonl(QUESTIONS / f"{category}.jsonl")


def answers(category: str) -> list[Record]:
    return read_jsonl(ANSWERS / f"{category}.jsonl")


def expected_calls(answer: Record) -> list[ExpectedCall]:
    """The ground truth as a list of (name, arguments): TFCE style, a dict or a list of them."""
    truth = answer["ground_truth"]
    parts = [truth] if isinstance(truth, dict) else truth
    assert isinstance(parts, list), f"{answer['id']}: ground_truth is neither object nor list"
    calls = []
    for part in parts:
        assert isinstance(part, dict), f"{answer['id']}: a ground-truth entry is not an object"
        for name, arguments in part.items():
            assert isinstance(arguments, dict), f"{answer['id']}: {name} has no argument object"
            calls.append((name, arguments))
    return calls


def items() -> Iterator[tuple[str, Record, list[ExpectedCall]]]:
    """Every (category, question record, expected calls), joined by id."""
    for category in CATEGORIES:
        truth = {answer["id"]: expected_calls(answer) for answer in answers(category)}
        for question in questions(category):
            yield category, question, truth.get(question["id"], [])


def docs_of(question: Record) -> dict[str, Record]:
    functions = question["function"]
    assert isinstance(functions, list), f"{question['id']}: function is not a list of docs"
    return {doc["name"]: doc for doc in functions}


def has_declared_type(schema: Record, value: object) -> bool:
    """True if a ground-truth value has exactly the JSON type its doc declares."""
    declared = schema["type"]
    if "enum" in schema and value not in schema["enum"]:
        return False
    if declared == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if declared == "float":
        return isinstance(value, float)
    if declared == "string":
        return isinstance(value, str)
    if declared == "boolean":
        return isinstance(value, bool)
    if declared == "array":
        return isinstance(value, list) and all(
            has_declared_type(schema["items"], element) for element in value
        )
    if declared == "dict":
        return isinstance(value, dict)
    return False


# ---- files, ids and counts


@pytest.mark.parametrize("category", CATEGORIES)
def test_question_ids_and_answer_ids_pair_up(category: str) -> None:
    question_ids = [q["id"] for q in questions(category)]
    answer_ids = [a["id"] for a in answers(category)]
    assert len(question_ids) == len(set(question_ids)), "duplicate question ids"
    assert len(answer_ids) == len(set(answer_ids)), "duplicate answer ids"
    assert set(question_ids) == set(answer_ids)


@pytest.mark.parametrize(("category", "prefix", "count"), [(c, *v) for c, v in CATEGORIES.items()])
def test_ids_are_prefixed_and_numbered_from_zero(category: str, prefix: str, count: int) -> None:
    pattern = re.compile(rf"{re.escape(prefix)}(0|[1-9][0-9]*)")
    numbers = []
    for question in questions(category):
        match = pattern.fullmatch(question["id"])
        assert match, f"{question['id']} does not match {prefix}<n>"
        numbers.append(int(match.group(1)))
    assert sorted(numbers) == list(range(count))


def test_ids_are_unique_across_the_dataset() -> None:
    ids = [question["id"] for _, question, _ in items()]
    assert len(ids) == len(set(ids)) == sum(count for _, count in CATEGORIES.values())


@pytest.mark.parametrize("category", CATEGORIES)
def test_questions_declare_their_category_and_are_chinese(category: str) -> None:
    for question in questions(category):
        assert question["category"] == category, question["id"]
        assert isinstance(question["question"], str), question["id"]
        assert CJK.search(question["question"]), f"{question['id']} is not in Chinese"


# ---- function docs


def test_docs_are_well_formed() -> None:
    for _, question, _ in items():
        for name, doc in docs_of(question).items():
            where = f"{question['id']}: {name}"
            assert isinstance(doc.get("description"), str) and doc["description"], where
            params = doc["parameters"]
            assert params["type"] == "dict", where
            properties = params["properties"]
            assert set(params["required"]) <= set(properties), where
            for pname, schema in properties.items():
                at = f"{where}.{pname}"
                assert schema["type"] in DOC_TYPES, at
                assert isinstance(schema.get("description"), str) and schema["description"], at
                if schema["type"] == "array":
                    assert schema["items"]["type"] in DOC_TYPES, at
                if "enum" in schema:
                    assert schema["type"] == "string" and schema["enum"], at
                    assert all(isinstance(value, str) for value in schema["enum"]), at
                if "default" in schema:
                    assert pname not in params["required"], f"{at}: required with a default"
                    assert has_declared_type(schema, schema["default"]), f"{at}: default type"
                else:
                    assert pname in params["required"], f"{at}: optional without a default"


def test_each_function_has_one_doc_everywhere() -> None:
    seen: dict[str, Record] = {}
    for _, question, _ in items():
        for name, doc in docs_of(question).items():
            assert seen.setdefault(name, doc) == doc, f"{question['id']}: {name} differs"
    assert set(seen) <= FUNCTIONS, f"docs for unknown functions: {set(seen) - FUNCTIONS}"


def test_every_function_is_expected_and_the_main_ten_twice() -> None:
    uses: Counter[str] = Counter()
    for _, _, calls in items():
        uses.update({name for name, _ in calls})
    assert set(uses) == FUNCTIONS, f"never expected: {sorted(FUNCTIONS - set(uses))}"
    rare = {name: uses[name] for name in USED_TWICE if uses[name] < 2}
    assert not rare, f"expected in fewer than two items: {rare}"


# ---- ground truth


def test_ground_truth_calls_fit_the_item_docs() -> None:
    for _, question, calls in items():
        docs = docs_of(question)
        for name, arguments in calls:
            where = f"{question['id']}: {name}"
            assert name in docs, f"{where} is not one of the item's docs"
            params = docs[name]["parameters"]
            undeclared = set(arguments) - set(params["properties"])
            assert not undeclared, f"{where}: undeclared {undeclared}"
            missing = set(params["required"]) - set(arguments)
            assert not missing, f"{where}: required {missing} missing"
            for pname, value in arguments.items():
                schema = params["properties"][pname]
                assert has_declared_type(schema, value), f"{where}.{pname}={value!r}"


def _shape_simple(docs: int, calls: list[ExpectedCall]) -> bool:
    return docs == 1 and len(calls) == 1


def _shape_multiple(docs: int, calls: list[ExpectedCall]) -> bool:
    return 2 <= docs <= 4 and len(calls) == 1


def _shape_parallel(docs: int, calls: list[ExpectedCall]) -> bool:
    return docs == 1 and 2 <= len(calls) <= 4 and len({name for name, _ in calls}) == 1


def _shape_parallel_multiple(docs: int, calls: list[ExpectedCall]) -> bool:
    return 2 <= docs <= 4 and 2 <= len(calls) <= 4 and len({name for name, _ in calls}) >= 2


def _shape_irrelevance(docs: int, calls: list[ExpectedCall]) -> bool:
    return docs >= 1 and not calls


SHAPES: dict[str, Callable[[int, list[ExpectedCall]], bool]] = {
    "simple": _shape_simple,
    "multiple": _shape_multiple,
    "parallel": _shape_parallel,
    "parallel_multiple": _shape_parallel_multiple,
    "irrelevance": _shape_irrelevance,
}


@pytest.mark.parametrize("category", CATEGORIES)
def test_items_have_their_category_shape(category: str) -> None:
    for item_category, question, calls in items():
        if item_category == category:
            docs = len(docs_of(question))
            assert SHAPES[category](docs, calls), f"{question['id']}: {docs} docs, {calls}"


@pytest.mark.parametrize("category", CATEGORIES)
def test_ground_truth_style_per_category(category: str) -> None:
    for answer in answers(category):
        truth = answer["ground_truth"]
        if category in ("simple", "multiple"):
            assert isinstance(truth, dict) and len(truth) == 1, answer["id"]
        else:
            assert isinstance(truth, list), answer["id"]
            assert all(isinstance(c, dict) and len(c) == 1 for c in truth), answer["id"]


# ---- agreement with the implementation in functions/

_PACKAGE = "_tfce_builtin_functions_under_test"
_PY_TO_DOC = {int: "integer", float: "float", str: "string", bool: "boolean", list: "array"}


@pytest.fixture(scope="module")
def implementation() -> Iterator[Callable[[str], Callable[..., Any]]]:
    """A resolver from a function name (dotted names by module path) to the implementation."""
    # The only tests of docs against signatures: a functions/ that is missing or does not
    # import fails them (a skip would hide exactly the regression they are for).
    init = FUNCTIONS_DIR / "__init__.py"
    assert init.is_file(), f"{init} is missing: the docs cannot be compared with it"
    spec = importlib.util.spec_from_file_location(
        _PACKAGE, init, submodule_search_locations=[str(FUNCTIONS_DIR)]
    )
    assert spec is not None and spec.loader is not None, f"{FUNCTIONS_DIR} is no package"
    package = importlib.util.module_from_spec(spec)
    sys.modules[_PACKAGE] = package
    try:
        spec.loader.exec_module(package)
    except Exception as exc:
        sys.modules.pop(_PACKAGE, None)
        pytest.fail(f"{FUNCTIONS_DIR} does not import: {exc!r}")

    def resolve(name: str) -> Callable[..., Any]:
        module: ModuleType = package
        if "." in name:
            path, name = name.rsplit(".", 1)
            module = importlib.import_module(f"{_PACKAGE}.{path}")
        function = getattr(module, name, None)
        assert callable(function), f"functions/ has no {name}"
        return function

    yield resolve
    for loaded in [m for m in sys.modules if m == _PACKAGE or m.startswith(f"{_PACKAGE}.")]:
        del sys.modules[loaded]


def _doc_type_of(annotation: object) -> str | None:
    return _PY_TO_DOC.get(typing.get_origin(annotation) or annotation)


def test_docs_agree_with_implementation_signatures(
    implementation: Callable[[str], Callable[..., Any]],
) -> None:
    docs: dict[str, Record] = {}
    for _, question, _ in items():
        docs.update(docs_of(question))
    for name, doc in sorted(docs.items()):
        function = implementation(name)
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function)
        params = doc["parameters"]
        assert list(params["properties"]) == list(signature.parameters), name
        required = [p for p, s in signature.parameters.items() if s.default is s.empty]
        assert sorted(params["required"]) == sorted(required), name
        for pname, parameter in signature.parameters.items():
            schema = params["properties"][pname]
            assert schema["type"] == _doc_type_of(hints[pname]), f"{name}.{pname} type"
            if parameter.default is not parameter.empty:
                default = schema["default"]
                assert default == parameter.default, f"{name}.{pname} default"
                assert type(default) is type(parameter.default), f"{name}.{pname} default type"


def test_ground_truth_calls_run_on_the_implementation(
    implementation: Callable[[str], Callable[..., Any]],
) -> None:
    for _, question, calls in items():
        for name, arguments in calls:
            try:
                result = implementation(name)(**arguments)
            except Exception as exc:
                pytest.fail(f"{question['id']}: {name}(**{arguments}) raised {exc!r}")
            assert result is not None, f"{question['id']}: {name} returned None"


# ---- examples/outputs.jsonl and examples/README.md


def outputs() -> list[Record]:
    return read_jsonl(EXAMPLES / "outputs.jsonl")


def readme_rows() -> list[list[str]]:
    """The rows of the expected-verdict table: id, shape, AST, exec, note."""
    rows = []
    for line in (EXAMPLES / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if line.startswith("| base_") and len(cells) == 5:
            rows.append(cells)
    return rows


def test_outputs_answer_every_item_once() -> None:
    output_ids = [output["id"] for output in outputs()]
    assert len(output_ids) == len(set(output_ids)), "an item is answered twice"
    assert set(output_ids) == {question["id"] for _, question, _ in items()}


def test_outputs_have_one_well_formed_payload() -> None:
    for output in outputs():
        keys = [key for key in PAYLOAD_KEYS if key in output]
        assert len(keys) == 1, f"{output['id']}: payload keys {keys}"
        payload = output[keys[0]]
        if keys[0] == "text":
            assert isinstance(payload, str) and payload, output["id"]
        elif keys[0] == "tool_calls":
            for call in payload:
                assert call["type"] == "function", output["id"]
                assert isinstance(call["function"]["name"], str), output["id"]
                assert isinstance(call["function"]["arguments"], str), output["id"]
        else:
            assert payload, output["id"]
            for block in payload:
                assert block["type"] in ("text", "tool_use"), output["id"]
                if block["type"] == "tool_use":
                    assert isinstance(block["input"], dict), output["id"]


def test_outputs_mix_all_three_shapes() -> None:
    shapes = Counter(next(k for k in PAYLOAD_KEYS if k in output) for output in outputs())
    assert set(shapes) == set(PAYLOAD_KEYS)
    assert min(shapes.values()) >= len(outputs()) // 5, shapes


def test_readme_table_covers_every_output_with_its_shape() -> None:
    shapes = {o["id"]: next(k for k in PAYLOAD_KEYS if k in o) for o in outputs()}
    rows = readme_rows()
    assert [row[0] for row in rows] == [output["id"] for output in outputs()]
    for item_id, shape, ast, exec_, _ in rows:
        assert shape == shapes[item_id], item_id
        assert ast == "valid" or ast in MODEL_ERROR_CODES, f"{item_id}: AST {ast!r}"
        for part in exec_.split(" / "):
            verdict = part.strip().strip("`")
            assert verdict in ("valid", "-") or verdict in MODEL_ERROR_CODES, item_id


def test_readme_table_exercises_every_model_error_code() -> None:
    codes = set()
    for _, _, ast, exec_, _ in readme_rows():
        codes.add(ast)
        codes.update(part.strip().strip("`") for part in exec_.split(" / "))
    assert codes >= MODEL_ERROR_CODES, f"never exercised: {sorted(MODEL_ERROR_CODES - codes)}"


def test_about_two_thirds_of_the_outputs_are_right() -> None:
    rows = readme_rows()
    right = sum(1 for row in rows if row[2] == "valid")
    assert 0.6 <= right / len(rows) <= 0.7, f"{right} of {len(rows)} valid"
