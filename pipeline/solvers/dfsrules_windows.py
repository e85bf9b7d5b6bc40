"""The ``dfsrules`` kernel's window handler (:mod:`pipeline.solvers.dfsrules_kernel`): a global
entropy's or global mod's 2x2 window holds a digit of each of three classes
(:class:`pipeline.core.rules.globals.GlobalEntropy`, :class:`pipeline.core.rules.globals.GlobalMod`;
ISS ``LocalEntropy`` / ``LocalMod3``), on top of the rules' rows.

Each cell's candidates squished to their classes (three bits), the window keeps in each cell
exactly the classes of some way to give its four cells all three classes: a class of a cell
stays when the other three cells can hold the other two classes in two distinct cells (arc
consistency over the classes; it holds ISS's hidden class singles and pairs, and at most two
cells of a class). Then ISS's required values: a class with one digit ``d`` left among the
window's candidates, not yet decided there, puts ``d`` in the window: alone in one cell, that
cell is ``d``; in more, every cell that shares a house with each of them loses ``d`` (the
shape's peers and units, so any layout). Tables: ``rint``'s ``win_cells``, ``win_masks``
(built by :func:`pipeline.solvers.dfsrules_windows_rows.window_tables`). Like the kernel it
allocates nothing and raises nothing (compiled into its machine code: listed in
:data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _push
from pipeline.solvers.dfsrules_windows_rows import WIN_AT

__all__: list[str] = []


@njit(cache=False, inline="always")
def _squish(v, m0, m1, m2):
    """The classes (bits 0, 1, 2) mask ``v`` has digits of."""
    return (1 if v & m0 else 0) | (2 if v & m1 else 0) | (4 if v & m2 else 0)


@njit(cache=False, inline="always")
def _sees(a, b, cell_units, n_cell_units):
    """Whether cells ``a`` and ``b`` share a unit."""
    for k in range(n_cell_units[a]):
        u = cell_units[a, k]
        for j in range(n_cell_units[b]):
            if cell_units[b, j] == u:
                return True
    return False


@njit(cache=False)
def _window(r, state, rint, work, inq_at, head_tail, peers, n_peers, cell_units, n_cell_units):
    """Window ``r``: its cells' classes arc consistent, then its required values' exclusions
    (module docstring); -1 on a contradiction, else the cells changed."""
    zero = np.uint64(0)
    cells_at = rint[WIN_AT + 1] + 4 * r
    masks_at = rint[WIN_AT + 2] + 3 * r
    m0, m1, m2 = np.uint64(rint[masks_at]), np.uint64(rint[masks_at + 1]), np.uint64(rint[masks_at + 2])
    changed = 0
    squished = 0   # the four cells' classes, three bits each (kept as the cells narrow)
    for i in range(4):
        squished |= _squish(state[rint[cells_at + i]], m0, m1, m2) << (3 * i)
    # the classes: each cell keeps a class when the other three hold the other two in distinct cells
    for i in range(4):
        c = rint[cells_at + i]
        v = state[c]
        mine = (squished >> (3 * i)) & 7
        once, twice = 0, 0
        for j in range(4):
            if j != i:
                s = (squished >> (3 * j)) & 7
                twice |= once & s
                once |= s
        keep = 0
        for g in range(3):
            if mine & (1 << g) == 0:
                continue
            others = 7 & ~(1 << g)
            if others & ~once:
                continue
            if others & twice == 0:   # each once among the others: not both in one cell
                both = False
                for j in range(4):
                    if j != i and (squished >> (3 * j)) & others == others:
                        both = True
                if both:
                    continue
            keep |= 1 << g
        if keep == 0:
            return -1
        if keep != mine:
            w = v & ((m0 if keep & 1 else zero) | (m1 if keep & 2 else zero) | (m2 if keep & 4 else zero))
            state[c] = w
            squished = (squished & ~(7 << (3 * i))) | (keep << (3 * i))
            _push(c, work, inq_at, head_tail)
            changed += 1
    # required values: a class's one digit left in the window, not decided there
    every, fixed = zero, zero
    for i in range(4):
        v = state[rint[cells_at + i]]
        every |= v
        if v & (v - np.uint64(1)) == zero:
            fixed |= v
    for g in range(3):
        d = every & (m0 if g == 0 else m1 if g == 1 else m2)
        if d == zero or d & (d - np.uint64(1)) or d & fixed:
            continue
        first, count = -1, 0
        for i in range(4):
            if state[rint[cells_at + i]] & d:
                count += 1
                if first < 0:
                    first = rint[cells_at + i]
        if count == 1:   # one place for it: that cell holds it
            state[first] = d
            _push(first, work, inq_at, head_tail)
            changed += 1
            continue
        for k in range(n_peers[first]):   # cells seeing each of its places lose it
            q = peers[first, k]
            w = state[q]
            if w & d == zero:
                continue
            sees = True
            for i in range(4):
                b = rint[cells_at + i]
                if b == q or (b != first and state[b] & d and not _sees(q, b, cell_units, n_cell_units)):
                    sees = False
                    break
            if sees:
                w &= ~d
                if w == zero:
                    return -1
                state[q] = w
                _push(q, work, inq_at, head_tail)
                changed += 1
    return changed
