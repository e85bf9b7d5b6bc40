"""The compiled builder of the ``dfsrules`` kernel's pair tables and linear rows: what
:func:`pipeline.solvers.dfsrules_rows.core_tables_numpy` does in about forty numpy steps (a third
of a simple 9x9 rule puzzle's whole solve), in one pass of loops over the terms.

:func:`core_tables` takes a model's rule terms sorted by (row, cell, digit) and fills one
``int64`` array ``out`` whose header (:data:`pipeline.solvers.dfsrules_rows.LAYOUT`, made on the
Python side, the one place that knows it) gives the sizes, where each output and each scratch
section starts, and where the counts go. Like the search kernel it allocates nothing and raises
nothing, so it is compiled into the same machine-code object (:mod:`pipeline.solvers.dfsrules_native`)
and a process calls it without importing numba.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_rows import LAYOUT

__all__ = ["core_tables"]

# header slots of ``out``, from the one layout the Python side fills
(_T, _R, _N, _CELLS, _MAX_PAIRS, _MAX_AMO, _KEYS, _ARC_PTR, _ARC_OTHER, _ARC_TABLE, _LIN_PTR, _TERM_CELL, _TERM_COEF,
 _LIN_RHS, _LIN_EQ, _CELL_LIN_PTR, _CELL_LIN, _TERM_ORDER, _TERMS_IN, _NOT_ONE, _REPEATED, _FIRST_TERM, _COUNT, _FIRST,
 _G_CELL, _COEF, _SLOT, _PAIR_LIST, _BUCKET, _N_PAIRS, _N_LIN, _N_LIN_TERMS, _INFEASIBLE) = range(len(LAYOUT))


@njit(cache=False, inline="always")
def _forbid(masks, at_a, at_b, n, da, db):
    """Pair table ``(at_a, at_b)`` (its two halves in ``masks``): ``da`` here, ``db`` there, never together."""
    masks[at_a + da] &= ~(np.uint64(1) << np.uint64(db))
    masks[at_b + db] &= ~(np.uint64(1) << np.uint64(da))


@njit(cache=False, inline="always")
def _list_pair(out, slot, pair_list, marked, key):
    """List cell pair ``key`` unless it is listed (its slot, uninitialised until then, points at
    it: a sparse set); the pairs listed afterwards (one more than ``max_pairs`` is an overflow)."""
    at = out[slot + key]
    if 0 <= at < min(marked, out[_MAX_PAIRS]) and out[pair_list + at] == key:
        return marked
    out[slot + key] = marked
    if marked < out[_MAX_PAIRS]:
        out[pair_list + marked] = key
    return marked + 1


@njit(cache=False)
def core_tables(terms: np.ndarray, rows: np.ndarray, unit_pairs: np.ndarray, full: np.uint64, out: np.ndarray,
                masks: np.ndarray) -> int:
    """The pair tables and linear rows of sorted rule terms, into ``out`` and ``masks``.

    Parameters
    ----------
    terms : numpy.ndarray
        ``(4, T)`` ``int64``: each term's row, cell, digit (0-based) and coefficient, sorted by
        (row, cell, digit).
    rows : numpy.ndarray
        ``(2, R)`` ``int64``: each row's right-hand side and ``=`` flag.
    unit_pairs : numpy.ndarray
        ``(cells, width)`` ``uint8``: bit ``b & 7`` of ``[a, b >> 3]`` when cells ``a`` and ``b``
        share a unit (:class:`pipeline.solvers.dfs.ShapeTables`).
    full : numpy.uint64
        The mask of every digit.
    out : numpy.ndarray
        ``int64``: the header (sizes and offsets), then the outputs and the scratch.
    masks : numpy.ndarray
        ``uint64``: each cell's allowed digits, then two halves of ``n`` masks per pair table.

    Returns
    -------
    int
        0, or -1 when the pairs outnumber the room made for them (nothing is then valid).
    """
    one = np.uint64(1)
    n_terms, n_rows, n, n_cells = out[_T], out[_R], out[_N], out[_CELLS]
    max_pairs, max_amo = out[_MAX_PAIRS], out[_MAX_AMO]
    terms_in, not_one, repeated = out[_TERMS_IN], out[_NOT_ONE], out[_REPEATED]
    first_term, count, first = out[_FIRST_TERM], out[_COUNT], out[_FIRST]
    g_cell, coef, slot = out[_G_CELL], out[_COEF], out[_SLOT]
    for r in range(n_rows):
        out[terms_in + r] = 0
        out[not_one + r] = 0
        out[repeated + r] = 0
        out[count + r] = 0
    for k in range(n_terms):
        r = terms[0, k]
        out[terms_in + r] += 1
        if terms[3, k] != 1:
            out[not_one + r] += 1
        if k > 0 and r == terms[0, k - 1] and terms[1, k] == terms[1, k - 1] and terms[2, k] == terms[2, k - 1]:
            out[repeated + r] = 1   # a term twice: the row is summed on the general path
    at = 0
    for r in range(n_rows):
        out[first_term + r] = at
        at += out[terms_in + r]
    for c in range(n_cells):
        masks[c] = full
    # groups (row, cell) of the rows that are not at-most-one rows, with their coefficients by digit
    groups = 0
    for r in range(n_rows):
        k_in = out[terms_in + r]
        rhs, eq = rows[0, r], rows[1, r]
        amo = eq == 0 and rhs == 1 and out[not_one + r] == 0 and out[repeated + r] == 0 and 2 <= k_in <= max_amo
        out[first + r] = groups
        if amo:
            out[count + r] = -1   # marks the row at-most-one until the pairs are made (0 afterwards)
            continue
        start = out[first_term + r]
        for k in range(start, start + k_in):
            cell = terms[1, k]
            if k == start or cell != terms[1, k - 1]:
                out[g_cell + groups] = cell
                for d in range(n):
                    out[coef + groups * n + d] = 0
                groups += 1
                out[count + r] += 1
            out[coef + (groups - 1) * n + terms[2, k]] += terms[3, k]
    # infeasible rows: no term left, and 0 does not satisfy them
    infeasible = 0
    for r in range(n_rows):
        rhs, eq = rows[0, r], rows[1, r]
        if (rhs != 0 if eq else rhs < 0) and (out[terms_in + r] == 0 or out[count + r] == 0):
            infeasible = 1
    # rows of one cell narrow its start candidates; each cell pair with a table is listed once
    # (the slots are not initialised: a key is listed when its slot points back at it)
    pair_list, marked = out[_PAIR_LIST], 0
    for r in range(n_rows):
        c_r = out[count + r]
        rhs, eq = rows[0, r], rows[1, r]
        if c_r == 1:
            g = out[first + r]
            for d in range(n):
                v = out[coef + g * n + d]
                if (v != rhs) if eq else (v > rhs):
                    masks[out[g_cell + g]] &= ~(one << np.uint64(d))
        elif c_r == 2:
            g = out[first + r]
            marked = _list_pair(out, slot, pair_list, marked, out[g_cell + g] * n_cells + out[g_cell + g + 1])
        elif c_r == -1:
            start = out[first_term + r]
            for i in range(start, start + out[terms_in + r]):
                for j in range(i + 1, start + out[terms_in + r]):
                    a, b = terms[1, i], terms[1, j]
                    if a != b:
                        marked = _list_pair(out, slot, pair_list, marked, min(a, b) * n_cells + max(a, b))
        if marked > max_pairs:
            return -1
    # the listed keys sorted (by their second cell, then stably by their first), and numbered
    keys, bucket = out[_KEYS], out[_BUCKET]
    n_pairs = marked
    for source, target, by_first in ((pair_list, keys, False), (keys, pair_list, True)):
        for c in range(n_cells + 1):
            out[bucket + c] = 0
        for p in range(n_pairs):
            key = out[source + p]
            out[bucket + (key // n_cells if by_first else key % n_cells) + 1] += 1
        for c in range(n_cells):
            out[bucket + c + 1] += out[bucket + c]
        for p in range(n_pairs):
            key = out[source + p]
            cell = key // n_cells if by_first else key % n_cells
            out[target + out[bucket + cell]] = key
            out[bucket + cell] += 1
    for p in range(n_pairs):
        out[keys + p] = out[pair_list + p]
        out[slot + out[keys + p]] = p
    # each pair table: b's digits each digit of a allows (first half), a's each digit of b allows
    for p in range(n_pairs):
        at_a = n_cells + 2 * p * n
        for d in range(2 * n):
            masks[at_a + d] = full
        a, b = out[keys + p] // n_cells, out[keys + p] % n_cells
        if (unit_pairs[a, b >> 3] >> (b & 7)) & 1:   # one unit: never equal digits
            for d in range(n):
                _forbid(masks, at_a, at_a + n, n, d, d)
    for r in range(n_rows):
        c_r = out[count + r]
        if c_r == -1:
            out[count + r] = 0
            start = out[first_term + r]
            for i in range(start, start + out[terms_in + r]):
                for j in range(i + 1, start + out[terms_in + r]):
                    a, b = terms[1, i], terms[1, j]
                    if a == b:
                        continue
                    da, db = terms[2, i], terms[2, j]
                    if a > b:
                        a, b, da, db = b, a, db, da
                    at_a = n_cells + 2 * out[slot + a * n_cells + b] * n
                    _forbid(masks, at_a, at_a + n, n, da, db)
        elif c_r == 2:
            rhs, eq = rows[0, r], rows[1, r]
            ga = out[first + r]
            at_a = n_cells + 2 * out[slot + out[g_cell + ga] * n_cells + out[g_cell + ga + 1]] * n
            for d in range(n):
                for e in range(n):
                    total = out[coef + ga * n + d] + out[coef + (ga + 1) * n + e]
                    if (total != rhs) if eq else (total > rhs):
                        _forbid(masks, at_a, at_a + n, n, d, e)
    # each cell's arcs: those where it is a pair's first cell (in pair order), then its second
    arc_ptr, arc_other, arc_table = out[_ARC_PTR], out[_ARC_OTHER], out[_ARC_TABLE]
    for c in range(n_cells + 1):
        out[arc_ptr + c] = 0
    for p in range(n_pairs):
        out[arc_ptr + out[keys + p] // n_cells + 1] += 1
        out[arc_ptr + out[keys + p] % n_cells + 1] += 1
    for c in range(n_cells):
        out[arc_ptr + c + 1] += out[arc_ptr + c]
    for side in range(2):
        for p in range(n_pairs):
            a, b = out[keys + p] // n_cells, out[keys + p] % n_cells
            source, other = (a, b) if side == 0 else (b, a)
            at = out[arc_ptr + source]   # the cell's next arc (its running end)
            out[arc_other + at] = other
            out[arc_table + at] = 2 * p + side
            out[arc_ptr + source] += 1
    for c in range(n_cells, 0, -1):   # the running ends back to starts
        out[arc_ptr + c] = out[arc_ptr + c - 1]
    out[arc_ptr] = 0
    # linear rows (three cells or more), their terms, and each cell's rows
    lin_ptr, term_cell, term_coef = out[_LIN_PTR], out[_TERM_CELL], out[_TERM_COEF]
    lin_rhs, lin_eq, term_order = out[_LIN_RHS], out[_LIN_EQ], out[_TERM_ORDER]
    cell_lin_ptr, cell_lin = out[_CELL_LIN_PTR], out[_CELL_LIN]
    n_lin, tt = 0, 0
    out[lin_ptr] = 0
    for c in range(n_cells + 1):
        out[cell_lin_ptr + c] = 0
    for r in range(n_rows):
        if out[count + r] <= 2:
            continue
        g0 = out[first + r]
        for g in range(g0, g0 + out[count + r]):
            out[term_cell + tt] = out[g_cell + g]
            out[cell_lin_ptr + out[g_cell + g] + 1] += 1
            rising, falling = True, True
            for d in range(n):
                v = out[coef + g * n + d]
                out[term_coef + tt * n + d] = v
                if d > 0:
                    step = v - out[coef + g * n + d - 1]
                    rising = rising and step >= 0
                    falling = falling and step <= 0
            out[term_order + tt] = 1 if rising else (-1 if falling else 0)
            tt += 1
        out[lin_rhs + n_lin] = rows[0, r]
        out[lin_eq + n_lin] = rows[1, r] != 0
        n_lin += 1
        out[lin_ptr + n_lin] = tt
    for c in range(n_cells):
        out[cell_lin_ptr + c + 1] += out[cell_lin_ptr + c]
    for lr in range(n_lin):
        for t in range(out[lin_ptr + lr], out[lin_ptr + lr + 1]):
            c = out[term_cell + t]
            out[cell_lin + out[cell_lin_ptr + c]] = lr
            out[cell_lin_ptr + c] += 1
    for c in range(n_cells, 0, -1):
        out[cell_lin_ptr + c] = out[cell_lin_ptr + c - 1]
    out[cell_lin_ptr] = 0
    out[_N_PAIRS], out[_N_LIN], out[_N_LIN_TERMS], out[_INFEASIBLE] = n_pairs, n_lin, tt, infeasible
    return 0
