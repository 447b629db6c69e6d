"""Retrieval measures: ir-measures names, trec_eval values, plus SpanCov@k.

Measures are named as ir-measures names them (`nDCG@10 RR@10 R@100`) and computed by
ir-measures' pytrec_eval provider, that is by trec_eval's own code, in one call for all
queries. Two need a word:

- `RR@k`: pytrec_eval has reciprocal rank without a cutoff only, so RR@k is taken from it:
  RR = 1/r for the rank r of the first relevant document, and RR@k is that value when
  r <= k, else 0. Since r is an integer, r = round(1/RR) is exact.
- `Judged@k` (the share of the top k that has a judgement at all) is not in trec_eval;
  ir-measures' own `judged` provider computes it.

The run reaches the providers with scores unique in trec_eval's order (`ranking`), so every
backend sees the same order. Queries of the gold missing from the run score 0 on every
measure (trec_eval's -c). `SpanCov@k` is computed here (see `spans`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tfce_eval.errors import INT64_MAX, UsageError
from tfce_eval.retrieval.records import Fragment, Span
from tfce_eval.retrieval.spans import span_coverage

DEFAULT_MEASURES = ("nDCG@10", "RR@10", "R@10", "R@100", "Success@1", "Success@5")

#: The measures of the documentation, then every other one parse_measures accepts: those
#: trec_eval computes (ir-measures' pytrec_eval provider), RR@k and Judged@k.
KNOWN = "nDCG@k, RR@k, R@k, P@k, Success@k, AP, Judged@k"
MORE = (
    "also MAP (= AP), AP@k, nDCG, RR and Judged (the whole ranking), Rprec, Bpref, "
    "infAP, SetP, SetR, SetF, SetAP, IPrec@r"
)
#: trec_eval's counts (num_ret, num_rel, num_q): summed over queries, never averaged.
_COUNTS = frozenset({"NumRet", "NumRel", "NumQ"})
#: How a relevance level other than 1 is asked for.
REL_HINT = "(rel=n) counts judgements >= n as relevant, as RR(rel=2)@10"

_SPANCOV = re.compile(r"SpanCov(?:\(rel=(\d+)\))?@(\d+)")


class Backend(StrEnum):
    PYTREC = "pytrec_eval"  # trec_eval's code through ir-measures
    RR_CUT = "pytrec_eval recip_rank, cut at k"
    JUDGED = "ir-measures judged"
    SPANCOV = "span coverage"


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure asked for: its name as reported, and how it is computed."""

    name: str
    backend: Backend
    measure: Any = None  # the ir-measures measure (for RR@k: RR without the cutoff)
    cutoff: int | None = None
    rel: int = 1


def parse_measures(
    text: str | Sequence[str] | None = None, *, spans: bool = False
) -> tuple[Measure, ...]:
    """Parse measure names, separated by spaces or commas; UsageError naming a bad one.

    `spans` says whether the dataset's gold is given as spans, where SpanCov@k applies.
    A cutoff and a relevance level are integers from 1 to 2**63 - 1 (`_check_params`).
    """
    import ir_measures

    if text is None:
        names: Sequence[str] = DEFAULT_MEASURES
    elif isinstance(text, str):
        names = _split_names(text)
    else:
        names = [n for part in text for n in _split_names(part)]
    if not names:
        raise UsageError(f"no measures given; name some of {_known(spans)}")
    pytrec = ir_measures.providers.registry["pytrec_eval"]
    out: dict[str, Measure] = {}
    for name in names:
        match = _SPANCOV.fullmatch(name)
        if match:
            if not spans:
                raise UsageError(
                    f"{name} needs gold given as spans (the chunk-span layout, as "
                    "ConditionalQA); this dataset's gold is per document"
                )
            rel, cutoff = int(match.group(1) or 1), int(match.group(2))
            _check_params(name, "SpanCov", {"cutoff": cutoff, "rel": rel})
            out[name] = Measure(name, Backend.SPANCOV, None, cutoff, rel)
            continue
        measure = _parse_one(name, spans)
        if measure.NAME in _COUNTS:
            raise UsageError(
                f"measure {name!r} is a count that trec_eval sums over the queries, and "
                "tfce-eval reports means: scores.jsonl has each query's n_relevant and "
                "n_retrieved, summary.json the number of queries"
            )
        params = dict(measure.params)
        canonical = str(measure)
        if measure.NAME == "RR" and params.get("cutoff") is not None:
            cutoff = int(params.pop("cutoff"))
            base = ir_measures.measures.RR(**params) if params else ir_measures.measures.RR
            out[canonical] = Measure(
                canonical, Backend.RR_CUT, base, cutoff, int(params.get("rel", 1))
            )
        elif pytrec.supports(measure):
            out[canonical] = Measure(canonical, Backend.PYTREC, measure, params.get("cutoff"))
        elif measure.NAME == "Judged":
            out[canonical] = Measure(canonical, Backend.JUDGED, measure, params.get("cutoff"))
        else:
            raise UsageError(f"measure {name!r} is not computed by trec_eval; use {_known(spans)}")
    return tuple(out.values())


