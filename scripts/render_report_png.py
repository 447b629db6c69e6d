#!/usr/bin/env python3
"""Render the HTML report of the example outputs (or of given run directories) to a PNG.

The picture in the README is made with this script:

    PYTHONPATH=. .venv/bin/python scripts/render_report_png.py --out docs/report.png

By default it scores examples/outputs.jsonl against the built-in dataset into a temporary
directory, renders that run's HTML report and screenshots it in headless Chromium (Debian's
`chromium` package; `fonts-noto-cjk` for the Chinese questions). Give RUN_DIR arguments to
picture existing runs instead (several are shown side by side).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tfce_eval.dataset.load import load_dataset  # noqa: E402
from tfce_eval.errors import TfceError  # noqa: E402
from tfce_eval.report import ReportFormat, load_run, render  # noqa: E402
from tfce_eval.scoring.score import ScoreOptions, score_outputs  # noqa: E402

INSTALL_HINT = "install it with:\n  apt-get update && apt-get install -y chromium fonts-noto-cjk"


def find_chromium(explicit: str | None) -> str:
    for name in ([explicit] if explicit else []) + ["chromium", "chromium-browser"]:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit(f"error: no Chromium found; {INSTALL_HINT}")


def screenshot(chromium: str, html: Path, png: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tfce-chromium-") as profile:
        cmd = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            f"--window-size={width},{height}",
            html.resolve().as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0 or not png.is_file():
        raise SystemExit(f"error: Chromium failed ({proc.returncode}):\n{proc.stderr[-2000:]}")


def example_run(work: Path, outputs: Path, data: Path | None) -> Path:
    """Score the example outputs into `work` and return the run directory."""
    run_dir = work / "example"
    score_outputs(outputs, load_dataset(data), ScoreOptions(), run_dir)
    return run_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "runs", nargs="*", type=Path, help="run directories (default: score the examples)"
    )
    ap.add_argument("--outputs", type=Path, default=REPO / "examples" / "outputs.jsonl")
    ap.add_argument("--data", type=Path, default=None, help="dataset (default: built-in)")
    ap.add_argument("--failures", type=int, default=2, help="failing items per category")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "report.png")
    ap.add_argument("--html", type=Path, help="also keep the rendered HTML here")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=1600)
    ap.add_argument("--chromium", help="Chromium executable (default: chromium on PATH)")
    args = ap.parse_args()

    chromium = find_chromium(args.chromium)
    with tempfile.TemporaryDirectory(prefix="tfce-report-") as tmp:
        work = Path(tmp)
        try:
            run_dirs = args.runs or [example_run(work, args.outputs, args.data)]
            page = render(
                [load_run(d) for d in run_dirs], ReportFormat.HTML, failures=args.failures
            )
        except TfceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        html = args.html or work / "report.html"
        html.write_text(page, encoding="utf-8")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(chromium, html, args.out, args.width, args.height)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
