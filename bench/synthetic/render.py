"""An answer as an outputs line; the ground truth in TFCE's and BFCL's forms."""

from __future__ import annotations

import json
import random
from typing import Any

from .answers import RIGHT_VARIANTS
from .items import Built
from .schema import wire


def _py(value: Any) -> str:
    """Python literal text for a JSON-like value."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_py(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_py(v) for v in value) + "]"
    return repr(value)


def _py_call(name: str, args: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={_py(v)}" for k, v in args.items()) + ")"


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_output(rng: random.Random, built: Built) -> dict[str, Any]:
    """The answer as one line of an outputs file, in the item's shape."""
    record: dict[str, Any] = {"id": built.item_id}
    calls = built.calls
    if built.variant == "parse_error":
        name, args = built.truth[0]
        text = dumps(args)
        broken = text[: max(2, len(text) - rng.randint(2, 6))]
        if built.shape == "openai":
            record["tool_calls"] = [
                {
                    "id": f"call_{rng.getrandbits(48):012x}",
                    "type": "function",
                    "function": {"name": wire(name), "arguments": broken},
                }
            ]
        else:
            record["text"] = f"[{_py_call(name, args)[:-1]}, ]]"
        return record
    assert calls is not None
    if built.shape in ("openai", "openai_run_record"):
        message: dict[str, Any] = {"role": "assistant", "content": built.prose}
        message["tool_calls"] = [
            {
                "id": f"call_{rng.getrandbits(48):012x}",
                "type": "function",
                "function": {"name": wire(n), "arguments": dumps(a)},
            }
            for n, a in calls
        ]
        if built.shape == "openai":
            record["tool_calls"] = message["tool_calls"]
            if built.prose is not None:
                record["content"] = built.prose
        else:
            record.update(
                {
                    "category": built.category,
                    "raw": message,
                    "calls": None,
                    "error": None,
                    "usage": {
                        "prompt_tokens": rng.randint(300, 1500),
                        "completion_tokens": rng.randint(20, 200),
                    },
                    "latency_s": round(rng.uniform(0.3, 4.0), 3),
                }
            )
    elif built.shape == "anthropic":
        blocks: list[dict[str, Any]] = []
        if built.prose is not None or rng.random() < 0.3:
            blocks.append({"type": "text", "text": built.prose or "好的，我来调用相应的工具。"})
        blocks.extend(
            {
                "type": "tool_use",
                "id": f"toolu_{rng.getrandbits(64):016x}",
                "name": wire(n),
                "input": a,
            }
            for n, a in calls
        )
        record["content"] = blocks
    elif built.shape == "python_text":
        if built.prose is not None:
            record["text"] = built.prose
        else:
            body = "[" + ", ".join(_py_call(n, a) for n, a in calls) + "]"
            record["text"] = f"```python\n{body}\n```" if rng.random() < 0.3 else body
    else:
        record["calls"] = [{"name": n, "arguments": a} for n, a in calls]
    return record


def _bfcl_value(value: Any, schema: dict[str, Any] | None) -> Any:
    """A ground-truth value written as BFCL writes one acceptable value.

    BFCL lists acceptable values per key inside dicts too ({"lat": [31.2]}), and inside each
    dict of an array of dicts.
    """
    if isinstance(value, dict):
        props = (schema or {}).get("properties", {})
        return {k: [_bfcl_value(v, props.get(k))] for k, v in value.items()}
    if isinstance(value, list) and (schema or {}).get("items", {}).get("type") == "dict":
        return [_bfcl_value(v, schema["items"] if schema else None) for v in value]
    return value


def bfcl_possible_answer(built: Built) -> list[dict[str, Any]]:
    """The TFCE ground truth in BFCL's form.

    Each value becomes the one acceptable value; a value equal to the declared default also
    gets `""` (may be left out), as the project's rule 5.2.4 lets it be left out. Optional
    parameters the ground truth does not mention are not listed, so BFCL forbids them.
    """
    out: list[dict[str, Any]] = []
    for name, args in built.truth:
        template = built.templates[name]
        params: dict[str, list[Any]] = {}
        for pname, value in args.items():
            param = template.param(pname)
            acceptable = [_bfcl_value(value, param.schema)]
            if param.has_default and dumps(param.schema["default"]) == dumps(value):
                acceptable.append("")
            params[pname] = acceptable
        out.append({name: params})
    return out


def case_record(built: Built) -> dict[str, Any]:
    return {
        "id": built.item_id,
        "test_category": built.category,
        "variant": built.variant,
        "shape": built.shape,
        "right": built.variant in RIGHT_VARIANTS,
        "func_description": built.docs,
        "model_output": None if built.calls is None else [{n: a} for n, a in built.calls],
        "possible_answer": bfcl_possible_answer(built),
    }


def truth_json(built: Built) -> Any:
    """TFCE ground truth: one object for one call, a list for several."""
    if built.category in ("simple", "multiple"):
        name, args = built.truth[0]
        return {name: args}
    return [{n: a} for n, a in built.truth]
