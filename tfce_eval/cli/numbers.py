"""Number options: the ranges click checks, and finiteness, which it does not."""

from __future__ import annotations

import math
from typing import Any

import click


class Finite(click.FloatRange):
    """A FloatRange that also refuses nan and inf (FloatRange lets nan through, and an
    infinite wait is no time limit: say 'none' where an option offers it)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number
