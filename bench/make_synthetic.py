"""Build a synthetic TFCE-format dataset, model outputs for it, and the same cases in BFCL's form.

The dataset has TFCE's size and category mix (917 items: 300 simple, 88 multiple, 166
parallel, 363 parallel_multiple) or any other size in the same proportions, with
telecom-flavoured function docs of every parameter type the checkers handle (integer, float,
string, boolean, arrays, dicts, arrays of dicts, enums, defaults, dotted names).

For every item the generator writes one model answer in one of the shapes models produce
(OpenAI `tool_calls` with JSON-string arguments, a run record holding the raw OpenAI message,
Anthropic content blocks, Python call text, a plain calls list). About 70 % of answers are
right (some in forms a careful checker should still accept: an int for a float, a different
case, full-width punctuation, calls in another order, an optional parameter sent with its
default value) and the rest carry realistic mistakes. Each answer is labelled with its
variant, so that disagreements between checkers can be grouped by cause.

Output, in `OUT/n<size>/`:
- `data/questions/<category>.jsonl`, `data/answers/<category>.jsonl` (TFCE ground truth);
- `outputs.jsonl`: one model answer per item;
- `cases.jsonl`: per item the calls the answer holds (null when it cannot be decoded), the
  ground truth in BFCL's form (each parameter lists its acceptable values, `""` meaning it
  may be left out), the docs, the category, the variant and whether the answer is right
  under the project's rules;
- `manifest.json`: seed, counts per category, variant and shape.

The same seed and size always give the same files. Only the standard library is used, so
the script runs in either virtual environment.

The generator is the package bench/synthetic/, next to this script.

Usage: python bench/make_synthetic.py [--sizes 917,100000] [--seed N] [--out DIR] [--force]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchlib import shown, wrap
from synthetic.write import DEFAULT_OUT, DEFAULT_SEED, is_written, write_size


def parse_sizes(text: str) -> list[int]:
    sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    if not sizes or any(s < 4 for s in sizes):
        raise argparse.ArgumentTypeError("sizes are comma-separated integers of at least 4")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=[917, 100_000],
        help="comma-separated item counts (default: 917,100000)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--force", action="store_true", help="rewrite files that exist")
    args = parser.parse_args(argv)
    for size in args.sizes:
        kept = not args.force and is_written(args.out, size, args.seed)
        target = write_size(args.out, size, args.seed, force=args.force)
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        done = "skipped (written before, same seed)" if kept else "written"
        print(f"{size:,} items in {shown(target)}: {done}")
        counts = ", ".join(f"{c} {n:,}" for c, n in manifest["categories"].items())
        print(wrap(f"{manifest['right']:,} right; {counts}", "  "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