def _split_names(text: str) -> list[str]:
    """Measure names separated by spaces or commas, outside brackets: the comma of
    `P(rel=2,judged_only=True)@10` belongs to the name."""
    names: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and (char == "," or char.isspace()):
            if current:
                names.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        names.append("".join(current))
    return names


def _known(spans: bool) -> str:
    """The measures accepted, for a message: SpanCov@k only where the gold is spans."""
    return f"{KNOWN}{', SpanCov@k' if spans else ''}; {MORE}; {REL_HINT}"


def _parse_one(name: str, spans: bool) -> Any:
    """One ir-measures measure whose parameters are valid; UsageError naming it otherwise."""
    measure = _ir_measure(name)
    if measure is None:
        head = _ir_measure(name.rpartition("@")[0])
        if head is not None and "cutoff" in head.SUPPORTED_PARAMS:  # nDCG@-1, nDCG@x
            _check_params(name, head.NAME, {"cutoff": None})
        raise UsageError(f"unknown measure {name!r}; known: {_known(spans)}")
    params = measure.params
    infos: dict[str, Any] = dict(measure.SUPPORTED_PARAMS)  # ir-measures' ParamInfo
    for key in params:
        if key not in infos:  # ir-measures takes nDCG(rel=2)@10, then fails to show it
            allowed = ", ".join(k for k in infos if k != "cutoff")
            takes = f"its parameters: {allowed}" if allowed else "it takes none"
            raise UsageError(f"measure {name!r}: {measure.NAME} has no parameter {key} ({takes})")
    _check_params(name, measure.NAME, {k: params[k] for k in ("cutoff", "rel") if k in params})
    for key, info in infos.items():
        if key not in params and info.required:
            at = f"@{_EXAMPLE_AT.get(key, 10)}"
            raise UsageError(f"measure {name!r} needs its {key}, as {measure.NAME}{at}")
        if key in params and not info.validate(params[key]):
            value = params[key]
            if type(value) is int and info.validate(float(value)):  # ir-measures' beta=2
                raise UsageError(
                    f"measure {name!r}: {key} is a decimal number; write {key}={float(value)}"
                )
            raise UsageError(
                f"measure {name!r}: {key}={params[key]!r} is not a valid parameter of "
                f"{measure.NAME}; known: {_known(spans)}"
            )
    return measure


#: An example value of a required parameter other than the cutoff (IPrec's recall level).
_EXAMPLE_AT = {"recall": 0.5}


def _ir_measure(name: str) -> Any:
    """ir-measures' measure of that name, or None when it cannot read the name."""
    import ir_measures

    if not name:
        return None
    try:
        return ir_measures.parse_measure(name)
    except Exception:  # ir-measures raises NameError, ValueError, SyntaxError, KeyError...
        return None


def _check_params(name: str, base: str, params: Mapping[str, object]) -> None:
    """A cutoff k and a relevance level rel are integers from 1 to 2**63 - 1; UsageError
    otherwise.

    trec_eval aborts the interpreter on a cutoff of 0, pytrec_eval refuses rel=0, and
    ir-measures takes a cutoff of True or 3.0 and fails later.
    """
    for key, value in params.items():
        low = type(value) is not int or value < 1
        # Past 64 bits trec_eval's C code wraps a cutoff to 0 and pytrec_eval fails on a
        # relevance level: a wrong figure, or a harness error.
        if low or value > INT64_MAX:  # type: ignore[operator]
            if key == "cutoff":
                what, example = "the cutoff k", f"{base}@10"
            else:
                what, example = "the relevance level rel", f"{base}(rel=2)@10"
            must = "an integer >= 1" if low else f"at most {INT64_MAX}"
            raise UsageError(f"measure {name!r}: {what} must be {must}, as {example}")


