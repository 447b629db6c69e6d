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

Usage: .venv/bin/python bench/bench_score.py [--sizes 917,100000] [--repeat 5]
       [--repeat-large 3] [--skip-bfcl] [--profile] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
BFCL_PYTHON = BENCH / ".venv-bfcl" / "bin" / "python"
LARGE = 10_000  # sizes from here on use --repeat-large

TARGET_E2E_SIZE = 917
TARGET_E2E_S = 1.0
TARGET_RSS_SIZE = 100_000
TARGET_RSS_MB = 300.0

#: Why the checkers may disagree on a variant (make_synthetic.py's labels).
REASONS = {
    "float_for_int": "an integral float (30.0) for an integer: BFCL requires type int",
    "unicode_punct": "full-width comma or en dash in a string: BFCL's normalisation strips "
    "only ASCII ' ,./-_*^'",
    "explicit_default": "an optional parameter sent with its default value: BFCL forbids "
    "every parameter the ground truth does not list",
    "greedy_order": "parallel calls in an order BFCL's greedy matching cannot pair",
    "case_space": "string case or spacing",
    "int_for_float": "an int for a float",
    "reordered_calls": "parallel calls in another order, where one call satisfies two "
    "expected calls (a parameter at its default): BFCL's greedy matching gives it to the "
    "first and leaves the other unmatched",
}


# --------------------------------------------------------------------------------------------
# Child processes


