"""The ``dfsrules`` kernel's sum line handler (:mod:`pipeline.solvers.dfsrules_kernel`): a line that
splits into consecutive segments each adding up to its total, or a loop that does from some start
(:class:`pipeline.core.rules.segments.SumLine`, values ``1..N``), held over the cells' candidate
masks instead of the rule's automaton columns.

The running sum of the open segment (``0 .. total - 1``) at each boundary is a ``uint64`` mask
(totals up to :data:`pipeline.solvers.dfsrules_sumline_rows.MAX_HANDLED_SUM`). A forward pass
keeps the sums each boundary can reach from the start over the candidates (a value reaching the
total closes the segment: sum 0; passing it reaches nothing); a backward pass keeps those from
which the end can be reached, and each cell keeps the digits of some step from a forward sum to
a backward one: arc consistency for the line (a cell the line passes twice keeps what both
places allow). A line runs from sum 0 to sum 0; a loop runs once per start ``s`` (the sum the
last segment carries over its first cell) from ``s`` to ``s``, its cells keeping the union over
the starts that stand. Exact once the line is decided. Tables: ``rint``'s ``sum_ptr``,
``sum_cells``, ``sum_total``, ``sum_loop`` (built by
:func:`pipeline.solvers.dfsrules_sumline_rows.sumline_tables`). Like the kernel it allocates
nothing and raises nothing (compiled into its machine code: listed in
:data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _cttz, _keep_on_line
from pipeline.solvers.dfsrules_sumline_rows import SUM_AT

__all__: list[str] = []

_AT = SUM_AT


@njit(cache=False, inline="always")
def _step(sums, value, total, low):
    """The running sums after a cell of ``value`` from the sums of mask ``sums``."""
    out = np.uint64(0)
    if value < total:
        out = (sums << np.uint64(value)) & low
    if value <= total and sums & (np.uint64(1) << np.uint64(total - value)):
        out |= np.uint64(1)
    return out


@njit(cache=False, inline="always")
def _back(sums, value, total):
    """The running sums from which a cell of ``value`` reaches one of mask ``sums``."""
    out = np.uint64(0)
    if value < total:
        out = sums >> np.uint64(value)
    if value <= total and sums & np.uint64(1):
        out |= np.uint64(1) << np.uint64(total - value)
    return out


@njit(cache=False)
def _pass(cells_at, size, start, state, work, scratch_at, total, low):
    """One run from running sum mask ``start`` back to it: the digits each cell can take on such a
    run are added to its kept mask (``work[scratch_at + size + 1 + i]``); False when none."""
    zero, one = np.uint64(0), np.uint64(1)
    work[scratch_at] = np.int64(start)
    sums = start
    for i in range(size):   # forward: the sums each boundary can reach
        v = state[cells_at[i]]
        nxt = zero
        while v:
            bit = v & (~v + one)
            v &= v - one
            nxt |= _step(sums, _cttz(bit) + 1, total, low)
        if nxt == zero:
            return False
        sums = nxt
        work[scratch_at + i + 1] = np.int64(sums)
    if sums & start == zero:
        return False
    back = start
    keep_at = scratch_at + size + 1
    for i in range(size - 1, -1, -1):   # backward: the digits of a step from a forward sum to a backward one
        fwd = np.uint64(work[scratch_at + i])
        v = state[cells_at[i]]
        prev, kept = zero, zero
        while v:
            bit = v & (~v + one)
            v &= v - one
            value = _cttz(bit) + 1
            if _step(fwd, value, total, low) & back:
                kept |= bit
                prev |= _back(back, value, total)
        work[keep_at + i] |= np.int64(kept)
        back = prev & fwd
    return True


@njit(cache=False)
def _sumline(s, state, rint, work, scratch_at, inq_at, head_tail):
    """Sum line ``s``: keep in each of its cells the digits of some run of segments (module
    docstring); -1 on a contradiction, else the cells changed. ``work[scratch_at:]`` holds
    ``2 L + 1`` entries of scratch (``L`` the line's cells)."""
    one = np.uint64(1)
    start_at = rint[rint[_AT + 1] + s]
    size = rint[rint[_AT + 1] + s + 1] - start_at
    cells_at = rint[rint[_AT + 2] + start_at:rint[_AT + 2] + start_at + size]
    total = rint[rint[_AT + 3] + s]
    loop = rint[rint[_AT + 4] + s] != 0
    low = (one << np.uint64(total)) - one
    keep_at = scratch_at + size + 1
    for i in range(size):
        work[keep_at + i] = 0
    found = False
    if loop:
        for t in range(total):
            if _pass(cells_at, size, one << np.uint64(t), state, work, scratch_at, total, low):
                found = True
    else:
        found = _pass(cells_at, size, one, state, work, scratch_at, total, low)
    if not found:
        return -1
    return _keep_on_line(cells_at, 0, size, state, work, keep_at, inq_at, head_tail)
