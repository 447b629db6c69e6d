"""`tfce-eval score` against BFCL's own checker loop, on BFCL's four AST categories.

`build` (bfcl4_build.py) takes the 1,000 items of BFCL's simple_python, multiple, parallel
and parallel_multiple (from the `bfcl-eval` package installed in bench/.venv-bfcl) and writes
`bench/out/bfcl4/`: a dataset in BFCL's layout (`data/questions/BFCL_v4_<category>.json`
and `data/possible_answer/`) holding each item twice (its own id, and a
copy numbered after the last), and `outputs.jsonl` answering the first with the ground truth
(the first acceptable value of each parameter) and the copy with one mutation of it (a wrong
value, type or function name, a missing or invented parameter, a call dropped), in BFCL's
decoded form `[{"name": {args}}]`. 2,000 cases, deterministic.

`measure` times, from spawn to exit and alternately, `--repeat` times each:

- `tfce-eval score OUTPUTS --data DIR --out TMP --check ast --json`: the project's
  editable install (.venv), and with `--regular` a regular one (`pip install .` into
  bench/.venv-regular, refreshed by bench/setup_regular_env.sh first);
- BFCL's bare checker loop (`bfcl_loop.py --stub`: its heavy imports stubbed out);
- the same loop with BFCL's real imports (what a BFCL user waits for);

all in one environment in which compiled bytecode is cached (see `child_env`), and
prints the medians (wall and CPU), the ratios, and the split of tfce-eval's own time
(`--split`: bfcl4_split.py, one in-process score with timers around each stage, and the
time spent in the garbage collector). `--startup` also times the interpreters alone,
`import click` and `tfce-eval --version`, in the same rounds. `--instructions` counts
the instructions each side executes under valgrind's callgrind, once each: a ratio that the
other work on a shared machine does not move.

    bash bench/setup_bfcl_env.sh          # once
    .venv/bin/python bench/bench_bfcl4.py build
    .venv/bin/python bench/bench_bfcl4.py measure --repeat 9 --split --regular --startup \
        --instructions
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import PYCACHE, at_least_one, complete, shown
from bfcl4_build import BFCL_PYTHON, build

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "bfcl4"
REGULAR = HERE / ".venv-regular"


def child_env(*, cache_bytecode: bool = True) -> dict[str, str]:
    """The environment of every timed command, the same for both sides.

    Bytecode is cached, as it is for anyone who runs a command twice: in a fresh
    directory (bench/out/pycache) that both sides write on the warm-up run and read
    afterwards, whatever PYTHONDONTWRITEBYTECODE says in the caller's environment (with
    it set, Python compiles every module of tfce-eval from source at every start, while
    BFCL's modules come precompiled by pip). `cache_bytecode=False` keeps the caller's
    setting, for comparison.
    """
    env = dict(os.environ)
    if cache_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def tfce_command(out: Path, scratch: Path, script: Path | None = None) -> list[str]:
    script = script or Path(sys.executable).with_name("tfce-eval")
    head = [str(script)] if script.is_file() else [sys.executable, "-m", "tfce_eval"]
    return [
        *head,
        "score",
        str(out / "outputs.jsonl"),
        "--data",
        str(out / "data"),
        "--out",
        str(scratch),
        "--check",
        "ast",
        "--json",
    ]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds from spawn to exit, the child's CPU seconds (user + system), stdout."""
    # Output goes to files, not pipes: wait4 must reap the child itself to read its rusage.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            message = err.read().decode("utf-8", "replace")[-3000:]
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{message}")
        return wall, usage.ru_utime + usage.ru_stime, out.read().decode("utf-8")


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions the command executes, counted by valgrind's callgrind: a figure that,
    unlike seconds, other work on the machine does not move."""
    if cmd[0].endswith("tfce-eval"):  # a console script: valgrind runs its interpreter
        cmd = [str(Path(cmd[0]).with_name("python")), *cmd]
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *cmd],
            capture_output=True,
            text=True,
            env=env,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed on {cmd[0]}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def split_once(out: Path, env: dict[str, str]) -> dict[str, Any]:
    """One fresh process's stages and garbage-collector seconds (bfcl4_split.py)."""
    done = subprocess.run(
        [sys.executable, str(HERE / "bfcl4_split.py"), str(out)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


_LABELS = {
    "tfce": "tfce-eval score, editable install",
    "regular": "tfce-eval score, regular install",
    "bare": "BFCL bare checker loop (stubbed)",
    "real": "BFCL loop with its real imports",
    "py": "python -c pass (.venv)",
    "py_regular": "python -c pass (.venv-regular)",
    "py_bfcl": "python -c pass (.venv-bfcl)",
    "click": "python -c 'import click' (.venv)",
    "version": "tfce-eval --version (editable)",
}
#: The start-up commands timed with `--startup`, each as arguments after the interpreter.
_STARTUP = {"py": ["-c", "pass"], "click": ["-c", "import click"]}


def measure(
    out: Path,
    repeat: int,
    *,
    with_split: bool,
    skip_real: bool,
    regular: bool,
    cache_bytecode: bool,
    startup: bool,
    count: bool = False,
) -> None:
    if not complete(out):
        raise SystemExit(f"no complete cases in {shown(out)}: run `bench_bfcl4.py build` first")
    if regular:  # a fresh copy of the code as it is now
        subprocess.run(["bash", str(HERE / "setup_regular_env.sh")], check=True)
    env = child_env(cache_bytecode=cache_bytecode)
    runs: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    reports: dict[str, Any] = {}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "tfce": tfce_command(out, Path(scratch) / "editable"),
            "regular": tfce_command(out, Path(scratch) / "regular", REGULAR / "bin" / "tfce-eval"),
            "bare": [str(BFCL_PYTHON), str(HERE / "bfcl_loop.py"), str(out), "--stub"],
            "real": [str(BFCL_PYTHON), str(HERE / "bfcl_loop.py"), str(out)],
        }
        if not regular:
            del commands["regular"]
        if skip_real:
            del commands["real"]
        if startup:
            commands |= {name: [sys.executable, *argv] for name, argv in _STARTUP.items()}
            commands["py_bfcl"] = [str(BFCL_PYTHON), "-c", "pass"]
            commands["version"] = [str(Path(sys.executable).with_name("tfce-eval")), "--version"]
            if regular:
                commands["py_regular"] = [str(REGULAR / "bin" / "python"), "-c", "pass"]
        for cmd in commands.values():  # warm the file and bytecode caches
            timed(cmd, env)
        splits: list[dict[str, Any]] = []
        inside: list[dict[str, Any]] = []  # the bare loop's own timings, round by round
        for _ in range(repeat):
            for name, cmd in commands.items():
                wall, used, stdout = timed(cmd, env)
                runs.setdefault(name, []).append(wall)
                cpu.setdefault(name, []).append(used)
                reports[name] = stdout
                if name == "bare":
                    inside.append(json.loads(stdout.strip().splitlines()[-1]))
            if with_split:  # in the same rounds, under the same load
                splits.append(split_once(out, env))
    load.append(os.getloadavg()[0])
    tfce = json.loads(reports["tfce"])
    bare = json.loads(reports["bare"].strip().splitlines()[-1])
    med = {k: statistics.median(v) for k, v in runs.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    python = sys.version.split()[0]
    cached = "cached" if cache_bytecode else "as the environment says"
    print(f"2,000 cases (BFCL's four categories), median of {repeat}, Python {python}")
    print(f"  bytecode {cached}; load average {load[0]:.1f} before, {load[1]:.1f} after")
    print(f"  {'':<36} {'wall':>7} {'(best)':>8} {'CPU':>7}")
    for name, seconds in med.items():
        if name in _STARTUP or name.startswith("py") or name == "version":
            continue
        best = min(runs[name])
        print(f"  {_LABELS[name]:<36} {seconds:6.3f}s {best:7.3f}s {med_cpu[name]:6.3f}s")
    for name, label in (("tfce", "editable"), ("regular", "regular")):
        if name in med:
            ratio, ratio_cpu = med[name] / med["bare"], med_cpu[name] / med_cpu["bare"]
            print(
                f"  {'ratio to the bare loop, ' + label:<36} {ratio:6.2f}  {'':>8}"
                f"{ratio_cpu:6.2f}   (goal <= 1.0)"
            )
    if "real" in med:
        print(f"  {'ratio to BFCL with its imports':<36} {med['tfce'] / med['real']:6.2f}")
    micro = tfce["overall"]["micro"]
    print(
        f"  valid: tfce-eval {micro['correct']} of {micro['total']}, "
        f"BFCL {bare['valid']} of {bare['cases']}"
    )
    print(
        "  inside BFCL's bare loop (medians): "
        + ", ".join(
            f"{what} {statistics.median(r[key] for r in inside):.3f} s"
            for what, key in (("import", "import_s"), ("load", "load_s"), ("check", "check_s"))
        )
    )
    if startup:
        print("  start-up alone:")
        for name in ("py", "py_regular", "py_bfcl", "click", "version"):
            if name in med:
                print(f"    {_LABELS[name]:<34} {med[name]:6.3f}s {med_cpu[name]:15.3f}s")
    if count:
        if shutil.which("valgrind") is None:
            raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
        print("  instructions (callgrind, one run each):")
        with tempfile.TemporaryDirectory() as fresh:
            counted = {"tfce": instructions(tfce_command(out, Path(fresh) / "e"), env)}
            if regular:
                script = REGULAR / "bin" / "tfce-eval"
                counted["regular"] = instructions(tfce_command(out, Path(fresh) / "r", script), env)
            counted["bare"] = instructions(commands["bare"], env)
        for name, n in counted.items():
            print(f"    {_LABELS[name]:<34} {n / 1e9:7.3f} G  {n / counted['bare']:5.2f} x bare")
    if with_split:
        parts = {k: statistics.median(r["stages"][k] for r in splits) for k in splits[0]["stages"]}
        collected = statistics.median(r["gc"] for r in splits)
        total = sum(parts.values())
        print("  tfce-eval in-process split (wall, medians):")
        for name, seconds in parts.items():
            print(f"    {name:<44} {seconds:6.3f} s")
        print(f"    {'total':<44} {total:6.3f} s")
        print(f"    {'of which in the garbage collector':<44} {collected:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    m = sub.add_parser("measure")
    m.add_argument("--repeat", type=at_least_one, default=9)
    m.add_argument("--split", action="store_true")
    m.add_argument("--skip-real", action="store_true", help="skip BFCL with its real imports")
    m.add_argument(
        "--regular",
        action="store_true",
        help="also time a regular (not editable) install (bench/setup_regular_env.sh)",
    )
    m.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep the environment's PYTHONDONTWRITEBYTECODE (see child_env)",
    )
    m.add_argument(
        "--startup",
        action="store_true",
        help="also time the interpreters, `import click` and `tfce-eval --version` alone",
    )
    m.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions under valgrind (callgrind): immune to the machine's load",
    )
    args = parser.parse_args()
    if args.command == "build":
        build(OUT)
    else:
        measure(
            OUT,
            args.repeat,
            with_split=args.split,
            skip_real=args.skip_real,
            regular=args.regular,
            cache_bytecode=not args.no_bytecode_cache,
            startup=args.startup,
            count=args.instructions,
        )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
