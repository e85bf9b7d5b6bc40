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
the puzzle, so they change no answer: they cut the bench's killers from 14,450 nodes to 120 (killers
without givens, ISS's MATHEMAGIC_KILLERS, still take millions with these rows alone).

Rows are kept when ``A`` and ``B`` together have at most ``N`` cells and one of them at most two
(ISS's bounds: larger differences propagate little), once each.

A cage one cell out of a house gives one more (ISS's hidden cages' outies): the house's cells
outside it and outside the cages wholly in the house, less that cell, add up to the house's total
less those cages' sums and its own, kept up to :data:`MAX_OUTIE_ROW` cells. The unions above miss
it where the house holds more than one such cage (MATHEMAGIC #0: 16 of ISS's 30 added sums).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.rules.cages import Cage, disjoint_cages

if TYPE_CHECKING:
    from pipeline.core.puzzle import Puzzle

__all__ = ["implied_rule_rows", "implied_sum_rows"]

#: Innies on one side and outies on the other: a row is kept when one side has at most this many cells.
MAX_SMALL_SIDE = 2
#: A hidden cage's outie row (a cage one cell out of a house) is kept up to this many cells (ISS's ``_MAX_SUM_SIZE``).
MAX_OUTIE_ROW = 6


def _cage_pieces(puzzle: Puzzle, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The cages with a sum, as a ``(cages, cells)`` 0/1 matrix (float: the products below are
    BLAS's) and their sums: the first of overlapping cages only (a cell counted by two cages would
    be counted twice)."""
    cages = [rule for rule in puzzle.rules if isinstance(rule, Cage) and rule.total is not None and rule.cell_list]
    if not cages:
        return np.zeros((0, n_cells)), np.zeros(0, dtype=np.int64)
    lengths = np.array([len(rule.cell_list) for rule in cages])
    cells = np.concatenate([rule.cell_list for rule in cages]).astype(np.int64)
    owner = np.repeat(np.arange(len(cages)), lengths)
    inside = cells < n_cells
    keep = disjoint_cages([np.asarray(rule.cell_list) for rule in cages], n_cells)
    pieces = np.zeros((len(cages), n_cells))
    pieces[owner[inside], cells[inside]] = 1.0
    return pieces[keep], np.array([cages[k].total for k in keep.tolist()], dtype=np.int64)


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
    """``(k, cells)`` 0/1 (float, read-only): each order's unions of its first 1..N-1 houses
    (``grow``), or its houses one by one; made once per set of houses (a third of a killer's
    implied sums was laying them out again for every puzzle)."""
    return _rows_of_houses(np.stack(orders).astype(np.int64, copy=False).tobytes(), len(orders), n, grow)


@functools.lru_cache(maxsize=32)
def _rows_of_houses(houses_bytes: bytes, n_orders: int, n: int, grow: bool) -> np.ndarray:
    houses = np.frombuffer(houses_bytes, dtype=np.int64).reshape(n_orders, n, n)   # (orders, N, N)
    member = np.zeros((n_orders, n, n * n))
    member[np.arange(n_orders)[:, None, None], np.arange(n)[None, :, None], houses] = 1.0
    if grow:   # houses are disjoint: the running sum is the union
        member = np.cumsum(member, axis=1)[:, :-1]
    rows = member.reshape(-1, n * n)
    rows.flags.writeable = False
    return rows


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
    if puzzle.n_values != n:
        return None
    pieces, totals = _cage_pieces(puzzle, n_cells)
    orders = _houses(puzzle, n) if totals.size else None
    if orders is None:
        return None
    values = np.asarray(puzzle.board.value_of[:n], dtype=np.int64)
    house_total = int(values.sum())
    size = pieces.sum(axis=1)
    # innies and outies: a cage joins a growing union once more than half its cells are in it
    unions = _as_rows(orders, n, grow=True)
    joined = (unions @ pieces.T) * 2 > size[None, :]                       # (unions, cages)
    covered = (joined @ pieces) > 0                                          # the joined cages' cells
    unions = unions > 0
    innies, outies = unions & ~covered, covered & ~unions
    houses_in = np.tile(np.arange(1, n), len(orders))
    rhs = joined.astype(np.int64) @ totals - houses_in * house_total
    n_in, n_out = innies.sum(axis=1), outies.sum(axis=1)
    keep = ((n_in + n_out) > 0) & ((n_in + n_out) <= n) & (np.minimum(n_in, n_out) <= MAX_SMALL_SIDE)
    # hidden cages: a house's cells outside the cages wholly in it; distinct digits, so the kernel
    # keeps their digit sets as a cage's (their coefficients are the values: an outie-only row)
    houses = _as_rows(orders, n, grow=False)
    whole = (houses @ pieces.T) == size[None, :]
    rest = (houses > 0) & ~((whole @ pieces) > 0)
    n_rest = rest.sum(axis=1)
    hidden = (n_rest > 0) & (n_rest < n)
    # innies alone: the row negated, so its coefficients are the values (digit sets, as a hidden cage)
    flip = (n_out == 0)[keep]
    innies, outies, rhs = innies[keep], outies[keep], rhs[keep]
    innies, outies, rhs = np.where(flip[:, None], outies, innies), np.where(flip[:, None], innies, outies), np.where(flip, -rhs, rhs)
    # a cage one cell out of a house: the house's rest outside it less that cell (ISS's hidden cages' outies)
    h_of, k_of = np.nonzero(((houses @ pieces.T) == size[None, :] - 1) & (size[None, :] >= 2))
    sticks = rest[h_of] & ~(pieces[k_of] > 0)
    n_stick = sticks.sum(axis=1)
    fit = (n_stick >= 1) & (n_stick + 1 <= MAX_OUTIE_ROW)
    h_of, k_of, sticks = h_of[fit], k_of[fit], sticks[fit]
    out_cell = (pieces[k_of] > 0) & ~(houses[h_of] > 0)
    innies = np.concatenate([innies, np.zeros_like(rest[hidden]), out_cell])
    outies = np.concatenate([outies, rest[hidden], sticks])
    rhs = np.concatenate([rhs, house_total - whole[hidden].astype(np.int64) @ totals,
                          house_total - whole[h_of].astype(np.int64) @ totals - totals[k_of]])
    if not rhs.size:
        return None
    # once each: the same cells on each side and the same sum (rows down and boxes meet on bands);
    # a stable sort of the rows' bytes keeps each one's first
    keys = np.concatenate([np.packbits(innies, axis=1), np.packbits(outies, axis=1),
                           rhs.astype(np.int64)[:, None].view(np.uint8)], axis=1)
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    repeat = np.r_[False, (ordered[1:] == ordered[:-1]).all(axis=1)]
    pick = np.sort(order[~repeat])
    sign = outies[pick].astype(np.int64) - innies[pick].astype(np.int64)          # (rows, cells): +1, -1 or 0
    row_of, cell = np.nonzero(sign)
    digit = np.tile(np.arange(n, dtype=np.int64), row_of.size)
    coef = np.repeat(sign[row_of, cell], n) * values[digit]
    return (np.repeat(row_of, n).astype(np.int64), np.repeat(cell, n).astype(np.int64), digit, coef,
            rhs[pick].astype(np.int64), np.ones(pick.size, dtype=bool))


def implied_rule_rows(puzzle: Puzzle, skip: frozenset[str] = frozenset()) -> tuple[np.ndarray, ...] | None:
    """The rows ``puzzle``'s rules imply and offer (a rule's ``implied_rows``: a global entropy's
    or global mod's at most two digits of a class a window), as :func:`implied_sum_rows` gives its
    rows; None when no rule offers any.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.
    skip : frozenset of str
        Rule kinds whose implied rows are left out (a kernel handler holds them).

    Returns
    -------
    tuple of numpy.ndarray or None
        ``(row, cell, digit, coef)`` per term and ``(rhs, is_equal)`` per row.
    """
    blocks = [block for rule in puzzle.rules if hasattr(rule, "implied_rows") and rule.kind not in skip
              for block in rule.implied_rows(puzzle.board) if block.n_rows]
    if not blocks:
        return None
    starts = np.cumsum([0] + [block.n_rows for block in blocks[:-1]])
    return (np.concatenate([block.row + start for block, start in zip(blocks, starts)]),
            np.concatenate([block.cell for block in blocks]), np.concatenate([block.digit for block in blocks]),
            np.concatenate([block.coef for block in blocks]), np.concatenate([block.rhs for block in blocks]),
            np.concatenate([np.full(block.n_rows, block.sense == "E") for block in blocks]))
