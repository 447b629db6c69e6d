"""`run` on a question-answering dataset: the same run, with questions for items.

Loads the split, selects items (`--ids`, `--limit` per answer type), builds each item's
context, prepares (or resumes) the run directory under its lock, asks the items not yet
answered through the shared session, then scores every answer with the QA scorer (the
judge grading open answers when one is named) and completes run.json.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import recorded
from tfce_eval.errors import UsageError
from tfce_eval.model import TaskKind
from tfce_eval.providers import Mode, Provider
from tfce_eval.providers.registry import make_provider
from tfce_eval.qa import (
    AnswerType,
    ErrorType,
    QaDataset,
    QaResult,
    check_judge,
    score_outputs_async,
)
from tfce_eval.qa.scoring import run_to_end
from tfce_eval.retrieval import default_cache_dir, read_run
from tfce_eval.retrieval.ranking import Run
from tfce_eval.run.config import Context, ContextSpec, RunConfig
from tfce_eval.run.driver import Plan, run_identity
from tfce_eval.run.judge import ProviderJudge, judge_for
from tfce_eval.run.qa import (
    QaAsker,
    QaRequest,
    build_requests,
    context_identity,
    default_corpus,
    iter_requests,
    read_outputs,
)
from tfce_eval.scoring.rundir import RunDir
from tfce_eval.tasks.load import load_qa_dataset
from tfce_eval.words import listed

ANSWER_TYPE_ORDER = (AnswerType.MC, AnswerType.TF, AnswerType.OPEN)


def load_qa(config: RunConfig) -> QaDataset:
    if config.data is None:
        raise UsageError("a question-answering run needs --data DIR or builtin:telco-qna")
    return load_qa_dataset(config.data, split=config.split, name=str(config.data))


def select_qa_ids(dataset: QaDataset, config: RunConfig) -> list[str]:
    """Items in id order: --ids, then --limit per answer type."""
    ids = sorted(item.id for item in dataset.items)
    if config.ids:
        known = set(ids)
        unknown = [i for i in config.ids if i not in known]
        if unknown:
            raise UsageError(f"--ids: not in the dataset: {listed(unknown)}")
        wanted = set(config.ids)
        ids = [i for i in ids if i in wanted]
    if config.limit is not None:
        kinds = {item.id: item.answer_type for item in dataset.items}
        taken: dict[AnswerType, int] = {}
        limited = []
        for item_id in ids:
            kind = kinds[item_id]
            if taken.get(kind, 0) < config.limit:
                taken[kind] = taken.get(kind, 0) + 1
                limited.append(item_id)
        ids = limited
    if not ids:
        raise UsageError("no items selected: check --ids and --limit")
    return ids


def _answer_types(dataset: QaDataset, ids: list[str]) -> tuple[str, ...]:
    chosen = set(ids)
    kinds = {item.answer_type for item in dataset.items if item.id in chosen}
    return tuple(str(k) for k in ANSWER_TYPE_ORDER if k in kinds)


def _settings(config: RunConfig, judge: ProviderJudge | None) -> dict[str, Any]:
    return {
        "task": str(TaskKind.QA),
        "split": config.split,
        "corpus": None if config.corpus is None else str(config.corpus),
        "judge": config.judge,
        "judge_base_url": None if judge is None else judge.base_url,
        "concurrency": config.concurrency,
        "timeout_s": config.timeout_s,
        "retry": config.retry.to_json(),
    }


def make_judge(config: RunConfig) -> ProviderJudge | None:
    if not config.judge:
        return None
    check_judge(config.model, config.judge, allow_self_judge=config.allow_self_judge)
    return judge_for(
        config.judge, config.judge_base_url, timeout_s=config.timeout_s, retry=config.retry
    )


def qa_plan(
    config: RunConfig, run_dir: RunDir, write_reports: Callable[[Path], None] | None = None
) -> tuple[Provider, Plan]:
    """The QA run's provider and plan, its directory already locked (see runner.run_eval);
    `write_reports` writes its reports once it is scored."""
    if config.mode not in (Mode.FC, Mode.PROMPT):
        raise UsageError(f"--mode {config.mode}: a QA run is fc or prompt")
    spec = config.context
    dataset = load_qa(config)
    ids = select_qa_ids(dataset, config)
    judge = make_judge(config)  # refused before anything is asked when it is the model
    provider = make_provider(config.model, base_url=config.base_url, timeout_s=config.timeout_s)
    corpus = config.corpus or (default_corpus(config.data) if config.data else None)
    # A run file is read (and its questions matched) before anything is written.
    context_run, unranked = read_context_run(spec, ids)

    def items(todo: list[str]) -> Iterator[QaRequest]:
        run_dir.path.mkdir(parents=True, exist_ok=True)
        requests = build_requests(
            dataset,
            todo,
            spec,
            corpus=corpus,
            work_dir=run_dir.path,
            cache_dir=config.cache_dir or default_cache_dir(),
            run=context_run,
            every=ids,
        )
        return iter_requests(requests, todo)

    # Only the items the run asks (--limit, --ids) are scored: the others were never asked,
    # so they are neither missing answers nor request errors.
    chosen = set(ids)
    asked = dataclasses.replace(dataset, items=tuple(i for i in dataset.items if i.id in chosen))

    async def score_async(meta: Mapping[str, Any]) -> tuple[QaResult, int]:
        outputs, described = read_outputs(run_dir.outputs, ids)
        result = await score_outputs_async(
            outputs,
            asked,
            out_dir=run_dir.path,
            judge=judge,
            judge_name=config.judge,
            k=spec.k,
            extra={
                "run": {
                    "provider": provider.name,
                    "model": provider.model,
                    "mode": str(config.mode),
                    **spec.to_json(),
                },
                "outputs": described,
            },
        )
        errors = sum(1 for r in result.records if r.error_type is ErrorType.REQUEST_ERROR)
        if write_reports is not None:  # still locked: no score comes between
            write_reports(run_dir.path)
        return result, errors

    def score(meta: Mapping[str, Any]) -> tuple[QaResult, int]:
        return run_to_end(score_async(meta))

    notes: tuple[str, ...] = ()
    if spec.kind in (Context.BM25, Context.RUN):
        notes = (f"context: {spec.kind}, top {spec.k} chunks of {corpus}",)
    if unranked:
        notes += (
            f"context: the run file ranks nothing for {len(unranked)} of {len(ids)} "
            f"questions ({listed(unranked)}); they were asked without context",
        )
    plan = Plan(
        ids=ids,
        # The context is part of what the model is asked: a changed one is another run.
        identity=run_identity(
            dataset.sha256,
            provider,
            config,
            ids,
            _answer_types(dataset, ids),
            {**spec.to_json(), **context_identity(spec, corpus)},
        ),
        dataset_path=str(recorded(config.data)),
        settings=_settings(config, judge),
        asker=QaAsker(config.mode, spec.kind),
        items=items,
        score=score,
        score_async=score_async,
        notes=notes,
    )
    return provider, plan


def read_context_run(spec: ContextSpec, ids: list[str]) -> tuple[Run | None, list[str]]:
    """A `run:FILE` context's run, read once with its scores, and the selected questions it
    ranks nothing for; UsageError when it ranks none of them (a run made for other
    questions)."""
    if spec.kind is not Context.RUN:
        return None, []
    assert spec.run_file is not None
    run = read_run(spec.run_file, scores=True)
    rankings = run.rankings
    unranked = [i for i in ids if not rankings.get(i)]
    if len(unranked) == len(ids):
        known = listed(sorted(rankings)) or "none"
        raise UsageError(
            f"--context run:{spec.run_file}: the run ranks none of the {len(ids)} questions "
            f"asked (its query ids: {known}); give a run made for this dataset's question ids"
        )
    return run, unranked


def dump_qa_request(config: RunConfig, item_id: str) -> dict[str, Any]:
    """The exact request a QA run would send for one item (key redacted). Sends nothing."""
    dataset = load_qa(config)
    if item_id not in {item.id for item in dataset.items}:
        raise UsageError(f"--dump-request: no item {item_id!r} in the dataset")
    spec = config.context
    corpus = config.corpus or (default_corpus(config.data) if config.data else None)
    with tempfile.TemporaryDirectory() as work:
        request = build_requests(
            dataset,
            [item_id],
            spec,
            corpus=corpus,
            work_dir=Path(work),
            cache_dir=config.cache_dir or default_cache_dir(),
        )[item_id]
    provider = make_provider(config.model, base_url=config.base_url, timeout_s=config.timeout_s)
    asker = QaAsker(config.mode, spec.kind)
    return {
        "method": "POST",
        "url": provider.request_url(),
        "headers": provider.redacted_headers(),
        "body": asker.request(provider, request, config.request),
    }
