"""Loads the telecom function library the way the harness does: from its directory, as a
package under a private module name, never through `import functions` on sys.path."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"
PRIVATE_NAME = "_tfce_functions_under_test"


def load_package(path: Path, name: str) -> ModuleType:
    """Import the package at `path` as `name` (registered in sys.modules for its submodules)."""
    spec = importlib.util.spec_from_file_location(
        name, path / "__init__.py", submodule_search_locations=[str(path)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def unload_package(name: str) -> None:
    for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
        del sys.modules[key]


@pytest.fixture(scope="session")
def fn() -> Iterator[ModuleType]:
    """The package; undotted function names are its attributes."""
    module = load_package(FUNCTIONS_DIR, PRIVATE_NAME)
    yield module
    unload_package(PRIVATE_NAME)


@pytest.fixture(scope="session")
def units(fn: ModuleType) -> ModuleType:
    """The `units` module, for dotted names such as `units.dbm_to_watts`."""
    return importlib.import_module(f"{fn.__name__}.units")


@pytest.fixture(scope="session")
def functions_dir() -> Path:
    return FUNCTIONS_DIR


@pytest.fixture(scope="session")
def package_loader() -> tuple[Callable[[Path, str], ModuleType], Callable[[str], None]]:
    """(load, unload) for tests that import the package again under another name."""
    return load_package, unload_package
