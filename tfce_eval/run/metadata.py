"""run.json: what a run is (its identity) and what happened (times, notes, counts) (docs/files.md
8).

A run is defined by the dataset, the model and server, the mode, the request options and the
item selection. Running the same command again resumes only when all of these are unchanged;
otherwise `identity_differences` lists what changed, for a message that suggests `--force` or
another run directory.
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tfce_eval import __version__
from tfce_eval.providers.secrets import shown_url
from tfce_eval.words import listed

#: The run.json fields that define a run: resume refuses when one of them differs.
IDENTITY_FIELDS = (
    "dataset_sha256",
    "provider",
    "model",
    "base_url",
    "mode",
    "request_options",
    "categories",
    "selection_sha256",
)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def selection_digest(ids: Iterable[str]) -> str:
    """SHA-256 of the selected ids, one a line, in order."""
    h = hashlib.sha256()
    for item_id in ids:
        h.update(item_id.encode("utf-8") + b"\n")
    return h.hexdigest()


@dataclass(frozen=True)
class RunIdentity:
    dataset_sha256: str
    provider: str
    model: str
    base_url: str
    mode: str
    request_options: Mapping[str, Any]
    categories: tuple[str, ...]
    selection_sha256: str
    #: The options that chose the items (`limit`, `ids`): not compared themselves (the
    #: digest of the ids is), but named when the selection differs.
    selection: Mapping[str, Any] = field(default_factory=dict)
    #: The task (fc or qa): recorded with the task's settings (a function-calling run.json
    #: names none); a run of another task is told apart by it before anything else.
    task: str = "fc"

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset_sha256": self.dataset_sha256,
            "provider": self.provider,
            "model": self.model,
            "base_url": recorded_url(self.base_url),
            "mode": self.mode,
            "request_options": dict(self.request_options),
            "categories": list(self.categories),
            "selection_sha256": self.selection_sha256,
        }


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def recorded_url(url: object) -> object:
    """A base URL as run.json records it: its credentials hidden (`shown_url`). A run.json
    written before they were is read the same way, so that it resumes and never shows
    them."""
    return shown_url(url) if isinstance(url, str) else url


def _identity_view(meta: Mapping[str, Any]) -> dict[str, Any]:
    dataset = _mapping(meta.get("dataset"))
    selection = _mapping(meta.get("selection"))
    return {
        "dataset_sha256": dataset.get("sha256"),
        "provider": meta.get("provider"),
        "model": meta.get("model"),
        "base_url": recorded_url(meta.get("base_url")),
        "mode": meta.get("mode"),
        "request_options": meta.get("request_options"),
        "categories": meta.get("categories"),
        "selection_sha256": selection.get("ids_sha256"),
    }


def _shown(value: object) -> str:
    """A selection option's value as the user wrote it."""
    if value is None:
        return "none (all items)"
    if isinstance(value, list | tuple):
        return listed([str(v) for v in value])
    return str(value)


def _selection_lines(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One line per item-choosing option that differs: `--limit: 2 (saved) vs 3 (now)`."""
    lines: list[str] = []
    for key, option in (("limit", "--limit"), ("ids", "--ids")):
        before, after = old.get(key), new.get(key)
        if before != after:
            lines.append(f"{option}: {_shown(before)} (saved) vs {_shown(after)} (now)")
    return lines


#: A QA context's files, by digest, kept with the request options (run.qa.context_identity)
#: and named for what they are when they differ.
CONTEXT_DIGESTS = {
    "corpus_sha256": "the context's corpus,",
    "run_sha256": "the context's run file,",
}


def identity_differences(old_meta: Mapping[str, Any], new: RunIdentity) -> list[str]:
    """One line per identity field that differs: `model: 'a' (saved) vs 'b' (now)`; a run
    of another task is that one line, `task: fc (saved) vs qa (now)`.

    Items chosen differently are named by the options that chose them (`--category`,
    `--limit`, `--ids`, each with both values); only when none of them differs (the
    dataset changed under the same options) do the digests of the selection speak.
    """
    saved_task = old_meta.get("task") or "fc"
    if saved_task != new.task:  # nothing else compares: the options differ by task
        return [f"task: {saved_task} (saved) vs {new.task} (now)"]
    old = _identity_view(old_meta)
    now = new.to_json()
    lines: list[str] = []
    for name in IDENTITY_FIELDS:
        if old.get(name) == now[name]:
            continue
        if name == "request_options" and isinstance(old.get(name), Mapping):
            for key in sorted(set(old[name]) | set(now[name])):
                before, after = old[name].get(key), now[name].get(key)
                if key in CONTEXT_DIGESTS and key not in old[name]:
                    continue  # a run recorded before its context's files were: not known
                if before != after:
                    what = CONTEXT_DIGESTS.get(key, "request option")
                    lines.append(f"{what} {key}: {before!r} (saved) vs {after!r} (now)")
        elif name == "categories" and isinstance(old.get(name), list):
            lines.append(
                f"categories (--category): {_shown(old[name])} (saved) vs {_shown(now[name])} (now)"
            )
        elif name == "selection_sha256":
            chosen = _selection_lines(_mapping(old_meta.get("selection")), new.selection)
            if chosen:
                lines.extend(chosen)
            elif old.get("categories") == now["categories"]:
                lines.append(
                    f"selected items differ (SHA-256 {str(old.get(name))[:12]}... saved vs "
                    f"{now[name][:12]}... now)"
                )
        elif name == "dataset_sha256":
            lines.append(
                f"dataset contents differ (SHA-256 {str(old.get(name))[:12]}... saved vs "
                f"{now[name][:12]}... now)"
            )
        else:
            lines.append(f"{name}: {old.get(name)!r} (saved) vs {now[name]!r} (now)")
    return lines


def build_meta(
    identity: RunIdentity,
    *,
    api: str,
    dataset_path: str | list[str],
    selection: Mapping[str, Any],
    settings: Mapping[str, Any],
    sdk: Mapping[str, str],
    request_notes: Mapping[str, str],
    dropped_params: Mapping[str, str],
    started_at: str,
) -> dict[str, Any]:
    """A fresh run.json. `settings` holds the policy, check and transport options as JSON."""
    return {
        "harness": {
            "name": "tfce-eval",
            "version": __version__,
            "python": platform.python_version(),
        },
        "status": "running",
        "provider": identity.provider,
        "model": identity.model,
        "api": api,
        "base_url": recorded_url(identity.base_url),
        "mode": identity.mode,
        "request_options": dict(identity.request_options),
        "request_notes": dict(request_notes),
        "dropped_params": dict(dropped_params),
        **dict(settings),
        "dataset": {"path": dataset_path, "sha256": identity.dataset_sha256},
        "categories": list(identity.categories),
        "selection": {**dict(selection), "ids_sha256": identity.selection_sha256},
        "sdk": dict(sdk),
        "started_at": started_at,
        "sessions": [],
        "finished_at": None,
    }


def dropped_from(meta: Mapping[str, Any]) -> dict[str, str]:
    """Request fields an earlier session dropped (kept dropped when resuming)."""
    dropped = meta.get("dropped_params")
    if not isinstance(dropped, Mapping):
        return {}
    return {str(k): str(v) for k, v in dropped.items()}
