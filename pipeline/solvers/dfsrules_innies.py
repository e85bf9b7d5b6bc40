"""Sums that a killer's cages imply over whole houses, for ``dfsrules`` (the "innies and outies" of
killer solving; ISS's optimizer adds the same kind of sums, ``_makeInnieOutieSumHandlers``).

A union of houses (rows, columns, boxes or jigsaw regions: each holds every value once) adds up to
a known total. Grow such a union house by house (rows from the top and from the bottom, columns
from the left and from the right, boxes in order). A cage counts as *in* it once more than half of
its cells are. Then, with ``A`` the union's cells outside those cages (the innies) and ``B`` the
cages' cells outside the union (the outies),

    sum(B) - sum(A) = (the cages' sums) - (the union's total),

one equation over few cells where the cages alone bound each cell loosely. The kernel propagates
it as any linear row (bounds, and digit sets when its cells are distinct). The rows are implied by
the puzzle, so they change no answer: they cut the search of killers without givens (``MATHEMAGIC``
killers of ISS's collection) from millions of nodes.

Rows are kept when ``A`` and ``B`` together have at most ``N`` cells and one of them at most two
(ISS's bounds: larger differences propagate little), once each.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.rules.cages import Cage

if TYPE_CHECKING:
    from pipeline.core.puzzle import Puzzle

__all__ = ["implied_sum_rows"]

#: Houses: the unit families that hold every value once on a square grid.
HOUSE_FAMILIES = ("row", "col", "box", "region")
#: Innies on one side and outies on the other: a row is kept when one side has at most this many cells.
MAX_SMALL_SIDE = 2


def _cage_pieces(puzzle: Puzzle, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The cages with a sum, as a ``(cages, cells)`` boolean matrix, and their sums: the first of
    overlapping cages only (a cell counted by two cages would be counted twice)."""
    taken = np.zeros(n_cells, dtype=bool)
    rows, totals = [], []
    for rule in puzzle.rules:
        if not isinstance(rule, Cage) or rule.total is None:
            continue
        total = rule.total
        cells = np.asarray(rule.cell_list, dtype=np.int64)
        if cells.size == 0 or cells.max() >= n_cells or taken[cells].any():
            continue
        taken[cells] = True
        row = np.zeros(n_cells, dtype=bool)
        row[cells] = True
        rows.append(row)
        totals.append(int(total))
    if not rows:
        return np.zeros((0, n_cells), dtype=bool), np.zeros(0, dtype=np.int64)
    return np.array(rows), np.array(totals, dtype=np.int64)


def _houses(puzzle: Puzzle, n: int) -> list[np.ndarray] | None:
    """Each order of houses as an ``(N, N)`` array of cells: rows down and up, columns right and
    left, boxes or regions in order; None when they are not the square grid's rows, columns and
    boxes of ``N`` cells each."""
    families = dict(puzzle.unit_families())
    if puzzle.layout is not None or puzzle.is_rect or "row" not in families or "col" not in families:
        return None
    orders = [families["row"], families["row"][::-1], families["col"], families["col"][::-1]]
    orders += [families[name] for name in ("box", "region") if name in families]
    return None if any(houses.shape != (n, n) for houses in orders) else orders


def _as_rows(orders: list[np.ndarray], n: int, grow: bool) -> np.ndarray:
    """``(k, cells)`` boolean: each order's unions of its first 1..N-1 houses (``grow``), or its
    houses one by one."""
    out = []
    for houses in orders:
        member = np.zeros((n, n * n), dtype=bool)
        member[np.arange(n)[:, None], houses] = True
        out.append(np.logical_or.accumulate(member, axis=0)[:-1] if grow else member)
    return np.concatenate(out)


def implied_sum_rows(puzzle: Puzzle) -> tuple[np.ndarray, ...] | None:
    """The implied sums of ``puzzle``'s cages (module docstring), as rule rows: ``(row, cell,
    digit, coef)`` per term (rows numbered from 0, every digit of every cell) and ``(rhs,
    is_equal)`` per row; None when there are none (no cage with a sum, or houses that do not hold
    every value once).

    Parameters
    ----------
    puzzle : Puzzle
        A square grid (no layout), its rules.

    Returns
    -------
    tuple of numpy.ndarray or None
    """
    n, n_cells = puzzle.n, puzzle.n * puzzle.n
    if not any(rule.kind == "cage" for rule in puzzle.rules) or puzzle.n_values != n:
        return None
    pieces, totals = _cage_pieces(puzzle, n_cells)
    orders = _houses(puzzle, n) if totals.size else None
    if orders is None:
        return None
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    house_total = int(values.sum())
    as_int = pieces.T.astype(np.int64)
    size = pieces.sum(axis=1)
    # innies and outies: a cage joins a growing union once more than half its cells are in it
    unions = _as_rows(orders, n, grow=True)
    joined = (unions.astype(np.int64) @ as_int) * 2 > size[None, :]          # (unions, cages)
    covered = (joined.astype(np.int64) @ pieces.astype(np.int64)) > 0         # the joined cages' cells
    innies, outies = unions & ~covered, covered & ~unions
    houses_in = np.tile(np.arange(1, n), len(orders))
    rhs = joined.astype(np.int64) @ totals - houses_in * house_total
    n_in, n_out = innies.sum(axis=1), outies.sum(axis=1)
    keep = ((n_in + n_out) > 0) & ((n_in + n_out) <= n) & (np.minimum(n_in, n_out) <= MAX_SMALL_SIDE)
    # hidden cages: a house's cells outside the cages wholly in it; distinct digits, so the kernel
    # keeps their digit sets as a cage's (their coefficients are the values: an outie-only row)
    houses = _as_rows(orders, n, grow=False)
    whole = (houses.astype(np.int64) @ as_int) == size[None, :]
    rest = houses & ~((whole.astype(np.int64) @ pieces.astype(np.int64)) > 0)
    n_rest = rest.sum(axis=1)
    hidden = (n_rest > 0) & (n_rest < n)
    # innies alone: the row negated, so its coefficients are the values (digit sets, as a hidden cage)
    flip = (n_out == 0)[keep]
    innies, outies, rhs = innies[keep], outies[keep], rhs[keep]
    innies, outies, rhs = np.where(flip[:, None], outies, innies), np.where(flip[:, None], innies, outies), np.where(flip, -rhs, rhs)
    innies = np.concatenate([innies, np.zeros_like(rest[hidden])])
    outies = np.concatenate([outies, rest[hidden]])
    rhs = np.concatenate([rhs, house_total - whole[hidden].astype(np.int64) @ totals])
    # once each: the same cells on each side and the same sum (rows down and boxes meet on bands)
    seen: set[bytes] = set()
    chosen = []
    for k in range(rhs.size):
        key = np.packbits(innies[k]).tobytes() + np.packbits(outies[k]).tobytes() + int(rhs[k]).to_bytes(8, "little", signed=True)
        if key not in seen:
            seen.add(key)
            chosen.append(k)
    if not chosen:
        return None
    pick = np.array(chosen, dtype=np.int64)
    sign = outies[pick].astype(np.int64) - innies[pick].astype(np.int64)          # (rows, cells): +1, -1 or 0
    row_of, cell = np.nonzero(sign)
    digit = np.tile(np.arange(n, dtype=np.int64), row_of.size)
    coef = np.repeat(sign[row_of, cell], n) * values[digit]
    return (np.repeat(row_of, n).astype(np.int64), np.repeat(cell, n).astype(np.int64), digit, coef,
            rhs[pick].astype(np.int64), np.ones(pick.size, dtype=bool))
