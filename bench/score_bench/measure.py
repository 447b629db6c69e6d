"""The measurements of one size: `score` end to end, start-up, both checkers."""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlib import shown, wrap

from .children import BENCH, BFCL_PYTHON, REPO, checked, child_env, run_child, score_command
from .judge import check_decoding, compare_verdicts, evaluate_targets
from .result import SizeResult

LARGE = 10_000  # sizes from here on use --repeat-large
_WARMED: list[int] = []  # the sizes `score` ran on in this process


def _median(values: Sequence[float]) -> float:
    return statistics.median(values)


def bench_e2e(target: Path, size: int, repeat: int, result: SizeResult) -> None:
    """`score` with `--check ast` and with the default mode, the two runs interleaved."""
    base, shown = score_command()
    modes: dict[str, list[str]] = {"--check ast": ["--check", "ast"], "default check (both)": []}
    walls: dict[str, list[float]] = {label: [] for label in modes}
    rss: dict[str, list[float]] = {label: [] for label in modes}
    summaries: dict[str, dict[str, Any]] = {}
    commands: dict[str, list[str]] = {}
    # One untimed round writes the bytecode cache (children.child_env), on the first size.
    rounds = [False] * repeat if _WARMED else [True] + [False] * repeat
    _WARMED.append(size)
    for warm in rounds:
        for label, extra in modes.items():
            out_dir = target / ("score-ast" if extra else "score-default")
            cmd = [*base, "score", str(target / "outputs.jsonl"), "--data", str(target / "data")]
            cmd += ["--out", str(out_dir), "--json", *extra]
            commands[label] = cmd
            if out_dir.exists():
                shutil.rmtree(out_dir)
            m = checked(run_child(cmd, env=child_env(), cwd=REPO), "tfce-eval score")
            if warm:
                continue
            walls[label].append(m.wall_s)
            rss[label].append(m.rss_mb)
            summaries[label] = json.loads(m.stdout)
    for label, extra in modes.items():
        out_dir = target / ("score-ast" if extra else "score-default")
        valid = 0
        with (out_dir / "scores.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                valid += bool(json.loads(line)["valid"])
        cmd = commands[label]
        result.e2e[label] = {
            "command": " ".join([shown, *cmd[len(base) :]]).replace(str(REPO) + "/", ""),
            "wall_s": walls[label],
            "median_s": _median(walls[label]),
            "min_s": min(walls[label]),
            "items_per_s": size / _median(walls[label]),
            "peak_rss_mb": max(rss[label]),
            "valid": valid,
            "overall": summaries[label].get("overall"),
        }


def bench_startup(repeat: int) -> dict[str, Any]:
    base, shown = score_command()
    walls: list[float] = []
    bare: list[float] = []
    checked(run_child([*base, "--version"], env=child_env(), cwd=REPO), "tfce-eval --version")
    for _ in range(repeat):
        m = run_child([*base, "--version"], env=child_env(), cwd=REPO)
        walls.append(checked(m, "tfce-eval --version").wall_s)
        bare.append(run_child([sys.executable, "-c", "pass"]).wall_s)
    return {
        "command": f"{shown} --version",
        "median_s": _median(walls),
        "min_s": min(walls),
        "python_bare_median_s": _median(bare),
    }


def run_ours(target: Path, passes: int, verdicts: Path | None) -> dict[str, Any]:
    cmd = [sys.executable, str(BENCH / "bench_score.py"), "_checker", str(target)]
    cmd += ["--repeat", str(passes)]
    if verdicts is not None:
        cmd += ["--verdicts", str(verdicts)]
    m = checked(run_child(cmd, env=child_env(), cwd=REPO), "our checker")
    data: dict[str, Any] = json.loads(m.stdout)
    data["child_peak_rss_mb"] = m.rss_mb
    return data


def run_bfcl(target: Path, passes: int, verdicts: Path | None) -> dict[str, Any] | str:
    """BFCL's figures, or why they could not be had."""
    if not BFCL_PYTHON.is_file():
        return (
            f"BFCL's checker skipped: {BFCL_PYTHON} is missing "
            "(run bash bench/setup_bfcl_env.sh to make it)"
        )
    cmd = [str(BFCL_PYTHON), str(BENCH / "bfcl_reference.py"), str(target / "cases.jsonl")]
    cmd += ["--repeat", str(passes)]
    if verdicts is not None:
        cmd += ["--verdicts", str(verdicts)]
    m = run_child(cmd, cwd=REPO)
    if m.returncode != 0:
        return f"BFCL's checker failed (exit {m.returncode}): {m.stderr[-800:]}"
    data: dict[str, Any] = json.loads(m.stdout)
    data["child_peak_rss_mb"] = m.rss_mb
    return data


def per_group(
    ours_runs: list[dict[str, Any]], bfcl_runs: list[dict[str, Any]], key: str, order: list[str]
) -> dict[str, dict[str, float]]:
    """Median microseconds per case of each checker, group by group (`by_<key>_s`)."""
    out: dict[str, dict[str, float]] = {}
    counts = ours_runs[0][f"by_{key}_cases"]
    for group in [g for g in order if g in counts]:
        count = counts[group]
        ours = _median([p[group] for run in ours_runs for p in run[f"by_{key}_s"]])
        theirs = _median([p.get(group, 0.0) for run in bfcl_runs for p in run[f"by_{key}_s"]])
        n_bfcl = bfcl_runs[0][f"by_{key}_cases"].get(group, 0)
        out[group] = {
            "cases": count,
            "ours_us": 1e6 * ours / count,
            "bfcl_us": 1e6 * theirs / n_bfcl if n_bfcl else float("nan"),
        }
        out[group]["ratio"] = out[group]["ours_us"] / out[group]["bfcl_us"]
    return out


def bench_checkers(
    target: Path, rounds: int, passes: int, skip_bfcl: bool, result: SizeResult
) -> tuple[Path, Path | None]:
    """Both checkers, one child of each per round, rounds interleaved so load drift hits both."""
    ours_verdicts = target / "verdicts-ours.jsonl"
    bfcl_verdicts: Path | None = None if skip_bfcl else target / "verdicts-bfcl.jsonl"
    ours_runs: list[dict[str, Any]] = []
    bfcl_runs: list[dict[str, Any]] = []
    if skip_bfcl:
        result.bfcl_skipped = "BFCL's checker skipped (--skip-bfcl)"
    for r in range(rounds):
        ours_runs.append(run_ours(target, passes, ours_verdicts if r == 0 else None))
        if bfcl_verdicts is not None:
            got = run_bfcl(target, passes, bfcl_verdicts if r == 0 else None)
            if isinstance(got, str):
                result.bfcl_skipped = got
                bfcl_verdicts = None
            else:
                bfcl_runs.append(got)
    ours: dict[str, Any] = {k: ours_runs[0][k] for k in ("items", "decoded_cases")}
    for key in ("check_all_s", "check_decoded_s", "decode_s"):
        values = [v for run in ours_runs for v in run[key]]
        ours[key] = values
        ours[f"median_{key}"] = _median(values)
        ours[f"min_{key}"] = min(values)
    ours["child_peak_rss_mb"] = max(run["child_peak_rss_mb"] for run in ours_runs)
    ours["us_per_case_decoded"] = 1e6 * ours["median_check_decoded_s"] / ours["decoded_cases"]
    ours["us_per_item_all"] = 1e6 * ours["median_check_all_s"] / ours["items"]
    ours["us_per_item_decode"] = 1e6 * ours["median_decode_s"] / ours["items"]
    result.ours = ours
    if bfcl_verdicts is not None and bfcl_runs:
        times = [v for run in bfcl_runs for v in run["checker_s"]]
        first = bfcl_runs[0]
        result.bfcl = {
            "bfcl_eval_version": first["bfcl_eval_version"],
            "model_name": first["model_name"],
            "cases": first["cases"],
            "checker_s": times,
            "median_checker_s": _median(times),
            "min_checker_s": min(times),
            "us_per_case": 1e6 * _median(times) / first["cases"],
            "import_s": _median([run["import_s"] for run in bfcl_runs]),
            "peak_rss_mb_after_import": max(run["peak_rss_mb_after_import"] for run in bfcl_runs),
            "child_peak_rss_mb": max(run["child_peak_rss_mb"] for run in bfcl_runs),
        }
        result.ratio = {
            "median": ours["median_check_decoded_s"] / result.bfcl["median_checker_s"],
            "best": ours["min_check_decoded_s"] / result.bfcl["min_checker_s"],
        }
        from synthetic.items import TFCE_MIX

        categories = [c for c, _ in TFCE_MIX]
        result.by_category = per_group(ours_runs, bfcl_runs, "category", categories)
        result.by_answer = per_group(
            ours_runs, bfcl_runs, "answer", ["right answers", "wrong answers"]
        )
    return ours_verdicts, bfcl_verdicts if result.bfcl is not None else None


def run_size(size: int, args: argparse.Namespace, startup: dict[str, Any]) -> SizeResult:
    from synthetic.write import write_size

    t0 = time.perf_counter()
    target = write_size(args.out, size, args.seed)
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    ready = time.perf_counter() - t0
    print()
    print(wrap(f"== {size:,} items ({shown(target)}; data ready in {ready:.1f} s)"), flush=True)
    result = SizeResult(size, manifest["categories"], manifest["right"])
    large = size >= LARGE
    repeat = args.repeat_large if large else args.repeat
    bench_e2e(target, size, repeat, result)
    print("   tfce-eval score: done", flush=True)
    ours_verdicts, bfcl_verdicts = bench_checkers(
        target, repeat, 1 if large else args.passes, args.skip_bfcl, result
    )
    print("   checkers: done" + (f" ({result.bfcl_skipped})" if result.bfcl_skipped else ""))
    result.decoding = check_decoding(target, ours_verdicts)
    if bfcl_verdicts is not None:
        result.agreement = compare_verdicts(target, ours_verdicts, bfcl_verdicts)
    evaluate_targets(result, startup)
    return result
