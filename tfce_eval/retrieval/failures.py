"""The queries a retriever fails, for `report --failures N`: what `trec_eval -q` digs out.

The N queries with the lowest value of the run's first measure (ties by query id, all-digit
ids by number), each with every measure's value for it, read from scores.jsonl (never
recomputed), the number of relevant documents in the gold, the run's top 10 documents each
marked relevant, judged not relevant or unjudged, and the relevant documents the run did not
retrieve at all (up to 10). The query text and the judgements come from the dataset the run
was scored against (or the one given with `--data`); the ranking from the run file the
summary names. Either may be gone or changed by the time a report is made: nothing here
raises because of that, the report says what is missing and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import builtin_dir
from tfce_eval.errors import DataError, first_line, given_dataset_error
from tfce_eval.model import TaskKind
from tfce_eval.report.document import Cell, Document, Table, clip, run_letters
from tfce_eval.retrieval.dataset import RetrievalDataset, load_retrieval
from tfce_eval.retrieval.layouts import detect_layout
from tfce_eval.retrieval.ranking import RunForm
from tfce_eval.retrieval.records import id_key
from tfce_eval.retrieval.runs import dataset_run, read_run
from tfce_eval.retrieval.score import ScoredRun
from tfce_eval.scoring.rundir import scored_file

#: How many of a query's documents are shown: the top of its ranking, and the relevant
#: documents it lacks.
TOP = 10
#: Longest query text shown.
MAX_TEXT = 2000
GIVE_DATA = "give it with `tfce-eval report --data DIR`"


@dataclass(frozen=True)
class Ranked:
    rank: int
    docid: str
    relevance: int | None  # None: unjudged, or the gold is unavailable


@dataclass(frozen=True)
class FailingQuery:
    qid: str
    query: str | None  # None: unavailable
    measures: Mapping[str, float]
    n_relevant: int
    n_retrieved: int
    top: tuple[Ranked, ...] | None  # None: the ranking is unavailable
    not_retrieved: tuple[str, ...] | None  # relevant, not ranked at all; None: no gold
    not_retrieved_count: int


@dataclass(frozen=True)
class RunQueries:
    run: str
    measure: str
    queries: int  # every scored query
    shown: tuple[FailingQuery, ...]
    gold: bool  # whether the judgements were had (else no document is marked)
    note: str | None  # why the query texts, the gold or the ranking are missing


class GoldSource:
    """Where failing queries get their texts and judgements: `--data` or the recorded
    dataset, loaded once per directory and split. A `--data` that cannot be loaded
    raises (the user named it); a recorded one that cannot makes a note instead."""

    def __init__(self, data: Path | None = None) -> None:
        self.data = data
        self._cache: dict[tuple[str, str, str, str], tuple[RetrievalDataset, bool] | str] = {}

    def dataset(self, run: ScoredRun) -> tuple[RetrievalDataset | None, str | None]:
        recorded = run.summary.get("dataset")
        info: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
        path = str(self.data) if self.data is not None else str(info.get("path") or "")
        if not path:
            return None, f"the run recorded no dataset; {GIVE_DATA}"
        split, corpus = str(info.get("split") or ""), str(info.get("corpus") or "")
        if self.data is not None and corpus and _layout(path) != info.get("layout"):
            corpus = ""  # the recorded corpus is another layout's: the given one's default
        qrels = _given_qrels(info, path)
        gold = str(info.get("gold_sha256") or "")
        key = (path, split, corpus, qrels)
        if key not in self._cache:
            self._cache[key] = self._load(path, split, corpus, qrels)
        loaded = self._cache[key]
        if isinstance(loaded, str):
            return None, loaded
        found, from_file = loaded
        if gold and found.gold_sha256() != gold:
            if qrels and not from_file:  # a pipe, or a file since moved or broken
                return found, (
                    f"the run was scored with --qrels {qrels}, which cannot be read "
                    f"again; the marks are {path}'s own judgements and may differ"
                )
            where = f"--qrels {qrels}" if qrels else path
            return found, f"the gold in {where} changed since scoring; the marks may differ"
        return found, None

    def _load(
        self, path: str, split: str, corpus: str, qrels: str
    ) -> tuple[RetrievalDataset, bool] | str:
        """The dataset, with the --qrels file's judgements as they are now when it was
        scored with one that can still be read (True), else its own (False)."""
        try:
            dataset = load_retrieval(path, split=split or None, corpus=corpus or None, name=path)
        except Exception as exc:  # moved, edited, unreadable: the report goes on
            if self.data is not None:
                raise given_dataset_error(path, exc, "retrieval") from exc
            return f"could not load {path}: {first_line(exc)}; {GIVE_DATA}"
        if qrels and Path(qrels).is_file():
            try:
                given = load_retrieval(
                    path, split=split or None, corpus=corpus or None, qrels=qrels, name=path
                )
            except Exception:  # the file no longer reads as qrels: the dataset's own
                return dataset, False
            return given, True
        return dataset, False


def _given_qrels(info: Mapping[str, Any], path: str) -> str:
    """The --qrels file a run was scored with, or "" when it was scored with its dataset's
    own judgements. A summary written before `qrels_given` names those in `qrels` too: a
    built-in's (`builtin:NAME/FILE`), the span gold (`spans in ...`), or the layout's own
    files, which sit in a `qrels/` folder (HF/MTEB and BEIR) under the dataset."""
    qrels = str(info.get("qrels") or "")
    given = info.get("qrels_given")
    if isinstance(given, bool):
        return qrels if given else ""
    first = qrels.split(", ")[0]
    if not first or first.startswith(("builtin:", "spans in ")):
        return ""
    file = Path(first)
    roots = {str(info.get("path") or ""), path} - {""}
    if file.parent.name == "qrels" or any(_inside(file, Path(root)) for root in roots):
        return ""
    return qrels


def _inside(file: Path, root: Path) -> bool:
    try:
        return file.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError, RuntimeError):
        return False


def _layout(path: str) -> str | None:
    """The layout of a dataset given as a directory or `builtin:NAME` (None: unknown)."""
    try:
        root = builtin_dir(path, TaskKind.RETRIEVAL) or Path(path)
    except DataError:
        return None
    found = detect_layout(root)
    return None if found is None else str(found)


def _run_file(run: ScoredRun) -> tuple[Path | None, RunForm | None, str]:
    info = run.summary.get("run")
    recorded: Mapping[str, Any] = info if isinstance(info, Mapping) else {}
    try:
        form = RunForm(str(recorded.get("form")))
    except ValueError:
        return None, None, "the summary names no run file"
    if form is RunForm.DATASET:
        return None, form, ""
    path, why = scored_file(
        str(recorded.get("path") or ""), run.path, str(recorded.get("sha256") or "")
    )
    return path, form, "" if path is not None else f"the run file: {why}"


def rankings(
    run: ScoredRun, dataset: RetrievalDataset | None
) -> tuple[Mapping[str, Mapping[str, int]] | None, str | None]:
    """The run's rankings (documents in rank order) from the file scored, or why not."""
    path, form, problem = _run_file(run)
    try:
        if form is RunForm.DATASET:
            if dataset is None:
                return None, "the ranking (the dataset's retrieved_docs) needs the dataset"
            ranked = dataset_run(dataset)
        elif path is None or form is None:
            return None, f"ranking unavailable: {problem}"
        else:
            ranked = read_run(path, form=form)
    except (DataError, OSError) as exc:
        return None, f"ranking unavailable: {first_line(exc)}"
    entries = run.summary.get("run", {}).get("entries")
    if isinstance(entries, int) and entries != ranked.entries:
        return ranked.rankings, (
            f"the run file has {ranked.entries} entries, {entries} when scored: "
            "the ranking may differ"
        )
    return ranked.rankings, None


