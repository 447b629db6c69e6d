"""Our checker alone, in a child of its own: `bench_score.py _checker DIR ...`.

Every answer is decoded first (timed apart), then only `check_item` is timed.
Only the standard library is imported here; tfce_eval when the checker runs.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any


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


def answer_labels(target: Path) -> dict[str, str]:
    """The generator's label of every answer ("right answers" or "wrong answers"), by id."""
    labels: dict[str, str] = {}
    with (target / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            labels[case["id"]] = "right answers" if case["right"] else "wrong answers"
    return labels
