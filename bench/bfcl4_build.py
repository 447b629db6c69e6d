"""The cases of bench_bfcl4.py: BFCL's four AST categories, each item answered twice.

`build(out)` takes the 1,000 items of BFCL's simple_python, multiple, parallel and
parallel_multiple from the `bfcl-eval` package installed in bench/.venv-bfcl and writes a
dataset in BFCL's layout holding each item twice (its own id, and a copy numbered after
the last), `outputs.jsonl` answering the first with the ground truth (the first acceptable
value of each parameter) and the copy with one mutation of it, and `labels.json` (the
mutation of each answer). Deterministic.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

from benchlib import prepared, shown

HERE = Path(__file__).resolve().parent
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
    """Write the cases into `out`, whole: through `<out>.partial`, renamed when complete
    (`benchlib.complete(out)` tells whether a build finished)."""
    source = bfcl_data_dir()
    settings = {"source": str(source), "categories": list(CATEGORIES)}
    prepared(out, settings, lambda folder: write_cases(folder, source), force=True)
    with (out / "outputs.jsonl").open(encoding="utf-8") as fh:
        cases = sum(1 for _ in fh)
    print(f"wrote {cases:,} cases into {shown(out)}")


def write_cases(out: Path, source: Path) -> None:
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
