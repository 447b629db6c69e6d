"""cProfile of `score`: where its time goes."""

from __future__ import annotations

import argparse
import sys

from benchlib import profile_lines

from .children import REPO, checked, child_env, run_child


def profile_score(size: int, args: argparse.Namespace, top: int = 25) -> str:
    """cProfile of `score` on one size (default check mode), top functions by own time."""
    from synthetic.write import write_size

    target = write_size(args.out, size, args.seed)
    prof = target / "score.prof"
    # The same code as the timed runs, through -m so that cProfile can start it.
    cmd = [
        sys.executable,
        "-m",
        "cProfile",
        "-o",
        str(prof),
        "-m",
        "tfce_eval",
        "score",
        str(target / "outputs.jsonl"),
        "--data",
        str(target / "data"),
        "--out",
        str(target / "score-profile"),
    ]
    checked(run_child(cmd, env=child_env(), cwd=REPO), "profiled score")
    import io
    import pstats

    stats = pstats.Stats(str(prof), stream=io.StringIO())
    lines = [*profile_lines(stats, "tottime", top), "", *profile_lines(stats, "cumulative", top)]
    return "\n".join(lines)
