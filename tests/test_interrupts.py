"""Ctrl-C (SIGINT) and SIGTERM, sent to the command line as a user, `kill`, `timeout` or
Slurm sends them: every command exits 130 or 143 with one line (a run also says how to
resume), nothing done is lost, no temporary file is left, and a run stopped at any moment
resumes to the results of a run never stopped.

Each test starts the real command line in a process of its own. To send the signal at a
known moment, never after a guessed delay, the process is started with one library
function replaced (`_start`): it says `PAUSED` on stderr and waits, or does what a test
needs at that moment (send itself a second signal, swallow the stop, ...).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, ROOT, run_args, run_env

from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.run.runner import RunConfig, run_eval
from tfce_eval.scoring.options import CheckMode

SECRET = "sk-test-interrupts"
SIGINT, SIGTERM = signal.SIGINT, signal.SIGTERM
OUTPUTS = ROOT / "examples" / "outputs.jsonl"
RUN_DIR = "openai-fake-model-fc"

#: Runs the command line (`python -c`) after replacing a module's function (or a class's
#: method) by `replacement`, which the test's code defines from `original`.
_SCRIPT = """
import asyncio, importlib, os, signal, sys, time
module, name = sys.argv.pop(1), sys.argv.pop(1)
target = importlib.import_module(module)
holder = getattr(target, name.split(".")[0])
original = getattr(holder, name.split(".")[1]) if "." in name else holder
{code}
setattr(holder if "." in name else target, name.split(".")[-1], replacement)
from tfce_eval.cli import main
main()
"""

#: Says PAUSED, then waits for the signal.
PAUSE = """
def replacement(*args, **kwargs):
    print("PAUSED", file=sys.stderr, flush=True)
    time.sleep(60)
    return original(*args, **kwargs)
"""


def _start(target: str, code: str, argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """`tfce-eval ARGV` in a process of its own, `target` (module:name, or
    module:Class.method) replaced by the function `replacement` that `code` defines."""
    module, name = target.split(":")
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT.format(code=code), module, name, *argv],
        env=run_env(SECRET),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_line(proc: subprocess.Popen[str], wanted: str) -> list[str]:
    """The lines of stderr up to `wanted` (which the process has then written)."""
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.rstrip("\n") == wanted:
            return lines
    raise AssertionError(f"no {wanted!r} on stderr: {''.join(lines)}{proc.communicate()}")


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _wait_for_answers(proc: subprocess.Popen[str], outputs: Path, count: int) -> None:
    """Until `outputs` holds `count` answers: the run is asking."""
    deadline = time.monotonic() + 60
    while _lines(outputs) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run wrote no answers"
        time.sleep(0.01)


def _ended(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """The exit status and the rest of stderr; a process still there after a minute has
    not heard the signal: it is killed and the test fails."""
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the command did not stop") from None
    return proc.returncode, stderr


def _hidden(directory: Path) -> list[str]:
    """The temporary files (and any other dot file) under `directory`."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob(".*"))


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


