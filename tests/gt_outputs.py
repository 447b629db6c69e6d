"""Turn a dataset's ground truth into a model-outputs file, for end-to-end checks.

Each expected call becomes the call a perfect model would make: the first acceptable value
of each parameter, and nothing for a parameter that may be omitted without a value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfce_eval.dataset import Dataset
from tfce_eval.types import Item


def perfect_calls(item: Item) -> list[dict[str, Any]]:
    out = []
    for exp in item.expected:
        arguments = {name: p.values[0] for name, p in exp.params.items() if p.values}
        out.append({"name": exp.name, "arguments": arguments})
    return out


def write_perfect_outputs(dataset: Dataset, path: Path, *, shape: str = "calls") -> Path:
    """Write one line per item; `shape` is calls, tool_calls (OpenAI) or content (Anthropic)."""
    with path.open("w", encoding="utf-8") as fh:
        for item in dataset.iter_items():
            calls = perfect_calls(item)
            payload: Any
            if shape == "tool_calls":
                payload = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {
                            "name": c["name"],
                            "arguments": json.dumps(c["arguments"], ensure_ascii=False),
                        },
                    }
                    for i, c in enumerate(calls)
                ]
            elif shape == "content":
                payload = [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": c["name"],
                        "input": c["arguments"],
                    }
                    for i, c in enumerate(calls)
                ]
            else:
                payload = calls
            fh.write(json.dumps({"id": item.id, shape: payload}, ensure_ascii=False) + "\n")
    return path
