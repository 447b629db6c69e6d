"""BFCL's checker loop over a dataset in BFCL's own layout; runs inside bench/.venv-bfcl.

Reads what `bench_bfcl4.py build` writes (`data/questions/BFCL_v4_<category>.json`,
`data/possible_answer/BFCL_v4_<category>.json` and `outputs.jsonl`, whose `result` is
BFCL's decoded form `[{"name": {args}}]`), joins them by id as BFCL's evaluation runner does
and calls `ast_checker(functions, result, ground_truth, Language.PYTHON, category, model)`
for every case. Prints one JSON line: cases, valid, seconds spent importing, loading and
checking.

`--stub`: BFCL's checker module imports BFCL's whole model table, and with it every
provider SDK (openai, anthropic, google-genai, mistral, cohere, boto3, qwen-agent, ...),
only to read one flag of the model (`underscore_to_dot`). With `--stub` that table is
replaced before the import by a one-entry table holding the flag, so nothing heavy is
imported: what is left is the bare checker loop. Without it, the import is what a BFCL
user waits for.

Usage: bench/.venv-bfcl/bin/python bench/bfcl_loop.py DIR [--stub] [--model-name NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from pathlib import Path
from typing import Any

DEFAULT_MODEL_NAME = "gorilla-openfunctions-v2"  # underscore_to_dot=False in BFCL's table


def _stub_model_table(model_name: str) -> None:
    module = types.ModuleType("bfcl_eval.constants.model_config")
    module.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
        model_name: types.SimpleNamespace(underscore_to_dot=False)
    }
    sys.modules[module.__name__] = module


def _load(path: Path) -> list[dict[str, Any]]:
    # BFCL's own reader (bfcl_eval.utils.load_file): one JSON object per line.
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--stub", action="store_true")
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    if args.stub:
        _stub_model_table(args.model_name)
    from bfcl_eval.constants.enums import Language  # type: ignore[import-not-found]
    from bfcl_eval.eval_checker.ast_eval.ast_checker import (  # type: ignore[import-not-found]
        ast_checker,
    )

    imported = time.perf_counter()
    data = args.dir / "data"
    results = {r["id"]: r["result"] for r in _load(args.dir / "outputs.jsonl")}
    cases = []
    for question_file in sorted((data / "questions").glob("BFCL_v4_*.json")):
        category = question_file.stem.removeprefix("BFCL_v4_")
        answer_file = data / "possible_answer" / question_file.name
        answers = {a["id"]: a["ground_truth"] for a in _load(answer_file)}
        for question in _load(question_file):
            item_id = question["id"]
            cases.append((item_id, category, question["function"], answers[item_id]))
    loaded = time.perf_counter()
    valid = 0
    for item_id, category, functions, ground_truth in cases:
        result = ast_checker(
            functions,
            results[item_id],
            ground_truth,
            Language.PYTHON,
            category,
            args.model_name,
        )
        valid += bool(result["valid"])
    checked = time.perf_counter()
    print(
        json.dumps(
            {
                "cases": len(cases),
                "valid": valid,
                "import_s": imported - start,
                "load_s": loaded - imported,
                "check_s": checked - loaded,
                "stub": args.stub,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