def _run_never_stopped(dataset, out: Path) -> str:
    """scores.jsonl of a run (the library's) against the loopback server, never stopped."""
    with FakeServer(FakeConfig(dataset)) as srv:
        result = run_eval(
            RunConfig(
                model="openai/fake-model",
                base_url=srv.base_url,
                data=DATA,
                out=out,
                check=CheckMode.AST,
            )
        )
    return (result.run_dir / "scores.jsonl").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def whole(dataset, tmp_path_factory, monkeypatch_module):
    """The scores of the run never stopped."""
    out = tmp_path_factory.mktemp("whole")
    monkeypatch_module.setenv("OPENAI_API_KEY", SECRET)
    return _run_never_stopped(dataset, out)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.mark.parametrize(
    ("argv", "target", "sig"),
    [
        (["run", "--model", "vllm/m", "--data", str(DATA)], "tfce_eval.run.runner:_load", SIGTERM),
        (["score", str(OUTPUTS), "--out", "o"], "tfce_eval.scoring.score:_score_items", SIGTERM),
        (["score", str(OUTPUTS), "--out", "o"], "tfce_eval.scoring.score:_score_items", SIGINT),
        (
            ["retrieve", "--data", "builtin:qasper-rag", "--out", "o", "--cache-dir", "c"],
            "tfce_eval.retrieval:retrieve",
            SIGTERM,
        ),
        (["validate"], "tfce_eval.dataset.validate:validate_dataset", SIGTERM),
        (["report", "../run"], "tfce_eval.report:load_run", SIGTERM),
        (["datasets"], "tfce_eval.tasks.catalogue:describe_builtins", SIGTERM),
    ],
)
def test_every_command_stopped_by_a_signal_says_so_in_one_line(
    argv: list[str], target: str, sig: int, tmp_path: Path
) -> None:
    if argv[0] == "report":
        scored = CliRunner().invoke(main, ["score", str(OUTPUTS), "--out", str(tmp_path / "run")])
        assert scored.exit_code == 0, scored.output
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = _start(target, PAUSE, argv, cwd)
    before = _wait_for_line(proc, "PAUSED")
    proc.send_signal(sig)
    returncode, stderr = _ended(proc)
    how, code = ("SIGTERM", 143) if sig == SIGTERM else ("Ctrl-C", 130)
    assert returncode == code, stderr
    assert stderr == f"interrupted: stopped by {how} before the command finished\n"
    assert "Traceback" not in "".join(before)
    assert list(cwd.iterdir()) == []  # --out, made by the command, is removed again


#: The `tfce-eval` script's entry point, sending itself a signal as the command line
#: loads (as a module is first imported), where Python raises it inside an import.
_WHILE_LOADING = """
import builtins, os, signal, sys
sig, module = int(sys.argv.pop(1)), sys.argv.pop(1)
real_import = builtins.__import__
def loading(name, *args, **kwargs):
    if name == module and module not in sys.modules:
        os.kill(os.getpid(), sig)
    return real_import(name, *args, **kwargs)
builtins.__import__ = loading
from tfce_eval.__main__ import console
console()
"""