def compute_measures(
    measures: Sequence[Measure],
    qrels: Mapping[str, Mapping[str, int]],
    rankings: Mapping[str, Mapping[str, int]],
    queries: Sequence[str],
    *,
    fragments: Mapping[str, Sequence[Fragment]] | None = None,
    chunk_spans: Mapping[str, Span] | None = None,
) -> dict[str, dict[str, float]]:
    """Per-query values {measure: {qid: value}} for `queries` (those with gold).

    `rankings` are a Run's: {qid: {docid: score}}, documents in rank order with scores
    unique in it. A query absent from the run scores 0 on every measure.
    """
    import ir_measures

    registry = ir_measures.providers.registry
    gold = {q: dict(qrels.get(q, {})) for q in queries}
    # A Run's rankings carry scores unique in trec_eval's order: no backend can break a
    # tie its own way.
    run = {q: rankings[q] for q in queries if rankings.get(q)}
    values: dict[str, dict[str, float]] = {m.name: dict.fromkeys(queries, 0.0) for m in measures}

    trec: dict[Any, list[Measure]] = {}
    for m in measures:
        if m.backend in (Backend.PYTREC, Backend.RR_CUT):
            trec.setdefault(m.measure, []).append(m)
    if trec and run:
        evaluator = registry["pytrec_eval"].evaluator(list(trec), gold)
        # By identity: ir-measures hashes a measure through its repr, slow per value.
        wanted = {id(measure): ours for measure, ours in trec.items()}
        for qid, measure, value in pytrec_values(evaluator, run):
            for m in wanted[id(measure)]:
                values[m.name][qid] = _value(m, value)

    judged = [m for m in measures if m.backend is Backend.JUDGED]
    if judged and run:
        by_measure = {m.measure: m for m in judged}
        evaluator = registry["judged"].evaluator(list(by_measure), gold)
        for metric in evaluator.iter_calc(run):
            if metric.query_id in run:
                values[by_measure[metric.measure].name][metric.query_id] = float(metric.value)

    for m in measures:
        if m.backend is Backend.SPANCOV:
            frags = fragments or {}
            spans = chunk_spans or {}
            k = m.cutoff or 0
            column = values[m.name]
            for q in queries:
                column[q] = span_coverage(frags.get(q, ()), rankings.get(q, ()), spans, k, m.rel)
    return values


def pytrec_values(evaluator: Any, run: Mapping[str, Any]) -> Iterator[tuple[str, Any, float]]:
    """(qid, measure, value) from ir-measures' pytrec_eval evaluator, for the run's queries.

    ir-measures builds the trec_eval measure names and one pytrec_eval evaluator per
    relevance level; asking those evaluators directly skips the per-value objects of
    `iter_calc`, which cost more than trec_eval itself on large runs. An ir-measures
    without them gets the documented `iter_calc`.
    """
    invokers = getattr(evaluator, "invokers", None)
    if invokers and all(hasattr(i, "evaluator") and hasattr(i, "measure_map") for i in invokers):
        for invoker in invokers:
            for qid, row in invoker.evaluator.evaluate(run).items():
                for measure_str, value in row.items():
                    entry = invoker.measure_map.get(measure_str)
                    if entry is not None:
                        yield qid, entry[0], float(value)
        return
    for metric in evaluator.iter_calc(run):
        if metric.query_id in run:  # others get ir-measures' default: 0 already
            yield metric.query_id, metric.measure, float(metric.value)


def _value(m: Measure, value: float) -> float:
    if m.backend is not Backend.RR_CUT:
        return value
    if value <= 0.0:
        return 0.0
    first_relevant = round(1.0 / value)
    return value if first_relevant <= (m.cutoff or 0) else 0.0
