"""Maximum bipartite matching, for order-insensitive checking of parallel calls.

The checker asks "which model call satisfies which expected call"; a greedy pass can pair a
call with the wrong expected call and then fail an item that has a perfect pairing. Kuhn's
augmenting-path algorithm finds a maximum matching; items have a handful of calls, so its
O(V*E) cost is negligible, and it is written iteratively so no input can exhaust the stack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def max_matching(adjacency: Sequence[Sequence[bool]]) -> list[int | None]:
    """Pair rows with columns where `adjacency[row][col]` is true, as many pairs as possible.

    Returns, for each row, the column it is matched to, or None. Deterministic: among
    maximum matchings it prefers low column indices for low rows.
    """
    n_cols = max((len(r) for r in adjacency), default=0)
    return complete_matching(
        [None] * len(adjacency),
        n_cols,
        lambda row, col: col < len(adjacency[row]) and bool(adjacency[row][col]),
    )


def complete_matching(
    start: Sequence[int | None], n_cols: int, fits: Callable[[int, int], bool]
) -> list[int | None]:
    """Grow a partial matching to a maximum one by augmenting paths, asking `fits` lazily.

    `start[row]` is the column already paired with `row` (a first-fit pass, say). Each
    unpaired row is tried once (Kuhn: a row with no augmenting path now never gets one
    later), and only the pairs a search reaches are asked about, so a nearly right answer
    costs a few checks instead of the whole table.
    """
    row_match = list(start)
    col_owner: list[int | None] = [None] * n_cols
    for row, col in enumerate(row_match):
        if col is not None:
            col_owner[col] = row
    for root, col in enumerate(start):
        if col is not None:
            continue
        parent_col: dict[int, int] = {}
        seen: set[int] = set()
        stack: list[tuple[int, int]] = [(root, 0)]
        found: int | None = None
        while stack and found is None:
            row, first = stack[-1]
            for c in range(first, n_cols):
                if c in seen or not fits(row, c):
                    continue
                seen.add(c)
                parent_col[c] = row
                stack[-1] = (row, c + 1)
                owner = col_owner[c]
                if owner is None:
                    found = c
                else:
                    stack.append((owner, 0))
                break
            else:
                stack.pop()
        if found is None:
            continue
        c = found
        while True:
            row = parent_col[c]
            previous = row_match[row]
            row_match[row] = c
            col_owner[c] = row
            if row == root or previous is None:
                break
            c = previous
    return row_match