@dataclass
class Measured:
    wall_s: float
    rss_mb: float
    returncode: int
    stdout: str
    stderr: str


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def run_child(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Measured:
    """Run `cmd`, timing it from spawn to exit and reading that child's own peak RSS."""
    # Output goes to files, not pipes: wait4 must reap the child itself to read its rusage.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            wall,
            usage.ru_maxrss / 1024.0,
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def score_command() -> tuple[list[str], str]:
    """How `tfce-eval` is started: the installed script if there is one, else `python -m`."""
    script = Path(sys.executable).with_name("tfce-eval")
    if script.is_file():
        return [str(script)], str(script)
    return [sys.executable, "-m", "tfce_eval"], f"{Path(sys.executable).name} -m tfce_eval"


def checked(m: Measured, what: str) -> Measured:
    if m.returncode != 0:
        raise SystemExit(f"{what} failed (exit {m.returncode}):\n{m.stderr[-3000:]}")
    return m


# --------------------------------------------------------------------------------------------
# Our checker alone (runs in a child: `bench_score.py _checker DIR ...`)


def calls_digest(calls: list[dict[str, Any]] | None) -> str | None:
    """A short fingerprint of decoded calls (types kept: 43 and 43.0 differ)."""
    if calls is None:
        return None
    text = json.dumps(calls, sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def inner_checker(data_dir: Path, repeat: int, verdicts_path: Path | None) -> dict[str, Any]:
    import resource

    from tfce_eval.check.item import check_item
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.decode.answer import decode_output
    from tfce_eval.model import Policy
    from tfce_eval.schema.wire import name_map
    from tfce_eval.scoring.rundir import index_outputs

    dataset = load_dataset(data_dir / "data")
    index = index_outputs(data_dir / "outputs.jsonl")
    labels = answer_labels(data_dir)
    policy = Policy()
    clock = time.perf_counter
    runs_all: list[float] = []
    runs_decoded: list[float] = []
    runs_by_category: list[dict[str, float]] = []
    n_by_category: dict[str, int] = {}
    runs_by_answer: list[dict[str, float]] = []
    n_by_answer: dict[str, int] = {}
    runs_decode: list[float] = []
    n_all = n_decoded = 0
    for r in range(max(1, repeat)):
        out = (
            verdicts_path.open("w", encoding="utf-8")
            if (verdicts_path is not None and r == 0)
            else None
        )
        t_all = t_decoded = t_decode = 0.0
        n_all = n_decoded = 0
        by_category: dict[str, float] = {}
        n_by_category = {}
        by_answer: dict[str, float] = {}
        n_by_answer = {}
        with (data_dir / "outputs.jsonl").open("rb") as fh:
            for item in dataset.iter_items():
                offset, _ = index.offsets[item.id]
                fh.seek(offset)
                record = json.loads(fh.readline())
                t0 = clock()
                decoded = decode_output(record, name_map=name_map(item.functions))
                t1 = clock()
                verdict = check_item(item, decoded, policy)
                t2 = clock()
                t_decode += t1 - t0
                t_all += t2 - t1
                n_all += 1
                if decoded.ok:
                    t_decoded += t2 - t1
                    n_decoded += 1
                    category = str(item.category)
                    by_category[category] = by_category.get(category, 0.0) + t2 - t1
                    n_by_category[category] = n_by_category.get(category, 0) + 1
                    answer = labels[item.id]
                    by_answer[answer] = by_answer.get(answer, 0.0) + t2 - t1
                    n_by_answer[answer] = n_by_answer.get(answer, 0) + 1
                if out is not None:
                    calls = None
                    if decoded.calls is not None:
                        calls = calls_digest([{c.name: dict(c.arguments)} for c in decoded.calls])
                    error_type = None if verdict.error_type is None else str(verdict.error_type)
                    row = {"id": item.id, "valid": verdict.valid, "error_type": error_type}
                    out.write(json.dumps({**row, "calls": calls}) + "\n")
        if out is not None:
            out.close()
        runs_all.append(t_all)
        runs_decoded.append(t_decoded)
        runs_by_category.append(by_category)
        runs_by_answer.append(by_answer)
        runs_decode.append(t_decode)
    return {
        "items": n_all,
        "decoded_cases": n_decoded,
        "check_all_s": runs_all,
        "check_decoded_s": runs_decoded,
        "by_category_s": runs_by_category,
        "by_category_cases": n_by_category,
        "by_answer_s": runs_by_answer,
        "by_answer_cases": n_by_answer,
        "decode_s": runs_decode,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


# --------------------------------------------------------------------------------------------
# One size


@dataclass
class SizeResult:
    size: int
    categories: dict[str, int]
    right: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    e2e: dict[str, dict[str, Any]] = field(default_factory=dict)
    ours: dict[str, Any] = field(default_factory=dict)
    bfcl: dict[str, Any] | None = None
    bfcl_skipped: str | None = None
    agreement: dict[str, Any] | None = None
    ratio: dict[str, float] | None = None
    by_category: dict[str, dict[str, float]] = field(default_factory=dict)
    by_answer: dict[str, dict[str, float]] = field(default_factory=dict)
    decoding: dict[str, Any] | None = None
    checks: list[str] = field(default_factory=list)


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
    for _ in range(repeat):
        for label, extra in modes.items():
            out_dir = target / ("score-ast" if extra else "score-default")
            cmd = [*base, "score", str(target / "outputs.jsonl"), "--data", str(target / "data")]
            cmd += ["--out", str(out_dir), "--json", *extra]
            commands[label] = cmd
            if out_dir.exists():
                shutil.rmtree(out_dir)
            m = checked(run_child(cmd, env=child_env(), cwd=REPO), "tfce-eval score")
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
    cmd = [sys.executable, str(Path(__file__).resolve()), "_checker", str(target)]
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


def answer_labels(target: Path) -> dict[str, str]:
    """The generator's label of every answer ("right answers" or "wrong answers"), by id."""
    labels: dict[str, str] = {}
    with (target / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            labels[case["id"]] = "right answers" if case["right"] else "wrong answers"
    return labels


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
        import make_synthetic

        categories = [c for c, _ in make_synthetic.TFCE_MIX]
        result.by_category = per_group(ours_runs, bfcl_runs, "category", categories)
        result.by_answer = per_group(
            ours_runs, bfcl_runs, "answer", ["right answers", "wrong answers"]
        )
    return ours_verdicts, bfcl_verdicts if result.bfcl is not None else None


def compare_verdicts(target: Path, ours_path: Path, bfcl_path: Path) -> dict[str, Any]:
    """Case-by-case agreement of the two checkers, grouped by the answer's variant."""
    meta: dict[str, tuple[str, bool, str]] = {}
    with (target / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            meta[case["id"]] = (case["variant"], bool(case["right"]), case["test_category"])
    ours: dict[str, tuple[bool, str | None]] = {}
    with ours_path.open(encoding="utf-8") as fh:
        for line in fh:
            v = json.loads(line)
            ours[v["id"]] = (v["valid"], v["error_type"])
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    bfcl_errors: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    total = agree = 0
    with bfcl_path.open(encoding="utf-8") as fh:
        for line in fh:
            b = json.loads(line)
            variant, right, _ = meta[b["id"]]
            o_valid, _ = ours[b["id"]]
            g = groups[variant]
            g["cases"] += 1
            g["ours_valid"] += o_valid
            g["bfcl_valid"] += b["valid"]
            g["ours_right"] += o_valid == right
            g["bfcl_right"] += b["valid"] == right
            total += 1
            if o_valid == b["valid"]:
                agree += 1
                continue
            g["disagree"] += 1
            g["ours_valid_bfcl_invalid" if o_valid else "ours_invalid_bfcl_valid"] += 1
            bfcl_errors[variant][str(b["error_type"])] += 1
            if len(examples[variant]) < 3:
                examples[variant].append(b["id"])
    return {
        "cases": total,
        "agree": agree,
        "by_variant": {v: dict(c) for v, c in sorted(groups.items())},
        "bfcl_error_types": {v: dict(c) for v, c in bfcl_errors.items()},
        "examples": dict(examples),
    }


def check_decoding(target: Path, ours_path: Path) -> dict[str, Any]:
    """Answers the decoder read into other calls than the generator wrote into cases.jsonl."""
    digests: dict[str, str | None] = {}
    valid: dict[str, bool] = {}
    with ours_path.open(encoding="utf-8") as fh:
        for line in fh:
            v = json.loads(line)
            digests[v["id"]] = v.get("calls")
            valid[v["id"]] = v["valid"]
    differs: list[str] = []
    against_label: list[str] = []
    with (target / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            if digests.get(case["id"]) != calls_digest(case["model_output"]):
                differs.append(case["id"])
            if valid.get(case["id"]) != case["right"]:
                against_label.append(case["id"])
    return {
        "answers": len(digests),
        "differ": len(differs),
        "first_ids": differs[:10],
        "verdict_against_label": len(against_label),
        "verdict_against_label_ids": against_label[:10],
    }


def run_size(size: int, args: argparse.Namespace, startup: dict[str, Any]) -> SizeResult:
    import make_synthetic

    t0 = time.perf_counter()
    target = make_synthetic.write_size(args.out, size, args.seed)
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    print(
        f"\n== {size:,} items ({target}; data ready in {time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
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


def evaluate_targets(r: SizeResult, startup: dict[str, Any]) -> None:
    for label, e in r.e2e.items():
        if e["valid"] != r.right:
            r.checks.append(
                f"NOTE score ({label}) found {e['valid']} valid, the generator "
                f"made {r.right} right answers"
            )
    if r.bfcl is not None and r.ratio is not None:
        ratio = r.ratio["median"]
        r.checks.append(
            f"{'MET   ' if ratio <= 1.0 else 'MISSED'} our checker per case "
            f"<= BFCL's: {r.ours['us_per_case_decoded']:.1f} us vs "
            f"{r.bfcl['us_per_case']:.1f} us (ratio {ratio:.2f}; best runs {r.ratio['best']:.2f})"
        )
    if r.size == TARGET_E2E_SIZE:
        for label, e in r.e2e.items():
            ok = e["median_s"] < TARGET_E2E_S
            r.checks.append(
                f"{'MET   ' if ok else 'MISSED'} score on {r.size} items under "
                f"{TARGET_E2E_S:.0f} s including start-up ({label}): "
                f"{e['median_s']:.3f} s (start-up alone "
                f"{startup['median_s']:.3f} s)"
            )
    if r.size >= TARGET_RSS_SIZE:
        for label, e in r.e2e.items():
            ok = e["peak_rss_mb"] < TARGET_RSS_MB
            r.checks.append(
                f"{'MET   ' if ok else 'MISSED'} {r.size:,} items in under "
                f"{TARGET_RSS_MB:.0f} MB ({label}): peak RSS "
                f"{e['peak_rss_mb']:.0f} MB"
            )


# --------------------------------------------------------------------------------------------
# Printing


def _row(name: str, seconds: float, best: float, count: int, rss: float | None) -> str:
    rate = count / seconds if seconds else float("inf")
    us = 1e6 * seconds / count if count else 0.0
    rss_s = f"{rss:7.0f}" if rss is not None else "      -"
    return f"  {name:<40} {count:>7,} {seconds:>8.3f} {best:>8.3f} {rate:>9,.0f} {us:>8.1f} {rss_s}"


def print_size(r: SizeResult, startup: dict[str, Any], *, show_startup: bool) -> None:
    cats = ", ".join(f"{c} {n}" for c, n in r.categories.items())
    print(f"\n{r.size:,} items ({cats}); {r.right} answers right by construction")
    print(
        f"  {'what':<40} {'items':>7} {'median s':>8} {'best s':>8} {'items/s':>9}"
        f" {'us/item':>8} {'RSS MB':>7}"
    )
    for label, e in r.e2e.items():
        print(
            _row(f"tfce-eval score, {label}", e["median_s"], e["min_s"], r.size, e["peak_rss_mb"])
        )
    if show_startup:
        print(
            f"  {'  start-up alone (tfce-eval --version)':<40} {'':>7} "
            f"{startup['median_s']:>8.3f} {startup['min_s']:>8.3f}   "
            f"(bare python: {startup['python_bare_median_s']:.3f} s)"
        )
    o = r.ours
    rows = [
        (
            "our checker, answers that decode",
            "check_decoded_s",
            o["decoded_cases"],
            o["child_peak_rss_mb"],
        ),
        ("our checker, all items", "check_all_s", o["items"], None),
        ("our decoder, all items", "decode_s", o["items"], None),
    ]
    for name, key, count, rss in rows:
        print(_row(name, o[f"median_{key}"], o[f"min_{key}"], count, rss))
    if r.bfcl is not None:
        b = r.bfcl
        print(
            _row(
                f"BFCL checker (bfcl-eval {b['bfcl_eval_version']})",
                b["median_checker_s"],
                b["min_checker_s"],
                b["cases"],
                b["child_peak_rss_mb"],
            )
        )
        print(
            f"  {'  (BFCL import alone)':<40} {'':>7} {b['import_s']:>8.3f}"
            f"            RSS after import {b['peak_rss_mb_after_import']:.0f} MB"
        )
        if r.ratio is not None:
            print(
                f"  ratio ours/BFCL per case: {r.ratio['median']:.2f} on medians, "
                f"{r.ratio['best']:.2f} on best passes (below 1: ours is faster)"
            )
        for group, c in [*r.by_category.items(), *r.by_answer.items()]:
            print(
                f"    {group:<18} {c['cases']:>7,} cases: ours {c['ours_us']:6.1f} us, "
                f"BFCL {c['bfcl_us']:5.1f} us per case, ratio {c['ratio']:.2f}"
            )
    else:
        print(f"  {r.bfcl_skipped}")
    if r.agreement is not None:
        a = r.agreement
        print(
            f"\n  verdicts on the {a['cases']:,} cases both check: {a['agree']:,} agree, "
            f"{a['cases'] - a['agree']:,} differ"
        )
        print(
            f"  {'variant':<20} {'right?':>6} {'cases':>7} {'ours ok':>8} {'BFCL ok':>8}"
            f" {'differ':>7}  BFCL's errors where they differ"
        )
        for variant, g in a["by_variant"].items():
            import make_synthetic

            right = "yes" if variant in make_synthetic.RIGHT_VARIANTS else "no"
            errors = ", ".join(
                f"{k} {n}" for k, n in a["bfcl_error_types"].get(variant, {}).items()
            )
            print(
                f"  {variant:<20} {right:>6} {g.get('cases', 0):>7,} "
                f"{g.get('ours_valid', 0):>8,} {g.get('bfcl_valid', 0):>8,} "
                f"{g.get('disagree', 0):>7,}  {errors}"
            )
        for variant, g in a["by_variant"].items():
            if g.get("disagree") and variant in REASONS:
                print(
                    f"    {variant}: {REASONS[variant]} (e.g. "
                    f"{', '.join(a['examples'].get(variant, []))})"
                )
    if r.decoding is not None:
        d = r.decoding
        shown = ", ".join(d["first_ids"])
        print(
            f"  answers the decoder read into other calls than the generator wrote: "
            f"{d['differ']:,}" + (f" (e.g. {shown})" if d["differ"] else "")
        )
        shown = ", ".join(d["verdict_against_label_ids"])
        print(
            f"  our verdicts against the generator's right/wrong labels, all items: "
            f"{d['verdict_against_label']:,}" + (f" (e.g. {shown})" if shown else "")
        )
    if r.checks:
        print()
        for line in r.checks:
            print(f"  {line}")


# --------------------------------------------------------------------------------------------
# Profile


def profile_score(size: int, args: argparse.Namespace, top: int = 25) -> str:
    """cProfile of `score` on one size (default check mode), top functions by own time."""
    import make_synthetic

    target = make_synthetic.write_size(args.out, size, args.seed)
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

    buf = io.StringIO()
    stats = pstats.Stats(str(prof), stream=buf)
    stats.sort_stats("tottime").print_stats(top)
    buf.write("\n")
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    import make_synthetic

    return make_synthetic.parse_sizes(text)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_checker"]:
        inner = argparse.ArgumentParser(prog="bench_score.py _checker")
        inner.add_argument("target", type=Path)
        inner.add_argument("--repeat", type=int, default=3)
        inner.add_argument("--verdicts", type=Path)
        a = inner.parse_args(argv[1:])
        print(json.dumps(inner_checker(a.target, a.repeat, a.verdicts)))
        return 0

    import make_synthetic

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[917, 100_000])
    parser.add_argument(
        "--repeat", type=int, default=5, help="rounds of every timing (small sizes)"
    )
    parser.add_argument(
        "--passes", type=int, default=3, help="passes over the cases per checker child (small)"
    )
    parser.add_argument(
        "--repeat-large",
        type=int,
        default=3,
        help=f"timing repeats for sizes of {LARGE:,} and more",
    )
    parser.add_argument("--seed", type=int, default=make_synthetic.DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=make_synthetic.DEFAULT_OUT)
    parser.add_argument("--skip-bfcl", action="store_true")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile `score` on the smallest size and print hotspots",
    )
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    args = parser.parse_args(argv)

    print(
        f"python {sys.version.split()[0]} on {os.cpu_count()} cores; "
        f"score runs as: {score_command()[1]}"
    )
    startup = bench_startup(args.repeat)
    results = [run_size(size, args, startup) for size in args.sizes]
    for i, r in enumerate(results):
        print_size(r, startup, show_startup=i == 0)
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
