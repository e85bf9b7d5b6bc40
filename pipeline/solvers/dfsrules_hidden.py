"""The ``dfsrules`` kernel's hidden skyscraper handler (:mod:`pipeline.solvers.dfsrules_kernel`):
read from the clue, the first cell lower than some cell before it holds the clue's digit
(:class:`pipeline.core.rules.skyscraper.HiddenSkyscraper`, ISS ``HiddenSkyscraper``), held over
the cells' candidate masks instead of the rule's rows.

Read along the line, a way is in one of two phases: rising (every cell so far taller than all
before it; the state is the tallest so far, a digit) or past the hidden cell. The first cell
rises; a later cell rises above the tallest so far, or holds the clue's digit ``t`` below it and
ends the rise; past it any digit but ``t`` follows (the line is a unit: ``t`` is there once, so
no rising cell holds it either). A line ending still rising has no hidden cell: no way. A pass
backward keeps, before each cell, the tallest digits from which the end can be reached (a mask:
those below the greatest rising digit the cell can take there, and those above ``t`` when it can
take ``t`` with the rest of the line able to follow) and whether the end can be reached past the
hidden cell; a pass forward keeps the tallest digits reachable from the start among them, and
each cell keeps exactly the digits of some step from a forward state to a backward one: arc
consistency for the line (ISS's handler prunes forward and the rise's early cells backward),
exact once the line is decided. Heights compare by digit index, as the rule's rows do. Tables:
``rint``'s ``hid_ptr``, ``hid_cells``, ``hid_target`` (built by
:func:`pipeline.solvers.dfsrules_hidden_rows.hidden_tables`). Like the kernel it allocates
nothing and raises nothing (compiled into its machine code: listed in
:data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _ctlz, _push
from pipeline.solvers.dfsrules_hidden_rows import HID_AT

__all__: list[str] = []


@njit(cache=False)
def _hidden(r, state, rint, work, scratch_at, inq_at, head_tail):
    """Hidden skyscraper line ``r``: keep in each of its cells exactly the digits of some way along
    the line (module docstring); -1 on a contradiction, else the cells changed. ``work[scratch_at:]``
    holds twice the line's cells: per cell the backward states after it (the rising tallest
    digits, then whether the way past the hidden cell reaches the end)."""
    zero, one = np.uint64(0), np.uint64(1)
    first = rint[rint[HID_AT + 1] + r]
    size = rint[rint[HID_AT + 1] + r + 1] - first
    cells_at = rint[HID_AT + 2] + first
    t = np.uint64(1) << np.uint64(rint[rint[HID_AT + 3] + r])
    above_t = ~(t | (t - one))   # the digits taller than the clue's
    rise_at, past_at = scratch_at, scratch_at + size
    if size < 2:
        return -1
    # backward: after cell i, the rising tallest digits and the way past the hidden cell that reach the end
    work[rise_at + size - 1] = 0
    work[past_at + size - 1] = 1
    for i in range(size - 1, 0, -1):
        v = state[rint[cells_at + i]]
        other = v & ~t
        past = work[past_at + i] != 0
        work[past_at + i - 1] = 1 if past and other != zero else 0
        rise = other & np.uint64(work[rise_at + i])
        before = zero
        if rise != zero:   # a tallest below the greatest digit rising here
            before = (one << np.uint64(63 - _ctlz(rise))) - one
        if past and v & t:   # the clue's digit hidden here, behind a taller one
            before |= above_t
        work[rise_at + i - 1] = np.int64(before)
    # forward: the states reached among those kept, each cell the digits of a step between them
    changed = 0
    c = rint[cells_at]
    v = state[c]
    reach = v & ~t & np.uint64(work[rise_at])   # the first cell rises
    if reach == zero:
        return -1
    if reach != v:
        state[c] = reach
        _push(c, work, inq_at, head_tail)
        changed += 1
    past = False   # the way past the hidden cell reached from the start
    for i in range(1, size):
        c = rint[cells_at + i]
        v = state[c]
        other = v & ~t
        low = reach & (zero - reach)   # the lowest tallest so far: every digit above it rises
        after = other & ~(low | (low - one)) & np.uint64(work[rise_at + i])
        keep = after
        ends = past or (v & t != zero and reach & above_t != zero)
        if work[past_at + i] != 0:
            if past:
                keep |= other
            if v & t and reach & above_t:
                keep |= t
        if keep == zero:
            return -1
        if keep != v:
            state[c] = keep
            _push(c, work, inq_at, head_tail)
            changed += 1
        past = ends
        reach = after
    return changed