@pytest.mark.parametrize("sig", [SIGINT, SIGTERM])
@pytest.mark.parametrize("module", ["threading", "click"])  # the first handler's, the next
def test_a_signal_while_the_command_line_loads_says_so_in_one_line(
    sig: int, module: str, tmp_path: Path
) -> None:
    argv = ["score", str(OUTPUTS), "--out", "o"]
    proc = subprocess.run(
        [sys.executable, "-c", _WHILE_LOADING, str(int(sig)), module, *argv],
        env=run_env(SECRET),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    how, code = ("SIGTERM", 143) if sig == SIGTERM else ("Ctrl-C", 130)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr == f"interrupted: stopped by {how} before the command finished\n"
    assert list(tmp_path.iterdir()) == []  # stopped before it wrote anything


#: Sends itself SIGTERM the moment a temporary file exists, before its name is returned.
SIGNAL_AS_A_FILE_IS_MADE = """
def replacement(*args, **kwargs):
    made = original(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)
    return made
"""


def test_a_score_stopped_as_it_writes_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "o"
    new = _start(
        "tfce_eval.scoring.writing:_new_file",
        SIGNAL_AS_A_FILE_IS_MADE,
        ["score", str(OUTPUTS), "--out", "o"],
        tmp_path,
    )
    assert _ended(new)[0] == 143
    assert not out.exists()  # made by the command: removed, no temporary file in it
    scored = CliRunner().invoke(main, ["score", str(OUTPUTS), "--out", str(out)])
    assert scored.exit_code == 0, scored.output
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    again = _start(
        "tfce_eval.scoring.writing:_new_file",
        SIGNAL_AS_A_FILE_IS_MADE,
        ["score", str(OUTPUTS), "--out", "o"],
        tmp_path,
    )
    returncode, stderr = _ended(again)
    assert returncode == 143, stderr
    assert stderr == "interrupted: stopped by SIGTERM before the command finished\n"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


#: A signal that comes while an object is finalised (its __del__, called by the garbage
#: collector at any moment), where Python drops an exception; then a long wait.
SIGNAL_IN_A_DEL = """
class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)

def replacement(*args, **kwargs):
    Finalised()
    time.sleep(30)
    print("NOT STOPPED", file=sys.stderr, flush=True)
    return original(*args, **kwargs)
"""


def test_a_signal_that_comes_inside_a_del_is_not_lost(tmp_path: Path) -> None:
    proc = _start(
        "tfce_eval.scoring.score:score_outputs",
        SIGNAL_IN_A_DEL,
        ["score", str(OUTPUTS), "--out", "o"],
        tmp_path,
    )
    started = time.monotonic()
    returncode, stderr = _ended(proc)
    assert returncode == 143, stderr
    assert stderr == "interrupted: stopped by SIGTERM before the command finished\n"
    assert time.monotonic() - started < 20  # stopped at once, not after the wait
    assert list(tmp_path.iterdir()) == []


def _run_argv(srv: FakeServer, out: Path) -> list[str]:
    return run_args(out, "--concurrency", "2", base_url=srv.base_url)


def _assert_stopped_run(returncode: int, stderr: str, code: int, run_dir: Path) -> None:
    """Stopped with exit status `code`, said once with the command that resumes, no
    traceback, run.json not finished, no temporary file."""
    assert returncode == code, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert stderr.count("interrupted") == 1 and "\n  to resume, run again:\n" in stderr
    assert json.loads((run_dir / "run.json").read_text())["status"] != "finished"
    assert _hidden(run_dir) == []


def _rerun(srv: FakeServer, out: Path) -> subprocess.CompletedProcess[str]:
    """The same run, run again as a user does."""
    return subprocess.run(
        [sys.executable, "-m", "tfce_eval", *_run_argv(srv, out)],
        env=run_env(SECRET),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _resumed(srv: FakeServer, out: Path, whole: str) -> None:
    again = _rerun(srv, out)
    assert again.returncode == 0, again.stderr
    assert (out / RUN_DIR / "scores.jsonl").read_text(encoding="utf-8") == whole
    assert _hidden(out) == []


#: Some code swallows the stop (catches KeyboardInterrupt), as a library may.
SWALLOW = """
def replacement(*args, **kwargs):
    print("PAUSED", file=sys.stderr, flush=True)
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        pass
    return original(*args, **kwargs)
"""


def test_a_stop_swallowed_while_a_run_scores_still_stops_it(dataset, whole, tmp_path: Path) -> None:
    with FakeServer(FakeConfig(dataset)) as srv:
        proc = _start(
            "tfce_eval.run.runner:score_outputs", SWALLOW, _run_argv(srv, tmp_path), tmp_path
        )
        _wait_for_line(proc, "PAUSED")
        proc.send_signal(SIGTERM)
        returncode, stderr = _ended(proc)
        run_dir = tmp_path / RUN_DIR
        _assert_stopped_run(returncode, stderr, 143, run_dir)
        assert stderr.startswith("interrupted while scoring: every answer is saved in")
        assert json.loads((run_dir / "run.json").read_text())["status"] == "sent"
        _resumed(srv, tmp_path, whole)


#: A second Ctrl-C while run.json is saved after the first signal.
SECOND_SIGNAL = """
def replacement(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)
    return original(*args, **kwargs)
"""

#: Code that absorbs the cancellation of the run's task (the stop while it asks).
ABSORB_IN_THE_TASK = """
async def replacement(*args, **kwargs):
    try:
        await original(*args, **kwargs)
    except asyncio.CancelledError:
        pass
"""

#: Code that absorbs every cancellation of a request, and asks it again.
ABSORB_IN_A_REQUEST = """
async def replacement(self, item):
    while True:
        try:
            return await original(self, item)
        except asyncio.CancelledError:
            pass
"""


@pytest.mark.parametrize(
    ("target", "code", "sig"),
    [
        ("tfce_eval.run.sending:save_run_json", SECOND_SIGNAL, SIGTERM),
        ("tfce_eval.run.sending:_send_all", ABSORB_IN_THE_TASK, SIGINT),
        ("tfce_eval.run.session:Session.ask", ABSORB_IN_A_REQUEST, SIGTERM),
    ],
)
def test_a_run_stopped_while_it_asks_always_says_how_to_resume(
    dataset, whole, tmp_path: Path, target: str, code: str, sig: int
) -> None:
    with FakeServer(FakeConfig(dataset, latency_s=0.15)) as srv:
        proc = _start(target, code, _run_argv(srv, tmp_path), tmp_path)
        run_dir = tmp_path / RUN_DIR
        _wait_for_answers(proc, run_dir / "outputs.jsonl", 4)
        proc.send_signal(sig)
        returncode, stderr = _ended(proc)
        _assert_stopped_run(returncode, stderr, 128 + sig, run_dir)
        assert "interrupted: " in stderr and "items are answered and saved in" in stderr
        meta = json.loads((run_dir / "run.json").read_text())
        assert meta["status"] == "interrupted"
        assert meta["sessions"][-1]["answered"] == _lines(run_dir / "outputs.jsonl") < 16
        _resumed(srv, tmp_path, whole)


def test_a_run_removes_the_temporary_files_a_killed_run_left(
    dataset, whole, tmp_path: Path
) -> None:
    run_dir = tmp_path / RUN_DIR
    (run_dir / "context").mkdir(parents=True)
    left = [".run.json.0a1b2c3d", ".scores.jsonl.deadbeef", "context/.run.trec.01234567"]
    kept = [".notes.0a1b2c3d", ".run.json.draft", "context/.run.json.bak"]
    for name in left + kept:
        (run_dir / name).write_text("x", encoding="utf-8")
    with FakeServer(FakeConfig(dataset)) as srv:
        again = _rerun(srv, tmp_path)
    assert again.returncode == 0, again.stderr
    assert _hidden(run_dir) == sorted(kept)
    assert (run_dir / "scores.jsonl").read_text(encoding="utf-8") == whole


def test_after_a_command_stopped_in_process_the_library_runs_as_before(
    dataset, whole, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """click's runner calls the command line inside this process: once it has ended,
    the handlers are Python's again, and nothing of its stop is left to stop a run."""
    handlers = {sig: signal.getsignal(sig) for sig in (SIGINT, SIGTERM)}

    def terminated(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), SIGTERM)
        time.sleep(5)
        raise AssertionError("SIGTERM was not heard")

    monkeypatch.setattr("tfce_eval.scoring.score.score_outputs", terminated)
    stopped = CliRunner().invoke(main, ["score", str(OUTPUTS), "--out", str(tmp_path / "o")])
    assert stopped.exit_code == 143, stopped.output
    assert {sig: signal.getsignal(sig) for sig in (SIGINT, SIGTERM)} == handlers
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert _run_never_stopped(dataset, tmp_path) == whole


_PROGRAM = """
import signal, sys
from tfce_eval.cli import main
handlers, hook = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)], sys.unraisablehook
sys.argv = ["tfce-eval", "datasets"]
try:
    main()
except SystemExit as done:
    print("exit", done.code)
now = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
print("restored", now == handlers and sys.unraisablehook is hook)
"""


def test_a_program_calling_main_gets_its_handlers_back(tmp_path: Path) -> None:
    """Only `tfce-eval` or `python -m tfce_eval` is the whole process; a program that
    calls main() and goes on must hear Ctrl-C as before."""
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM],
        capture_output=True,
        text=True,
        timeout=60,
        env=run_env(SECRET),
        cwd=tmp_path,
    )
    assert done.stdout.splitlines()[-2:] == ["exit 0", "restored True"], done.stderr


