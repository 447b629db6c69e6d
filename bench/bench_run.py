"""Benchmark `run`: its wall time against the ideal and against a bare loop of the same SDK.

A loopback server (tests/fakeserver.py, as a child process) answers every request after a
fixed latency. On a synthetic dataset of TFCE's size and mix (bench/make_synthetic.py) the
script times, in one process and alternating, each `--repeat` times:

1. a bare loop: the SDK's client, the same request bodies, an asyncio semaphore of
   `--concurrency`, nothing else (no decoding, no files);
2. `run_eval`, as `tfce-eval run --check ast` does it: the sending phase (first request to
   last answer written and synced) and the whole call (loading, scoring, run.json).

The ideal is items x latency / concurrency. The target is the sending phase within 10 % of
the bare loop. Medians are printed.

Usage: .venv/bin/python bench/bench_run.py [--items 917] [--concurrency 32] [--latency 0.1]
       [--repeat 3] [--sdk openai|anthropic]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import at_least_one  # noqa: E402

from tfce_eval.dataset.load import load_dataset  # noqa: E402
from tfce_eval.providers import Mode, RequestOptions  # noqa: E402
from tfce_eval.providers.registry import make_provider  # noqa: E402
from tfce_eval.run.runner import RunConfig, run_eval  # noqa: E402
from tfce_eval.scoring.options import CheckMode  # noqa: E402


class Timer:
    """A progress sink that only notes when sending starts and stops."""

    def __init__(self) -> None:
        self.started = self.stopped = 0.0

    def start(self, total: int, done: int) -> None:
        self.started = time.perf_counter()

    def advance(self, *, failed: bool) -> None:
        pass

    def message(self, text: str) -> None:
        pass

    def stop(self) -> None:
        self.stopped = time.perf_counter()


def make_dataset(items: int, work: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "make_synthetic.py"),
            "--sizes",
            str(items),
            "--out",
            str(work),
        ],
        check=True,
        capture_output=True,
    )
    return work / f"n{items}" / "data"


def start_server(latency: float, *source: str) -> tuple[subprocess.Popen[str], str]:
    """The loopback server as a child process answering `source` (`--data DIR` or `--qa
    SPLIT`) after `latency` seconds; the process and its URL."""
    server = ROOT / "tests" / "fakeserver.py"
    command = [sys.executable, str(server), "--port", "0", "--latency", str(latency)]
    proc = subprocess.Popen([*command, *source], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, line.split()[-1]


async def bare_loop(sdk: str, url: str, bodies: list[dict[str, Any]], concurrency: int) -> float:
    if sdk == "openai":
        import openai

        client: Any = openai.AsyncOpenAI(base_url=url + "/v1", api_key="bench", max_retries=0)
        create = client.chat.completions.create
    else:
        import anthropic

        client = anthropic.AsyncAnthropic(base_url=url, api_key="bench", max_retries=0)
        create = client.messages.create
    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict[str, Any]) -> None:
        async with gate:
            await create(**body)

    await create(**bodies[0])  # warm: connection and lazy imports, as the run's first item
    start = time.perf_counter()
    await asyncio.gather(*(one(b) for b in bodies))
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=917)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per answer")
    parser.add_argument("--repeat", type=at_least_one, default=3)
    parser.add_argument("--sdk", choices=["openai", "anthropic"], default="openai")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tfce-bench-run-") as tmp:
        work = Path(tmp)
        data = make_dataset(args.items, work / "synthetic")
        dataset = load_dataset(data)
        server, url = start_server(args.latency, "--data", str(data))
        try:
            os.environ.setdefault("OPENAI_API_KEY", "bench")
            os.environ.setdefault("ANTHROPIC_API_KEY", "bench")
            base_url = url + "/v1" if args.sdk == "openai" else url
            provider = make_provider(f"{args.sdk}/bench", base_url=base_url)
            bodies = [
                provider.build_request(item, RequestOptions(), Mode.FC)
                for item in dataset.iter_items()
            ]
            config = RunConfig(
                model=f"{args.sdk}/bench",
                base_url=base_url,
                data=data,
                out=work / "results",
                concurrency=args.concurrency,
                check=CheckMode.AST,
                force=True,
            )
            bare, sending, total = [], [], []
            accuracy = None
            for _ in range(args.repeat):
                bare.append(asyncio.run(bare_loop(args.sdk, url, bodies, args.concurrency)))
                timer = Timer()
                start = time.perf_counter()
                result = run_eval(config, progress=timer)
                total.append(time.perf_counter() - start)
                sending.append(timer.stopped - timer.started)
                accuracy = result.score.summary["overall"]["micro"]["accuracy"]
        finally:
            server.kill()
            server.wait()

    n = len(dataset)
    ideal = max(n * args.latency / args.concurrency, 1e-9)
    b, s, t = (statistics.median(x) for x in (bare, sending, total))
    version = metadata.version(args.sdk)
    print(
        f"{n} items, concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms, "
        f"{args.sdk} SDK {version}, median of {args.repeat}"
    )
    print(f"  ideal (items x latency / concurrency)  {ideal:6.2f} s")
    print(f"  bare SDK loop                          {b:6.2f} s  {b / ideal:5.2f} x ideal")
    print(
        f"  tfce-eval run, sending                 {s:6.2f} s  {s / ideal:5.2f} x ideal  "
        f"{s / b:5.2f} x bare"
    )
    print(
        f"  tfce-eval run, whole (load, score)     {t:6.2f} s  {t / ideal:5.2f} x ideal  "
        f"{t / b:5.2f} x bare"
    )
    print(f"  accuracy against the perfect server    {100 * (accuracy or 0):.1f} %")
    met = s <= 1.10 * b
    print(f"target (sending within 10 % of the bare loop): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
