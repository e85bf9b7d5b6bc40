"""The ``dfsrules`` kernel's lunchbox handler (:mod:`pipeline.solvers.dfsrules_kernel`): a line of
distinct digits whose cells strictly between its smallest and its largest value add up to the
line's total (:class:`pipeline.core.rules.segments.Lunchbox`, values ``1..N``).

For every two values ``a < b`` and every two places ``p != q`` of the line that can hold them,
the placement "``a`` at ``p`` is the smallest, ``b`` at ``q`` the largest" stands when every other
cell can take a value strictly between ``a`` and ``b``, there are values enough between them for
those cells (``b - a - 1 >= cells - 2``), and the cells between ``p`` and ``q`` can make the total:
their least and greatest sums over their candidates within ``(a, b)``, and the ``m`` least and
greatest values of ``(a, b)`` (distinct digits), hold the total between them. A cell keeps the
digits some standing placement gives it: its end's value, a candidate within ``(a, b)`` outside,
or between the ends a candidate the others' sum bounds leave room for. Sound at every node, exact
once the line is decided (the line's distinct digits are its own at-most-one rows, pair relations
of the kernel). Tables: ``rint``'s ``lunch_ptr``, ``lunch_cells``, ``lunch_sum`` (built by
:func:`pipeline.solvers.dfsrules_lunchbox_rows.lunchbox_tables`). Like the kernel it allocates
nothing and raises nothing (compiled into its machine code: listed in
:data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _cttz, _ctlz, _keep_on_line

__all__ = ["SCRATCH_PER_DIGIT"]

#: ``work`` entries a line's scratch takes per digit (plus two): prefix sums of the least and the
#: greatest value within ``(a, b)``, each cell's candidates there, and the digits kept.
SCRATCH_PER_DIGIT = 4


@njit(cache=False, inline="always")
def _span(low, high):
    """The mask of digits ``low .. high`` (0-based, within ``0 .. 63``; empty when ``low > high``)."""
    if low > high:
        return np.uint64(0)
    top = (np.uint64(2) << np.uint64(high)) - np.uint64(1) if high < 63 else ~np.uint64(0)
    return top & ~((np.uint64(1) << np.uint64(low)) - np.uint64(1))


@njit(cache=False)
def _lunchbox(s, state, rint, work, scratch_at, inq_at, head_tail):
    """Lunchbox line ``s``: keep in each of its cells the digits some standing placement of its
    smallest and largest value gives it (module docstring); -1 on a contradiction, else the cells
    changed. ``work[scratch_at:]`` holds ``4 * n + 2`` entries of scratch."""
    zero, one = np.uint64(0), np.uint64(1)
    n = rint[1]
    ptr_at, cells_at, total = rint[43], rint[44], rint[rint[45] + s]
    start = rint[ptr_at + s]
    size = rint[ptr_at + s + 1] - start
    cells_at += start
    lo_at, hi_at = scratch_at, scratch_at + n + 1
    w_at, keep_at = scratch_at + 2 * (n + 1), scratch_at + 3 * n + 2
    union = zero
    for i in range(size):
        union |= state[rint[cells_at + i]]
        work[keep_at + i] = 0
    work[lo_at] = 0
    work[hi_at] = 0
    found = False
    rest = union
    while rest:
        a = _cttz(rest)
        rest &= rest - one
        above = rest
        while above:
            b = _cttz(above)
            above &= above - one
            if b - a - 1 < size - 2:   # too few values between for the other cells' distinct digits
                continue
            bit_a, bit_b = one << np.uint64(a), one << np.uint64(b)
            inside = _span(a + 1, b - 1)
            gaps = 0
            for i in range(size):
                w = state[rint[cells_at + i]] & inside
                work[w_at + i] = np.int64(w)
                mn, mx = 0, 0
                if w:
                    mn, mx = _cttz(w) + 1, 64 - _ctlz(w)   # values: digit + 1
                else:
                    gaps += 1
                work[lo_at + i + 1] = work[lo_at + i] + mn
                work[hi_at + i + 1] = work[hi_at + i] + mx
            if gaps > 2:
                continue
            va, vb = a + 1, b + 1
            for p in range(size):
                vp = state[rint[cells_at + p]]
                if not vp & bit_a:
                    continue
                for q in range(size):
                    if q == p:
                        continue
                    vq = state[rint[cells_at + q]]
                    if not vq & bit_b:
                        continue
                    if gaps - (0 if work[w_at + p] else 1) - (0 if work[w_at + q] else 1) > 0:
                        continue
                    first, last = min(p, q), max(p, q)
                    m = last - first - 1
                    low = work[lo_at + last] - work[lo_at + first + 1]
                    high = work[hi_at + last] - work[hi_at + first + 1]
                    tri = m * (m + 1) // 2
                    if low > total or high < total or m * va + tri > total or m * vb - tri < total:
                        continue
                    found = True
                    work[keep_at + p] |= np.int64(bit_a)
                    work[keep_at + q] |= np.int64(bit_b)
                    for i in range(size):
                        if i == p or i == q:
                            continue
                        w = np.uint64(work[w_at + i])
                        if first < i < last:
                            mn = work[lo_at + i + 1] - work[lo_at + i]
                            mx = work[hi_at + i + 1] - work[hi_at + i]
                            most, least = total - (low - mn), total - (high - mx)
                            if mx > most or mn < least:   # the others' bounds take some of its digits
                                w &= _span(max(least, 1) - 1, min(most, n) - 1)
                        work[keep_at + i] |= np.int64(w)
    if not found:
        return -1
    return _keep_on_line(rint, cells_at, size, state, work, keep_at, inq_at, head_tail)
