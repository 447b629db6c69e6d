"""Exec checking: workers, limits, name resolution, and the item verdicts (docs/exec.md 6)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.dataset.load import load_dataset
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.errors import DataError, UsageError
from tfce_eval.exec.call import call_function
from tfce_eval.exec.executor import Executor
from tfce_eval.exec.records import ExecOptions, default_functions_dir
from tfce_eval.exec.validate import doc_problems, exec_findings
from tfce_eval.model import (
    Call,
    Category,
    ErrorCode,
    ExpectedCall,
    ExpectedParam,
    FunctionDoc,
    Item,
)

HOSTILE = Path(__file__).parent / "fixtures" / "hostile_functions"
REPO = Path(__file__).resolve().parent.parent
TIMEOUT_S = 1.0
#: Generous: a worker that is killed and replaced must stay far below this.
SLACK_S = 4.0


@pytest.fixture(scope="module")
def executor() -> Iterator[Executor]:
    with Executor(ExecOptions(HOSTILE, timeout_s=TIMEOUT_S, memory_mb=512, workers=2)) as ex:
        yield ex


def doc(name: str, props: dict[str, Any], required: tuple[str, ...] = ()) -> FunctionDoc:
    raw = {
        "name": name,
        "description": "",
        "parameters": {"type": "dict", "properties": props, "required": list(required)},
    }
    return FunctionDoc(name, "", raw)


ADD = doc("add", {"a": {"type": "float"}, "b": {"type": "float", "default": 0.0}}, ("a",))
DOUBLE = doc("units.double", {"x": {"type": "float"}}, ("x",))
STRICT = doc("strict_int", {"n": {"type": "integer"}}, ("n",))
GREET = doc(
    "greet",
    {"name": {"type": "string"}, "punctuation": {"type": "string", "default": "!"}},
    ("name",),
)
BOOM = doc("boom", {"message": {"type": "string"}})
DOCS = (ADD, DOUBLE, STRICT, GREET, BOOM)


def expect(name: str, **params: Any) -> ExpectedCall:
    return ExpectedCall(name, {k: ExpectedParam((v,)) for k, v in params.items()})


def make_item(*expected: ExpectedCall, category: Category = Category.PARALLEL) -> Item:
    return Item("t_0", category, "q", DOCS, tuple(expected))


# -- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "implemented"),
    [
        ("add", True),
        ("units.double", True),
        ("math.db_to_linear", True),  # the directory's math.py, not the standard library
        ("hidden.secret", True),  # dotted names map to module paths
        ("secret", False),  # lives in a module __init__.py does not re-export
        ("join", False),  # re-exported from the standard library: not the directory's own
        ("units", False),  # a module, not a function
        ("math.sqrt", False),  # the standard library is never reached
        ("_private", False),
        ("core._hidden", False),
        ("os.system", False),
        ("..evil", False),
        ("units..double", False),
        ("a b", False),
        ("", False),
        ("nonexistent", False),
    ],
)
def test_implemented(executor: Executor, name: str, implemented: bool) -> None:
    assert executor.implemented(name) is implemented


def test_refused_names_are_not_run(executor: Executor) -> None:
    outcomes = executor.run([Call("join", {"a": "x", "p": "y"}), Call("_private", {})])
    assert [o.ok for o in outcomes] == [False, False]
    assert all("is not implemented" in (o.error or "") for o in outcomes)


# -- single calls ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "ok", "expected"),
    [
        (Call("add", {"a": 1, "b": 2}), True, 3),
        (Call("add", {"a": 1, "b": None}), True, 1.0),  # null for an optional parameter: dropped
        (Call("units.double", {"x": 2.5}), True, 5.0),
        (Call("math.db_to_linear", {"db": 10}), True, 10.0),
        (Call("hidden.secret", {}), True, "secret"),
        (Call("pair", {"x": 1}), True, [1, [1, [1]]]),  # tuples become lists
        (Call("greet", {"name": "北京"}), True, "北京!"),
        (Call("boom", {"message": "bad"}), False, "raised ValueError: bad"),
        (Call("add", {"a": 1, "c": 2}), False, "raised TypeError: add() got an unexpected"),
        (Call("exits", {}), False, "raised SystemExit: 4"),
        (Call("ask", {}), False, "raised EOFError"),  # stdin is not the harness's
        (Call("as_set", {}), False, "returned a result that is not JSON-like: set"),
        (Call("crash", {"code": 3}), False, "stopped its worker process (exit code 3)"),
        (Call("secret", {}), False, "is not implemented"),
    ],
)
def test_run_outcomes(executor: Executor, call: Call, ok: bool, expected: Any) -> None:
    (outcome,) = executor.run([call])
    assert outcome.ok is ok
    if ok:
        assert outcome.value == expected
        assert type(outcome.value) is type(expected)
    else:
        assert outcome.error is not None and outcome.error.startswith(expected)


def test_endless_loop_times_out_and_the_run_goes_on(executor: Executor) -> None:
    start = time.monotonic()
    outcomes = executor.run(
        [Call("forever", {}), Call("add", {"a": 1}), Call("units.double", {"x": 4})]
    )
    elapsed = time.monotonic() - start
    assert outcomes[0].ok is False
    assert outcomes[0].error == "timed out after 1 s"
    assert [o.value for o in outcomes[1:]] == [1.0, 8.0]  # the other worker went on
    assert TIMEOUT_S <= elapsed < TIMEOUT_S + SLACK_S
    (after,) = executor.run([Call("add", {"a": 2, "b": 3})])
    assert after.value == 5


def test_timeouts_are_not_cached() -> None:
    with Executor(ExecOptions(HOSTILE, timeout_s=0.25, workers=1)) as ex:
        for _ in range(2):
            (outcome,) = ex.run([Call("forever", {})])
            assert outcome.error == "timed out after 0.25 s"


def test_memory_hog_is_an_error_and_the_worker_is_replaced() -> None:
    options = ExecOptions(HOSTILE, timeout_s=30.0, memory_mb=512, workers=1)
    with Executor(options) as ex:
        start = time.monotonic()
        (outcome,) = ex.run([Call("hog", {})])
        assert time.monotonic() - start < 15.0  # ended by the memory limit, not the time limit
        assert outcome.ok is False
        assert outcome.error == "ran out of memory (limit 512 MB)"
        assert ex.run([Call("add", {"a": 1})])[0].value == 1.0


def test_printing_does_not_reach_the_harness_streams(tmp_path: Path) -> None:
    # A child process of its own, so that its descriptor 1 and 2 are ours to inspect.
    script = tmp_path / "printing.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json
            from pathlib import Path
            from tfce_eval.exec.executor import Executor
            from tfce_eval.exec.records import ExecOptions
            from tfce_eval.model import Call

            if __name__ == "__main__":
                with Executor(ExecOptions(Path({str(HOSTILE)!r}))) as ex:
                    (outcome,) = ex.run([Call("chatty", {{"text": "hi"}})])
                print(json.dumps(outcome.value))
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '"HI"\n'
    assert "printed" not in done.stderr and "written" not in done.stderr


# -- items ----------------------------------------------------------------------------------


def test_equivalent_arguments_are_exec_valid(executor: Executor) -> None:
    item = make_item(expect("add", a=28), category=Category.SIMPLE)
    for arguments in ({"a": 28.0}, {"a": 28, "b": 0.0}, {"a": 28.0, "b": None}):
        verdict = executor.check_item(item, [Call("add", arguments)], [(0, 0)])
        assert verdict.valid is True, (arguments, verdict)
        assert verdict.error_type is None


def test_arguments_are_coerced_to_the_declared_type(executor: Executor) -> None:
    # strict_int refuses floats; its doc declares an integer, so 5.0 is passed as 5.
    item = make_item(expect("strict_int", n=5), category=Category.SIMPLE)
    verdict = executor.check_item(item, [Call("strict_int", {"n": 5.0})], None)
    assert verdict.valid is True
    undeclared = Item("t_1", Category.SIMPLE, "q", (doc("strict_int", {"n": {}}),), item.expected)
    verdict = executor.check_item(undeclared, [Call("strict_int", {"n": 5.0})], None)
    assert verdict.valid is False
    assert verdict.error_type is ErrorCode.EXEC_ERROR


def test_a_model_call_that_raises_is_exec_error(executor: Executor) -> None:
    item = make_item(expect("add", a=1, b=2), category=Category.SIMPLE)
    verdict = executor.check_item(item, [Call("add", {"a": "x", "b": 2})], [(0, 0)])
    assert verdict.valid is False
    assert verdict.error_type is ErrorCode.EXEC_ERROR
    assert verdict.error is not None
    assert verdict.error.startswith('call 1 add(a="x", b=2.0) raised TypeError:')
    assert verdict.details["received"][0]["error"].startswith("raised TypeError")


def test_a_different_result_is_exec_mismatch(executor: Executor) -> None:
    item = make_item(expect("add", a=1, b=2), category=Category.SIMPLE)
    verdict = executor.check_item(item, [Call("add", {"a": 1, "b": 3})], [(0, 0)])
    assert verdict.valid is False
    assert verdict.error_type is ErrorCode.EXEC_MISMATCH
    assert verdict.error == "result 4.0 != expected 3.0 (call 1, add)"
    assert verdict.details["expected"][0]["result"] == 3
    assert verdict.details["received"][0]["result"] == 4


def test_results_within_the_tolerance_are_equal(executor: Executor) -> None:
    item = make_item(expect("add", a=1.0, b=2.0), category=Category.SIMPLE)
    close = executor.check_item(item, [Call("add", {"a": 1.0, "b": 2.000001})], None)
    far = executor.check_item(item, [Call("add", {"a": 1.0, "b": 2.0001})], None)
    assert (close.valid, far.valid) == (True, False)


def test_a_ground_truth_call_that_raises_is_a_dataset_problem_not_judged(
    executor: Executor,
) -> None:
    item = make_item(expect("boom", message="gt"), category=Category.SIMPLE)
    for calls in ([Call("boom", {"message": "gt"})], [Call("boom", {"message": "x"})], []):
        verdict = executor.check_item(item, calls, [(0, 0)] if calls else None)
        # Not the model's error: neither valid nor failed, and the reason is kept.
        assert (verdict.valid, verdict.error_type, verdict.error) == (None, None, None)
        assert verdict.skipped == (
            'the ground truth call raised (a dataset problem): expected call 1 boom(message="gt")'
            " raised ValueError: gt"
        )
        assert verdict.details["expected"][0]["error"] == "raised ValueError: gt"
    assert executor.ground_truth_failure(item) == verdict.skipped


def test_a_ground_truth_call_that_times_out_is_not_judged(executor: Executor) -> None:
    item = make_item(expect("add", a=1), expect("forever"))
    verdict = executor.check_item(item, [Call("add", {"a": 1}), Call("forever", {})], None)
    assert verdict.valid is None and verdict.error_type is None
    assert verdict.skipped == (
        "the ground truth call failed (a dataset problem): expected call 2 forever() "
        f"timed out after {TIMEOUT_S:g} s"
    )


def test_ground_truth_failure_runs_only_what_the_item_expects(executor: Executor) -> None:
    fine = make_item(expect("add", a=1), expect("units.double", x=2))
    assert executor.ground_truth_failure(fine) is None
    # Not exec-checked at all: nothing to say about its ground truth.
    assert executor.ground_truth_failure(make_item(expect("nonexistent", a=1))) is None
    assert executor.ground_truth_failure(make_item(category=Category.IRRELEVANCE)) is None
    two = make_item(expect("add", a=1), expect("boom", message="second"))
    failure = executor.ground_truth_failure(two)
    assert failure is not None and failure.endswith(
        'expected call 2 boom(message="second") raised ValueError: second'
    )


def test_a_model_call_to_a_function_no_expected_call_names_is_never_run(
    executor: Executor,
) -> None:
    item = make_item(expect("add", a=1), category=Category.SIMPLE)
    for name in ("forever", "subtract", "hidden.secret"):
        start = time.monotonic()
        verdict = executor.check_item(item, [Call(name, {})], None)
        assert time.monotonic() - start < TIMEOUT_S  # `forever` was not run
        assert verdict.error_type is ErrorCode.EXEC_MISMATCH
        assert verdict.error == (
            f"call 1 {name}() is to a function no expected call names (add); it was not run"
        )
        assert verdict.details["received"] == [
            {"call": f"{name}()", "error": "was not run: no expected call names this function"}
        ]
    assert executor.check_item(item, [Call("add", {"a": 1})], None).valid is True


PARALLEL = make_item(expect("add", a=1, b=2), expect("add", a=10), expect("units.double", x=3))


def test_shuffled_parallel_calls_are_paired_by_results(executor: Executor) -> None:
    calls = [
        Call("units.double", {"x": 3.0}),
        Call("add", {"a": 10.0, "b": 0}),
        Call("add", {"b": 2, "a": 1}),
    ]
    verdict = executor.check_item(PARALLEL, calls, None)
    assert verdict.valid is True
    assert verdict.details["pairing_source"] == "results"
    assert verdict.details["pairing"] == [[0, 2], [1, 1], [2, 0]]


def test_the_ast_pairing_is_used_when_given(executor: Executor) -> None:
    calls = [Call("add", {"a": 10}), Call("units.double", {"x": 3}), Call("add", {"a": 1, "b": 2})]
    verdict = executor.check_item(PARALLEL, calls, [(0, 1), (1, 2), (2, 0)])
    assert verdict.valid is True
    assert verdict.details["pairing_source"] == "ast"
    # A pairing that does not hold on results: the results decide.
    verdict = executor.check_item(PARALLEL, calls, [(0, 0), (1, 2), (2, 1)])
    assert verdict.valid is True
    assert verdict.details["pairing_source"] == "results"


@pytest.mark.parametrize("matching", [None, [(0, 1), (1, 2), (2, 0)]])
def test_a_wrong_parallel_result_names_the_call(
    executor: Executor, matching: list[tuple[int, int]] | None
) -> None:
    calls = [Call("add", {"a": 11}), Call("units.double", {"x": 3}), Call("add", {"a": 1, "b": 2})]
    verdict = executor.check_item(PARALLEL, calls, matching)
    assert verdict.valid is False
    assert verdict.error_type is ErrorCode.EXEC_MISMATCH
    assert verdict.error == "result 11.0 != expected 10.0 (call 1, add)"


def test_a_missing_function_call_in_a_parallel_item(executor: Executor) -> None:
    calls = [Call("add", {"a": 10}), Call("add", {"a": 3}), Call("add", {"a": 1, "b": 2})]
    verdict = executor.check_item(PARALLEL, calls, None)
    assert verdict.error_type is ErrorCode.EXEC_MISMATCH
    assert verdict.error is not None
    assert verdict.error.startswith("no call to units.double was made (expected call 3")


@pytest.mark.parametrize(
    ("calls", "message"),
    [
        ([], "no call made, 3 expected"),
        ([Call("add", {"a": 10})], "1 call made, 3 expected"),
    ],
)
def test_a_wrong_number_of_calls_is_exec_mismatch(
    executor: Executor, calls: list[Call], message: str
) -> None:
    verdict = executor.check_item(PARALLEL, calls, None)
    assert (verdict.valid, verdict.error_type, verdict.error) == (
        False,
        ErrorCode.EXEC_MISMATCH,
        message,
    )


def test_unimplemented_or_irrelevance_items_are_not_exec_checked(executor: Executor) -> None:
    partly = make_item(expect("add", a=1), expect("nonexistent", a=1))
    verdict = executor.check_item(partly, [Call("add", {"a": 1}), Call("nonexistent", {})], None)
    assert verdict.valid is None
    assert verdict.details["not_implemented"] == ["nonexistent"]
    irrelevance = Item("t_2", Category.IRRELEVANCE, "q", DOCS, ())
    assert executor.check_item(irrelevance, [], None).valid is None


def test_bfcl_alternatives_and_omission(executor: Executor) -> None:
    item = make_item(
        ExpectedCall("add", {"a": ExpectedParam((1,)), "b": ExpectedParam((2, 5), may_omit=True)}),
        category=Category.SIMPLE,
    )
    for arguments, valid in [
        ({"a": 1, "b": 2}, True),
        ({"a": 1, "b": 5}, True),
        ({"a": 1}, True),
        ({"a": 1, "b": 7}, False),
    ]:
        verdict = executor.check_item(item, [Call("add", arguments)], None)
        assert verdict.valid is valid, arguments


# -- directories ----------------------------------------------------------------------------


def write_dir(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_a_package_that_cannot_be_imported_is_a_data_error(tmp_path: Path) -> None:
    directory = write_dir(tmp_path / "fn", {"__init__.py": "raise RuntimeError('no import')\n"})
    with Executor(ExecOptions(directory)) as ex, pytest.raises(DataError) as caught:
        ex.run([Call("f", {})])
    assert "__init__.py" in str(caught.value) and "RuntimeError: no import" in str(caught.value)


def test_a_package_that_hangs_on_import_is_a_data_error(tmp_path: Path) -> None:
    directory = write_dir(tmp_path / "fn", {"__init__.py": "while True:\n    pass\n"})
    options = ExecOptions(directory, startup_timeout_s=1.0)
    start = time.monotonic()
    with Executor(options) as ex, pytest.raises(DataError, match="took longer than 1 s"):
        ex.implemented("f")
    assert time.monotonic() - start < 1.0 + SLACK_S


def test_a_broken_module_fails_its_calls_loudly(tmp_path: Path) -> None:
    directory = write_dir(
        tmp_path / "fn",
        {"__init__.py": "", "bad.py": "def f(:\n", "good.py": "def g():\n  return 1\n"},
    )
    with Executor(ExecOptions(directory)) as ex:
        assert ex.implemented("bad.f") is True
        (outcome,) = ex.run([Call("bad.f", {})])
        assert outcome.error is not None
        assert outcome.error.startswith("cannot be run: module bad cannot be imported: SyntaxError")
        assert ex.run([Call("good.g", {})])[0].value == 1


def test_a_directory_without_init_serves_dotted_names(tmp_path: Path) -> None:
    directory = write_dir(tmp_path / "fn", {"units.py": "def half(x):\n    return x / 2\n"})
    with Executor(ExecOptions(directory)) as ex:
        assert ex.run([Call("units.half", {"x": 3})])[0].value == 1.5
        assert ex.implemented("half") is False


def test_a_missing_directory_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        Executor(ExecOptions(tmp_path / "nowhere"))


@pytest.mark.parametrize(
    "kwargs", [{"timeout_s": 0}, {"workers": 0}, {"memory_mb": 1}, {"startup_timeout_s": -1}]
)
def test_bad_options_are_usage_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        ExecOptions(Path("."), **kwargs)


def test_default_functions_dir(tmp_path: Path) -> None:
    assert default_functions_dir(tmp_path) is None
    (tmp_path / "functions").mkdir()
    assert default_functions_dir(tmp_path) == tmp_path / "functions"
    questions = tmp_path / "questions.json"
    questions.write_text("[]", encoding="utf-8")
    assert default_functions_dir(questions) == tmp_path / "functions"
    builtin = builtin_data_dir() / "functions"
    assert default_functions_dir(None) == (builtin if builtin.is_dir() else None)


def test_call_function_reads_one_literal_call() -> None:
    options = ExecOptions(HOSTILE, timeout_s=TIMEOUT_S)
    assert call_function("add(a=1, b=2.5)", options).value == 3.5
    bad = call_function("add(1, 2)", options)
    assert bad.ok is False and bad.error is not None and bad.error.startswith("cannot read")
    two = call_function("[add(a=1), add(a=2)]", options)
    assert two.error == "expected exactly one call, got 2"
    raised = call_function("boom(message='x')", options)
    assert raised.error == 'boom(message="x") raised ValueError: x'


# -- validate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn_doc", "problems"),
    [
        (ADD, []),
        (doc("add", {"a": {"type": "float"}}, ("a",)), []),  # an undeclared optional parameter
        (doc("add", {"a": {"type": "float"}, "c": {}}, ("a",)), ["declares c"]),
        (doc("add", {"a": {"type": "float"}, "b": {}}), ["a is optional in the doc"]),
        (doc("add", {"b": {"type": "float"}}), ["requires a"]),
        (
            doc("add", {"a": {}, "b": {"type": "float", "default": 1.0}}, ("a",)),
            ["b defaults to 1.0 in the doc but to 0.0"],
        ),
    ],
)
def test_docs_are_checked_against_signatures(
    executor: Executor, fn_doc: FunctionDoc, problems: list[str]
) -> None:
    found = doc_problems(fn_doc, executor.signature("add"))
    assert len(found) == len(problems)
    for (level, message), fragment in zip(found, problems, strict=True):
        assert fragment in message
        assert "core.py" in message
        assert level == ("warning" if "defaults" in fragment else "error")


def test_exec_findings_run_every_ground_truth_call() -> None:
    items = [
        make_item(expect("add", a=1), category=Category.SIMPLE),
        Item("t_9", Category.SIMPLE, "q", (BOOM,), (expect("boom", message="x"),)),
    ]

    class FakeDataset:
        def iter_items(self) -> Iterator[Item]:
            return iter(items)

    findings = exec_findings(FakeDataset(), ExecOptions(HOSTILE))  # type: ignore[arg-type]
    messages = [(f.item_id, f.message) for f in findings]
    assert any(i == "t_9" and "raised ValueError: x" in m for i, m in messages), messages
    assert not any(i == "t_0" for i, _ in messages), messages


# -- the built-in dataset ---------------------------------------------------------------------


def ground_truth_calls(item: Item) -> list[Call]:
    calls = [
        Call(e.name, {k: p.values[0] for k, p in e.params.items() if p.values})
        for e in item.expected
    ]
    return calls[::-1]  # a different order than expected: pairing must not depend on it


def test_builtin_ground_truth_is_exec_valid() -> None:
    functions = default_functions_dir(None)
    assert functions is not None and (functions / "__init__.py").is_file()
    dataset = load_dataset()
    present = {str(item.category) for item in dataset.iter_items() if item.expected}
    checked: dict[str, int] = {}
    with Executor(ExecOptions(functions)) as ex:
        for item in dataset.iter_items():
            verdict = ex.check_item(item, ground_truth_calls(item), None)
            if verdict.valid is None:
                continue
            assert verdict.valid is True, (item.id, verdict.error)
            checked[str(item.category)] = checked.get(str(item.category), 0) + 1
    assert set(checked) == present, checked


# -- structure --------------------------------------------------------------------------------

PACKAGE = REPO / "tfce_eval"
#: Function-level imports allowed inside exec/ and scoring/, each with its reason in a comment.
LAZY_ALLOWED = {
    ("tfce_eval.exec.executor", "tfce_eval.exec.pool"),
    ("tfce_eval.scoring.score", "tfce_eval.exec.executor"),
    # Start-up: an AST-only score (the usual one) never reads exec's records.
    ("tfce_eval.scoring.score", "tfce_eval.exec.records"),
}


def _module_imports(path: Path) -> tuple[set[str], set[str]]:
    """(module-level imports, function-level imports) of tfce_eval modules in one file;
    imports under `if TYPE_CHECKING:` are left out (they never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()
    inner: set[str] = set()

    def names(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name.startswith("tfce_eval")}
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tfce_eval"):
            return {str(node.module)}
        return set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            (inner if in_function else top).update(names(child))
            nested = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            visit(child, nested)

    visit(tree, False)
    return top, inner


def _modules(sub: str) -> dict[str, Path]:
    return {
        f"tfce_eval.{sub}.{p.stem}" if p.stem != "__init__" else f"tfce_eval.{sub}": p
        for p in sorted((PACKAGE / sub).glob("*.py"))
    }


@pytest.mark.parametrize("sub", ["exec", "scoring"])
def test_no_cycles_no_upward_and_no_dodging_imports(sub: str) -> None:
    modules = {**_modules("exec"), **_modules("scoring")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        top, inner = _module_imports(path)
        graph[name] = {m for m in top | inner if m in modules}
        if name.startswith(f"tfce_eval.{sub}"):
            dodging = {m for m in inner if (name, m) not in LAZY_ALLOWED}
            assert not dodging, f"{name} imports {sorted(dodging)} inside a function"
            upward: tuple[str, ...] = ("report", "run", "providers", "cli", "retrieval", "qa")
            if sub == "exec":
                upward += ("scoring",)
            bad = {m for m in top | inner if [*m.split("."), ""][1] in upward}
            assert not bad, f"{name} imports {sorted(bad)} from a higher layer"

    visiting: list[str] = []
    done: set[str] = set()

    def walk(node: str) -> None:
        if node in done:
            return
        assert node not in visiting, "import cycle: " + " -> ".join([*visiting, node])
        visiting.append(node)
        for nxt in sorted(graph[node]):
            walk(nxt)
        visiting.pop()
        done.add(node)

    for node in sorted(graph):
        walk(node)