def _failing(
    qid: str,
    values: Mapping[str, float],
    counts: tuple[int, int],
    dataset: RetrievalDataset | None,
    ranked: Mapping[str, Mapping[str, int]] | None,
) -> FailingQuery:
    gold = dataset.qrels.get(qid, {}) if dataset is not None else None
    docs = list(ranked.get(qid, {})) if ranked is not None else None
    top = None
    if docs is not None:
        top = tuple(
            Ranked(n, clip(d, MAX_TEXT), None if gold is None else gold.get(d))
            for n, d in enumerate(docs[:TOP], 1)
        )
    missed: list[str] | None = None
    if gold is not None and docs is not None:
        seen = set(docs)
        missed = sorted(
            (d for d, rel in gold.items() if rel > 0 and d not in seen),
            key=lambda d: (-gold[d], id_key(d)),
        )
    text = dataset.queries.get(qid) if dataset is not None else None
    return FailingQuery(
        qid=qid,
        query=None if text is None else clip(text, MAX_TEXT),
        measures=dict(values),
        n_relevant=counts[0],
        n_retrieved=counts[1],
        top=top,
        not_retrieved=None if missed is None else tuple(_graded(d, gold) for d in missed[:TOP]),
        not_retrieved_count=0 if missed is None else len(missed),
    )


