"""One in-process `tfce-eval score` of bench_bfcl4.py's cases, timed stage by stage.

Run by `bench_bfcl4.py measure --split` in fresh processes; prints one JSON object, the
seconds of each stage: the imports of the scoring path and of the report package, loading
the dataset, building its items, indexing the outputs, decoding, checking, the rest of
scoring (records, summary, files) and the reports, as the `score` command does them; and
apart, the seconds spent in the cyclic garbage collector, whichever stage it ran in.

Usage: .venv/bin/python bench/bfcl4_split.py bench/out/bfcl4
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def main(out: Path) -> None:
    collecting = [0.0, 0.0]  # seconds in the cyclic garbage collector; when the last began

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[1] = time.perf_counter()
        else:
            collecting[0] += time.perf_counter() - collecting[1]

    gc.callbacks.append(collector)
    t0 = time.perf_counter()
    import tfce_eval.scoring.score as score
    from tfce_eval.dataset.load import Dataset, load_dataset
    from tfce_eval.scoring.options import CheckMode, ScoreOptions

    t1 = time.perf_counter()
    from tfce_eval.report import FailureSource, RunView, write_run_reports

    t2 = time.perf_counter()
    spent = dict.fromkeys(("outputs", "items", "decode", "check"), 0.0)

    def timing(name: str, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start

        return wrapped

    def timed_items(fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            items = fn(*args, **kwargs)
            while True:
                start = time.perf_counter()
                try:
                    item = next(items)
                except StopIteration:
                    return
                finally:
                    spent["items"] += time.perf_counter() - start
                yield item

        return wrapped

    score.decode_output = timing("decode", score.decode_output)  # type: ignore[attr-defined]
    score.check_item = timing("check", score.check_item)  # type: ignore[attr-defined]
    score.index_outputs = timing("outputs", score.index_outputs)  # type: ignore[attr-defined]
    Dataset.iter_items = timed_items(Dataset.iter_items)  # type: ignore[method-assign]
    dataset = load_dataset(out / "data")
    t3 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = score.score_outputs(
            out / "outputs.jsonl", dataset, ScoreOptions(check=CheckMode.AST), Path(tmp)
        )
        t4 = time.perf_counter()
        path = result.run_dir.path
        view = RunView("bfcl4", path, result.summary, result.records, None)
        write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))
        t5 = time.perf_counter()
    own = (t4 - t3) - sum(spent.values())
    stages = {
        "imports (scoring path)": t1 - t0,
        "imports (report package)": t2 - t1,
        "dataset loaded (load_dataset)": t3 - t2,
        "items built (iter_items)": spent["items"],
        "outputs indexed": spent["outputs"],
        "decoding": spent["decode"],
        "checking": spent["check"],
        "scoring's own (records, summary, files)": own,
        "reports (their modules imported, written)": t5 - t4,
    }
    print(json.dumps({"stages": stages, "gc": collecting[0]}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
