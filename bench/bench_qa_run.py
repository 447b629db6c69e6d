"""Benchmark `run` on question-answering items against a bare SDK loop.

It writes a synthetic Telco-Retrieve split (`--items`, default 1,000, in
set_840's mix of 400 mc / 400 tf / 40 open scaled; the real layout:
`{"_corpus", "_description", "_generated", "questions": [...]}`) to a
temporary directory, serves it with the loopback server
(tests/fakeserver.py --qa, a child process) at a fixed latency, and times,
in one process and in turns, each `--repeat` times:

1. a bare loop: the SDK's own `create` (OpenAI `chat.completions`, or
   Anthropic `messages`), the request bodies built beforehand with the
   same forced `answer` tool the run sends, an asyncio semaphore of
   `--concurrency`, nothing decoded or written;
2. the same bodies posted as built with `client.post`, the call the run
   makes (a tighter reference for the runner's own work);
3. `run_eval` in fc mode (`--context none`): the sending phase (first
   request to last answer written and synced) and the whole call
   (loading, scoring, run.json);
4. the same in prompt mode (the `ANSWER:` template, read back by the
   extractor).

The ideal is items x latency / concurrency. The target is each sending
phase within 10 % of the bare loop; the whole call's ratio is printed
beside it and is not part of the target. Medians are printed, with the
accuracy each run scored against the server (which answers every item
right: anything under 100 % is a bug).

Usage: .venv/bin/python bench/bench_qa_run.py [--items 1000]
       [--concurrency 32] [--latency 0.1] [--repeat 5]
       [--sdk openai|anthropic] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import io
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_run import Timer, start_server  # noqa: E402
from benchlib import at_least_one, profile_lines  # noqa: E402

from tfce_eval.model import TaskKind  # noqa: E402
from tfce_eval.providers import Mode, RequestOptions  # noqa: E402
from tfce_eval.providers.registry import make_provider  # noqa: E402
from tfce_eval.run.config import RunConfig, RunResult  # noqa: E402
from tfce_eval.run.qa import Context, QaAsker, QaRequest  # noqa: E402
from tfce_eval.run.runner import run_eval  # noqa: E402
from tfce_eval.tasks.load import load_qa_dataset  # noqa: E402

#: set_840's mix (mc / tf / open), scaled to the number of items asked for.
MIX = (400, 400, 40)
SPECS = (
    ("23.501", "System architecture for the 5G System"),
    ("23.502", "Procedures for the 5G System"),
    ("38.300", "NR and NG-RAN overall description"),
    ("38.331", "NR Radio Resource Control protocol"),
    ("38.211", "NR physical channels and modulation"),
    ("33.501", "Security architecture and procedures for 5G"),
    ("28.312", "Intent driven management services"),
    ("32.255", "5G data connectivity domain charging"),
)
FUNCTIONS = ("AMF", "SMF", "UPF", "PCF", "UDM", "AUSF", "NRF", "NEF", "NSSF", "UDR")
TOPICS = (
    "registration management",
    "PDU session establishment",
    "UE IP address allocation",
    "policy control for QoS flows",
    "network slice selection",
    "subscriber authentication",
    "service discovery",
    "exposure of network capabilities",
    "charging data records",
    "RRC connection resume",
)
DIFFICULTY = ("easy", "medium", "hard", "hard")


def _passage(spec: str, title: str, topic: str, fn: str, n: int) -> str:
    """A chunk-sized excerpt (~600 characters), as `source_text` carries."""
    return (
        f"TS {spec} {title}, clause {4 + n % 5}.{1 + n % 9}.{n % 13}. The {fn} supports "
        f"{topic}. When the procedure is triggered, the {fn} checks the subscription data "
        f"retrieved from the UDM, applies the operator policy received from the PCF and "
        f"informs the peer network function of the outcome. If the check fails, the {fn} "
        f"rejects the request with the cause value defined in clause {5 + n % 4}.{n % 7} and "
        f"no state is kept. The timers and counters of the procedure are configured per "
        f"PLMN; their default values are given in annex {chr(65 + n % 6)}."
    )


def _record(n: int, kind: str, rng: random.Random) -> dict[str, Any]:
    spec, title = SPECS[n % len(SPECS)]
    topic = TOPICS[(n // 3) % len(TOPICS)]
    fn = FUNCTIONS[(n * 7) % len(FUNCTIONS)]
    qid = hashlib.sha256(f"bench-qa-{n}".encode()).hexdigest()[:12]
    release = f"Rel-{15 + n % 5}"
    # The id in the text keeps every question distinct (none contains another), as the
    # loopback server finds an item by its question text.
    record: dict[str, Any] = {"question_id": qid}
    if kind == "mc":
        labels = ["A", "B", "C", "D", "E"][: 2 + n % 4] if n % 11 else ["1", "2", "3", "4"]
        choices = rng.sample(FUNCTIONS, len(labels))
        if fn not in choices:
            choices[rng.randrange(len(labels))] = fn
        options = {
            label: f"{c} ({c} service of TS {spec})"
            for label, c in zip(labels, choices, strict=True)
        }
        right = labels[choices.index(fn)]
        record |= {
            "question": f"Per TS {spec} [{qid}], which network function handles {topic}?",
            # The real splits give mc references as option text; labels occur too.
            "reference_answer": options[right] if n % 3 else right,
            "answer_type": "mc",
            "options": options,
        }
    elif kind == "tf":
        truth = rng.random() < 0.5
        claimed = fn if truth else FUNCTIONS[(n * 7 + 1) % len(FUNCTIONS)]
        record |= {
            "question": f"Per TS {spec} [{qid}], the {claimed} handles {topic}.",
            "reference_answer": ("true" if truth else "false") if n % 5 else truth,
            "answer_type": "tf",
            "explanation": f"Clause {4 + n % 5} assigns {topic} to the {fn}.",
        }
    else:
        record |= {
            "question": f"Per TS {spec} [{qid}], what does the {fn} do for {topic}?",
            "reference_answer": f"The {fn} checks the subscription and applies the policy",
            "answer_type": "open",
        }
    return record | {
        "difficulty": DIFFICULTY[n % len(DIFFICULTY)],
        "keywords": [fn, topic],
        "corpus": "3gpp",
        "canonical_source": f"TS {spec} ({release})",
        "release": release,
        "spec_version": "",
        "chunk_id": f"{spec.replace('.', '')}-{release.lower().replace('-', '')}-{n:04d}",
        "source_document": f"{spec.replace('.', '')}-{release.lower()}.md",
        "source_text": _passage(spec, title, topic, fn, n),
        "generated": True,
        "validated": True,
        "empirical_difficulty": "rag_suitable",
        "review_status": "accepted",
    }


def write_split(items: int, folder: Path, seed: int = 12) -> Path:
    """A Telco-Retrieve split of `items` questions in set_840's mix, real layout."""
    rng = random.Random(seed)
    mc = round(items * MIX[0] / sum(MIX))
    tf = round(items * MIX[1] / sum(MIX))
    kinds = ["mc"] * mc + ["tf"] * tf + ["open"] * (items - mc - tf)
    rng.shuffle(kinds)
    document = {
        "_corpus": "3gpp",
        "_description": f"synthetic benchmark split: {items} questions ({mc} mc, {tf} tf, "
        f"{items - mc - tf} open), set_840's mix",
        "_generated": "2026-12-01T00:00:00Z",
        "questions": [_record(n, kind, rng) for n, kind in enumerate(kinds)],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench_set_{items}.json"
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


async def bare_loop(
    sdk: str, url: str, bodies: list[dict[str, Any]], concurrency: int, *, raw: bool = False
) -> float:
    """Seconds to send every body, `concurrency` at a time, through the SDK's typed
    `create`, or (`raw`) posted as built with `client.post`, the transport the run uses."""
    if sdk == "openai":
        import openai

        client: Any = openai.AsyncOpenAI(base_url=url + "/v1", api_key="bench", max_retries=0)
        create, endpoint = client.chat.completions.create, "/chat/completions"
    else:
        import anthropic

        client = anthropic.AsyncAnthropic(base_url=url, api_key="bench", max_retries=0)
        create, endpoint = client.messages.create, "/v1/messages"
    if raw:
        import httpx2

        async def send(body: dict[str, Any]) -> None:
            http = await client.post(endpoint, body=body, cast_to=httpx2.Response)
            await http.aread()

    else:

        async def send(body: dict[str, Any]) -> None:
            await create(**body)

    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict[str, Any]) -> None:
        async with gate:
            await send(body)

    await send(bodies[0])  # warm: connection and lazy imports, as the run's first item
    start = time.perf_counter()
    await asyncio.gather(*(one(b) for b in bodies))
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed


