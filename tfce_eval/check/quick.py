"""Yes/no comparisons of scalars and flat objects under their declared kinds (docs/checking.md
5.3, 5.4).

They answer "equal or not" without coercing through the general rules or building a
mismatch, for the cases that need neither; None means "ask the full rules" (`typecheck`).
The checker's yes/no pass (`fastcheck`) and the order-only analysis of arrays use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tfce_eval.schema.equality import is_number, numbers_equal, strings_equal
from tfce_eval.schema.kinds import SCALARS, Kind, MatchOptions, is_mapping, kind_of


def scalar_verdict(kind: Kind, want: Any, got: Any, options: MatchOptions) -> bool | None:
    """One expected scalar against one received value of a scalar kind, yes or no, without
    building a mismatch; None means "use the full rules" (coercion, generic comparison)."""
    if kind is Kind.STRING:
        if type(want) is not str:
            return None
        if type(got) is not str:
            return None if options.coerce_strings else False
        return want == got or strings_equal(want, got, strict=options.strict_strings)
    if kind is Kind.BOOLEAN:
        if type(want) is not bool:
            return None
        if type(got) is not bool:
            return None if options.coerce_strings else False
        return want == got
    if not is_number(want):
        return None
    if not is_number(got):
        return None if options.coerce_strings else False
    if kind is Kind.INTEGER and (
        (type(got) is float and not got.is_integer()) or (type(want) is float)
    ):
        return None if type(want) is float else False
    return want == got or numbers_equal(want, got, options.rel_tol)


def object_verdict(
    schema: Mapping[str, Any] | None,
    values: tuple[Any, ...],
    got: dict[str, Any],
    options: MatchOptions,
) -> bool | None:
    """An object against its acceptable values, when its declared members are scalars,
    member by member with `scalar_verdict`; None means "use the full rules"."""
    props = schema.get("properties") if schema is not None else None
    if not is_mapping(props):
        return None
    present = {k for k, v in got.items() if v is not None}
    for want in values:
        if type(want) is not dict:
            return None
        if {k for k, v in want.items() if v is not None} != present:
            continue
        verdict = scalars_verdict(
            ((kind_of(props.get(key)), want[key], got[key]) for key in present), options
        )
        if verdict is not False:
            return verdict
    return None if not values else False


def scalars_verdict(triples: Iterable[tuple[Kind, Any, Any]], options: MatchOptions) -> bool | None:
    """`scalar_verdict` over (kind, expected, received) triples: True when all agree, False
    at the first difference, None when one needs the full rules (or is not a scalar)."""
    for kind, want, got in triples:
        if kind not in SCALARS:
            return None
        verdict = scalar_verdict(kind, want, got, options)
        if verdict is not True:
            return verdict
    return True
