"""Benchmarks of retrieval scoring and of the embedded BM25, side by side.

(a) Scoring: a generated 1,000,000-line TREC run (10,000 queries x 100 documents, 3
    relevant documents each) with nDCG@10, RR@10 and R@100, scored end to end by
    tfce-eval (the library in a fresh process, or the command given with --cmd) and by
    the ir_measures command line on the same files. Wall time and peak memory of each.
(b) Retrieval: a generated 100,000-chunk corpus with 1,000 queries, top 100, by
    tfce-eval's retrieve (cold cache, then warm) and by bm25s called directly (read the
    corpus, tokenize, index, tokenize the queries, retrieve, write the run).
(c) Ties: 100,000 chunks of two words, one of them `common` in every chunk, and 200
    queries `common`: every query ties the whole corpus across the 100th place. tfce-eval
    (warm cache) keeps trec_eval's first 100 (highest ids); bm25s keeps any 100.

Each command runs in its own process, timed from start to exit, `--repeat` times (the
best time is kept); peak memory is the child's maximum resident set size. The figures
are printed; nothing is asserted. The data are generated once into `--work` (default
bench/out/retrieval/, git-ignored) and reused while complete and made with the same
settings. Usage:

    .venv/bin/python bench/bench_retrieval.py [--only score|retrieve|ties] [--repeat 3]
        [--work DIR] [--cmd ".venv/bin/tfce-eval score {run} --data {data} --out {out}"]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchlib import at_least_one, prepared, wrap

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
MEASURES = "nDCG@10 RR@10 R@100"

SCORE_LIBRARY = """
import sys
from tfce_eval.retrieval import load_retrieval, score_run
run, data, out = sys.argv[1:4]
score_run(run, load_retrieval(data), "nDCG@10 RR@10 R@100", out)
"""

RETRIEVE_LIBRARY = """
import sys
from tfce_eval.retrieval import load_retrieval, retrieve
data, out, cache = sys.argv[1:4]
retrieve(load_retrieval(data), k=100, out_dir=out, cache_dir=cache)
"""

BM25S_DIRECT = """
import json, sys
import bm25s
data, out = sys.argv[1:3]
ids, texts = [], []
with open(data + "/corpus.jsonl", encoding="utf-8") as fh:
    for line in fh:
        doc = json.loads(line)
        ids.append(doc["_id"])
        texts.append(doc["title"] + "\\n" + doc["text"])
qids, queries = [], []
with open(data + "/queries.jsonl", encoding="utf-8") as fh:
    for line in fh:
        q = json.loads(line)
        qids.append(q["_id"])
        queries.append(q["text"])
retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False),
                show_progress=False)
found, scores = retriever.retrieve(
    bm25s.tokenize(queries, stopwords="en", show_progress=False), k=100,
    show_progress=False)
with open(out, "w", encoding="utf-8") as fh:
    for i, qid in enumerate(qids):
        for rank, (d, s) in enumerate(zip(found[i], scores[i]), 1):
            fh.write(f"{qid} Q0 {ids[int(d)]} {rank} {float(s)!r} bm25s\\n")
"""

# Runs a command and reports its peak memory: RUSAGE_CHILDREN of this small parent
# covers exactly the one child.
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{code} {wall} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
"""


