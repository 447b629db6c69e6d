"""What a library caller imports: each task package's interface in `__all__`, the main
entry points at the top, and `import tfce_eval` still light."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

import tfce_eval
from tfce_eval.scoring.options import MissingMode

PACKAGES = [
    "tfce_eval",
    "tfce_eval.dataset",
    "tfce_eval.scoring",
    "tfce_eval.qa",
    "tfce_eval.retrieval",
    "tfce_eval.run",
    "tfce_eval.report",
    "tfce_eval.verbs",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_there(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None, f"{package}.{name}"
        # A submodule of the same name must not hide the name it exports.
        assert not isinstance(value, types.ModuleType), f"{package}.{name} is a module"
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = module.nothing_here


def test_what_the_documented_functions_take_and_return_is_exported() -> None:
    from tfce_eval.qa import MissingMode as QaMissing
    from tfce_eval.qa import score_predictions

    assert QaMissing is MissingMode
    assert score_predictions.__annotations__["missing"] == "MissingMode"
    from tfce_eval.run import RunConfig, RunResult, run_eval, run_eval_async  # noqa: F401
    from tfce_eval.scoring import (  # noqa: F401
        CheckMode,
        OptionalParams,
        Policy,
        ScoreOptions,
        ScoreResult,
        score_outputs,
    )

    # ScoreOptions's policy is built from the package that takes it.
    options = ScoreOptions(policy=Policy(optional_params=OptionalParams.ANY))
    assert options.policy.optional_params is OptionalParams.ANY


def test_the_top_level_names_each_tasks_entry_points() -> None:
    from tfce_eval import (
        load_dataset,
        load_retrieval,
        load_telco,
        run_eval,
        run_eval_async,
        score_outputs,
        score_predictions,
        score_run,
    )
    from tfce_eval.dataset.load import load_dataset as loader
    from tfce_eval.run.runner import run_eval as runner

    assert load_dataset is loader and run_eval is runner
    assert {"run_eval", "load_telco", "score_run"} <= set(dir(tfce_eval))
    assert all(callable(f) for f in (load_retrieval, load_telco, run_eval_async))
    assert all(callable(f) for f in (score_outputs, score_predictions, score_run))


def test_importing_the_package_imports_no_task() -> None:
    code = (
        "import sys, tfce_eval\n"
        "print(sorted(m for m in sys.modules if m.startswith('tfce_eval')"
        " or m in ('asyncio', 'rich', 'numpy', 'pyarrow', 'openai')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['tfce_eval']"
