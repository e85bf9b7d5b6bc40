"""A model's rule terms as the ``dfsrules`` kernel's pair tables and linear rows
(:func:`core_tables`): each row over one cell narrows its start candidates, the rows over two cells
and the at-most-one rows become one table per cell pair, the other rows (three cells or more) stay
linear rows, with each cell's arcs and rows.

Two builders give the same arrays: :func:`core_tables_numpy`, in vectorised numpy steps (any
shape), and the compiled one (:mod:`pipeline.solvers.dfsrules_tables_kernel`, through the kernel's
machine code), which does in one pass what the numpy steps do in about forty calls of a few
microseconds each (on a simple 9x9, 0.2-0.4 ms of its 0.5-1 ms). :func:`core_tables` picks the
compiled one where its table of cell pairs fits (:data:`MAX_MARKED_KEYS`) and the kernel is there;
a test holds the two to the same output on random rows.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline.core.rules.rowblocks import distinct_small_ints, pairs_within, run_starts
from pipeline.solvers.dfs import ShapeTables

__all__ = ["DECIDED_ONLY", "LAYOUT", "MASK_INTERSECTIONS", "MAX_AMO_TERMS", "MAX_MARKED_KEYS", "CoreTables", "by_cell", "line_cells", "per_shape", "core_tables", "core_tables_numpy",
           "equal_only", "exclusion_groups", "masks_of", "shared_tables", "starts_of", "term_pairs", "unit_masks"]

#: An at-most-one row of up to this many terms becomes pair exclusions (k (k - 1) / 2 pairs).
MAX_AMO_TERMS = 32
#: Cell pairs are numbered through a table of every pair key up to this many keys (``cells ** 2``),
#: by sorting beyond; the compiled builder takes the shapes within it (grids up to 22x22).
MAX_MARKED_KEYS = 1 << 18
#: The compiled builder's header: sizes, then where each output and scratch section of its ``out``
#: starts, then the counts it writes (:func:`pipeline.solvers.dfsrules_tables_kernel.core_tables`
#: reads the slots in this order).
LAYOUT = ("T", "R", "n", "cells", "max_pairs", "max_amo",
          "keys", "arc_ptr", "arc_other", "arc_table", "lin_ptr", "term_cell", "term_coef", "lin_rhs", "lin_eq",
          "cell_lin_ptr", "cell_lin", "term_order",
          "terms_in", "not_one", "repeated", "first_term", "count", "first", "g_cell", "coef", "slot",
          "pair_list", "bucket", "n_pairs", "n_lin", "n_lin_terms", "infeasible")
_SECTIONS = LAYOUT[LAYOUT.index("keys"):LAYOUT.index("n_pairs")]   # where each section starts


@dataclass(frozen=True)
class CoreTables:
    """The pair tables and linear rows of a model's rule terms.

    ``allowed``: each cell's start digits (``uint64`` masks); ``infeasible``: a row that no grid
    satisfies; ``keys``: the cell pairs with a table (``a * cells + b``, ``a < b``, sorted);
    ``compat``: table ``2p`` (b's digits each digit of a allows) then ``2p + 1`` (a's each digit of
    b allows), ``n`` masks each; ``arc_ptr``/``arc_other``/``arc_table``: each cell's arcs;
    ``lin_ptr``, ``term_cell``, ``term_coef`` (``(terms, n)``), ``lin_rhs``, ``lin_eq``: the
    linear rows; ``cell_lin_ptr``/``cell_lin``: each cell's linear rows; ``term_order``: each
    term's coefficients rising (1), falling (-1) or neither (0) over its digits."""

    allowed: np.ndarray
    infeasible: bool
    keys: np.ndarray
    compat: np.ndarray
    arc_ptr: np.ndarray
    arc_other: np.ndarray
    arc_table: np.ndarray
    lin_ptr: np.ndarray
    term_cell: np.ndarray
    term_coef: np.ndarray
    lin_rhs: np.ndarray
    lin_eq: np.ndarray
    cell_lin_ptr: np.ndarray
    cell_lin: np.ndarray
    term_order: np.ndarray


