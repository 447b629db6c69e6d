"""What the figures say: the checkers' agreement, the decoder, the targets."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from .inner import calls_digest
from .result import SizeResult

TARGET_E2E_SIZE = 917
TARGET_E2E_S = 1.0
TARGET_RSS_SIZE = 100_000
TARGET_RSS_MB = 300.0


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
