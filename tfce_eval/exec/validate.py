"""`validate`'s exec checks: docs against their implementations' signatures, and a dry run of
every ground-truth call (it must return a JSON-like result, not raise or time out).

Functions that are not implemented are skipped: a dataset may implement some of its
functions or none. Each distinct doc is checked once, at the first item that uses it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import DataError
from tfce_eval.exec.executor import Executor
from tfce_eval.exec.judge import expected_variants
from tfce_eval.exec.names import Resolution
from tfce_eval.exec.records import ExecOptions, ExecOutcome
from tfce_eval.model import Call, Finding, FunctionDoc, Item, Level, render_call
from tfce_eval.schema.equality import values_equal

if TYPE_CHECKING:
    from tfce_eval.dataset.load import Dataset

_VARIADIC = ("VAR_POSITIONAL", "VAR_KEYWORD")


def doc_problems(doc: FunctionDoc, signature: ExecOutcome) -> list[tuple[Level, str]]:
    """(level, message) for each way `doc` and the implementation's signature disagree."""
    if not signature.ok or not isinstance(signature.value, Mapping):
        return [(Level.ERROR, f"function {doc.name}: cannot read its signature: {signature.error}")]
    info = signature.value
    params: list[Mapping[str, Any]] = [p for p in info.get("params", []) if isinstance(p, Mapping)]
    where = f"function {doc.name} ({info.get('file', '?')}:{info.get('line', '?')})"
    by_name = {str(p.get("name")): p for p in params}
    takes_any = any(p.get("kind") == "VAR_KEYWORD" for p in params)
    props, required = doc.properties, set(doc.required)
    problems: list[tuple[Level, str]] = []
    for param in params:
        name, kind = str(param.get("name")), param.get("kind")
        if kind == "POSITIONAL_ONLY":
            problems.append(
                (Level.ERROR, f"{where}: parameter {name} is positional-only; calls pass keywords")
            )
        elif kind in _VARIADIC or not param.get("required"):
            continue
        elif name not in props:
            problems.append(
                (Level.ERROR, f"{where}: requires {name}, which the doc does not declare")
            )
        elif name not in required:
            problems.append(
                (
                    Level.ERROR,
                    f"{where}: {name} is optional in the doc but required by the implementation; "
                    "list it in the doc's `required` or give it a default",
                )
            )
    for name, schema in props.items():
        impl = by_name.get(name)
        if impl is None:
            if not takes_any:
                problems.append(
                    (
                        Level.ERROR,
                        f"{where}: the doc declares {name}, which the function does not take",
                    )
                )
            continue
        if (
            isinstance(schema, Mapping)
            and "default" in schema
            and "default" in impl
            and not values_equal(schema["default"], impl["default"])
        ):
            problems.append(
                (
                    Level.WARNING,
                    f"{where}: {name} defaults to {json.dumps(schema['default'])} in the doc "
                    f"but to {json.dumps(impl['default'])} in the implementation",
                )
            )
    return problems


def exec_findings(dataset: Dataset, options: ExecOptions) -> list[Finding]:
    """`validate`'s exec checks: each doc against its implementation, each ground-truth
    call run once (its first acceptable variant)."""
    findings: list[Finding] = []

    def add(
        level: Level,
        message: str,
        item: Item | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        source = item.source if item is not None else None
        findings.append(
            Finding(
                level=level,
                message=message,
                path=source.path if source is not None else path,
                line=source.line if source is not None else None,
                item_id=item.id if item is not None else None,
                hint=hint,
            )
        )

    try:
        with Executor(options) as executor:
            seen_docs: set[str] = set()
            seen_broken: set[str] = set()
            jobs: list[tuple[Item, int, Call]] = []
            for item in dataset.iter_items():
                for doc in item.functions:
                    key = json.dumps([doc.name, doc.raw], sort_keys=True, default=repr)
                    if key in seen_docs:
                        continue
                    seen_docs.add(key)
                    status, why = executor.resolution(doc.name)
                    if status is Resolution.BROKEN and doc.name not in seen_broken:
                        seen_broken.add(doc.name)
                        add(Level.ERROR, f"function {doc.name} cannot be run: {why}", item)
                    if status is not Resolution.OK:
                        continue
                    for level, message in doc_problems(doc, executor.signature(doc.name)):
                        add(level, message, item)
                for j, expected in enumerate(item.expected):
                    if executor.resolution(expected.name)[0] is Resolution.OK:
                        arguments = expected_variants(expected, item.function(expected.name))[0]
                        jobs.append((item, j, Call(expected.name, arguments)))
            outcomes = executor.run([call for _, _, call in jobs])
    except DataError as exc:
        add(Level.ERROR, exc.message, path=exc.path, hint=exc.hint)
        return findings
    for (item, j, call), outcome in zip(jobs, outcomes, strict=True):
        problem = outcome.unusable_as_truth()
        if problem is not None:
            add(
                Level.ERROR,
                f"ground-truth call {j + 1} {render_call(call.name, call.arguments)} {problem}",
                item,
            )
    return findings
