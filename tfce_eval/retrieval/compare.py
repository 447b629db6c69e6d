"""The retrieval report as a `Document`: one run, two runs paired, or several side by side.

One run: each measure's mean, its 95 % interval and the number of queries. Two runs over
the same gold: per measure both means, the difference and two two-sided p-values over
the queries both runs were scored on: a paired randomization test (sign flips, 10,000
permutations, seed 0) and a paired t-test (docs/retrieval.md). Two runs that cannot be
paired (scored against different gold, or sharing no measure or no query), and three or
more: the means side by side, with a note saying why there is no paired test or which
runs were scored against which gold. Runs are labelled A, B, C... in the tables and
named in full in a note, so that no name is ever cut to fit 80 columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import UsageError
from tfce_eval.model import TaskKind
from tfce_eval.retrieval.score import ScoredRun
from tfce_eval.words import about_line

if TYPE_CHECKING:  # the report package loads only when a report is made
    from tfce_eval.report.document import Cell, Document

PERMUTATIONS = 10_000
SEED = 0


def _legend(runs: Sequence[ScoredRun]) -> str:
    parts = []
    from tfce_eval.report.document import run_letters

    for label, run in zip(run_letters(len(runs)), runs, strict=True):
        where = f" ({run.path})" if run.path is not None and str(run.path) != run.name else ""
        parts.append(f"{label} = {run.name}{where}")
    return "Runs: " + "; ".join(parts) + "."


def _about(run: ScoredRun) -> str:
    """What the run is: its file (or the dataset's own retrieved_docs) and its digest;
    the dataset, split and corpus it was scored against, with the gold's digest."""
    pairs: list[tuple[str, str]] = []
    ranked, dataset = run.summary.get("run"), run.summary.get("dataset")
    if isinstance(ranked, Mapping) and ranked.get("path"):
        form = ranked.get("form")
        inner = [str(form)] if form and form != "dataset" else []  # its path says it
        if ranked.get("sha256"):
            inner.append(f"sha256 {str(ranked['sha256'])[:12]}")
        pairs.append(("run", str(ranked["path"]) + (f" ({', '.join(inner)})" if inner else "")))
    if isinstance(dataset, Mapping) and (dataset.get("name") or dataset.get("path")):
        where = [str(dataset.get("name") or dataset.get("path"))]
        where += [f"{key} {dataset[key]}" for key in ("split", "corpus") if dataset.get(key)]
        gold = str(dataset.get("gold_sha256") or "")[:12]
        pairs.append(("dataset", ", ".join(where) + (f" (gold sha256 {gold})" if gold else "")))
    return about_line(run.name, pairs)


def _run_json(label: str, run: ScoredRun) -> dict[str, Any]:
    return {
        "label": label,
        "name": run.name,
        "path": None if run.path is None else str(run.path),
        "run": run.summary.get("run"),  # the file scored: path, form, digest
        "dataset": run.summary.get("dataset"),  # the gold: split, corpus, digests
        "queries": run.summary["queries"],
        "coverage": run.summary["coverage"],
        "measures": run.summary["measures"],
        "warnings": list(run.warnings),
    }


def retrieval_document(runs: Sequence[ScoredRun]) -> Document:
    """The report of one, two or more scored runs (every format renders it)."""
    if not runs:
        raise UsageError("no runs to report on")
    if len(runs) == 1:
        return _single(runs[0])
    if len(runs) == 2:
        return _paired(runs[0], runs[1])
    return _side_by_side(runs)


def _interval_note(run: ScoredRun) -> str:
    info = run.summary.get("interval", {})
    resamples = info.get("resamples", 10_000) if isinstance(info, dict) else 10_000
    return (
        f"95 % interval: percentile bootstrap over queries ({resamples:,} resamples, "
        "seed 0). Means are over the queries with at least one relevant document; a "
        "query missing from the run scores 0."
    )


def _single(run: ScoredRun) -> Document:
    from tfce_eval.report.document import Document, Interval, Table

    rows: list[tuple[Cell, ...]] = []
    n = run.summary["queries"]
    for measure in run.measures:
        lo, hi = run.interval(measure)
        rows.append((measure, run.mean(measure), Interval(lo, hi), n))
    cov = run.summary["coverage"]
    table = Table(
        "measures",
        "",
        ("measure", "mean", "95% interval", "queries"),
        tuple(rows),
        note=f"Coverage: {cov['answered']} of {cov['total']} gold queries answered by the run.",
    )
    notes = [_interval_note(run), *(f"Warning: {w}" for w in run.warnings)]
    data = {"task": str(TaskKind.RETRIEVAL), "runs": [_run_json("A", run)]}
    return Document(f"Retrieval: {run.name}", (table,), tuple(notes), data, about=(_about(run),))


def _gold(run: ScoredRun) -> str | None:
    dataset = run.summary.get("dataset")
    gold = dataset.get("gold_sha256") if isinstance(dataset, Mapping) else None
    return gold if isinstance(gold, str) else None


def _unpaired(a: ScoredRun, b: ScoredRun) -> str | None:
    """Why two runs cannot be paired (shown side by side instead), or None. A paired test
    compares two runs on the same judgements; summaries written before the gold's digest
    was recorded are paired on their common queries, with a note."""
    gold_a, gold_b = _gold(a), _gold(b)
    if gold_a and gold_b and gold_a != gold_b:
        return (
            f"the runs were scored against different gold (qrels; sha256 {gold_a[:12]} vs "
            f"{gold_b[:12]}): a paired test needs the same judgements; score both against "
            "the same --data, --split and --qrels to pair them"
        )
    if not any(m in b.measures for m in a.measures):
        return "the runs share no measure; score them with the same --measures to pair them"
    if not {q.qid for q in a.queries} & {q.qid for q in b.queries}:
        return "the runs share no query: they were scored against different gold"
    return None


def _gold_note(runs: Sequence[ScoredRun], labels: Sequence[str]) -> str | None:
    """Which runs were scored against which gold, when not all against the same."""
    groups: dict[str, list[str]] = {}
    for label, run in zip(labels, runs, strict=True):
        gold = _gold(run)
        if gold:
            groups.setdefault(gold, []).append(label)
    if len(groups) < 2:
        return None
    parts = "; ".join(f"{', '.join(group)} {gold[:12]}" for gold, group in groups.items())
    return (
        f"The runs were scored against different gold (qrels; sha256 {parts}): their "
        "means are over different judgements; score them against the same --data, "
        "--split and --qrels to compare them."
    )


def _paired(a: ScoredRun, b: ScoredRun) -> Document:
    from tfce_eval.report.document import Document, Table
    from tfce_eval.stats import paired_randomization_p, paired_t_p

    reason = _unpaired(a, b)
    if reason is not None:
        return _side_by_side([a, b], reason)
    measures = [m for m in a.measures if m in b.measures]
    a_ids = {q.qid for q in a.queries}
    b_ids = {q.qid for q in b.queries}
    common = sorted(a_ids & b_ids)
    rows: list[tuple[Cell, ...]] = []
    json_rows: list[dict[str, Any]] = []
    for measure in measures:
        va, vb = a.values(measure), b.values(measure)
        xa = [va[q] for q in common]
        xb = [vb[q] for q in common]
        mean_a, mean_b = sum(xa) / len(xa), sum(xb) / len(xb)
        p_rand = paired_randomization_p(xa, xb, permutations=PERMUTATIONS, seed=SEED)
        p_t = paired_t_p(xa, xb)
        rows.append((measure, len(common), mean_a, mean_b, mean_b - mean_a, p_rand, p_t))
        json_rows.append(
            {
                "measure": measure,
                "n": len(common),
                "mean_a": mean_a,
                "mean_b": mean_b,
                "p_randomization": p_rand,
                "p_ttest": p_t,
            }
        )
    table = Table(
        "paired",
        "",
        ("measure", "n", "A", "B", "B - A", "p rand.", "p t-test"),
        tuple(rows),
        note=(
            "Two-sided p-values over the queries both runs were scored on: paired "
            f"randomization ({PERMUTATIONS:,} sign flips, seed 0) and paired t-test. "
            "A small p says the difference is unlikely if the runs were equally good."
        ),
    )
    notes = [_legend([a, b])]
    if a_ids != b_ids:
        notes.append(
            f"Paired on the {len(common)} queries both runs scored; A has "
            f"{len(a_ids - b_ids)} others and B {len(b_ids - a_ids)}: check that both "
            "were scored against the same dataset and split."
        )
    only = [m for m in [*a.measures, *b.measures] if m not in measures]
    if only:
        notes.append(f"Not in both runs, so not compared: {', '.join(dict.fromkeys(only))}.")
    for label, run in (("A", a), ("B", b)):
        notes.extend(f"Warning ({label}): {w}" for w in run.warnings)
    data = {
        "task": str(TaskKind.RETRIEVAL),
        "runs": [_run_json("A", a), _run_json("B", b)],
        "paired": {"rows": json_rows},
    }
    about = (_about(a), _about(b))
    return Document(f"Retrieval: {a.name} vs {b.name}", (table,), tuple(notes), data, about=about)


def _side_by_side(runs: Sequence[ScoredRun], unpaired: str | None = None) -> Document:
    """Several runs' means side by side; two runs that cannot be paired, with `unpaired`
    saying why (the note fc and QA reports give two runs on different datasets)."""
    from tfce_eval.report.document import Document, Table, run_letters

    names = run_letters(len(runs))
    measures = list(dict.fromkeys(m for run in runs for m in run.measures))
    rows: list[tuple[Cell, ...]] = []
    json_rows: list[dict[str, Any]] = []
    for measure in measures:
        means = [run.mean(measure) if measure in run.measures else None for run in runs]
        rows.append((measure, *means))
        json_rows.append({"measure": measure, "means": dict(zip(names, means, strict=True))})
    counts: tuple[Cell, ...] = ("queries", *(run.summary["queries"] for run in runs))
    rows.append(counts)
    table = Table(
        "side_by_side",
        "",
        ("measure", *names),
        tuple(rows),
        note="Means over each run's gold queries; '-' where a run lacks the measure.",
    )
    notes = [_legend(runs)]
    gold = f"No paired test: {unpaired}." if unpaired else _gold_note(runs, names)
    if gold:
        notes.append(gold)
    for label, run in zip(names, runs, strict=True):
        notes.extend(f"Warning ({label}): {w}" for w in run.warnings)
    data: dict[str, Any] = {
        "task": str(TaskKind.RETRIEVAL),
        "runs": [_run_json(label, run) for label, run in zip(names, runs, strict=True)],
        "side_by_side": {"rows": json_rows},
    }
    if unpaired is not None:
        data["paired"] = {"rows": [], "reason": unpaired}
        title = f"Retrieval: {runs[0].name} vs {runs[1].name}"
    else:
        title = f"Retrieval: {len(runs)} runs"
    return Document(title, (table,), tuple(notes), data, about=tuple(map(_about, runs)))
