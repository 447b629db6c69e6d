"""Where failing items get their questions: the run's dataset, the built-in one, or none.

A report may be made long after the run, on another machine, after an editable install
removed the copy of the built-in dataset the run read. The run recorded its dataset's path
and SHA-256 digest; the questions are taken from the first of these that can be had:
a dataset the user gives (`report --data`), the recorded path, and the built-in dataset
when its digest is the recorded one. Nothing here raises: without a dataset, failures are
shown without their questions, with a note saying why and how to give one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from tfce_eval.dataset.load import Dataset, load_dataset
from tfce_eval.model import Item
from tfce_eval.report.runs import RunView
from tfce_eval.words import counted

GIVE_DATA = "give it with `tfce-eval report --data DIR`"


@dataclass(frozen=True)
class FailureSource:
    """Where failures get their questions: a loaded dataset, or the reason there is none.

    `expected_sha256`: the dataset digest the run recorded; a loaded dataset that differs is
    used all the same, with a note that its questions may not be the ones the model saw.
    """

    dataset: Dataset | None = None
    unavailable: str | None = None
    expected_sha256: str | None = None

    @classmethod
    def for_run(cls, run: RunView) -> FailureSource:
        """The dataset run.json (or the summary) names, else the built-in one if it is that.

        With no dataset recorded at all, the built-in one (the default of every command).
        """
        sha = run.dataset_sha256
        path = run.dataset_path
        recorded = (run.run_info or {}).get("dataset")
        changed = None
        if path is not None:
            changed, problem = _load(path)
            if changed is not None and (not sha or changed.sha256 == sha):
                return cls(dataset=changed, expected_sha256=sha)
        elif isinstance(recorded, dict) and recorded.get("path"):
            # --questions/--answers files: which file is which is not recorded, so no reload.
            problem = "the run's dataset was given as separate files"
        else:
            builtin, problem = _load(None)
            return cls(builtin, f"unavailable, {problem}", sha)
        # The recorded copy is gone or changed (reinstalling tfce-eval removes the installed
        # copy of the built-in dataset): the built-in dataset is the one the run read if the
        # digests agree.
        if sha:
            builtin, _ = _load(None)
            if builtin is not None and builtin.sha256 == sha:
                return cls(dataset=builtin, expected_sha256=sha)
        if changed is not None:
            return cls(dataset=changed, expected_sha256=sha)  # with a note: it changed
        return cls(unavailable=f"unavailable, {problem}; {GIVE_DATA}")

    def for_run_digest(self, run: RunView) -> FailureSource:
        """This source, compared against the digest `run` recorded when it names none."""
        if self.dataset is None or self.expected_sha256 is not None:
            return self
        return replace(self, expected_sha256=run.dataset_sha256)

    def items(self, ids: set[str]) -> tuple[dict[str, Item], str | None]:
        """The items with these ids, and a note when some or all cannot be had."""
        if self.dataset is None:
            return {}, self.unavailable or "unavailable, no dataset was given"
        dataset = self.dataset
        try:
            found = {i.id: i for i in dataset.iter_items(ids=[i for i in ids if i in dataset])}
        except Exception as exc:
            return {}, f"unavailable, could not read the dataset: {exc}"
        where = "the dataset" if dataset.root is None else str(dataset.root)
        note = None
        if self.expected_sha256 and dataset.sha256 != self.expected_sha256:
            note = f"{where} changed since the run; they may differ from those asked"
        elif found.keys() != ids:
            lost = len(ids - found.keys())
            verb = "is" if lost == 1 else "are"
            note = f"{lost} of {counted(len(ids), 'shown item')} {verb} not in {where}"
        return found, note


def _load(path: Path | None) -> tuple[Dataset | None, str]:
    """The dataset at `path` (None: the built-in one), or why it cannot be loaded."""
    where = "the built-in dataset" if path is None else str(path)
    try:
        return load_dataset(path), ""
    # Whatever stops the load (moved, edited, unreadable) must leave the report usable.
    except Exception as exc:
        # The first line only: a loader's own fix names options `report` does not have.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"could not load {where}: {first}"
