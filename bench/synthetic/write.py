"""The files of one size: questions, answers, outputs, cases, manifest."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from .answers import RIGHT_VARIANTS, make_answer
from .items import TFCE_MIX, Built, build_item
from .render import case_record, dumps, render_output, truth_json

GENERATOR_VERSION = 1
DEFAULT_SEED = 20240601
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "out"


def category_counts(size: int) -> dict[str, int]:
    """TFCE's proportions scaled to `size` (largest remainder, so they add up exactly)."""
    total = sum(n for _, n in TFCE_MIX)
    exact = {c: size * n / total for c, n in TFCE_MIX}
    counts = {c: int(v) for c, v in exact.items()}
    left = size - sum(counts.values())
    for c in sorted(exact, key=lambda c: exact[c] - counts[c], reverse=True)[:left]:
        counts[c] += 1
    return counts


def generate(size: int, seed: int) -> Iterator[tuple[Built, dict[str, Any]]]:
    """Items with their rendered answers, category by category, deterministic in `seed`."""
    rng = random.Random(f"{seed}:{size}")
    for category, count in category_counts(size).items():
        for index in range(count):
            built = build_item(rng, category, index)
            make_answer(rng, built)
            yield built, render_output(rng, built)


def dataset_dir(out: Path, size: int) -> Path:
    return out / f"n{size}"


def settings(size: int, seed: int) -> dict[str, int]:
    return {"generator_version": GENERATOR_VERSION, "seed": seed, "size": size}


def is_written(out: Path, size: int, seed: int) -> bool:
    """Whether the files of `size` are all there, written with these settings.

    manifest.json is removed before the other files are written and written (whole,
    through a temporary name) after them: a run interrupted on the way leaves none,
    and the size is written again.
    """
    try:
        text = (dataset_dir(out, size) / "manifest.json").read_text(encoding="utf-8")
        old = json.loads(text)
    except (OSError, ValueError):
        return False
    return isinstance(old, dict) and all(old.get(k) == v for k, v in settings(size, seed).items())


def write_size(out: Path, size: int, seed: int, *, force: bool = False) -> Path:
    """Write the files for one size (kept when already written with the same settings)."""
    target = dataset_dir(out, size)
    manifest_path = target / "manifest.json"
    wanted = settings(size, seed)
    if not force and is_written(out, size, seed):
        return target
    (target / "data" / "questions").mkdir(parents=True, exist_ok=True)
    (target / "data" / "answers").mkdir(parents=True, exist_ok=True)
    manifest_path.unlink(missing_ok=True)
    files: dict[str, tuple[TextIO, TextIO]] = {}
    variants: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    with (
        (target / "outputs.jsonl").open("w", encoding="utf-8") as outputs,
        (target / "cases.jsonl").open("w", encoding="utf-8") as cases,
    ):
        try:
            for built, output in generate(size, seed):
                if built.category not in files:
                    files[built.category] = (
                        (target / "data" / "questions" / f"{built.category}.jsonl").open(
                            "w", encoding="utf-8"
                        ),
                        (target / "data" / "answers" / f"{built.category}.jsonl").open(
                            "w", encoding="utf-8"
                        ),
                    )
                qfh, afh = files[built.category]
                qfh.write(
                    dumps(
                        {
                            "id": built.item_id,
                            "category": built.category,
                            "question": built.question,
                            "function": built.docs,
                        }
                    )
                    + "\n"
                )
                afh.write(dumps({"id": built.item_id, "ground_truth": truth_json(built)}) + "\n")
                outputs.write(dumps(output) + "\n")
                cases.write(dumps(case_record(built)) + "\n")
                variants[built.variant] += 1
                shapes[built.shape] += 1
        finally:
            for qfh, afh in files.values():
                qfh.close()
                afh.close()
    manifest = {
        **wanted,
        "categories": category_counts(size),
        "right": sum(n for v, n in variants.items() if v in RIGHT_VARIANTS),
        "variants": dict(sorted(variants.items())),
        "shapes": dict(sorted(shapes.items())),
    }
    part = manifest_path.with_name("manifest.json.partial")
    part.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    part.replace(manifest_path)
    return target
