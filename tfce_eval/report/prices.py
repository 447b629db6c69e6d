"""What tokens cost: the prices `report --price-in/--price-out` takes, and their bound.

Light on purpose: the command line reads the bound for its options without loading the
report model."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfce_eval.errors import check_number

#: The highest price per million tokens taken: far above any model's, and low enough
#: that no token count a run records makes a cost past a float's range.
MAX_PRICE = 1_000_000.0


@dataclass(frozen=True)
class Prices:
    """USD per million input and output tokens, each from 0 to MAX_PRICE."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0

    def __post_init__(self) -> None:
        check_number(self.input_per_million, "input_per_million", 0, MAX_PRICE)
        check_number(self.output_per_million, "output_per_million", 0, MAX_PRICE)

    def cost(self, tokens: Mapping[str, Any] | None) -> float | None:
        """The cost of `tokens` (a summary's counts); None without counts, or for counts
        no run could have made (a cost past a float's range)."""
        if not tokens:
            return None
        inp, out = tokens.get("input") or 0, tokens.get("output") or 0
        try:
            cost = (inp * self.input_per_million + out * self.output_per_million) / 1_000_000
        except (OverflowError, TypeError):
            return None
        return cost if math.isfinite(cost) else None
