"""An item of a category: its docs, ground truth and question (`Built`)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from .catalogue import NAMESPACES, TEMPLATES
from .schema import Template, function_doc

#: TFCE's category mix.
TFCE_MIX: tuple[tuple[str, int], ...] = (
    ("simple", 300),
    ("multiple", 88),
    ("parallel", 166),
    ("parallel_multiple", 363),
)
ID_PREFIX = {
    "simple": "base_simple_",
    "multiple": "base_multiple_",
    "parallel": "base_parallel_",
    "parallel_multiple": "base_parallel_multi_",
}

Call = tuple[str, dict[str, Any]]


@dataclass
class Built:
    """One generated item with its answer."""

    item_id: str
    category: str
    docs: list[dict[str, Any]]
    templates: dict[str, Template]  # name -> template
    truth: list[Call]
    question: str
    variant: str = "exact"
    calls: list[Call] | None = None  # what the answer holds; None: it cannot be decoded
    shape: str = "openai"
    broken_text: str | None = None  # for parse_error: the undecodable answer text
    prose: str | None = None  # for no_call: the text answer
    notes: dict[str, Any] = field(default_factory=dict)


def _pick_templates(rng: random.Random, count: int) -> list[tuple[Template, str]]:
    chosen = rng.sample(TEMPLATES, count)
    out: list[tuple[Template, str]] = []
    for template in chosen:
        name = template.name
        if "." not in name and rng.random() < 0.12:
            name = f"{rng.choice(NAMESPACES)}.{name}"
        out.append((template, name))
    return out


def _truth_call(rng: random.Random, template: Template, name: str) -> Call:
    args: dict[str, Any] = {}
    for p in template.params:
        if p.required or rng.random() < 0.45:
            args[p.name] = p.gen(rng)
    return name, args


def question_text(template: Template, args: dict[str, Any]) -> str:
    shown = "，".join(f"{k}为{json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f"{template.question}：{shown}。" if shown else f"{template.question}。"


def build_item(rng: random.Random, category: str, index: int) -> Built:
    """One item of `category` with its ground truth (the answer is made by `make_answer`)."""
    n_docs = 1 if category in ("simple", "parallel") else rng.randint(2, 4)
    picked = _pick_templates(rng, n_docs)
    docs = [function_doc(t, name) for t, name in picked]
    templates = {name: t for t, name in picked}
    if category in ("simple", "parallel"):
        n_calls = 1 if category == "simple" else rng.randint(2, 4)
        template, name = picked[0]
        truth = [_truth_call(rng, template, name) for _ in range(n_calls)]
    elif category == "multiple":
        template, name = rng.choice(picked)
        truth = [_truth_call(rng, template, name)]
    else:
        n_calls = rng.randint(2, 4)
        targets = rng.sample(picked, min(len(picked), n_calls))
        while len(targets) < n_calls:
            targets.append(rng.choice(picked))
        rng.shuffle(targets)
        truth = [_truth_call(rng, t, name) for t, name in targets]
    question = "；".join(question_text(templates[n], a) for n, a in truth)
    item_id = f"{ID_PREFIX[category]}{index}"
    return Built(item_id, category, docs, templates, truth, question)
