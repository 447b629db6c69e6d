"""Time BFCL's AST checker on the benchmark's decoded cases; runs inside bench/.venv-bfcl.

BFCL's checker is imported from the installed `bfcl-eval` package and called as BFCL's own
evaluation runner calls it: `ast_checker(func_description, model_output, possible_answer,
Language.PYTHON, test_category, model_name)`. The model name only matters for dotted
function names: BFCL looks it up in its model table to decide whether to expect `.` replaced
by `_`; the default names a model whose calls keep the dots, as the decoded cases do.

Input: `cases.jsonl` from make_synthetic.py. Cases whose answer could not be decoded
(`model_output` null) are skipped: BFCL's pipeline rejects those before its checker runs.
Each case is parsed outside the timed region; only the checker call is timed, so the
figures compare checker with checker.

Prints one JSON object on stdout: the package version, the number of cases, the checker's
seconds per repeat and their median, cases per second, microseconds per case, the import
time, and peak RSS (resource.getrusage) after the import and at the end. `--verdicts FILE`
writes one line per case: {"id", "valid", "error_type"} (error_type "exception:<Name>" when
the checker raised).

Usage: bench/.venv-bfcl/bin/python bench/bfcl_reference.py CASES [--repeat N]
       [--verdicts FILE] [--model-name NAME]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFAULT_MODEL_NAME = "gorilla-openfunctions-v2"  # underscore_to_dot=False in BFCL's table


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cases(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                case = json.loads(line)
                if case.get("model_output") is not None:
                    yield case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--verdicts", type=Path)
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    from bfcl_eval.constants.enums import Language  # type: ignore[import-not-found]
    from bfcl_eval.eval_checker.ast_eval.ast_checker import (  # type: ignore[import-not-found]
        ast_checker,
    )

    import_s = time.perf_counter() - start
    rss_after_import = _peak_rss_mb()

    runs: list[float] = []
    runs_by_category: list[dict[str, float]] = []
    n_by_category: dict[str, int] = {}
    runs_by_answer: list[dict[str, float]] = []
    n_by_answer: dict[str, int] = {}
    count = 0
    for repeat in range(max(1, args.repeat)):
        verdicts = (
            args.verdicts.open("w", encoding="utf-8")
            if (args.verdicts is not None and repeat == 0)
            else None
        )
        elapsed = 0.0
        count = 0
        by_category: dict[str, float] = {}
        n_by_category = {}
        by_answer: dict[str, float] = {}
        n_by_answer = {}
        clock = time.perf_counter
        try:
            for case in _cases(args.cases):
                func_description = case["func_description"]
                model_output = case["model_output"]
                possible_answer = case["possible_answer"]
                category = case["test_category"]
                t0 = clock()
                try:
                    result = ast_checker(
                        func_description,
                        model_output,
                        possible_answer,
                        Language.PYTHON,
                        category,
                        args.model_name,
                    )
                except Exception as exc:  # a crash of the checker is a verdict too
                    result = {"valid": False, "error_type": f"exception:{type(exc).__name__}"}
                took = clock() - t0
                elapsed += took
                count += 1
                by_category[category] = by_category.get(category, 0.0) + took
                n_by_category[category] = n_by_category.get(category, 0) + 1
                answer = "right answers" if case.get("right") else "wrong answers"
                by_answer[answer] = by_answer.get(answer, 0.0) + took
                n_by_answer[answer] = n_by_answer.get(answer, 0) + 1
                if verdicts is not None:
                    verdicts.write(
                        json.dumps(
                            {
                                "id": case["id"],
                                "valid": bool(result.get("valid")),
                                "error_type": None
                                if result.get("valid")
                                else result.get("error_type"),
                            }
                        )
                        + "\n"
                    )
        finally:
            if verdicts is not None:
                verdicts.close()
        runs.append(elapsed)
        runs_by_category.append(by_category)
        runs_by_answer.append(by_answer)

    median = statistics.median(runs)
    print(
        json.dumps(
            {
                "bfcl_eval_version": importlib.metadata.version("bfcl-eval"),
                "model_name": args.model_name,
                "cases": count,
                "repeats": len(runs),
                "checker_s": runs,
                "by_category_s": runs_by_category,
                "by_category_cases": n_by_category,
                "by_answer_s": runs_by_answer,
                "by_answer_cases": n_by_answer,
                "median_checker_s": median,
                "cases_per_s": count / median if median else None,
                "us_per_case": 1e6 * median / count if count else None,
                "import_s": import_s,
                "wall_s": time.perf_counter() - start,
                "peak_rss_mb_after_import": rss_after_import,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