_STUCK = """
import os, signal, sys, time
from tfce_eval import stopping
stopping.FORCE_AFTER_S = float(sys.argv[1])
with stopping.listening():
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    # Saving what it has takes long (a pipe nobody reads): a further signal comes.
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.5)
    print("ignored", flush=True)
"""


@pytest.mark.parametrize(
    ("force_after", "code", "said"), [(0.0, -SIGTERM, "stopped\n"), (60.0, 0, "stopped\nignored\n")]
)
def test_a_signal_long_after_the_stop_ends_a_command_stuck_stopping(
    tmp_path: Path, force_after: float, code: int, said: str
) -> None:
    """A second signal right after the first is ignored (the command is saving what it
    has); one that comes later than FORCE_AFTER_S ends the process by that signal."""
    done = subprocess.run(
        [sys.executable, "-c", _STUCK, str(force_after)],
        capture_output=True,
        text=True,
        timeout=60,
        env=run_env(SECRET),
        cwd=tmp_path,
    )
    assert (done.returncode, done.stdout) == (code, said), done.stderr


#: Started before `python -m tfce_eval` (sitecustomize): once the command listens, the
#: first text given to exec() (as dataclasses make their methods) sends SIGTERM from
#: inside it, and says so in a file.
_SIGNAL_INSIDE_EXEC = """
import builtins, os, signal, sys
_exec = builtins.exec
def exec_(source, *args, **kwargs):
    stopping = sys.modules.get("tfce_eval.stopping")
    heard = getattr(stopping, "_heard", None)
    if isinstance(source, str) and heard and signal.getsignal(signal.SIGTERM) is heard:
        builtins.exec = _exec
        open(os.environ["SENT_FILE"], "w").close()
        source = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)\\n" + source
    return _exec(source, *args, **kwargs)
builtins.exec = exec_
"""


