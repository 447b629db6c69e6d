"""The exec sandbox: what a dataset's functions can reach, and what they leave behind.

Each test runs real worker processes on a functions directory written into tmp_path.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.errors import DataError, HarnessError
from tfce_eval.exec.executor import Executor
from tfce_eval.exec.judge import EXEC_ZERO_ABS_TOL, numbers_close, results_equal
from tfce_eval.exec.records import ExecOptions
from tfce_eval.exec.results import MAX_RESULT_BYTES
from tfce_eval.model import Call, Category, ExpectedCall, ExpectedParam, FunctionDoc, Item

REPO = Path(__file__).resolve().parents[1]

CORE = '''
import os
import resource
import time


def env() -> dict:
    with open("/proc/self/environ", "rb") as fh:
        initial = [e.split(b"=", 1)[0].decode() for e in fh.read().split(b"\\0") if e]
    return {"environ": sorted(os.environ), "initial": sorted(initial)}


def rlimit() -> list:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (hard, resource.RLIM_INFINITY))
        raised = True
    except (ValueError, OSError):
        raised = False
    return [soft, hard, raised]


def _sleeper(pidfile: str, escape: bool) -> None:
    """Leave a process behind: forked, or double-forked into a session of its own."""
    pid = os.fork()
    if pid == 0:
        if escape:
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
        with open(pidfile, "w") as fh:
            fh.write(str(os.getpid()))
        while True:
            time.sleep(1)
    if escape:
        os.waitpid(pid, 0)
    while not os.path.exists(pidfile) or not open(pidfile).read():
        time.sleep(0.01)


def leave_child(pidfile: str, escape: bool = False) -> str:
    _sleeper(pidfile, escape)
    return "left"


def child_then_loop(pidfile: str, escape: bool = False) -> None:
    _sleeper(pidfile, escape)
    while True:
        pass


def big_text(n: int) -> str:
    return "x" * n


def big_list(n: int) -> list:
    return [0] * n


def huge(extra: int = 0) -> int:
    return 10**400 + extra


def tiny(x: float) -> float:
    return x


def spin(seconds: float) -> float:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return seconds


def die(code: int) -> int:
    if code:
        os._exit(code)
    return 0
'''

INIT = "from .core import *  # noqa\nfrom .core import _sleeper  # noqa\n"


def trap_module(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('imported')\n\ndef f() -> int:\n    return 1\n"


@pytest.fixture(scope="module")
def functions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sandbox")
    directory = root / "fn"
    directory.mkdir()
    (directory / "__init__.py").write_text(INIT, encoding="utf-8")
    (directory / "core.py").write_text(textwrap.dedent(CORE), encoding="utf-8")
    (directory / "trap.py").write_text(trap_module(root / "trap-imported"), encoding="utf-8")
    outside = root / "outside.py"
    outside.write_text(trap_module(root / "outside-imported"), encoding="utf-8")
    (directory / "linked.py").symlink_to(outside)
    (root / "outside_pkg").mkdir()
    (root / "outside_pkg" / "__init__.py").write_text(
        trap_module(root / "outside-pkg-imported"), encoding="utf-8"
    )
    (directory / "linked_pkg").symlink_to(root / "outside_pkg")
    return directory


@pytest.fixture(scope="module")
def executor(functions: Path) -> Iterator[Executor]:
    with Executor(ExecOptions(functions, timeout_s=2.0, memory_mb=512, workers=1)) as ex:
        yield ex


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", "rb") as fh:
        state = fh.read().rsplit(b")", 1)[1].split()[0]
    return state != b"Z"  # a zombie is dead, only not yet collected


def wait_dead(pid: int, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def run_one(executor: Executor, name: str, **arguments: Any) -> Any:
    (outcome,) = executor.run([Call(name, arguments)])
    return outcome


# -- what a function can see ---------------------------------------------------------------


def test_workers_get_a_minimal_environment(
    functions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-of-the-harness")
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    with Executor(ExecOptions(functions, workers=1)) as ex:
        outcome = run_one(ex, "env")
    assert outcome.ok, outcome.error
    allowed = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH"}
    allowed |= {"PYTHONSAFEPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "LC_CTYPE"}
    for seen in (outcome.value["environ"], outcome.value["initial"]):
        assert "OPENAI_API_KEY" not in seen and "HF_TOKEN" not in seen
        assert set(seen) <= allowed, set(seen) - allowed


def test_the_memory_limit_is_hard(executor: Executor) -> None:
    outcome = run_one(executor, "rlimit")
    assert outcome.ok, outcome.error
    soft, hard, raised = outcome.value
    assert soft == hard == 512 * 1024 * 1024
    assert raised is False


# -- what a function leaves behind ---------------------------------------------------------


@pytest.mark.parametrize("escape", [False, True], ids=["fork", "setsid_double_fork"])
def test_processes_a_call_leaves_behind_are_killed(
    executor: Executor, tmp_path: Path, escape: bool
) -> None:
    pidfile = tmp_path / "child.pid"
    outcome = run_one(executor, "leave_child", pidfile=str(pidfile), escape=escape)
    assert outcome.ok, outcome.error
    child = int(pidfile.read_text())
    assert wait_dead(child), f"process {child} outlived the call"


@pytest.mark.parametrize("escape", [False, True], ids=["fork", "setsid_double_fork"])
def test_a_worker_killed_at_its_time_limit_takes_its_processes_with_it(
    executor: Executor, tmp_path: Path, escape: bool
) -> None:
    pidfile = tmp_path / "child.pid"
    outcome = run_one(executor, "child_then_loop", pidfile=str(pidfile), escape=escape)
    assert outcome.error == "timed out after 2 s"
    child = int(pidfile.read_text())
    assert wait_dead(child), f"process {child} outlived its worker"
    assert run_one(executor, "tiny", x=1.5).value == 1.5


HARNESS = """
import sys, threading
from pathlib import Path
from tfce_eval.exec.executor import Executor
from tfce_eval.exec.records import ExecOptions
from tfce_eval.model import Call

