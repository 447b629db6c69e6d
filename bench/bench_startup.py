"""Start-up time of the command line against importing click alone, side by side.

`tfce-eval --help` lists the commands from a table and imports none of them; the goal is
to stay within 2.5x of `python -c "import click"` (the floor any click tool pays). Runs
both alternately, `--repeat` times each, and prints the medians and their ratio. Compiled
bytecode is cached in bench/out/pycache (written by an untimed first run of each command),
whatever PYTHONDONTWRITEBYTECODE says: click comes precompiled by pip, and without the
cache tfce-eval's own modules would be compiled from source at every start.

    .venv/bin/python bench/bench_startup.py --repeat 21
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import at_least_one, bytecode_env

GOAL = 2.5


ENV = bytecode_env()


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=at_least_one, default=21)
    args = parser.parse_args()
    exe = Path(sys.executable)
    cli = exe.parent / "tfce-eval"
    commands = {
        "python -c 'import click'": [str(exe), "-c", "import click"],
        "tfce-eval --help": [str(cli), "--help"],
        "tfce-eval score --help": [str(cli), "score", "--help"],
        "tfce-eval run --help": [str(cli), "run", "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm the file and bytecode caches once
        _time(argv)
    for _ in range(args.repeat):
        for name, argv in commands.items():
            times[name].append(_time(argv))
    floor = statistics.median(times["python -c 'import click'"])
    load = os.getloadavg()[0]
    print(f"median of {args.repeat} runs, Python {sys.version.split()[0]}, load average {load:.1f}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"  {name:<28} {med * 1000:7.1f} ms   {med / floor:5.2f} x import click")
    ratio = statistics.median(times["tfce-eval --help"]) / floor
    verdict = "met" if ratio <= GOAL else "NOT met"
    print(f"target (--help within {GOAL}x of import click): {verdict} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
