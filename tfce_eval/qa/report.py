"""Reports of scored QA runs as a `Document` (the five formats come from report.document).

- One run: accuracy per answer type with its 95 % Wilson interval and parse and request
  errors; open answers (the judge's mean, ungraded apart, exact match and token F1 labelled
  lexical; QASPER's Answer-F1 and Evidence-F1); the same by difficulty and 3GPP series; the
  canonical hit rate at k.
- Two runs (say closed-book A and RAG B): the RAG lift per answer type, with the exact
  McNemar p-value on the items only one run got right (mc, tf) and a paired randomization
  p-value for open scores; `--format json` holds fc's `"paired"` shape.
- Three or more: side by side, labelled A, B, C, ... with a legend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfce_eval.errors import UsageError
from tfce_eval.qa.paired import paired_data
from tfce_eval.qa.runs import QaRun
from tfce_eval.report.document import (
    Cell,
    Document,
    Interval,
    Table,
    run_letters,
)
from tfce_eval.words import about_line, counted, model_shown

_CLOSED = ("type", "n", "correct", "accuracy", "95% interval", "parse err", "req err")


def _interval(ci: Any) -> Interval | None:
    """The interval of a summary's `ci95`; None (shown as `-`, blank in CSV) when there is
    none."""
    if (
        isinstance(ci, list | tuple)
        and len(ci) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in ci)
    ):
        return Interval(float(ci[0]), float(ci[1]))
    return None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _closed_row(label: str, block: Mapping[str, Any]) -> tuple[Cell, ...]:
    return (
        label,
        block.get("total"),
        block.get("correct"),
        _num(block.get("accuracy")),
        _interval(block.get("ci95")),
        block.get("parse_errors"),
        block.get("request_errors"),
    )


def _judged(summary: Mapping[str, Any]) -> bool:
    return isinstance(summary.get("judge"), dict)


def _single_tables(run: QaRun) -> list[Table]:
    s = run.summary
    types = s.get("answer_types", {})
    rows = [_closed_row(k, types[k]) for k in ("mc", "tf") if k in types]
    if isinstance(s.get("overall"), dict) and len(rows) > 1:
        rows.append(_closed_row("mc+tf", s["overall"]))
    tables = []
    if rows:
        tables.append(
            Table(
                "types",
                "Multiple choice and true/false",
                _CLOSED,
                tuple(rows),
                "Parse and request errors count as wrong.",
                digits=3,
            )
        )
    if "open" in types:
        op = types["open"]
        tables.append(
            Table(
                "open",
                "Open answers",
                ("n", "judge mean", "graded", "ungraded", "EM lexical", "F1 lexical"),
                (
                    (
                        op.get("total"),
                        _num(op.get("mean")),
                        op.get("graded"),
                        op.get("ungraded"),
                        _num(op.get("exact_match")),
                        _num(op.get("token_f1")),
                    ),
                ),
                "EM and F1: lexical, after SQuAD normalisation; they measure wording, not "
                "meaning." + ("" if op.get("judge") else " No judge graded these answers."),
                digits=3,
            )
        )
    qasper = s.get("qasper")
    if isinstance(qasper, dict):
        tables.append(
            Table(
                "qasper",
                "QASPER (official evaluator)",
                ("questions", "Answer-F1", "Evidence-F1"),
                (
                    (
                        qasper.get("questions"),
                        _num(qasper.get("answer_f1")),
                        _num(qasper.get("evidence_f1")),
                    ),
                ),
                digits=3,
            )
        )
    open_label = "open mean" if _judged(s) else "open F1 lex"
    for field in ("difficulty", "series"):
        groups = s.get("by", {}).get(field, {})
        if not isinstance(groups, dict) or not groups:
            continue
        body = tuple(
            (
                key,
                g.get("total"),
                g.get("correct"),
                _num(g.get("accuracy")),
                _interval(g.get("ci95")) if g.get("total") else None,
                g.get("open_total"),
                _num(g.get("open_mean") if _judged(s) else g.get("open_token_f1")),
            )
            for key, g in groups.items()
            if isinstance(g, dict)
        )
        columns = (field, "n", "correct", "accuracy", "95% interval", "open", open_label)
        note = "n, correct, accuracy: mc and tf items; open: open items."
        tables.append(Table(field, f"By {field}", columns, body, note, digits=3))
    hit = s.get("canonical_hit")
    if isinstance(hit, dict):
        body_rows: list[tuple[Cell, ...]] = [
            (
                "canonical",
                hit.get("k"),
                hit.get("questions"),
                hit.get("hits"),
                _num(hit.get("rate")),
                _interval(hit.get("ci95")),
            )
        ]
        chunk = hit.get("chunk_hit")
        if isinstance(chunk, dict):
            body_rows.append(
                (
                    "chunk",
                    hit.get("k"),
                    chunk.get("questions"),
                    chunk.get("hits"),
                    _num(chunk.get("rate")),
                    None,  # no interval: shown as "-", and the column stays figures
                )
            )
        tables.append(
            Table(
                "canonical_hit",
                "Retrieval: hit rate at k",
                ("hit", "k", "questions", "hits", "rate", "95% interval"),
                tuple(body_rows),
                "canonical: a top-k chunk comes from the question's canonical spec "
                "(spec numbers normalised); chunk: the gold chunk itself.",
                digits=3,
            )
        )
    return tables


def _run_notes(run: QaRun, label: str = "") -> list[str]:
    s = run.summary
    prefix = f"{label}: " if label else ""
    notes = []
    judge = s.get("judge")
    if isinstance(judge, dict):
        digest = str(judge.get("prompt_sha256") or "")[:12]
        notes.append(f"{prefix}judge {judge.get('model')}, prompt sha256 {digest}")
    warnings = s.get("warnings") or []
    missing = s.get("missing")
    # The score's own warning names the items (and says it) when there is one.
    told = any(isinstance(w, str) and w.startswith(f"{missing} item") for w in warnings)
    if missing and not told:
        had = counted(missing, "item") if isinstance(missing, int) else f"{missing} items"
        notes.append(f"{prefix}{had} had no output ({s.get('missing_policy')}).")
    notes.extend(f"{prefix}{w}" for w in warnings[:5] if isinstance(w, str))
    return notes


def _about(run: QaRun) -> str:
    """What the run is: its model and how it was asked (context and its depth), or the
    predictions file scored; the dataset by its digest; when it started."""
    s = run.summary
    made: Mapping[str, Any] = s["run"] if isinstance(s.get("run"), dict) else {}
    pairs: list[tuple[str, str]] = []
    model, provider = made.get("model") or run.model, made.get("provider")
    if model:
        pairs.append(("model", model_shown(provider, model)))
    if made.get("mode"):
        pairs.append(("mode", str(made["mode"])))
    context, k = made.get("context"), made.get("k")
    if context:
        deep = context in ("bm25", "run") and isinstance(k, int) and not isinstance(k, bool)
        source = f" {made['run_file']}" if made.get("run_file") else ""
        pairs.append(("context", f"{context}{source}" + (f", top {k}" if deep else "")))
    predictions = s.get("predictions")
    if not made and isinstance(predictions, dict) and predictions.get("path"):
        pairs.append(("predictions", str(predictions["path"])))
    dataset = s.get("dataset")
    if isinstance(dataset, dict) and dataset.get("path"):
        sha = str(dataset.get("sha256") or "")[:12]
        pairs.append(("dataset", f"{dataset['path']}" + (f" (sha256 {sha})" if sha else "")))
    if run.started:
        pairs.append(("started", run.started))
    return about_line(run.name, pairs)


def _single(run: QaRun) -> Document:
    data = {"runs": [_run_data("A", run)]}
    return Document(
        f"QA report: {run.name}",
        tuple(_single_tables(run)),
        tuple(_run_notes(run)),
        data,
        about=(_about(run),),
    )


def _run_data(label: str, run: QaRun) -> dict[str, Any]:
    return {
        "label": label,
        "name": run.name,
        "path": str(run.path),
        "model": run.model,
        "summary": run.summary,
    }


def _metric(summary: Mapping[str, Any], kind: str, field: str) -> float | None:
    if kind == "overall":
        block = summary.get("overall")
    elif kind == "canonical":
        block = summary.get("canonical_hit")
    else:
        block = summary.get("answer_types", {}).get(kind)
    return _num(block.get(field)) if isinstance(block, dict) else None


#: The rows of the runs side by side: (label, block, field); an `n` row is the block's
#: items, so that runs on different numbers of items are told apart.
_SIDE_ROWS = (
    ("mc n", "mc", "total"),
    ("mc accuracy", "mc", "accuracy"),
    ("mc parse errors", "mc", "parse_errors"),
    ("tf n", "tf", "total"),
    ("tf accuracy", "tf", "accuracy"),
    ("tf parse errors", "tf", "parse_errors"),
    ("mc+tf n", "overall", "total"),
    ("mc+tf accuracy", "overall", "accuracy"),
    ("open n", "open", "total"),
    ("open judge mean", "open", "mean"),
    ("open EM (lexical)", "open", "exact_match"),
    ("open F1 (lexical)", "open", "token_f1"),
    ("canonical hit@k", "canonical", "rate"),
)


def _side_by_side(runs: Sequence[QaRun], labels: Sequence[str]) -> Table:
    rows = []
    for name, kind, field in _SIDE_ROWS:
        values = [_metric(r.summary, kind, field) for r in runs]
        if all(v is None for v in values):
            continue
        whole = "errors" in name or name.endswith(" n")
        cells: list[Cell] = [int(v) if v is not None and whole else v for v in values]
        rows.append((name, *cells))
    return Table("runs", "Runs side by side", ("measure", *labels), tuple(rows), digits=3)


def _legend(runs: Sequence[QaRun], labels: Sequence[str]) -> list[str]:
    # The directory only when it says more than the name (`report rc` names it `rc`).
    return [
        f"{lab}: {r.name}"
        + (f" ({r.model})" if r.model else "")
        + (f", {r.path}" if str(r.path) != r.name else "")
        for lab, r in zip(labels, runs, strict=True)
    ]


def _pair(a: QaRun, b: QaRun) -> Document:
    paired = paired_data(a, b)
    lift_rows: list[tuple[Cell, ...]] = []
    for row in [*paired["rows"], *([paired["overall"]] if paired["overall"] else [])]:
        kind = row["category"]
        if row["p_value"] is None:
            continue  # its items differ: unpaired figures do not belong here (its note)
        if kind == "open":
            va, vb = row["mean_a"], row["mean_b"]
        else:  # over the paired items, as the test: right in both, or in one only
            n = row["n"]
            va = (row["both"] + row["only_a"]) / n if n else None
            vb = (row["both"] + row["only_b"]) / n if n else None
        diff = vb - va if va is not None and vb is not None else None
        lift_rows.append((kind, row["n"], va, vb, diff, row["p_value"], row["test"]))
    # Only the types tested: one whose items differ says why in its note, not as zeros.
    closed = tuple(
        (r["category"], r["n"], r["both"], r["only_a"], r["only_b"], r["neither"], r["p_value"])
        for r in paired["rows"]
        if r["test"] == "McNemar exact" and r["p_value"] is not None
    )
    if paired["overall"]:
        o = paired["overall"]
        closed += (
            ("mc+tf", o["n"], o["both"], o["only_a"], o["only_b"], o["neither"], o["p_value"]),
        )
    labels = ["A", "B"]
    notes = _legend((a, b), labels)
    if paired["reason"]:
        notes.append(f"No paired test: {paired['reason']}.")
    notes += [f"{r['category']}: {r['note']}" for r in paired["rows"] if r.get("note")]
    notes += _run_notes(a, "A") + _run_notes(b, "B")
    tables = []
    if lift_rows:  # none when no paired test could be made: the note says why
        tables.append(_lift_table(paired, tuple(lift_rows)))
    if closed:
        tables.append(
            Table(
                "paired",
                "Paired items (mc, tf)",
                ("category", "n", "both", "only A", "only B", "neither", "p"),
                closed,
                "only A / only B: items just one run got right; only they inform the test.",
                digits=4,
            )
        )
    tables.append(_side_by_side((a, b), labels))
    data = {"runs": [_run_data("A", a), _run_data("B", b)], "paired": paired}
    return Document(
        f"QA report: {a.name} (A) vs {b.name} (B)",
        tuple(tables),
        tuple(notes),
        data,
        about=(_about(a), _about(b)),
    )


def _lift_table(paired: Mapping[str, Any], rows: tuple[tuple[Cell, ...], ...]) -> Table:
    """The RAG lift of two runs: per answer type both figures, the difference and p."""
    measure = next((r["measure"] for r in paired["rows"] if r["category"] == "open"), "score")
    return Table(
        "lift",
        "RAG lift: B against A",
        ("type", "n", "A", "B", "B - A", "p", "test"),
        rows,
        f"Over the items both runs answered: mc, tf accuracy; open mean {measure}. p: "
        "two-sided, on the same items.",
        digits=3,
    )


def qa_document(runs: Sequence[QaRun]) -> Document:
    """The report of one QA run, a pair (RAG lift and paired tests), or several side by side."""
    if not runs:
        raise UsageError("no runs to report on")
    if len(runs) == 1:
        return _single(runs[0])
    if len(runs) == 2:
        return _pair(runs[0], runs[1])
    labels = run_letters(len(runs))
    notes = _legend(runs, labels)
    for label, run in zip(labels, runs, strict=True):
        notes += _run_notes(run, label)
    data = {"runs": [_run_data(lab, r) for lab, r in zip(labels, runs, strict=True)]}
    return Document(
        f"QA report: {len(runs)} runs",
        (_side_by_side(runs, labels),),
        tuple(notes),
        data,
        about=tuple(_about(run) for run in runs),
    )