def timed_run(config: RunConfig) -> tuple[float, float, RunResult]:
    """(sending phase, whole call, result) of one run_eval."""
    timer = Timer()
    start = time.perf_counter()
    result = run_eval(config, progress=timer)
    return timer.stopped - timer.started, time.perf_counter() - start, result


def accuracy(result: RunResult) -> float:
    """Share of mc/tf items right, and open items matched exactly (lexical)."""
    summary = result.score.summary
    closed = summary["overall"]
    right = closed["correct"]
    total = closed["total"]
    block = summary["answer_types"].get("open")
    if block:
        right += round(block["exact_match"] * block["total"])
        total += block["total"]
    return float(right / total)


def profile(config: RunConfig, top: int = 25) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    run_eval(config)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    # The project's own functions apart: what the runner adds to the SDK's work.
    own = profile_lines(stats, "tottime", top, only="tfce_eval")
    lines = [*profile_lines(stats, "tottime", top), "", "tfce_eval's own functions:", *own]
    return "\n".join(lines)


def _times(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per answer")
    parser.add_argument("--repeat", type=at_least_one, default=5)
    parser.add_argument("--sdk", choices=["openai", "anthropic"], default="openai")
    parser.add_argument("--profile", action="store_true", help="cProfile one fc run")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tfce-bench-qa-run-") as tmp:
        work = Path(tmp)
        split = write_split(args.items, work / "data")
        dataset = load_qa_dataset(split.parent, split=None, name=str(split.parent))
        server, url = start_server(args.latency, "--qa", str(split))
        try:
            os.environ.setdefault("OPENAI_API_KEY", "bench")
            os.environ.setdefault("ANTHROPIC_API_KEY", "bench")
            base_url = url + "/v1" if args.sdk == "openai" else url
            model = f"{args.sdk}/bench"
            provider = make_provider(model, base_url=base_url)
            asker = QaAsker(Mode.FC, Context.NONE)
            bodies = [
                asker.request(provider, QaRequest(item), RequestOptions())
                for item in sorted(dataset.items, key=lambda i: i.id)
            ]
            configs = {
                mode: RunConfig(
                    model=model,
                    base_url=base_url,
                    task=TaskKind.QA,
                    mode=mode,
                    data=split.parent,
                    out=work / "results",
                    concurrency=args.concurrency,
                    force=True,
                )
                for mode in (Mode.FC, Mode.PROMPT)
            }
            bare: list[float] = []
            raw: list[float] = []
            sending: dict[Mode, list[float]] = {m: [] for m in configs}
            whole: dict[Mode, list[float]] = {m: [] for m in configs}
            scored: dict[Mode, float] = {}
            for _ in range(args.repeat):
                bare.append(asyncio.run(bare_loop(args.sdk, url, bodies, args.concurrency)))
                loop = bare_loop(args.sdk, url, bodies, args.concurrency, raw=True)
                raw.append(asyncio.run(loop))
                for mode, config in configs.items():
                    s, t, result = timed_run(config)
                    sending[mode].append(s)
                    whole[mode].append(t)
                    scored[mode] = accuracy(result)
            profiled = profile(configs[Mode.FC]) if args.profile else ""
        finally:
            server.kill()
            server.wait()

    n = len(dataset.items)
    kinds = {k: sum(1 for i in dataset.items if str(i.answer_type) == k) for k in ("mc", "tf")}
    ideal = max(n * args.latency / args.concurrency, 1e-9)
    b = statistics.median(bare)
    print(
        f"{n} QA items ({kinds['mc']} mc, {kinds['tf']} tf, {n - sum(kinds.values())} open), "
        f"concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms,\n"
        f"{args.sdk} SDK {metadata.version(args.sdk)}, median of {args.repeat}, in turns"
    )
    print(f"  ideal (items x latency / concurrency)   {ideal:6.2f} s")
    print(f"  bare SDK loop (forced answer tool)      {b:6.2f} s  {b / ideal:5.2f} x ideal")
    r = statistics.median(raw)
    print(
        f"  bare loop, raw post (the run's client)  {r:6.2f} s  {r / ideal:5.2f} x ideal  "
        f"{r / b:5.2f} x bare"
    )
    met = True
    for mode in configs:
        s, t = statistics.median(sending[mode]), statistics.median(whole[mode])
        met = met and s <= 1.10 * b
        label = f"run_eval --mode {mode}"
        print(
            f"  {label + ', sending':<39} {s:6.2f} s  {s / ideal:5.2f} x ideal  {s / b:5.2f} x bare"
        )
        print(
            f"  {label + ', whole':<39} {t:6.2f} s  {t / ideal:5.2f} x ideal  {t / b:5.2f} x bare"
        )
        print(f"  {label + ', right':<39} {100 * scored[mode]:6.1f} %")
    against_raw = ", ".join(f"{m} {statistics.median(sending[m]) / r:.2f}" for m in configs)
    print(f"  runs' sending against the raw post loop: {against_raw}")
    print("  each round, in turns (sending phase for the runs):")
    print(f"    bare {_times(bare)}\n    raw  {_times(raw)}")
    for mode in configs:
        print(f"    {mode:<6} {_times(sending[mode])}")
    verdict = "met" if met else "NOT met"
    print(f"target (sending within 10 % of the bare loop): {verdict}")
    if profiled:
        print(profiled)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
