"""Benchmark QA scoring: answer extraction and scoring of generated predictions.

For each size (default 10,000 and 100,000 items) it writes a Telco-Retrieve-shaped split
(JSON Lines: mc with labels A-E or 1-4, tf, open, each with a canonical source) and a
predictions file whose responses are written the way models write them (reasoning before
the answer, `<think>` blocks, bold, `\\boxed{}`, a label in parentheses, lower case, option
text, verdict words, some unreadable), a fifth of them with five retrieved chunks, and 1 %
of the items left out. Then, in a child process of its own, it loads the split and runs
`score_predictions` (read, extract, score, write scores.jsonl and summary.json), and
reports the median wall time and CPU time of the scoring call and the child's peak RSS
(os.wait4), so that memory per item can be read off the two sizes. Wall time depends on
what else the machine runs, CPU time much less: the load average is printed.

Goal: 100,000 predictions extracted and scored in under 10 s, with memory growing only
with the records kept (no per-item spikes).

Usage: .venv/bin/python bench/bench_qa_score.py [--sizes 10000,100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchlib import at_least_one

REPO = Path(__file__).resolve().parent.parent
TARGET_SIZE = 100_000
TARGET_S = 10.0

SPECS = ["23.501", "23.502", "38.211", "38.300", "38.331", "33.501", "23.003", "38.104"]
THINK = "<think>The question asks about the core network. Let me recall TS 23.501.</think>\n"
REASONING = (
    "Let me reason step by step. The function described handles registration and mobility, "
    "which TS 23.501 assigns to one network function; the others handle sessions, policy "
    "and the user plane.\n\n"
)


def _item(n: int, rng: random.Random) -> dict[str, Any]:
    spec = SPECS[n % len(SPECS)]
    kind = ("mc", "mc", "tf", "tf", "open")[n % 5]
    record: dict[str, Any] = {
        "question_id": f"q{n:07d}",
        "question": f"Synthetic question {n} about TS {spec}?",
        "answer_type": kind,
        "difficulty": ("easy", "medium", "hard")[n % 3],
        "canonical_source": f"TS {spec} (Rel-{15 + n % 4})",
        "chunk_id": f"{spec.replace('.', '')}-rel17-{n % 500:03d}",
    }
    if kind == "mc":
        labels = ["A", "B", "C", "D", "E"] if n % 7 else ["1", "2", "3", "4"]
        record["options"] = {lab: f"Option text {lab} for question {n}" for lab in labels}
        record["reference_answer"] = rng.choice(labels)
    elif kind == "tf":
        record["reference_answer"] = rng.choice(["true", "false"])
    else:
        record["reference_answer"] = "Packet Data Convergence Protocol entity"
    return record


def _mc_response(labels: list[str], rng: random.Random) -> str:
    label = rng.choice(labels)
    forms = [
        f"ANSWER: {label}",
        f"{REASONING}ANSWER: {label}",
        f"{THINK}**Answer:** ({label})",
        f"{REASONING}Final answer: $\\boxed{{{label}}}$",
        f"{REASONING}answer: {label.lower()}.",
        f"{REASONING}The answer is {label}.",  # no ANSWER: line: a parse error
        f"{REASONING}ANSWER: {label} or {labels[0]}",
        f"{label}",
    ]
    return rng.choice(forms)


def _tf_response(rng: random.Random) -> str:
    verdict = rng.choice(["True", "False"])
    forms = [
        f"ANSWER: {verdict}",
        f"{REASONING}ANSWER: {verdict.lower()}",
        f"{THINK}**ANSWER: {verdict}**",
        f"{REASONING}The statement is {verdict.lower()}.",
        f"{REASONING}It is not true; the statement is false.",
        "It depends on the release.",
    ]
    return rng.choice(forms)


def generate(root: Path, size: int) -> tuple[Path, Path]:
    rng = random.Random(size)
    split = root / f"set_{size}.jsonl"
    preds = root / f"preds_{size}.jsonl"
    with split.open("w", encoding="utf-8") as data, preds.open("w", encoding="utf-8") as out:
        for n in range(size):
            item = _item(n, rng)
            data.write(json.dumps(item) + "\n")
            if n % 100 == 99:
                continue  # 1 % missing
            kind = item["answer_type"]
            if kind == "mc":
                response = _mc_response(list(item["options"]), rng)
            elif kind == "tf":
                response = _tf_response(rng)
            else:
                response = f"{REASONING}ANSWER: the PDCP entity"
            pred: dict[str, Any] = {"id": item["question_id"], "response": response}
            if n % 5 == 0:
                pred["retrieved"] = [
                    {
                        "chunk_id": f"{rng.choice(SPECS).replace('.', '')}-rel17-{k:03d}",
                        "score": 10.0 - k,
                    }
                    for k in range(5)
                ]
            out.write(json.dumps(pred) + "\n")
    return split, preds


CHILD = """
import json, sys, time
from tfce_eval.qa import load_telco, score_predictions
split, preds, out = sys.argv[1:4]
data = load_telco(split)
start, cpu = time.perf_counter(), time.process_time()
result = score_predictions(preds, data, out_dir=out)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
mc = result.summary["answer_types"]["mc"]
print(json.dumps({"seconds": elapsed, "cpu": cpu, "records": len(result.records),
                  "mc_parse_errors": mc["parse_errors"], "missing": result.summary["missing"]}))
"""


def run_child(split: Path, preds: Path, out: Path) -> tuple[dict[str, Any], float]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(split), str(preds), str(out)],
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stdout is not None
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"scoring child failed with status {status}")
    return json.loads(text), usage.ru_maxrss / 1024  # kB -> MB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=at_least_one, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in sizes:
            split, preds = generate(root, size)
            times, rss, cpu = [], [], []
            for _ in range(args.repeat):
                info, peak = run_child(split, preds, root / f"out_{size}")
                times.append(info["seconds"])
                rss.append(peak)
                cpu.append(info["cpu"])
            rows.append((size, statistics.median(times), max(rss), statistics.median(cpu), info))
    print(f"load average before: {load:.1f} on {os.cpu_count()} cores")
    print(f"{'items':>8} {'score s':>8} {'items/s':>9} {'CPU s':>6} {'peak MB':>8}  notes")
    for size, seconds, peak, used, info in rows:
        note = f"{info['mc_parse_errors']} mc parse errors, {info['missing']} missing"
        print(f"{size:>8} {seconds:>8.2f} {size / seconds:>9.0f} {used:>6.2f} {peak:>8.1f}  {note}")
    if len(rows) > 1:
        (s0, _, m0, _, _), (s1, _, m1, _, _) = rows[0], rows[-1]
        print(f"memory per item: {(m1 - m0) * 1024 / (s1 - s0):.2f} kB")
    for size, seconds, _, _, _ in rows:
        if size == TARGET_SIZE:
            verdict = "met" if seconds < TARGET_S else "MISSED"
            print(f"goal: {TARGET_SIZE} predictions in under {TARGET_S:.0f} s: {verdict}")


if __name__ == "__main__":
    main()