def test_python_m_stopped_inside_exec_text_exits_as_stopped(tmp_path: Path) -> None:
    """CPython marks an interrupt that leaves text given to exec() as unhandled, and
    `python -m` then ends itself by SIGINT at exit, whatever the command said."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_SIGNAL_INSIDE_EXEC, encoding="utf-8")
    env = run_env(SECRET)
    env["PYTHONPATH"] = os.pathsep.join([str(hook), env["PYTHONPATH"]])
    env["SENT_FILE"] = str(tmp_path / "sent")
    proc = subprocess.run(
        [sys.executable, "-m", "tfce_eval", "validate"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (tmp_path / "sent").exists()  # the signal came from inside exec'd text
    assert proc.returncode == 143, (proc.returncode, proc.stderr)
    assert proc.stderr == "interrupted: stopped by SIGTERM before the command finished\n"


def test_a_command_run_from_exec_text_still_stops_at_once(tmp_path: Path) -> None:
    """Run from text given to exec() (as `python -m cProfile` runs a program), the
    command's stop is raised where it is, not put off until that text ends."""
    module, name = "tfce_eval.dataset.validate", "validate_dataset"
    script = _SCRIPT.format(code=PAUSE).replace(
        "from tfce_eval.cli import main\nmain()",
        'exec("from tfce_eval.cli import main\\nmain()")',
    )
    assert "exec(" in script
    proc = subprocess.Popen(
        [sys.executable, "-c", script, module, name, "validate"],
        env=run_env(SECRET),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_line(proc, "PAUSED")
    proc.send_signal(SIGINT)
    returncode, stderr = _ended(proc)
    assert returncode == 130, stderr
    assert stderr == "interrupted: stopped by Ctrl-C before the command finished\n"


#: Sends itself SIGTERM as the command line parses its options, then parses them.
SIGNAL_AS_OPTIONS_ARE_PARSED = """
def replacement(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return original(*args, **kwargs)
"""


def test_a_stop_while_options_are_parsed_is_said_as_a_stop(tmp_path: Path) -> None:
    proc = _start(
        "tfce_eval.cli:_LazyGroup.parse_args", SIGNAL_AS_OPTIONS_ARE_PARSED, ["validate"], tmp_path
    )
    returncode, stderr = _ended(proc)
    assert returncode == 143, stderr  # not click's "Aborted!", exit 1
    assert stderr == "interrupted: stopped by SIGTERM before the command finished\n"
