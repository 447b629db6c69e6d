"""Where `retrieve` writes: a directory of its own runs, never another run's.

`retrieve --out DIR` writes DIR/run.trec and DIR/run.json. Before any work it refuses a
directory that holds a run it did not write: a run.json that is not its own (a model
run's), a model's outputs.jsonl, or a run.trec without its run.json beside it. A
directory that holds the scores of an earlier run (summary.json, scores.jsonl and the
reports `score` writes) is written to only when the new run is, byte for byte, the one
those scores are of (by the SHA-256 summary.json records, so a run.trec since removed is
made again), so that they stay true and are kept: the settings recorded in run.json are
compared before any work, the corpus's digest once it is known, and the run's bytes
before anything is written. Anything else is refused, naming what differs. Nothing in the
directory is ever deleted. run.json is written before run.trec, so a retrieve stopped
between the two leaves a directory its rerun accepts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError, UsageError
from tfce_eval.jsonl import JsonLimits, read_json
from tfce_eval.model import TaskKind
from tfce_eval.scoring.rundir import (
    OUTPUTS,
    REPORT_HTML,
    REPORT_MD,
    RUN_JSON,
    RUN_TREC,
    SCORES,
    SUMMARY,
    file_sha256,
)
from tfce_eval.words import listed

#: What `score` writes beside a run: true of one run only.
SCORED_FILES = (SUMMARY, SCORES, REPORT_MD, REPORT_HTML)
#: run.json and summary.json are a few kilobytes; anything far larger is not theirs.
_LIMITS = JsonLimits(max_bytes=1 << 20)


def _json(path: Path) -> Any:
    try:
        return read_json(path, limits=_LIMITS)
    except DataError:
        return None


def _is_retrieves(meta: Any) -> bool:
    """Whether a run.json is one `retrieve` wrote (it names its run.trec and method)."""
    return (
        isinstance(meta, dict)
        and meta.get("run") == RUN_TREC
        and isinstance(meta.get("method"), str)
        and isinstance(meta.get("parameters"), dict)
    )


def _normal(value: Any) -> Any:
    """A value as it reads back from JSON (tuples as lists), to compare with a record."""
    return json.loads(json.dumps(value))


@dataclass(frozen=True, slots=True)
class KeptScores:
    """Scores of an earlier run in the out directory: kept while the new run is that run."""

    out: Path
    files: tuple[str, ...]
    recorded: Mapping[str, Any]  # the earlier run.json
    sha256: str  # of the run.trec the scores are of

    def refuse(self, reason: str) -> UsageError:
        return refuse_scores(self.out, self.files, reason)

    def check_settings(
        self, method: str, parameters: Mapping[str, Any], dataset: Mapping[str, Any]
    ) -> None:
        """The settings that make the run, against those recorded; before any work."""
        old, new = self.recorded, {"method": method, **_normal(parameters)}
        for key, now in new.items():
            was = old.get(key) if key == "method" else old["parameters"].get(key)
            if was != now:
                raise self.refuse(f"its {key} was {was!r}, now {now!r}")
        recorded = old.get("dataset")
        for key in ("split", "corpus", "queries"):
            was = recorded.get(key) if isinstance(recorded, dict) else None
            if was != dataset.get(key):
                raise self.refuse(f"its {key} was {was!r}, now {dataset.get(key)!r}")

    def check_corpus(self, corpus_sha256: str, tokenizer: Mapping[str, Any]) -> None:
        """The corpus and the tokenizer, once the corpus's digest is known."""
        if self.recorded.get("corpus_sha256") != corpus_sha256:
            raise self.refuse("the corpus changed since (its SHA-256 differs)")
        if self.recorded.get("tokenizer") != _normal(tokenizer):
            raise self.refuse("the tokenizer differs (bm25s's version or the stemmer)")

    def check_run(self, run: bytes) -> None:
        """The new run's bytes, before they are written."""
        import hashlib

        if hashlib.sha256(run).hexdigest() != self.sha256:
            raise self.refuse("the new run.trec differs from the one scored")


def refuse_scores(out: Path, files: tuple[str, ...], reason: str) -> UsageError:
    return UsageError(
        f"{out} holds the scores of another run ({listed(list(files))}): {reason}; "
        "give another --out, or move those files away first"
    )


def _another_run(out: Path, what: str) -> UsageError:
    return UsageError(
        f"{out} holds a run ({what}) that retrieve did not write: {RUN_TREC} and "
        f"{RUN_JSON} would overwrite or mix with it; give another --out"
    )


def check_out_dir(
    out: Path, method: str, parameters: Mapping[str, Any], dataset: Mapping[str, Any]
) -> KeptScores | None:
    """UsageError when `out` holds another run, or scores that the run these settings
    make would contradict; the scores to keep (checked again as the run is made) when
    `out` holds those of the same run; None when it holds no scores."""
    meta = _json(out / RUN_JSON) if (out / RUN_JSON).is_file() else None
    if (out / RUN_JSON).exists() and not _is_retrieves(meta):
        raise _another_run(out, RUN_JSON)
    if (out / OUTPUTS).exists():
        raise _another_run(out, OUTPUTS)
    if (out / RUN_TREC).exists() and meta is None:
        raise _another_run(out, f"{RUN_TREC} with no {RUN_JSON} beside it")
    files = tuple(name for name in SCORED_FILES if (out / name).exists())
    if not files:
        return None
    if meta is None:
        raise refuse_scores(out, files, f"no run of retrieve's is beside them ({RUN_JSON})")
    summary = _json(out / SUMMARY) if (out / SUMMARY).is_file() else None
    if not isinstance(summary, dict) or summary.get("task") != TaskKind.RETRIEVAL:
        raise refuse_scores(out, files, f"no {SUMMARY} of a retrieval run says which run")
    scored = summary.get("run")
    path = scored.get("path") if isinstance(scored, dict) else None
    sha = scored.get("sha256") if isinstance(scored, dict) else None
    if not isinstance(path, str) or Path(path).name != RUN_TREC:
        raise refuse_scores(out, files, f"they are of {path or 'a run not named'}, not {RUN_TREC}")
    if not isinstance(sha, str):
        raise refuse_scores(out, files, f"{SUMMARY} records no SHA-256 of the run it scored")
    # A run.trec since removed is made again: the scores stay if it comes out the same.
    if (out / RUN_TREC).is_file() and file_sha256(out / RUN_TREC) != sha:
        raise refuse_scores(out, files, f"{RUN_TREC} changed since it was scored")
    kept = KeptScores(out, files, meta, sha)
    kept.check_settings(method, parameters, dataset)
    return kept
