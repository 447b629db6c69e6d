"""Outputs to score records and summary.json: scoring options, the summary, and the
files of a run directory.

`score_outputs(OUTPUTS, dataset, ScoreOptions(...), out_dir)` scores a function-calling
outputs file (`out_dir` None: in memory, nothing written); `Policy` (with
`OptionalParams`) is how strictly its answers are checked, `ScoreOptions(policy=...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfce_eval.lazy import lazy_names

if TYPE_CHECKING:
    from tfce_eval.model import OptionalParams, Policy
    from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions
    from tfce_eval.scoring.score import ScoreResult, score_outputs

__all__ = [
    "CheckMode",
    "MissingMode",
    "OptionalParams",
    "Policy",
    "ScoreOptions",
    "ScoreResult",
    "score_outputs",
]

#: The names read from a module of the package when they are first asked for: importing
#: one module of the package never imports the others.
_LAZY = {
    "CheckMode": "tfce_eval.scoring.options",
    "MissingMode": "tfce_eval.scoring.options",
    "OptionalParams": "tfce_eval.model",
    "Policy": "tfce_eval.model",
    "ScoreOptions": "tfce_eval.scoring.options",
    "ScoreResult": "tfce_eval.scoring.score",
    "score_outputs": "tfce_eval.scoring.score",
}


__getattr__ = lazy_names(__name__, _LAZY)
