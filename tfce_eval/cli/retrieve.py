"""`tfce-eval retrieve`: rank a retrieval dataset's corpus with the embedded BM25 (bm25s)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from tfce_eval.cli.options import split_options
from tfce_eval.cli.text import fold, fold_command, shown

_STAGES = {"hash": "hashing", "index": "indexing", "search": "searching", "write": "writing"}


class StageProgress:
    """Progress of the stages of a retrieval: a bar on a terminal, a line a stage in a log."""

    def __init__(self) -> None:
        self._tty = sys.stderr.isatty()
        self._bar: Any = None
        self._task: Any = None
        self._stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        label = _STAGES.get(stage, stage)
        if stage != self._stage:
            self._finish_stage()
            self._stage = stage
            if self._tty:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeElapsedColumn,
                )

                self._bar = Progress(
                    TextColumn(f"[bold]{label}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    transient=False,
                )
                self._bar.start()
                self._task = self._bar.add_task(label, total=total)
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)
        elif done >= total:
            click.echo(f"{label}: {done}/{total}", err=True)

    def _finish_stage(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def close(self) -> None:
        self._finish_stage()


@click.command("retrieve")
@click.option(
    "--data",
    required=True,
    metavar="DIR|builtin:NAME",
    help="A retrieval dataset (QASPER-RAG, BEIR or chunk-span layout).",
)
@split_options(
    "The split whose queries are ranked (train/dev/test for QASPER-RAG). "
    "Default: test when there is one, else the only one.",
    "Which corpus of a chunk-span dataset is ranked: documents (default) or documents_coref.",
)
@click.option(
    "--method",
    type=click.Choice(["bm25"]),
    default="bm25",
    show_default=True,
    help="The retriever (BM25 as bm25s computes it).",
)
@click.option(
    "--k",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Documents ranked per query (the run's depth).",
)
@click.option(
    "--candidates",
    is_flag=True,
    help="Rank only each query's candidate pool (top_ranked/, QASPER's paper scope).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where run.trec and run.json go. Default: results/<dataset>-bm25[-candidates].",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where indexes are cached (keyed by the corpus digest). Default: "
    "$XDG_CACHE_HOME/tfce-eval/bm25, else ~/.cache/tfce-eval/bm25.",
)
@click.option("--json", "as_json", is_flag=True, help="Print run.json's content as JSON on stdout.")
def retrieve_command(
    data: str,
    split: str | None,
    corpus: str | None,
    qrels: Path | None,
    method: str,
    k: int,
    candidates: bool,
    out_dir: Path | None,
    cache_dir: Path | None,
    as_json: bool,
) -> None:
    """Rank the corpus for every query of a split and write a TREC run that `score` reads.

    The --out directory must hold no other run (a model run's run.json or
    outputs.jsonl, a run.trec of another's); scores already in it (summary.json,
    scores.jsonl, report.md, report.html) are kept when the new run is the one they
    score, else refused."""
    from tfce_eval.retrieval import default_cache_dir, load_retrieval, retrieve
    from tfce_eval.tasks import TaskKind, resolve_data

    ref = resolve_data(data, TaskKind.RETRIEVAL)
    path = ref.directory
    dataset = load_retrieval(path, split=split, corpus=corpus, qrels=qrels, name=data)
    name = ref.builtin or path.resolve().name
    out = out_dir or Path("results") / f"{name}-{method}{'-candidates' if candidates else ''}"
    progress = StageProgress()
    try:
        result = retrieve(
            dataset,
            method=method,
            k=k,
            candidates=candidates,
            out_dir=out,
            cache_dir=cache_dir or default_cache_dir(),
            progress=progress,
        )
    finally:
        progress.close()
    if result.kept:
        kept = ", ".join(result.kept)
        click.echo(
            fold(shown(f"kept in {out}: {kept}, the scores of this same run"), "note: "), err=True
        )
    if as_json:
        click.echo(json.dumps(result.meta, ensure_ascii=False, indent=2))
        return
    times = result.meta.get("times", {})
    cache = "reused" if result.cache_hit else "built"
    click.echo(
        f"{result.queries} queries ranked (k={k}); index {cache} "
        f"({times.get('index_s', 0):.2f} s), search {times.get('search_s', 0):.2f} s"
    )
    click.echo(fold(f"written: {result.run_path}, {result.meta_path}"))
    # The score of the run is against the same gold: the split, corpus and qrels given.
    chosen = [("--split", split), ("--corpus", corpus), ("--qrels", qrels)]
    given = [part for option, value in chosen if value for part in (option, str(value))]
    args = [str(result.run_path), "--data", str(data), *given]
    click.echo(fold_command("next: tfce-eval score", args))