def run_once(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak MB and CPU seconds of one run of `cmd` in its own process."""
    out = subprocess.run(
        [PY, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=ROOT, check=True
    )
    code, wall, rss, cpu = out.stdout.split()
    if code != "0":
        sys.exit(f"failed ({code}): {' '.join(cmd)}\n{out.stderr}")
    return float(wall), int(rss) / 1024, float(cpu)


class Best:
    """The best wall and CPU times and the largest peak memory over repeated runs."""

    def __init__(self) -> None:
        self.wall = self.cpu = float("inf")
        self.peak = 0.0

    def add(self, wall: float, peak: float, cpu: float) -> None:
        self.wall, self.cpu = min(self.wall, wall), min(self.cpu, cpu)
        self.peak = max(self.peak, peak)

    def line(self, label: str) -> str:
        return (
            f"    {label:32s}{self.wall:7.2f} s wall {self.cpu:7.2f} s CPU"
            f"   peak {self.peak:5.0f} MB"
        )


def timed(cmds: list[list[str]], repeat: int) -> list[Best]:
    """The best times and largest peak of each command over `repeat` rounds.

    The commands take turns within each round, so that whatever else the machine is
    doing weighs on all of them alike. CPU time (user + system, of the process and its
    threads) is steadier than wall time on a busy machine.
    """
    best = [Best() for _ in cmds]
    for _ in range(repeat):
        for i, cmd in enumerate(cmds):
            best[i].add(*run_once(cmd))
    return best


SCORE_SETTINGS = {"seed": 11, "queries": 10_000, "per_query": 100, "documents": 200_000}


def make_scoring_data(work: Path) -> tuple[Path, Path, Path]:
    """run.trec, qrels.txt and a BEIR dataset directory with the same judgements, in
    WORK/score/ (made again unless complete and made with the same settings)."""
    folder = work / "score"
    prepared(folder, SCORE_SETTINGS, write_scoring_data)
    return folder / "run.trec", folder / "qrels.txt", folder / "data"


def write_scoring_data(folder: Path) -> None:
    rng = random.Random(SCORE_SETTINGS["seed"])
    n_docs = SCORE_SETTINGS["documents"]
    data = folder / "data"
    (data / "qrels").mkdir(parents=True)
    with (data / "corpus.jsonl").open("w") as fh:
        for d in range(n_docs):
            fh.write(json.dumps({"_id": f"d{d}", "title": "", "text": f"document {d}"}) + "\n")
    with (
        (folder / "run.trec").open("w") as rf,
        (folder / "qrels.txt").open("w") as qf,
        (data / "qrels" / "test.tsv").open("w") as tf,
        (data / "queries.jsonl").open("w") as sf,
    ):
        tf.write("query-id\tcorpus-id\tscore\n")
        for q in range(SCORE_SETTINGS["queries"]):
            qid = f"q{q}"
            sf.write(json.dumps({"_id": qid, "text": f"query {q}"}) + "\n")
            docs = rng.sample(range(n_docs), SCORE_SETTINGS["per_query"])
            # 3 relevant: two among the retrieved (anywhere), one usually not retrieved.
            relevant = [*rng.sample(docs, 2), rng.randrange(n_docs)]
            for d in dict.fromkeys(relevant):
                qf.write(f"{qid} 0 d{d} 1\n")
                tf.write(f"{qid}\td{d}\t1\n")
            score = 100.0
            lines = []
            for rank, d in enumerate(docs, 1):
                score -= rng.random() + 0.001
                lines.append(f"{qid} Q0 d{d} {rank} {score:.6f} bench\n")
            rf.write("".join(lines))


def bench_score(work: Path, repeat: int, cmd: str | None) -> None:
    run, qrels, data = make_scoring_data(work)
    out = work / "scored"
    if cmd:
        ours = cmd.format(run=run, data=data, out=out).split()
    else:
        ours = [PY, "-c", SCORE_LIBRARY, str(run), str(data), str(out)]
    theirs = [PY, "-m", "ir_measures", str(qrels), str(run), MEASURES]
    mine, other = timed([ours, theirs], repeat)
    summary = json.loads((out / "summary.json").read_text())
    means = {m: round(v["mean"], 4) for m, v in summary["measures"].items()}
    check = subprocess.run(theirs, capture_output=True, text=True, check=True, cwd=ROOT)
    print("(a) scoring 1,000,000 TREC lines (10,000 queries x 100), " + MEASURES)
    print(mine.line("tfce-eval score"))
    print(other.line("ir_measures CLI"))
    print(
        f"    ratio (goal <= 1.0): wall {mine.wall / other.wall:.2f}, "
        f"CPU {mine.cpu / other.cpu:.2f}"
    )
    print(wrap("tfce-eval means   " + " ".join(f"{m} {v}" for m, v in means.items()), "    "))
    print(wrap("ir_measures       " + " ".join(check.stdout.split()), "    "))


CORPUS_SETTINGS = {"seed": 12, "chunks": 100_000, "queries": 1_000, "words": 50_000}


def make_corpus(work: Path) -> Path:
    """A BEIR directory: 100,000 chunks of 30-120 Zipf-distributed words, 1,000 queries,
    in WORK/retrieve/data/ (made again unless complete and made with the same settings)."""
    prepared(work / "retrieve", CORPUS_SETTINGS, write_corpus)
    return work / "retrieve" / "data"


def write_corpus(folder: Path) -> None:
    data = folder / "data"
    rng = random.Random(CORPUS_SETTINGS["seed"])
    words, chunks = CORPUS_SETTINGS["words"], CORPUS_SETTINGS["chunks"]
    vocab = [f"w{i}" for i in range(words)]
    cumulative = list(itertools.accumulate(1 / (i + 1) for i in range(words)))
    (data / "qrels").mkdir(parents=True)
    with (data / "corpus.jsonl").open("w") as fh:
        for d in range(chunks):
            text = " ".join(rng.choices(vocab, cum_weights=cumulative, k=rng.randint(30, 120)))
            fh.write(json.dumps({"_id": f"c{d}", "title": f"t{d // 20}", "text": text}))
            fh.write("\n")
    with (data / "queries.jsonl").open("w") as qf, (data / "qrels" / "test.tsv").open("w") as tf:
        tf.write("query-id\tcorpus-id\tscore\n")
        for q in range(CORPUS_SETTINGS["queries"]):
            query = rng.choices(vocab[100:5_000], k=rng.randint(3, 8))
            qf.write(json.dumps({"_id": f"q{q}", "text": " ".join(query)}) + "\n")
            tf.write(f"q{q}\tc{rng.randrange(chunks)}\t1\n")


def bench_retrieve(work: Path, repeat: int) -> None:
    data = make_corpus(work)
    cache = work / "bm25-cache"
    out = work / "bm25-run"
    ours = [PY, "-c", RETRIEVE_LIBRARY, str(data), str(out), str(cache)]
    direct_cmd = [PY, "-c", BM25S_DIRECT, str(data), str(work / "bm25s.trec")]
    cold, warm, direct = Best(), Best(), Best()
    for _ in range(repeat):  # in turns: cold (empty cache), warm, bm25s
        shutil.rmtree(cache, ignore_errors=True)
        cold.add(*run_once(ours))
        warm.add(*run_once(ours))
        direct.add(*run_once(direct_cmd))
    meta = json.loads((out / "run.json").read_text())
    print("(b) BM25 over 100,000 chunks, 1,000 queries, top 100")
    print(cold.line("tfce-eval retrieve, cold cache"))
    print(warm.line("tfce-eval retrieve, warm cache"))
    print(direct.line("bm25s called directly"))
    print(
        f"    cold / direct (goal <= 1.2): wall {cold.wall / direct.wall:.2f}, "
        f"CPU {cold.cpu / direct.cpu:.2f}"
    )
    print(f"    warm / direct: wall {warm.wall / direct.wall:.2f}, CPU {warm.cpu / direct.cpu:.2f}")
    times = ", ".join(f"{k} {v}" for k, v in meta["times"].items())
    print(wrap(f"last run.json: {times}; cache hit {meta['cache']['hit']}", "    "))


TIES_SETTINGS = {"chunks": 100_000, "queries": 200}


def write_ties(folder: Path) -> None:
    data = folder / "data"
    (data / "qrels").mkdir(parents=True)
    with (data / "corpus.jsonl").open("w") as fh:
        for d in range(TIES_SETTINGS["chunks"]):
            fh.write(json.dumps({"_id": f"c{d}", "title": "", "text": f"common x{d}"}) + "\n")
    with (data / "queries.jsonl").open("w") as qf, (data / "qrels" / "test.tsv").open("w") as tf:
        tf.write("query-id\tcorpus-id\tscore\n")
        for q in range(TIES_SETTINGS["queries"]):
            qf.write(json.dumps({"_id": f"q{q}", "text": "common"}) + "\n")
            tf.write(f"q{q}\tc{q}\t1\n")


def bench_ties(work: Path, repeat: int) -> None:
    prepared(work / "ties", TIES_SETTINGS, write_ties)
    data = work / "ties" / "data"
    cache = work / "ties-cache"
    ours = [PY, "-c", RETRIEVE_LIBRARY, str(data), str(work / "ties-run"), str(cache)]
    direct_cmd = [PY, "-c", BM25S_DIRECT, str(data), str(work / "ties-bm25s.trec")]
    run_once(ours)  # the index, built once: the tie is cut at search time
    warm, direct = timed([ours, direct_cmd], repeat)
    print("(c) a tie of 100,000 chunks across the 100th place, 200 queries, top 100")
    print(warm.line("tfce-eval retrieve, warm cache"))
    print(direct.line("bm25s called directly"))
    print(f"    warm / direct: wall {warm.wall / direct.wall:.2f}, CPU {warm.cpu / direct.cpu:.2f}")
    meta = json.loads((work / "ties-run" / "run.json").read_text())
    times = ", ".join(f"{k} {v}" for k, v in meta["times"].items())
    print(wrap(f"last run.json: {times}", "    "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["score", "retrieve", "ties"])
    parser.add_argument("--repeat", type=at_least_one, default=3)
    parser.add_argument(
        "--work",
        type=Path,
        default=ROOT / "bench" / "out" / "retrieval",
        help="where the generated data and the outputs go (default: bench/out/retrieval)",
    )
    parser.add_argument(
        "--cmd",
        help="command for tfce-eval's side of (a), with {run} {data} {out}; "
        "default: the library in a fresh Python process",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.only in (None, "score"):
        bench_score(args.work, args.repeat, args.cmd)
    if args.only in (None, "retrieve"):
        bench_retrieve(args.work, args.repeat)
    if args.only in (None, "ties"):
        bench_ties(args.work, args.repeat)
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
