"""Function-calling datasets: finding the files, indexing them, categories, both
ground-truth styles, where the built-in datasets live, and `validate`.

`load_dataset(DIR or "builtin:tfce")` loads one (None: the built-in dataset);
`validate_dataset` lists every problem of one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfce_eval.lazy import lazy_names

if TYPE_CHECKING:
    from tfce_eval.dataset.load import Dataset, load_dataset, scan_dataset
    from tfce_eval.dataset.validate import validate_dataset

__all__ = [
    "Dataset",
    "load_dataset",
    "scan_dataset",
    "validate_dataset",
]

#: The names read from a module of the package when they are first asked for: importing
#: one module of the package never imports the others.
_LAZY = {
    "Dataset": "tfce_eval.dataset.load",
    "load_dataset": "tfce_eval.dataset.load",
    "scan_dataset": "tfce_eval.dataset.load",
    "validate_dataset": "tfce_eval.dataset.validate",
}


__getattr__ = lazy_names(__name__, _LAZY)
