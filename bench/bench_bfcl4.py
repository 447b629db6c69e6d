"""`tfce-eval score` against BFCL's own checker loop, on BFCL's four AST categories.

`build` takes the 1,000 items of BFCL's simple_python, multiple, parallel and
parallel_multiple (from the `bfcl-eval` package installed in bench/.venv-bfcl) and writes
`bench/out/bfcl4/`: a dataset in BFCL's layout (`data/questions/BFCL_v4_<category>.json`
and `data/possible_answer/`) holding each item twice (its own id, and a
copy numbered after the last), and `outputs.jsonl` answering the first with the ground truth
(the first acceptable value of each parameter) and the copy with one mutation of it (a wrong
value, type or function name, a missing or invented parameter, a call dropped), in BFCL's
decoded form `[{"name": {args}}]`. 2,000 cases, deterministic.

`measure` times, from spawn to exit and alternately, `--repeat` times each:

- `tfce-eval score OUTPUTS --data DIR --out TMP --check ast --json` (installed script);
- BFCL's bare checker loop (`bfcl_loop.py --stub`: its heavy imports stubbed out);
- the same loop with BFCL's real imports (what a BFCL user waits for);

and prints the medians, the ratios, and the split of tfce-eval's own time (`--split`: one
in-process run with timers around import, dataset, decoding, checking and writing).

    bash bench/setup_bfcl_env.sh          # once
    .venv/bin/python bench/bench_bfcl4.py build
    .venv/bin/python bench/bench_bfcl4.py measure --repeat 9 --split
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "bfcl4"
BFCL_PYTHON = HERE / ".venv-bfcl" / "bin" / "python"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")
MUTATIONS = (
    "wrong_value",
    "missing_required",
    "wrong_function",
    "invented_param",
    "wrong_type",
    "dropped_call",
)


# -- build ------------------------------------------------------------------------------------


def bfcl_data_dir() -> Path:
    code = (
        "import importlib.util; "
        "print(importlib.util.find_spec('bfcl_eval').submodule_search_locations[0])"
    )
    found = subprocess.run(
        [str(BFCL_PYTHON), "-c", code], capture_output=True, text=True, check=True
    )
    return Path(found.stdout.strip()) / "data"


def load_lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def first_choice(value: Any) -> Any:
    """The first acceptable value; nested BFCL alternatives ({"k": [v1, v2]}) collapsed."""
    if isinstance(value, dict):
        out = {}
        for key, choices in value.items():
            if isinstance(choices, list) and choices:
                if choices[0] == "":
                    continue
                out[key] = first_choice(choices[0])
            else:
                out[key] = choices
        return out
    if isinstance(value, list):
        return [first_choice(v) for v in value]
    return value


def ground_truth_calls(ground_truth: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls = []
    for entry in ground_truth:
        ((name, params),) = entry.items()
        args = {k: first_choice(v[0]) for k, v in params.items() if v and v[0] != ""}
        calls.append({name: args})
    return calls


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value * 1.5 + 1.0
    if isinstance(value, str):
        return value + " (changed)"
    if isinstance(value, list):
        return [*value, value[0]] if value else ["extra"]
    if isinstance(value, dict):
        return {**value, "changed": 1}
    return "changed"


def mutate(
    calls: list[dict[str, Any]], docs: dict[str, Any], index: int
) -> tuple[list[dict[str, Any]], str]:
    """One mutation of the ground-truth calls, chosen by `index` among those that apply."""
    calls = copy.deepcopy(calls)
    ((name, args),) = calls[0].items()
    params = docs.get(name, {}).get("parameters", {})
    required = [r for r in params.get("required", []) if r in args]
    numbers = [k for k, v in args.items() if isinstance(v, int | float) and not isinstance(v, bool)]
    for offset in range(len(MUTATIONS)):
        kind = MUTATIONS[(index + offset) % len(MUTATIONS)]
        if kind == "wrong_value" and args:
            key = sorted(args)[0]
            args[key] = _changed(args[key])
        elif kind == "missing_required" and required:
            del args[required[0]]
        elif kind == "wrong_function":
            calls[0] = {name + "_v2": args}
        elif kind == "invented_param":
            args["verbose_output"] = True
        elif kind == "wrong_type" and numbers:
            args[numbers[0]] = str(args[numbers[0]])
        elif kind == "dropped_call" and len(calls) > 1:
            calls.pop()
        else:
            continue
        return calls, kind
    raise AssertionError("invented_param always applies")


def build(out: Path) -> None:
    source = bfcl_data_dir()
    data = out / "data"
    (data / "questions").mkdir(parents=True, exist_ok=True)
    (data / "possible_answer").mkdir(parents=True, exist_ok=True)
    outputs: list[dict[str, Any]] = []
    labels: dict[str, str] = {}
    for category in CATEGORIES:
        name = f"BFCL_v4_{category}.json"
        questions = load_lines(source / name)
        answers = {a["id"]: a for a in load_lines(source / "possible_answer" / name)}
        n = len(questions)
        out_q: list[dict[str, Any]] = []
        out_a: list[dict[str, Any]] = []
        for index, question in enumerate(questions):
            answer = answers[question["id"]]
            twin = f"{category}_{n + index}"
            out_q += [question, {**question, "id": twin}]
            out_a += [answer, {**answer, "id": twin}]
            right = ground_truth_calls(answer["ground_truth"])
            docs = {d["name"]: d for d in question["function"]}
            wrong, kind = mutate(right, docs, index)
            outputs.append({"id": question["id"], "result": right})
            outputs.append({"id": twin, "result": wrong})
            labels[question["id"]] = "ground_truth"
            labels[twin] = kind
        for path, rows in (
            (data / "questions" / name, out_q),
            (data / "possible_answer" / name, out_a),
        ):
            path.write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
            )
    with (out / "outputs.jsonl").open("w", encoding="utf-8") as fh:
        for row in outputs:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out / "labels.json").write_text(json.dumps(labels, indent=0), encoding="utf-8")
    print(f"wrote {len(outputs)} cases into {out}")


# -- measure ----------------------------------------------------------------------------------


def tfce_command(out: Path, scratch: Path) -> list[str]:
    script = Path(sys.executable).with_name("tfce-eval")
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


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done.stdout


def split_child(out: Path) -> None:
    """`bench_bfcl4.py _split`: one in-process score with timers around each stage."""
    t0 = time.perf_counter()
    import tfce_eval.scoring.score as score
    from tfce_eval.dataset.load import Dataset, load_dataset
    from tfce_eval.scoring.options import CheckMode, ScoreOptions

    t1 = time.perf_counter()
    from tfce_eval.report import FailureSource, RunView, write_run_reports

    t2 = time.perf_counter()
    spent = dict.fromkeys(("outputs", "items", "decode", "check"), 0.0)

    def timing(name: str, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start

        return wrapped

    def timed_items(fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            items = fn(*args, **kwargs)
            while True:
                start = time.perf_counter()
                try:
                    item = next(items)
                except StopIteration:
                    return
                finally:
                    spent["items"] += time.perf_counter() - start
                yield item

        return wrapped

    score.decode_output = timing("decode", score.decode_output)  # type: ignore[attr-defined]
    score.check_item = timing("check", score.check_item)  # type: ignore[attr-defined]
    score.index_outputs = timing("outputs", score.index_outputs)  # type: ignore[attr-defined]
    Dataset.iter_items = timed_items(Dataset.iter_items)  # type: ignore[method-assign]
    dataset = load_dataset(out / "data")
    t3 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = score.score_outputs(
            out / "outputs.jsonl", dataset, ScoreOptions(check=CheckMode.AST), Path(tmp)
        )
        t4 = time.perf_counter()
        path = result.run_dir.path
        view = RunView("bfcl4", path, result.summary, result.records, None)
        write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))
        t5 = time.perf_counter()
    own = (t4 - t3) - sum(spent.values())
    print(
        json.dumps(
            {
                "imports (scoring path)": t1 - t0,
                "imports (report package)": t2 - t1,
                "dataset index (load_dataset)": t3 - t2,
                "items built (iter_items)": spent["items"],
                "outputs indexed": spent["outputs"],
                "decoding": spent["decode"],
                "checking": spent["check"],
                "scoring's own (records, summary, files)": own,
                "reports": t5 - t4,
            }
        )
    )


def split(out: Path, repeat: int) -> dict[str, float]:
    """The median of each stage over `repeat` fresh processes (see split_child)."""
    runs: list[dict[str, float]] = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "_split"], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(done.stdout))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def measure(out: Path, repeat: int, with_split: bool, skip_real: bool) -> None:
    if not (out / "outputs.jsonl").is_file():
        raise SystemExit(f"no data in {out}: run `bench_bfcl4.py build` first")
    runs: dict[str, list[float]] = {"tfce": [], "bare": [], "real": []}
    reports: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "tfce": tfce_command(out, Path(scratch)),
            "bare": [str(BFCL_PYTHON), str(HERE / "bfcl_loop.py"), str(out), "--stub"],
            "real": [str(BFCL_PYTHON), str(HERE / "bfcl_loop.py"), str(out)],
        }
        if skip_real:
            del commands["real"]
        for cmd in commands.values():  # warm the file cache
            timed(cmd)
        for _ in range(repeat):
            for name, cmd in commands.items():
                wall, stdout = timed(cmd)
                runs[name].append(wall)
                reports[name] = stdout
    tfce = json.loads(reports["tfce"])
    bare = json.loads(reports["bare"].strip().splitlines()[-1])
    med = {k: statistics.median(v) for k, v in runs.items() if v}
    python = sys.version.split()[0]
    print(f"2,000 cases (BFCL's four categories), median of {repeat}, Python {python}")
    print(f"  tfce-eval score (end to end)      {med['tfce']:6.2f} s")
    print(f"  BFCL bare checker loop (stubbed)  {med['bare']:6.2f} s")
    if "real" in med:
        print(f"  BFCL loop with its real imports   {med['real']:6.2f} s")
    print(f"  ratio tfce / bare                 {med['tfce'] / med['bare']:6.2f}  (goal <= 1.0)")
    if "real" in med:
        print(f"  ratio tfce / real                 {med['tfce'] / med['real']:6.2f}")
    micro = tfce["overall"]["micro"]
    print(
        f"  valid: tfce-eval {micro['correct']} of {micro['total']}, "
        f"BFCL {bare['valid']} of {bare['cases']}"
    )
    print(
        f"  inside BFCL's bare loop: import {bare['import_s']:.3f} s, "
        f"load {bare['load_s']:.3f} s, check {bare['check_s']:.3f} s"
    )
    if with_split:
        parts = split(out, repeat)
        total = sum(parts.values())
        print("  tfce-eval in-process split:")
        for name, seconds in parts.items():
            print(f"    {name:<32} {seconds:6.3f} s")
        print(f"    {'total':<32} {total:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    sub.add_parser("_split")
    m = sub.add_parser("measure")
    m.add_argument("--repeat", type=int, default=9)
    m.add_argument("--split", action="store_true")
    m.add_argument("--skip-real", action="store_true", help="skip BFCL with its real imports")
    args = parser.parse_args()
    if args.command == "build":
        build(OUT)
    elif args.command == "_split":
        split_child(OUT)
    else:
        measure(OUT, args.repeat, args.split, args.skip_real)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