def masks_of(allowed: np.ndarray) -> np.ndarray:
    """``(..., n)`` booleans -> ``(...,)`` ``uint64`` masks (bit d for entry d), ``n <= 64``:
    a product with the bits (distinct bits add as they or) for few digits, packed bytes for more.

    Parameters
    ----------
    allowed : numpy.ndarray
        Booleans, the digits last.

    Returns
    -------
    numpy.ndarray
    """
    n = allowed.shape[-1]
    if n <= 16:
        return allowed.astype(np.uint64) @ np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
    packed = np.packbits(allowed, axis=-1, bitorder="little")
    out = np.zeros(allowed.shape[:-1] + (8,), dtype=np.uint8)
    out[..., :packed.shape[-1]] = packed
    return out.view(np.dtype("<u8"))[..., 0].astype(np.uint64)


def term_pairs(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(i, j)``, ``i < j``, of the entries ``first[r] .. first[r] + count[r] - 1`` of
    each row ``r``, with the row ``r`` of each pair: one vectorised step per distinct ``count``.

    The pairs come grouped by ``count``, not in row order: a caller that needs each pair's row
    reads it from the third array (issue 34: counting pairs off in row order gave a row of one
    length the pairs of another, and a little killer's diagonal, whose digits may repeat, the
    digit sets of a cage of distinct digits).

    Parameters
    ----------
    first, count : numpy.ndarray
        Each row's first entry and its number of entries.

    Returns
    -------
    tuple of numpy.ndarray
        ``(i, j, row)``.
    """
    out_i, out_j, out_r = [], [], []
    for k in distinct_small_ints(count):
        rows = np.flatnonzero(count == k)
        these = first[rows]
        i, j = pairs_within(int(k))
        out_i.append((these[:, None] + i[None, :]).ravel())
        out_j.append((these[:, None] + j[None, :]).ravel())
        out_r.append(np.repeat(rows, i.size))
    if not out_i:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    if len(out_i) == 1:   # rows of one length (an anti-king's or a Kropki's pairs): no copies
        return out_i[0], out_j[0], out_r[0].astype(np.int64, copy=False)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_r).astype(np.int64)


def by_cell(cell: np.ndarray, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Entries grouped by their cell, as the kernel reads each cell's arcs, rows and lines:
    ``(ptr, order)``, cell ``c``'s entries at ``order[ptr[c]:ptr[c + 1]]`` (in their order).

    Parameters
    ----------
    cell : numpy.ndarray
        Each entry's cell.
    n_cells : int
        Cells (or other owners) in all.

    Returns
    -------
    tuple of numpy.ndarray
    """
    ptr = np.concatenate([[0], np.cumsum(np.bincount(cell, minlength=n_cells))]).astype(np.int64)
    return ptr, np.argsort(cell, kind="stable")


def line_cells(cell_lists: list, n_cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lines of any lengths as a line handler's tables: where each line's cells start, the cells
    in order (flat), and each cell's lines (:func:`by_cell`).

    Parameters
    ----------
    cell_lists : list of sequence of int
        Each line's cells, in order.
    n_cells : int
        The grid's cells.

    Returns
    -------
    tuple of numpy.ndarray
        ``(ptr, cells, cell_ptr, cell_lines)``, ``int64``: line ``k``'s cells at
        ``cells[ptr[k]:ptr[k + 1]]``, cell ``c``'s lines at ``cell_lines[cell_ptr[c]:cell_ptr[c + 1]]``.

    Examples
    --------
    >>> ptr, cells, cell_ptr, cell_lines = line_cells([[0, 1], [1, 3, 2]], 4)
    >>> ptr.tolist(), cells.tolist(), cell_ptr.tolist(), cell_lines.tolist()
    ([0, 2, 5], [0, 1, 1, 3, 2], [0, 1, 3, 4, 5], [0, 0, 1, 1, 1])
    """
    if not cell_lists:   # no line (most puzzles, for each handler): no numpy steps (10 us a call)
        z = np.zeros(0, dtype=np.int64)
        return np.zeros(1, dtype=np.int64), z, np.zeros(n_cells + 1, dtype=np.int64), z
    sizes = np.array([len(cells) for cells in cell_lists], dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cells = np.array([c for line in cell_lists for c in line], dtype=np.int64)
    owner = np.repeat(np.arange(len(cell_lists), dtype=np.int64), sizes)
    cell_ptr, order = by_cell(cells, n_cells)
    return ptr, cells, cell_ptr, owner[order]


def starts_of(count: np.ndarray) -> np.ndarray:
    """Where each of the consecutive blocks of sizes ``count`` starts.

    Parameters
    ----------
    count : numpy.ndarray
        The blocks' sizes.

    Returns
    -------
    numpy.ndarray
    """
    return np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)


def core_tables(row: np.ndarray, cell: np.ndarray, digit: np.ndarray, value: np.ndarray, rhs: np.ndarray,
                eq: np.ndarray, n: int, units: ShapeTables, kernel: object | None = None) -> CoreTables:
    """The pair tables and linear rows of rule terms sorted by (row, cell, digit): compiled where
    the kernel is there and the shape's pair keys fit, :func:`core_tables_numpy` elsewhere.

    Parameters
    ----------
    row, cell, digit, value : numpy.ndarray
        Each term's row, cell, 0-based digit and coefficient (``int64``), sorted.
    rhs, eq : numpy.ndarray
        Each row's right-hand side (``int64``) and ``=`` flag (``bool``).
    n : int
        Digits.
    units : ShapeTables
        The shape's tables (which cells share a unit).
    kernel : RulesKernel, optional
        :func:`pipeline.solvers.dfsrules_native.load`'s kernel (None: the numpy builder).

    Returns
    -------
    CoreTables
    """
    n_cells = n * n
    if kernel is None or n_cells * n_cells > MAX_MARKED_KEYS:
        return core_tables_numpy(row, cell, digit, value, rhs, eq, n, units)
    n_terms, n_rows = int(row.size), int(rhs.size)
    max_pairs = min(n_cells * (n_cells - 1) // 2, n_terms * (MAX_AMO_TERMS - 1) // 2 + n_rows)
    sizes = (max_pairs, n_cells + 1, 2 * max_pairs, 2 * max_pairs, n_rows + 1, n_terms, n_terms * n, n_rows,
             n_rows, n_cells + 1, n_terms, n_terms, n_rows, n_rows, n_rows, n_rows, n_rows, n_rows, n_terms,
             n_terms * n, n_cells * n_cells, max_pairs, n_cells + 1)
    at = list(itertools.accumulate(sizes, initial=len(LAYOUT)))   # each section's start, then the end
    out = np.empty(at[-1], dtype=np.int64)   # the slots need no zeros (a sparse set), the rest is written first
    out[:LAYOUT.index("n_pairs")] = (n_terms, n_rows, n, n_cells, max_pairs, MAX_AMO_TERMS, *at[:-1])
    masks = np.empty(n_cells + 2 * max_pairs * n, dtype=np.uint64)
    terms = np.empty((4, n_terms), dtype=np.int64)
    terms[0], terms[1], terms[2], terms[3] = row, cell, digit, value
    rows = np.empty((2, n_rows), dtype=np.int64)
    rows[0], rows[1] = rhs, eq
    if kernel.core_tables(terms, rows, units.unit_pairs, units.full, out, masks) != 0:   # type: ignore[attr-defined]
        return core_tables_numpy(row, cell, digit, value, rhs, eq, n, units)
    n_pairs, n_lin, n_lin_terms, infeasible = out[LAYOUT.index("n_pairs"):len(LAYOUT)].tolist()
    # the sections, in LAYOUT's order from "keys": at[0] keys, at[1] arc_ptr, ...
    return CoreTables(
        masks[:n_cells], bool(infeasible), out[at[0]:at[0] + n_pairs], masks[n_cells:n_cells + 2 * n_pairs * n],
        out[at[1]:at[1] + n_cells + 1], out[at[2]:at[2] + 2 * n_pairs], out[at[3]:at[3] + 2 * n_pairs],
        out[at[4]:at[4] + n_lin + 1], out[at[5]:at[5] + n_lin_terms],
        out[at[6]:at[6] + n_lin_terms * n].reshape(n_lin_terms, n), out[at[7]:at[7] + n_lin],
        out[at[8]:at[8] + n_lin] != 0, out[at[9]:at[9] + n_cells + 1], out[at[10]:at[10] + n_lin_terms],
        out[at[11]:at[11] + n_lin_terms])


def core_tables_numpy(row: np.ndarray, cell: np.ndarray, digit: np.ndarray, value: np.ndarray, rhs: np.ndarray,
                      eq: np.ndarray, n: int, units: ShapeTables) -> CoreTables:
    """:func:`core_tables` in numpy steps (any shape; the compiled builder is held to it).

    Parameters
    ----------
    row, cell, digit, value, rhs, eq : numpy.ndarray
        As :func:`core_tables` takes them.
    n : int
        Digits.
    units : ShapeTables
        The shape's tables.

    Returns
    -------
    CoreTables
    """
    n_cells = n * n
    n_rows = int(rhs.size)
    full = np.uint64((1 << n) - 1)
    allowed_cells = np.full(n_cells, full, dtype=np.uint64)
    key = (row * n_cells + cell) * n + digit
    twice = key[1:] == key[:-1]
    repeated = np.zeros(n_rows, dtype=bool)
    repeated[row[1:][twice]] = True   # a term twice: summed on the general path
    terms_in = np.bincount(row, minlength=n_rows)
    not_one = np.bincount(row, weights=value != 1, minlength=n_rows)
    # at-most-one rows (coefficients 1, <= 1: a cage's distinct digits, anti-knight, Kropki, XV,
    # whispers, ...): the pairs of their terms on two cells exclude each other
    amo = (~eq & (rhs == 1) & (not_one == 0) & ~repeated & (terms_in >= 2) & (terms_in <= MAX_AMO_TERMS))
    first_term = starts_of(terms_in)
    ti, tj, _ = term_pairs(first_term[amo], terms_in[amo])
    apart = cell[ti] != cell[tj]
    ex_a, ex_da, ex_b, ex_db = cell[ti[apart]], digit[ti[apart]], cell[tj[apart]], digit[tj[apart]]
    # every other row by (row, cell) groups: the coefficient over the cell's digits
    general = ~amo & (terms_in > 0)
    t = np.flatnonzero(general[row])
    gkey = row[t] * n_cells + cell[t]
    new_group = run_starts(gkey)
    g_of = np.cumsum(new_group) - 1
    coef = np.zeros((int(new_group.sum()), n), dtype=np.int64)
    if twice.any():
        np.add.at(coef, (g_of, digit[t]), value[t])
    else:   # each (group, digit) once
        coef[g_of, digit[t]] = value[t]
    g_row, g_cell = row[t][new_group], cell[t][new_group]
    count = np.bincount(g_row, minlength=n_rows)
    first = starts_of(count)
    # a row with no term left (none at all, or no coefficient on any digit) holds only when 0 fits it
    infeasible = bool(np.any(np.where(eq, rhs != 0, rhs < 0) & ((terms_in == 0) | (general & (count == 0)))))
    # rows of one cell: the cell's start candidates
    ones = np.flatnonzero(count == 1)
    if ones.size:
        g = first[ones]
        ok = np.where(eq[ones, None], coef[g] == rhs[ones, None], coef[g] <= rhs[ones, None])
        keep = np.ones((n_cells, n), dtype=bool)   # a digit stays where every row of its cell allows it
        bad_row, bad_digit = np.nonzero(~ok)
        keep[g_cell[g][bad_row], bad_digit] = False
        allowed_cells = masks_of(keep)
    # rows of two cells: their table of digit pairs
    twos = np.flatnonzero(count == 2)
    ga, gb = first[twos], first[twos] + 1
    lin = np.flatnonzero(count > 2)
    # one table per cell pair (every row on it together), as the digits each digit forbids
    swap = ex_a > ex_b
    ex_a, ex_b = np.where(swap, ex_b, ex_a), np.where(swap, ex_a, ex_b)
    ex_da, ex_db = np.where(swap, ex_db, ex_da), np.where(swap, ex_da, ex_db)
    pair_key = np.concatenate([ex_a * n_cells + ex_b, g_cell[ga] * n_cells + g_cell[gb]])
    compat = np.zeros(0, dtype=np.uint64)
    keys_p = arc_other = arc_table = np.zeros(0, dtype=np.int64)
    arc_ptr = np.zeros(n_cells + 1, dtype=np.int64)
    if pair_key.size:
        if n_cells * n_cells <= MAX_MARKED_KEYS:   # the sorted distinct keys and each key's slot
            marked = np.zeros(n_cells * n_cells, dtype=bool)
            marked[pair_key] = True
            keys_p = np.flatnonzero(marked)
            # each key's slot through an uninitialised lookup (only the marked keys are read):
            # a cumulative sum over all n_cells**2 keys was 25 us of a 9x9's tables
            lookup = np.empty(n_cells * n_cells, dtype=np.int64)
            lookup[keys_p] = np.arange(keys_p.size)
            slot = lookup[pair_key]
        else:
            keys_p, slot = np.unique(pair_key, return_inverse=True)
            slot = slot.ravel()
        a, b = keys_p // n_cells, keys_p % n_cells
        n_pairs = int(a.size)
        # forbidden[p, d, e]: a's digit d and b's digit e may not stand together (set, so repeats are fine)
        forbidden = np.zeros((n_pairs, n, n), dtype=bool)
        s_ex, s_two = slot[:ex_a.size], slot[ex_a.size:]
        forbidden[s_ex, ex_da, ex_db] = True
        # a pair in one unit never holds equal digits: in its table too, so a cell's arcs keep
        # only what the rule and the unit allow together (XV 568 -> 244 nodes, renban 4,738 -> 2,516)
        same_unit = np.flatnonzero(units.share_unit(a, b))
        if same_unit.size:
            digits = np.arange(n)
            forbidden[same_unit[:, None], digits, digits] = True
        if twos.size:   # the digit pairs each two-cell row forbids, or-ed over the rows of each pair
            by_slot = np.argsort(s_two, kind="stable")
            twos, ga, gb, s_two = twos[by_slot], ga[by_slot], gb[by_slot], s_two[by_slot]
            total = coef[ga][:, :, None] + coef[gb][:, None, :]
            limit = rhs[twos][:, None, None]
            bad = total > limit
            equal = eq[twos]
            if equal.any():
                bad[equal] = total[equal] != limit[equal]
            starts = np.flatnonzero(run_starts(s_two))
            forbidden[s_two[starts]] |= np.logical_or.reduceat(bad, starts, axis=0)
        forbid_ab = masks_of(forbidden)   # b's digits that a's digit d forbids
        forbid_ba = masks_of(np.swapaxes(forbidden, 1, 2))
        forward, backward = full & ~forbid_ab, full & ~forbid_ba
        compat = np.ascontiguousarray(np.stack([forward, backward], axis=1).reshape(-1))
        source = np.concatenate([a, b])
        other = np.concatenate([b, a])
        table = np.concatenate([2 * np.arange(n_pairs), 2 * np.arange(n_pairs) + 1])
        arc_ptr, order = by_cell(source, n_cells)
        arc_other, arc_table = other[order], table[order]
    # linear rows: their groups are contiguous
    lin_count = count[lin]
    terms = (first[lin][:, None] + np.arange(int(lin_count.max(initial=0)))[None, :])
    terms = terms[np.arange(terms.shape[1])[None, :] < lin_count[:, None]]
    lin_ptr = np.concatenate([[0], np.cumsum(lin_count)]).astype(np.int64)
    term_cell = g_cell[terms]
    term_row = np.repeat(np.arange(lin.size), lin_count)
    cell_lin_ptr, order = by_cell(term_cell, n_cells)
    term_coef = coef[terms]
    # each term's coefficients in digit order (1 rising, -1 falling, 0 neither): the kernel reads
    # its least and greatest coefficient at the lowest and highest candidate instead of looping
    step = np.diff(term_coef, axis=1) if terms.size else np.zeros((0, n - 1), dtype=np.int64)
    term_order = np.where((step >= 0).all(axis=1), 1, np.where((step <= 0).all(axis=1), -1, 0))
    return CoreTables(allowed_cells, infeasible, keys_p, compat, arc_ptr, arc_other, arc_table, lin_ptr, term_cell,
                      term_coef, rhs[lin], eq[lin], cell_lin_ptr, term_row[order], term_order)


def exclusion_groups(units: ShapeTables, lin_ptr: np.ndarray, term_cell: np.ndarray, term_coef: np.ndarray,
                     has_sets: np.ndarray) -> np.ndarray:
    """Each linear-row term's exclusion group, named by the group's first term (-1 for every term
    of a row without a group of two or more): in a row without digit sets, terms whose cells lie
    in one unit and whose coefficient vectors are one and the same, strictly monotone in the
    digit, take distinct coefficients, so the group is bounded by its union's least and greatest
    (a little killer's cells in one box, an arrow's in one row). Each term joins the unit that
    holds most of its row's terms of its vector (the first such unit of the cell on a tie); all
    rows at once.

    Parameters
    ----------
    units : ShapeTables
        The shape's tables (each cell's units).
    lin_ptr, term_cell : numpy.ndarray
        The rows' term ranges and each term's cell.
    term_coef : numpy.ndarray
        ``(terms, n)``: each term's coefficient per digit.
    has_sets : numpy.ndarray
        Per row, whether it has digit sets (a sum of distinct digits: left as it is).

    Returns
    -------
    numpy.ndarray
        ``int64`` per term.
    """
    group = np.full(term_cell.size, -1, dtype=np.int64)
    count = np.diff(lin_ptr)
    open_rows = ~has_sets & (count >= 2)
    if not open_rows.any():
        return group
    term_row = np.repeat(np.arange(count.size), count)
    steps = np.diff(term_coef, axis=1)
    strict = (steps > 0).all(axis=1) | (steps < 0).all(axis=1)
    terms = np.flatnonzero(strict & open_rows[term_row])
    if terms.size < 2:
        return group
    coef = term_coef[terms]
    # a number per coefficient vector (a hash; members that differ from their first are checked out below)
    vector = (coef.astype(np.uint64) * _VECTOR_HASH[:coef.shape[1]]).sum(axis=1) >> np.uint64(40)
    n_units = units.units.shape[0]
    homes = units.cell_units[term_cell[terms]]                     # (terms, units a cell is in), padded with n_units
    key = ((term_row[terms][:, None] * (n_units + 1) + homes) << 24) + vector[:, None].astype(np.int64)
    _, at, size = np.unique(key, return_inverse=True, return_counts=True)
    size = np.where(homes < n_units, size[at.reshape(key.shape)], 0)
    chosen = key[np.arange(terms.size), np.argmax(size, axis=1)]
    _, first, joined, members = np.unique(chosen, return_index=True, return_inverse=True, return_counts=True)
    joined = joined.reshape(-1)
    leader = first[joined]                                          # the group's first term (terms are sorted)
    in_group = (members[joined] >= 2) & (coef == coef[leader]).all(axis=1)
    in_group &= in_group[leader]
    if not in_group.any():
        return group
    for_rows = np.zeros(count.size, dtype=bool)
    for_rows[term_row[terms[in_group]]] = True
    ours = for_rows[term_row]
    group[ours] = np.flatnonzero(ours)                              # the rest of such a row: groups of one
    group[terms[in_group]] = terms[leader[in_group]]
    return group


#: Odd 64-bit multipliers of a coefficient vector's hash (:func:`exclusion_groups`).
_VECTOR_HASH = (np.arange(1, 2 * 64 + 2, 2, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def per_shape(cache: dict, units: ShapeTables, make: Callable[[ShapeTables], Any]) -> Any:
    """``make(units)`` once per shape: ``cache`` maps ``id(units)`` to ``(units, value)``, the
    identity checked (an id may be reused once a shape's tables are gone), at most 64 shapes
    kept (:func:`unit_masks`, :func:`pipeline.solvers.dfsrules_pointing.house_intersections`).

    Parameters
    ----------
    cache : dict
        The caller's cache.
    units : ShapeTables
        The shape's tables.
    make : callable
        Builds the value from ``units``.

    Returns
    -------
    object
        The value.
    """
    cached = cache.get(id(units))
    if cached is not None and cached[0] is units:
        return cached[1]
    value = make(units)
    if len(cache) >= 64:
        cache.clear()
    cache[id(units)] = (units, value)
    return value


#: :func:`unit_masks` by shape (:func:`per_shape`).
_UNIT_MASKS: dict[int, tuple[ShapeTables, np.ndarray]] = {}


def unit_masks(units: ShapeTables) -> np.ndarray:
    """Each cell's units as one mask (bit ``u``: unit ``u``), as ``int64``, where the shape has up
    to 64 units (zeros above: the kernel keeps a flag per unit there). Made once per shape
    (read-only): every record's tables asked for it again (30 us a 9x9).

    Parameters
    ----------
    units : ShapeTables
        The shape's tables.

    Returns
    -------
    numpy.ndarray
    """
    return per_shape(_UNIT_MASKS, units, _read_only_unit_masks)


def _read_only_unit_masks(units: ShapeTables) -> np.ndarray:
    masks = _unit_masks(units)
    masks.flags.writeable = False
    return masks


def _unit_masks(units: ShapeTables) -> np.ndarray:
    n_cells = units.cell_units.shape[0]
    masks = np.zeros(n_cells, dtype=np.uint64)
    if units.units.shape[0] <= 64:
        real = np.arange(units.cell_units.shape[1]) < units.n_cell_units[:, None]
        bits = np.where(real, np.left_shift(np.uint64(1), np.maximum(units.cell_units, 0).astype(np.uint64)),
                        np.uint64(0))
        masks = np.bitwise_or.reduce(bits, axis=1)
    return masks.view(np.int64)


#: :func:`shared_tables`' value for a cell whose arcs all take nothing unless it is decided.
DECIDED_ONLY = -2

#: Up to this many houses' intersections, each cell's are one mask (bit ``i``: intersection ``i``;
#: :mod:`pipeline.solvers.dfsrules_locked`). Here, not there: the engine reads it without numba.
MASK_INTERSECTIONS = 64


def equal_only(tables: np.ndarray, n: int) -> np.ndarray:
    """Per pair table, whether each digit ``d`` takes at most ``d`` from the partner (a plain
    inequality, or anti-taxicab's: only at the distance of the digit): such a table supports every
    digit from a cell of two candidates or more, so it takes something only from a decided cell.

    Parameters
    ----------
    tables : numpy.ndarray
        The pair tables, ``(tables, n)`` ``uint64``: row ``t``, digit ``d``: the partner's digits
        that go with ``d``.
    n : int
        Digits.

    Returns
    -------
    numpy.ndarray
        Booleans, one per table.

    Examples
    --------
    >>> full = np.uint64(0b111)
    >>> equal_only(np.array([[full, full & ~np.uint64(2), full], [np.uint64(6), np.uint64(4), full]]), 3).tolist()
    [True, False]
    """
    bits = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
    return np.all((np.uint64((1 << n) - 1) & ~tables & ~bits) == 0, axis=1)


def shared_tables(arc_ptr: np.ndarray, arc_table: np.ndarray, decided_only: np.ndarray | None = None) -> np.ndarray:
    """Per cell, the table (``arc_table``'s value) that all its arcs share, or -1 (none, or several):
    the kernel reads such a cell's support once for all its partners, and skips them all when it
    allows every digit (non-consecutive: a cell of digits more than two apart supports any). A
    cell of several tables whose arcs all act only once it is decided (``decided_only``, per arc:
    anti-taxicab's 50 arcs a cell of 8 tables) is :data:`DECIDED_ONLY`: the kernel skips its arcs
    until then (the bench's anti-taxicab ten: the same 42,154 nodes, 266 -> 130 ms in all, the slowest
    65 -> 30 ms).

    Parameters
    ----------
    arc_ptr, arc_table : numpy.ndarray
        Each cell's arcs (``arc_ptr[c]`` to ``arc_ptr[c + 1] - 1``) and each arc's table.
    decided_only : numpy.ndarray, optional
        Booleans, one per arc: its table is :func:`equal_only`.

    Returns
    -------
    numpy.ndarray
        ``int64``, one per cell.
    """
    out = np.full(arc_ptr.size - 1, -1, dtype=np.int64)
    cells = np.flatnonzero(arc_ptr[1:] > arc_ptr[:-1])   # the cells with arcs, theirs contiguous from their start
    if not cells.size:
        return out
    starts, arcs = arc_ptr[cells], arc_table[:arc_ptr[-1]]
    low = np.minimum.reduceat(arcs, starts)   # per cell, in one pass each (a bincount per cell was twice the time)
    same = low == np.maximum.reduceat(arcs, starts)
    out[cells[same]] = low[same]
    if decided_only is not None:
        every = np.logical_and.reduceat(np.asarray(decided_only, dtype=bool)[:arc_ptr[-1]], starts)
        out[cells[~same & every]] = DECIDED_ONLY
    return out
