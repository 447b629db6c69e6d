"""Benchmark scoring: `tfce-eval score` end to end, the AST checker alone, and BFCL's checker.

For each dataset size (default: TFCE's 917 items and 100,000 items in the same mix, made by
make_synthetic.py into bench/out/, git-ignored) it measures, repeating each timing and
reporting the median:

1. `tfce-eval score OUTPUTS --data DIR --out DIR` as a child process, with `--check ast` and
   with the default check mode: wall time including interpreter start-up, items per second,
   and the child's peak RSS (os.wait4, so each child is measured on its own). The start-up
   alone (`tfce-eval --version`) is measured too.
2. The project's checker alone, in a child process of its own: every answer is decoded first
   (untimed), then only `check_item` is timed. Reported over the cases BFCL can check (answers
   that decode) and over all items; decoding time is reported apart.
3. BFCL's checker on the same decoded cases, through bench/.venv-bfcl/bin/python
   bench/bfcl_reference.py (skipped, with a message, when that environment is missing; make
   it with bench/setup_bfcl_env.sh), and the ratio of the two per case.

It then compares the two checkers' verdicts case by case, grouped by the kind of answer the
generator made (each variant is right or wrong under the project's rules), and checks the
targets: our checker at least as fast as BFCL's per case, `score` on 917 items under one
second including start-up, 100,000 items scored in under 300 MB.

The measurements are the package bench/score_bench/, next to this script.

Usage: .venv/bin/python bench/bench_score.py [--sizes 917,100000] [--repeat 5]
       [--repeat-large 3] [--skip-bfcl] [--profile] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchlib import at_least_one
from score_bench.children import score_command
from score_bench.hotspots import profile_score
from score_bench.inner import inner_checker
from score_bench.measure import LARGE, bench_startup, run_size
from score_bench.report import print_size


def parse_sizes(text: str) -> list[int]:
    import make_synthetic

    return make_synthetic.parse_sizes(text)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_checker"]:
        inner = argparse.ArgumentParser(prog="bench_score.py _checker")
        inner.add_argument("target", type=Path)
        inner.add_argument("--repeat", type=at_least_one, default=3)
        inner.add_argument("--verdicts", type=Path)
        a = inner.parse_args(argv[1:])
        print(json.dumps(inner_checker(a.target, a.repeat, a.verdicts)))
        return 0

    from synthetic.write import DEFAULT_OUT, DEFAULT_SEED

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[917, 100_000])
    parser.add_argument(
        "--repeat", type=at_least_one, default=5, help="rounds of every timing (small sizes)"
    )
    parser.add_argument(
        "--passes",
        type=at_least_one,
        default=3,
        help="passes over the cases per checker child (small)",
    )
    parser.add_argument(
        "--repeat-large",
        type=at_least_one,
        default=3,
        help=f"timing repeats for sizes of {LARGE:,} and more",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--skip-bfcl", action="store_true")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile `score` on the smallest size and print hotspots",
    )
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    args = parser.parse_args(argv)

    print(
        f"python {sys.version.split()[0]} on {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; score runs as: {score_command()[1]}"
    )
    startup = bench_startup(args.repeat)
    results = [run_size(size, args, startup) for size in args.sizes]
    for i, r in enumerate(results):
        print_size(r, startup, show_startup=i == 0)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    if args.profile:
        print(f"\ncProfile of score on {min(args.sizes)} items:\n")
        print(profile_score(min(args.sizes), args))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "python": sys.version.split()[0],
                    "cores": os.cpu_count(),
                    "startup": startup,
                    "sizes": [r.__dict__ for r in results],
                },
                indent=2,
                ensure_ascii=False,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
