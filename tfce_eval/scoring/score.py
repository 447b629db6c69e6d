"""Score a file of model outputs against a dataset: the core of `score`, and of `run` at its end.

Outputs are indexed by id (byte offsets, not contents) and items are streamed from the
dataset one at a time, so memory stays flat however many items there are. Each answer is
decoded by the shared decoder, checked by the AST checker and, where the item's functions are
implemented, by executing the calls (docs/exec.md 6).

scores.jsonl and summary.json are written to temporary names and renamed into place
together at the end, after the reports they make stale (report.md, report.html) are removed:
a score that fails half-way (a full disk, an interrupt, a bug) leaves the previous files as
they were, and a finished one never sits beside reports of an earlier one. Writing reports
is the caller's business (`tfce_eval.report.write_run_reports`); scoring never imports the
report package.

A failure of tfce-eval itself on one item (an unexpected exception while decoding, checking
or exec-judging it, or an exec worker that died) stops the score with a HarnessError naming
the item: it is never counted as the model's error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tfce_eval.check.item import check_item
from tfce_eval.check.truth import answer_and_truth, truth_as_answer
from tfce_eval.dataset.load import Dataset
from tfce_eval.dataset.paths import recorded
from tfce_eval.decode.answer import decode_output
from tfce_eval.errors import DataError, HarnessError, TfceError
from tfce_eval.model import CATEGORY_ORDER, DecodeResult, ErrorCode, Item, ScoreRecord, Verdict
from tfce_eval.schema.wire import name_map
from tfce_eval.scoring.encoding import dumps_strict
from tfce_eval.scoring.keeper import Keeper
from tfce_eval.scoring.noticed import Noticed
from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions, check_functions_dir
from tfce_eval.scoring.outputs import (
    OutputsIndex,
    index_outputs,
    index_outputs_files,
    is_request_error,
)
from tfce_eval.scoring.rundir import REPORT_HTML, REPORT_MD, SCORES, SUMMARY, RunDir
from tfce_eval.scoring.summary import UsageStats, exec_skipped, summarize
from tfce_eval.scoring.writing import Staging
from tfce_eval.words import counted, listed

if TYPE_CHECKING:
    from tfce_eval.exec.executor import Executor
    from tfce_eval.exec.records import ExecVerdict


@dataclass(frozen=True)
class ScoreResult:
    """What a score produced. `records` is every item in id order; the details of all but the
    first failures of each category are left out of memory (scores.jsonl has them all)."""

    records: tuple[ScoreRecord, ...]
    summary: dict[str, Any]
    warnings: tuple[str, ...]
    run_dir: RunDir | None  # None: scored in memory, nothing written


def _selected_ids(dataset: Dataset, options: ScoreOptions) -> list[str]:
    ids = dataset.ids(options.categories)
    if options.ids is not None:
        ids = [i for i in ids if i in options.ids]
    return ids


def _check_unknown_ids(index: OutputsIndex, dataset: Dataset) -> None:
    for item_id, (_, line) in index.offsets.items():
        if item_id not in dataset:
            raise DataError(
                "this id is not in the dataset",
                path=str(index.path_of(item_id)),
                line=line,
                item_id=item_id,
                hint="score the file against the dataset it was produced from (--data), "
                "or remove the line",
            )


def _open_executor(stack: ExitStack, dataset: Dataset, options: ScoreOptions) -> Executor | None:
    if options.check is CheckMode.AST:
        return None
    # Imported here: an AST-only score never reads exec's records.
    from tfce_eval.exec.records import ExecOptions, default_functions_dir

    check_functions_dir(options.functions_dir, options.check)
    functions_dir = options.functions_dir or default_functions_dir(dataset.root)
    if functions_dir is None or not (functions_dir / "__init__.py").is_file():
        return None
    # Imported lazily: exec checking is optional (a dataset with implementations), and the
    # executor brings the judge and its dependencies that an AST-only score never uses.
    from tfce_eval.exec.executor import Executor

    return stack.enter_context(
        Executor(
            ExecOptions(
                functions_dir=functions_dir,
                timeout_s=options.exec_timeout_s,
                workers=options.exec_workers,
            )
        )
    )


def _combine(
    item: Item,
    ast: Verdict,
    exec_verdict: ExecVerdict | None,
    mode: CheckMode,
    decoded: DecodeResult | None,
) -> ScoreRecord:
    """The record of one item; `decoded` is the answer checked, None when there was none
    (no output, a request error); a failing record shows its expected and received calls."""
    details = dict(ast.details)
    if decoded is not None and not ast.valid:
        details = {**answer_and_truth(item, decoded), **details}
    exec_valid = None if exec_verdict is None else exec_verdict.valid
    if exec_verdict is not None and exec_verdict.skipped is not None:
        # Not judged (a ground-truth call fails): the item keeps its AST verdict.
        skipped = {"valid": None, "skipped": exec_verdict.skipped}
        details["exec"] = {**skipped, **dict(exec_verdict.details)}
    if exec_verdict is not None and exec_verdict.valid is not None:
        details["exec"] = {
            "valid": exec_verdict.valid,
            "error_type": None if exec_verdict.error_type is None else str(exec_verdict.error_type),
            "error": exec_verdict.error,
            **dict(exec_verdict.details),
        }
    valid, error_type, error = ast.valid, ast.error_type, ast.error
    if exec_verdict is not None and exec_verdict.valid is not None:
        if mode is CheckMode.EXEC:
            valid, error_type, error = (
                exec_verdict.valid,
                exec_verdict.error_type,
                exec_verdict.error,
            )
        elif ast.valid and not exec_verdict.valid:
            valid, error_type, error = False, exec_verdict.error_type, exec_verdict.error
    return ScoreRecord(item.id, item.category, valid, error_type, error, exec_valid, details)


def _exec_check(
    executor: Executor | None, item: Item, decoded: DecodeResult, ast: Verdict
) -> ExecVerdict | None:
    if executor is None or not item.expected:
        return None
    if not all(executor.implemented(e.name) for e in item.expected):
        return None
    if ast.error_type in (ErrorCode.PARSE_ERROR, ErrorCode.NO_CALL, ErrorCode.REQUEST_ERROR):
        if ast.error_type is ErrorCode.REQUEST_ERROR:
            return None
        from tfce_eval.exec.records import ExecVerdict  # loaded with the executor

        # Nothing to run, but an item whose ground truth fails is not judged, whatever
        # the answer: which items the exec figures cover never depends on the model.
        skipped = executor.ground_truth_failure(item)
        if skipped is not None:
            return ExecVerdict(None, skipped=skipped)
        return ExecVerdict(False, ast.error_type, ast.error, {})
    matching = None
    if ast.valid:
        matching = [(int(c), int(e)) for c, e in ast.details.get("matching", [])]
    return executor.check_item(item, decoded.calls or (), matching)


class RowSink(Protocol):
    """Where score records go as they are made: scores.jsonl, or nowhere."""

    def write(self, row: Mapping[str, Any]) -> None: ...


class _Discard:
    def write(self, row: Mapping[str, Any]) -> None:
        pass


#: Failing records per category and kind (model error, request error) whose details stay in
#: memory for the reports' failure lists; every record's details are in scores.jsonl.
KEEP_DETAILS = 50


def _score_one(
    item: Item,
    index: OutputsIndex,
    read: Callable[[str], dict[str, Any]],
    options: ScoreOptions,
    executor: Executor | None,
    usage: UsageStats,
    renames: Renames,
    noticed: Noticed,
) -> ScoreRecord:
    checked = None
    if item.id not in index.offsets:
        ast = Verdict(False, ErrorCode.NO_CALL, "no output for this item", {"missing": True})
        decoded = DecodeResult(calls=())
    else:
        record = read(item.id)
        usage.add(*_usage_of(record))
        if is_request_error(record):
            ast = Verdict(False, ErrorCode.REQUEST_ERROR, str(record["error"]), {})
            decoded = DecodeResult(calls=None, error=str(record["error"]))
        else:
            decoded = decode_output(record, name_map=renames.of(item), item_id=item.id)
            decoded = noticed.unless_cut(item.id, record, decoded)
            ast = check_item(item, decoded, options.policy)
            checked = decoded
            # A wrong answer to an item that even its ground truth fails is a dataset
            # problem worth saying (right answers prove the item can be answered).
            truth = truth_as_answer(item) if not ast.valid and item.expected else None
            if truth is not None and not check_item(item, truth, options.policy).valid:
                noticed.unwinnable.append(item.id)
    exec_verdict = _exec_check(executor, item, decoded, ast)
    return _combine(item, ast, exec_verdict, options.check, checked)


def _usage_of(record: Mapping[str, Any]) -> tuple[Any, Any]:
    """An outputs line's token counts and latency: a run's `usage` and `latency_s`, or the
    `input_token_count`, `output_token_count` and `latency` of a BFCL result file."""
    usage = record.get("usage")
    if usage is None and ("input_token_count" in record or "output_token_count" in record):
        usage = {
            "input_tokens": record.get("input_token_count"),
            "output_tokens": record.get("output_token_count"),
        }
    latency = record.get("latency_s")
    return usage, latency if latency is not None else record.get("latency")


class Renames:
    """Wire-name maps by the item's function names, for one score.

    They depend on nothing else, and the items of a dataset share few sets of functions.
    """

    def __init__(self) -> None:
        self._maps: dict[tuple[str, ...], dict[str, str]] = {}

    def of(self, item: Item) -> dict[str, str]:
        key = tuple(doc.name for doc in item.functions)
        found = self._maps.get(key)
        if found is None:
            if len(self._maps) >= 10_000:  # bounded, whatever the dataset
                self._maps.clear()
            found = self._maps[key] = name_map(item.functions)
        return found


def _harness_failure(item: Item, exc: Exception) -> HarnessError:
    detail = " ".join(f"{type(exc).__name__}: {exc}".split())
    if len(detail) > 200:
        detail = detail[:199] + "…"
    return HarnessError(
        f"item {item.id}: scoring it failed inside tfce-eval ({detail}); this is a bug in "
        "tfce-eval, not an error of the model: please report it. No file was changed."
    )


def _score_items(
    items: Iterator[Item],
    index: OutputsIndex,
    options: ScoreOptions,
    executor: Executor | None,
    usage: UsageStats,
    out: RowSink,
    keeper: Keeper,
    noticed: Noticed,
) -> None:
    renames = Renames()
    with index.reader() as read:
        for item in items:
            try:
                scored = _score_one(item, index, read, options, executor, usage, renames, noticed)
            except TfceError:
                raise  # bad input (DataError) or a HarnessError that already names the item
            except Exception as exc:  # a bug here must stop the score, never be scored
                raise _harness_failure(item, exc) from exc
            out.write(scored.to_json())
            keeper.add(scored)


def _refuse_overwriting_inputs(outputs: Sequence[Path], dataset: Dataset, run_dir: RunDir) -> None:
    written = {p.resolve(): p.name for p in (run_dir.scores, run_dir.summary, run_dir.report_md)}
    written[run_dir.report_html.resolve()] = run_dir.report_html.name
    for source in (*outputs, *dataset.question_files, *dataset.answer_files):
        name = written.get(source.resolve())
        if name is not None:
            raise DataError(
                f"this input is where the score writes its {name}, so it would be "
                "overwritten: give another output directory (--out)",
                path=str(source),
            )


def score_outputs(
    outputs: str | Path | Sequence[str | Path],
    dataset: Dataset,
    options: ScoreOptions | None = None,
    out_dir: str | Path | None = None,
    *,
    extra_summary: Mapping[str, Any] | None = None,
) -> ScoreResult:
    """Score `outputs` against `dataset`; write scores.jsonl and summary.json into `out_dir`
    (with `out_dir` None, score in memory and write nothing).

    `outputs`: a file, or several files read as one set of answers in the order given
    (BFCL's result files, one per category): an id on lines of two files is as an id on
    two lines of one file (the last counts, with a warning naming both).

    Stale report.md and report.html in `out_dir` are removed: the caller writes new reports
    from the result (`tfce_eval.report.write_run_reports`). Raises DataError for bad input or
    a directory that cannot be written, HarnessError for a failure of tfce-eval itself.
    """
    options = options or ScoreOptions()
    run_dir = None if out_dir is None else RunDir(Path(out_dir))
    paths = (Path(outputs),) if isinstance(outputs, str | Path) else tuple(map(Path, outputs))
    if run_dir is not None:
        _refuse_overwriting_inputs(paths, dataset, run_dir)
    if len(paths) == 1:
        index = index_outputs(paths[0], tolerate_torn_tail=True)
    else:
        index = index_outputs_files(paths, tolerate_torn_tail=True)
    _check_unknown_ids(index, dataset)
    warnings = index.warnings()
    selected = _selected_ids(dataset, options)
    answered_cats = {dataset.category_of(i) for i in selected if i in index.offsets}
    in_scope = [i for i in selected if dataset.category_of(i) in answered_cats]
    missing = [i for i in in_scope if i not in index.offsets]
    if missing and options.missing is MissingMode.SKIP:
        skipped = set(missing)
        in_scope = [i for i in in_scope if i not in skipped]
        warnings.append(
            f"{counted(len(missing), 'item has', 'items have')} no output and "
            f"{'was' if len(missing) == 1 else 'were'} left out by --missing skip: "
            f"{listed(missing)}"
        )
    elif missing:
        one = len(missing) == 1
        warnings.append(
            f"{counted(len(missing), 'item has', 'items have')} no output and "
            f"{'counts' if one else 'count'} as wrong (no_call): {listed(missing)}; "
            f"--missing skip leaves {'it' if one else 'them'} out"
        )
    not_run = sorted(
        {dataset.category_of(i) for i in selected} - answered_cats, key=CATEGORY_ORDER.index
    )
    if not_run:
        warnings.append(
            "no outputs at all for: " + ", ".join(str(c) for c in not_run) + " (shown as N/A)"
        )

    usage = UsageStats()
    keeper = Keeper(KEEP_DETAILS)
    # Items stream in natural id order, so scores.jsonl is written sorted as it goes.
    with ExitStack() as stack:
        executor = _open_executor(stack, dataset, options)
        stage = None if run_dir is None else stack.enter_context(Staging(run_dir.path))
        out: RowSink = _Discard() if stage is None else stage.lines(SCORES)
        noticed = Noticed()
        items = dataset.iter_items(ids=set(in_scope))
        _score_items(items, index, options, executor, usage, out, keeper, noticed)
        records = keeper.records
        extra: dict[str, Any] = dict(options.to_json())
        extra["dataset"] = {"path": recorded(dataset.root), "sha256": dataset.sha256}
        extra["outputs"] = index.describe()
        extra["missing"] = {
            "mode": str(options.missing),
            "count": len(missing),
            "first_ids": missing[:5],
        }
        if extra_summary:
            extra.update(extra_summary)
        cats_in_selection = {dataset.category_of(i) for i in selected}
        summary = summarize(records, dataset_categories=cats_in_selection, usage=usage, extra=extra)
        not_judged = [r.id for r in records if exec_skipped(r)]
        if not_judged:
            warnings.append(
                f"{counted(len(not_judged), 'item was', 'items were')} not exec-checked "
                f"({listed(not_judged)}): a ground-truth call fails "
                "(a dataset problem, not the model's); "
                f"`tfce-eval validate` lists {'it' if len(not_judged) == 1 else 'them'}"
            )
        warnings += noticed.warnings()
        if stage is not None:
            stage.text(SUMMARY, dumps_strict(summary, indent=2) + "\n")
            stage.commit(stale=(REPORT_MD, REPORT_HTML))
    return ScoreResult(tuple(records), summary, tuple(warnings), run_dir)
