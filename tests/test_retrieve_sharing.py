"""retrieve shares its out directory and its index cache safely: the directory is one
command's at a time, and a cache being saved by another process is never touched."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from click.testing import CliRunner

from tfce_eval.cli import main
from tfce_eval.retrieval import load_retrieval
from tfce_eval.retrieval.bm25 import retrieve
from tfce_eval.scoring.lock import LOCK_NAME, RunLock

QASPER = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "qasper-rag"


def test_retrieve_into_a_directory_a_score_holds_stops_before_work(tmp_path: Path) -> None:
    out = tmp_path / "busy"
    args = ["retrieve", "--data", "builtin:qasper-rag", "--out", str(out)]
    args += ["--cache-dir", str(tmp_path / "cache")]
    with RunLock(out, "score"):
        result = CliRunner().invoke(main, args)
        said = " ".join(result.output.split())
        assert result.exit_code == 1, said
        holder = f"(process {os.getpid()} on {socket.gethostname()}, started"
        assert f"is in use by another score {holder}" in said
        assert "fix: wait for it to end, or give another --out" in said
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]
    assert not (tmp_path / "cache").exists()  # no index was built
    # And a score into a directory retrieve holds says whose it is.
    with RunLock(out, "retrieve"):
        result = CliRunner().invoke(main, ["score", "dataset", "--data", "builtin:qasper-rag",
                                           "--out", str(out)])  # fmt: skip
        assert result.exit_code == 1
        assert "in use by another retrieve" in " ".join(result.output.split())
    ran = CliRunner().invoke(main, args)
    assert ran.exit_code == 0, ran.output
    assert sorted(p.name for p in out.iterdir()) == ["run.json", "run.trec"]


def test_an_index_another_process_is_saving_is_left_alone(tmp_path: Path) -> None:
    dataset = load_retrieval(QASPER)
    first = retrieve(dataset, out_dir=tmp_path / "a", cache_dir=tmp_path / "c1")
    index = Path(first.meta["cache"]["path"])
    # A process with the same id (another container sharing the cache) saving the same
    # index: its temporary directory must survive our own save.
    cache = tmp_path / "c2"
    theirs = cache / f".{index.name}.{os.getpid()}.tmp"
    theirs.mkdir(parents=True)
    (theirs / "being-written").write_text("x", encoding="utf-8")
    second = retrieve(dataset, out_dir=tmp_path / "b", cache_dir=cache)
    assert not second.cache_hit and (theirs / "being-written").is_file()
    assert (cache / index.name / "complete").is_file()
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == [theirs.name]
    assert second.run_path.read_text(encoding="utf-8") == first.run_path.read_text(encoding="utf-8")


def test_a_save_killed_a_day_ago_is_cleared_and_a_live_one_kept(tmp_path: Path) -> None:
    import time

    dataset = load_retrieval(QASPER)
    index = Path(retrieve(dataset, out_dir=tmp_path / "a", cache_dir=tmp_path / "c1").meta[
        "cache"]["path"])  # fmt: skip
    cache = tmp_path / "c2"
    killed = cache / f".{index.name}.77.0123456789abcdef.tmp"
    live = cache / f".{index.name}.78.fedcba9876543210.tmp"
    for made in (killed, live):
        made.mkdir(parents=True)
        (made / "params.index.json").write_text("{}", encoding="utf-8")
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(killed, (two_days_ago, two_days_ago))
    retrieve(dataset, out_dir=tmp_path / "b", cache_dir=cache)
    assert not killed.exists() and (live / "params.index.json").is_file()
    assert (cache / index.name / "complete").is_file()


def test_a_damaged_index_is_rebuilt_once_and_then_reused(tmp_path: Path) -> None:
    dataset = load_retrieval(QASPER)
    cache = tmp_path / "c"
    first = retrieve(dataset, out_dir=tmp_path / "a", cache_dir=cache)
    index = Path(first.meta["cache"]["path"])
    (index / "ids.json").write_text("not json", encoding="utf-8")
    again = retrieve(dataset, out_dir=tmp_path / "b", cache_dir=cache)
    assert not again.cache_hit  # rebuilt, and put in place of the damaged one
    assert retrieve(dataset, out_dir=tmp_path / "c2", cache_dir=cache).cache_hit
