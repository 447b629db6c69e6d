"""Scoring a run against a dataset's gold: per-query values, means, intervals, files.

`score_run` computes every measure for every query with at least one relevant document
(a query missing from the run scores 0), averages over those queries, and attaches a 95 %
interval to each mean: a seeded percentile bootstrap over queries
(`tfce_eval.stats.bootstrap_interval`, seed 0). It then writes scores.jsonl and
summary.json (docs/retrieval.md), each atomically, after every check has passed. `load_scored_run`
reads such a directory back for the reports, checking every field's type.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.model import TaskKind
from tfce_eval.retrieval.dataset import RetrievalDataset
from tfce_eval.retrieval.measures import compute_measures, parse_measures
from tfce_eval.retrieval.ranking import Run
from tfce_eval.retrieval.runs import described, read_run
from tfce_eval.scoring.rundir import write_scored
from tfce_eval.words import counted, listed

#: Resamples of the bootstrap up to this many queries; above it, fewer (see resamples_for).
FULL_RESAMPLES = 10_000
#: Resampled values drawn per measure for large query sets, and the floor of resamples.
DRAWS = 20_000_000
MIN_RESAMPLES = 2_000
SEED = 0


@dataclass(frozen=True, slots=True)
class QueryScore:
    """One line of scores.jsonl: a gold query's values."""

    qid: str
    measures: Mapping[str, float]
    n_relevant: int
    n_retrieved: int

    def to_json(self) -> dict[str, Any]:
        return {
            "qid": self.qid,
            "measures": dict(self.measures),
            "n_relevant": self.n_relevant,
            "n_retrieved": self.n_retrieved,
        }


@dataclass(frozen=True, slots=True)
class ScoredRun:
    """A scored run: its summary and per-query values, as written or read back."""

    name: str
    path: Path | None
    summary: Mapping[str, Any]
    queries: tuple[QueryScore, ...]

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.summary["measures"])

    def values(self, measure: str) -> dict[str, float]:
        """{qid: value} of one measure."""
        return {q.qid: q.measures[measure] for q in self.queries}

    def mean(self, measure: str) -> float:
        return float(self.summary["measures"][measure]["mean"])

    def interval(self, measure: str) -> tuple[float, float]:
        lo, hi = self.summary["measures"][measure]["ci95"]
        return (float(lo), float(hi))

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self.summary.get("warnings", ()))


RetrievalResult = ScoredRun


def resamples_for(n: int) -> int:
    """Bootstrap resamples: 10,000 up to 2,000 queries, then 20 million draws in all.

    The bootstrap's cost grows with resamples x queries; past 2,000 queries the interval
    is narrow and 2,000 or more resamples fix its ends far more finely than its width.
    """
    if n <= DRAWS // FULL_RESAMPLES:
        return FULL_RESAMPLES
    return max(MIN_RESAMPLES, DRAWS // n)


def intervals(columns: Mapping[str, Sequence[float]]) -> dict[str, tuple[float, float]]:
    """95 % bootstrap intervals of each column's mean, the columns in parallel threads."""
    from concurrent.futures import ThreadPoolExecutor

    from tfce_eval.stats import bootstrap_interval

    def one(values: Sequence[float]) -> tuple[float, float]:
        return bootstrap_interval(values, resamples=resamples_for(len(values)), seed=SEED)

    names = list(columns)
    if len(names) <= 1:
        return {name: one(columns[name]) for name in names}
    # numpy releases the GIL while drawing and averaging: threads use every core.
    with ThreadPoolExecutor(max_workers=min(len(names), os.cpu_count() or 1)) as pool:
        found = list(pool.map(one, [columns[name] for name in names]))
    return dict(zip(names, found, strict=True))


def score_run(
    run: Run | str | Path,
    dataset: RetrievalDataset,
    measures: str | Sequence[str] | None = None,
    out_dir: str | Path | None = None,
) -> RetrievalResult:
    """Score a run against the dataset's gold; write scores.jsonl and summary.json.

    Nothing is written when `out_dir` is None, or when anything is wrong with the run.
    """
    parsed = parse_measures(measures, spans=dataset.has_spans)
    if not isinstance(run, Run):
        run = read_run(run)
    gold = dataset.gold_queries()
    if not gold:
        raise DataError(
            "no query of this split has a relevant document: nothing to score",
            path=dataset.qrels_source,
            hint="judge at least one document relevant (score 1 or more) per query",
        )
    warnings = list(run.warnings)
    unknown = [q for q in run.rankings if q not in dataset.queries]
    answered = [q for q in gold if run.rankings.get(q)]
    # An empty run `retrieve` wrote (read_run's note says so) scores 0; any other run
    # that answers no gold query was made for another dataset or split.
    if not answered and run.entries:
        shown = listed(sorted(run.rankings))
        raise DataError(
            f"none of the run's {len(run.rankings)} queries is in the gold of split "
            f"{dataset.split!r} ({shown})",
            path=run.path,
            hint="score the run against the dataset and split it was made for (--split)",
        )
    if unknown:
        warnings.append(
            f"{counted(len(unknown), 'query', 'queries')} of the run not in the gold, "
            f"ignored ({listed(unknown)})"
        )
    scored = set(gold)
    unjudged = [q for q in dataset.queries if q not in scored]
    if unjudged:
        warnings.append(
            f"{counted(len(unjudged), 'query', 'queries')} of the split with no relevant "
            "document, not scored"
        )
    missing = len(gold) - len(answered)
    if missing:
        warnings.append(
            f"{counted(missing, 'query', 'queries')} of the gold missing from the run, "
            "scored 0 (trec_eval -c)"
        )
    values = compute_measures(
        parsed,
        dataset.qrels,
        run.rankings,
        gold,
        fragments=dataset.fragments,
        chunk_spans=dataset.chunk_spans,
    )
    records = tuple(
        QueryScore(
            q,
            {m.name: values[m.name][q] for m in parsed},
            sum(1 for r in dataset.qrels[q].values() if r > 0),
            len(run.rankings.get(q, ())),
        )
        for q in gold
    )
    columns = {m.name: [values[m.name][q] for q in gold] for m in parsed}
    cis = intervals(columns)
    summary: dict[str, Any] = {
        "task": str(TaskKind.RETRIEVAL),
        "measures": {
            name: {"mean": sum(col) / len(col), "ci95": list(cis[name])}
            for name, col in columns.items()
        },
        "queries": len(gold),
        "coverage": {"answered": len(answered), "total": len(gold)},
        "warnings": warnings,
        "dataset": {**dataset.describe(), "corpus_sha256": dataset.corpus_sha256()},
        "run": described(run),
        "interval": {
            "method": "percentile bootstrap over queries",
            "level": 0.95,
            "resamples": resamples_for(len(gold)),
            "seed": SEED,
        },
    }
    result = ScoredRun(run.name, Path(out_dir) if out_dir else None, summary, records)
    if out_dir is not None:
        write_scored(Path(out_dir), (q.to_json() for q in records), summary)
    return result