if __name__ == "__main__":
    ex = Executor(ExecOptions(Path(sys.argv[1]), timeout_s=600, workers=1))
    threading.Thread(
        target=ex.run, args=([Call("child_then_loop", {"pidfile": sys.argv[2]})],)
    ).start()
    threading.Event().wait()
"""


def test_workers_and_their_processes_die_with_a_killed_harness(
    functions: Path, tmp_path: Path
) -> None:
    script = tmp_path / "harness.py"
    script.write_text(HARNESS, encoding="utf-8")
    pidfile = tmp_path / "child.pid"
    harness = subprocess.Popen(
        [sys.executable, str(script), str(functions), str(pidfile)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 30
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        child = int(pidfile.read_text())
        with open(f"/proc/{child}/stat", "rb") as fh:
            worker = int(fh.read().rsplit(b")", 1)[1].split()[1])
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait()
    assert wait_dead(worker), "the worker outlived the harness"
    assert wait_dead(child), "the worker's child outlived the harness"


# -- what a function can return --------------------------------------------------------------


@pytest.mark.parametrize(("name", "size"), [("big_text", 2_000_000), ("big_list", 10_000_000)])
def test_results_are_capped(executor: Executor, name: str, size: int) -> None:
    outcome = run_one(executor, name, n=size)
    assert outcome.ok is False
    assert outcome.error == f"returned a result larger than {MAX_RESULT_BYTES:,} bytes of JSON"
    assert outcome.harness_failure is False
    assert run_one(executor, name, n=1000).ok is True


# -- what the harness imports ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "marker"),
    [("linked.f", "outside-imported"), ("linked_pkg.f", "outside-pkg-imported")],
)
def test_a_module_linked_from_outside_is_refused_before_it_is_imported(
    executor: Executor, functions: Path, name: str, marker: str
) -> None:
    status, why = executor.resolution(name)
    assert status == "missing"
    assert why == f"module {name.split('.')[0]} is outside the functions directory"
    assert not (functions.parent / marker).exists()


def doc(name: str, props: dict[str, Any]) -> FunctionDoc:
    raw = {"name": name, "description": "", "parameters": {"type": "dict", "properties": props}}
    return FunctionDoc(name, "", raw)


def item(name: str, props: dict[str, Any], **expected: Any) -> Item:
    params = {k: ExpectedParam((v,)) for k, v in expected.items()}
    return Item(
        "sandbox_7", Category.SIMPLE, "q", (doc(name, props),), (ExpectedCall(name, params),)
    )


def test_a_wrong_function_name_never_imports_its_module(
    executor: Executor, functions: Path
) -> None:
    expected = item("tiny", {"x": {"type": "float"}}, x=1.0)
    verdict = executor.check_item(expected, [Call("trap.f", {})], None)
    assert verdict.valid is False
    assert not (functions.parent / "trap-imported").exists()


def test_a_model_call_that_runs_forever_on_its_arguments_is_exec_error(
    executor: Executor,
) -> None:
    expected = item("spin", {"seconds": {"type": "float"}}, seconds=0.0)
    verdict = executor.check_item(expected, [Call("spin", {"seconds": 60.0})], None)
    assert verdict.error == "call 1 spin(seconds=60.0) timed out after 2 s"
    assert str(verdict.error_type) == "exec_error"


# -- a harness failure is not the model's error -----------------------------------------------


def test_a_worker_that_dies_on_a_model_call_stops_with_a_harness_error(
    executor: Executor,
) -> None:
    expected = item("die", {"code": {"type": "integer"}}, code=0)
    assert executor.check_item(expected, [Call("die", {"code": 0})], None).valid is True
    with pytest.raises(HarnessError) as caught:
        executor.check_item(expected, [Call("die", {"code": 7})], None)
    message = str(caught.value)
    assert message.startswith(
        "item sandbox_7: the call die(code=7) stopped its worker process (exit code 7); "
    )
    assert "not an error of the model" in message


def test_a_worker_killed_while_starting_says_so_plainly(tmp_path: Path) -> None:
    directory = tmp_path / "fn"
    directory.mkdir()
    (directory / "__init__.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", encoding="utf-8"
    )
    with Executor(ExecOptions(directory)) as ex, pytest.raises(DataError) as caught:
        ex.implemented("f")
    assert caught.value.message == (
        "a worker process stopped before it had imported the functions directory "
        "(killed by SIGKILL)"
    )


# -- comparing results (docs/exec.md 6)
# ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "received", "equal"),
    [
        (1.602e-19, 3.2e-19, False),  # a charge in coulombs: relative, never absolute
        (1e-6, 1.00001e-6, False),
        (1e-6, 1.0000001e-6, True),
        (2.0, 2.000001, True),
        (2.0, 2.00001, False),
        (0, 1e-13, True),  # an expected exact zero allows float noise
        (0.0, -1e-12, True),
        (0, 1e-9, False),
        (1e-13, 0.0, False),  # only an expected zero does
        (10**400, 10**400, True),
        (10**400, 10**400 + 1, True),
        (10**400, 2 * 10**400, False),
        (10**400, 1.5, False),
        (10**400, float("inf"), False),
        (float("nan"), float("nan"), False),
        (float("inf"), float("inf"), True),
    ],
    ids=lambda v: repr(v) if not isinstance(v, int) or abs(v) < 10**20 else "10**400-ish",
)
def test_numbers_are_compared_relatively(expected: Any, received: Any, equal: bool) -> None:
    assert numbers_close(expected, received) is equal
    assert results_equal([expected], {"r": received}) is False
    assert results_equal({"r": [expected]}, {"r": [received]}) is equal


def test_zero_allowance_is_documented() -> None:
    assert EXEC_ZERO_ABS_TOL == 1e-12
    import tfce_eval.exec.judge as judge

    assert "exactly zero" in (judge.__doc__ or "")


def test_a_result_of_ten_to_the_400_is_judged(executor: Executor) -> None:
    expected = item("huge", {"extra": {"type": "integer"}}, extra=0)
    assert executor.check_item(expected, [Call("huge", {"extra": 0})], None).valid is True
    verdict = executor.check_item(expected, [Call("huge", {"extra": 10**399})], None)
    assert verdict.valid is False and str(verdict.error_type) == "exec_mismatch"
    json.dumps(dict(verdict.details))  # the details can be written


def test_tiny_results_that_differ_are_a_mismatch(executor: Executor) -> None:
    expected = item("tiny", {"x": {"type": "float"}}, x=1.602e-19)
    verdict = executor.check_item(expected, [Call("tiny", {"x": 3.2e-19})], None)
    assert verdict.valid is False
    assert verdict.error == "result 3.2e-19 != expected 1.602e-19 (call 1, tiny)"
