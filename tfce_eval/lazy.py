"""Names a package gives without importing their modules until they are first asked for.

Each package's `__init__` lists its names once for type checkers (under TYPE_CHECKING) and
once here, name -> module (PEP 562): importing one module of a package never imports the
others. (The root package writes its own out: importing it imports no other module.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: each of `names` read from its module when
    first asked for; AttributeError for any other name."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib  # here: importing the package alone needs none of this

        return getattr(importlib.import_module(module), name)

    return __getattr__
