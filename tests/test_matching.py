"""Maximum bipartite matching, from scratch and grown from a partial matching."""

from __future__ import annotations

import random

from tfce_eval.check.matching import complete_matching, max_matching


def _first_fit(table: list[list[bool]]) -> list[int | None]:
    taken: set[int] = set()
    out: list[int | None] = []
    for row in table:
        col = next((c for c, ok in enumerate(row) if ok and c not in taken), None)
        if col is not None:
            taken.add(col)
        out.append(col)
    return out


def _size_by_brute_force(table: list[list[bool]]) -> int:
    import itertools

    rows, cols = len(table), len(table[0]) if table else 0
    best = 0
    for perm in itertools.permutations(range(cols), min(rows, cols)):
        for chosen_rows in itertools.combinations(range(rows), len(perm)):
            best = max(best, sum(table[r][c] for r, c in zip(chosen_rows, perm, strict=True)))
    return best


def _valid(table: list[list[bool]], matching: list[int | None]) -> bool:
    cols = [c for c in matching if c is not None]
    return len(cols) == len(set(cols)) and all(
        table[r][c] for r, c in enumerate(matching) if c is not None
    )


def test_greedy_trap() -> None:
    # Row 0 fits both columns; first fit gives it column 0 and strands row 1.
    table = [[True, True], [True, False]]
    assert _first_fit(table) == [0, None]
    assert max_matching(table) == [1, 0]
    assert complete_matching([0, None], 2, lambda r, c: table[r][c]) == [1, 0]


def test_random_tables_reach_the_maximum() -> None:
    rng = random.Random(3)
    for _ in range(400):
        rows, cols = rng.randint(0, 5), rng.randint(1, 5)
        table = [[rng.random() < 0.4 for _ in range(cols)] for _ in range(rows)]
        best = _size_by_brute_force(table)
        full = max_matching(table)
        grown = complete_matching(_first_fit(table), cols, lambda r, c, t=table: t[r][c])
        for matching in (full, grown):
            assert _valid(table, matching)
            assert sum(c is not None for c in matching) == best


def test_complete_matching_asks_only_what_it_needs() -> None:
    asked: list[tuple[int, int]] = []
    table = [[True, False, False], [False, True, False], [False, False, False]]

    def fits(r: int, c: int) -> bool:
        asked.append((r, c))
        return table[r][c]

    assert complete_matching([0, 1, None], 3, fits) == [0, 1, None]
    assert all(r == 2 for r, _ in asked)  # rows already paired are not asked again