def _graded(docid: str, gold: Mapping[str, int] | None) -> str:
    grade = 0 if gold is None else gold.get(docid, 0)
    return clip(docid, MAX_TEXT) + (f" ({grade})" if grade > 1 else "")


def collect_failing_queries(run: ScoredRun, name: str, n: int, source: GoldSource) -> RunQueries:
    """The `n` queries with the lowest value of the run's first measure, ties by id."""
    measure = run.measures[0]
    order = sorted(run.queries, key=lambda q: (q.measures[measure], id_key(q.qid)))[:n]
    notes = []
    dataset: RetrievalDataset | None = None
    ranked = None
    if order:
        dataset, said = source.dataset(run)
        notes += (
            [f"Queries and gold unavailable: {said}" if dataset is None else said] if said else []
        )
        ranked, said = rankings(run, dataset)
        notes += [said] if said else []
    shown = tuple(
        _failing(q.qid, q.measures, (q.n_relevant, q.n_retrieved), dataset, ranked) for q in order
    )
    note = "; ".join(notes) or None
    return RunQueries(name, measure, len(run.queries), shown, dataset is not None, note)


def _mark(doc: Ranked) -> str:
    if doc.relevance is None:
        return "unjudged"
    if doc.relevance <= 0:
        return "not relevant"
    return "relevant" + (f" ({doc.relevance})" if doc.relevance > 1 else "")


def _rows(q: FailingQuery, has_gold: bool) -> list[tuple[Cell, ...]]:
    rows: list[tuple[Cell, ...]] = [
        (q.qid, "query", "(unavailable)" if q.query is None else q.query)
    ]
    rows += [(q.qid, name, value) for name, value in q.measures.items()]  # CSV: in full
    rows.append((q.qid, "relevant", str(q.n_relevant)))
    if q.top is None:
        top = "(unavailable)"
    elif not q.top:
        top = "(the run ranks nothing for this query)"
    else:
        top = "\n".join(
            f"{d.rank}. {d.docid}" + (f"  {_mark(d)}" if has_gold else "") for d in q.top
        )
    rows.append((q.qid, f"top {TOP}", top))
    if q.not_retrieved is not None:
        missed = ", ".join(q.not_retrieved) or "(none)"
        if q.not_retrieved_count > len(q.not_retrieved):
            missed += f" and {q.not_retrieved_count - len(q.not_retrieved)} more"
        rows.append((q.qid, "not retrieved", missed))
    return rows


def _table(found: RunQueries, label: str) -> Table:
    prefix = f"{label}: " if label else ""
    title = f"{prefix}Lowest {found.measure}: {len(found.shown)} of {found.queries} queries"
    rows = [row for q in found.shown for row in _rows(q, found.gold)]
    note = (
        f"Lowest {found.measure} first (values from scores.jsonl), ties by query id. "
        f"top {TOP}: the run's ranking, each document relevant in the gold (its grade "
        "when above 1), judged not relevant, or unjudged; not retrieved: relevant "
        "documents the run does not rank at all."
    )
    if found.note:
        note += f" {found.note[:1].upper()}{found.note[1:]}."  # a sentence of its own
    return Table("failures", title, ("qid", "field", "value"), tuple(rows), note)


def _json(found: RunQueries, label: str) -> dict[str, Any]:
    return {
        "label": label or "A",
        "run": found.run,
        "measure": found.measure,
        "queries": found.queries,
        "gold": found.gold,
        "note": found.note,
        "shown": [asdict(q) for q in found.shown],
    }


def with_failing_queries(
    document: Document, runs: Sequence[ScoredRun], n: int, source: GoldSource
) -> Document:
    """`document` (the runs' report) followed by each run's failing queries, under its
    letter when there are several; `--format json` gets them under `"failures"`."""
    labels = run_letters(len(runs)) if len(runs) > 1 else [""]
    found = [collect_failing_queries(r, r.name, n, source) for r in runs]
    tables = [_table(queries, label) for queries, label in zip(found, labels, strict=True)]
    data = {
        **document.data,
        "failures": [_json(q, lab) for q, lab in zip(found, labels, strict=True)],
    }
    return replace(document, tables=(*document.tables, *tables), data=data)
