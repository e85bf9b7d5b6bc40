"""The ``dfsrules`` kernel's locked candidates (:mod:`pipeline.solvers.dfsrules_kernel`): which
houses' intersections to look at again, and the pass over them
(:func:`pipeline.solvers.dfsrules_handlers._same_rests` for each).

An intersection's step reads only its two rests (the cells of each house outside the other), and
leaves them with the same digits, so it can take something again only once a cell of a rest has
changed: a changed cell marks the intersections it is in a rest of
(:func:`pipeline.solvers.dfsrules_pointing.house_intersections`), where every intersection of
every house that changed was looked at before (a box's six and a line's three, for one cell of
them). Up to 64 intersections (a 9x9 with boxes: 54) the marks are one mask, each cell's
intersections one ``int64`` of the table, else a flag each in the kernel's scratch.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _ix, _low_index, _same_rests
from pipeline.solvers.dfsrules_rows import MASK_INTERSECTIONS

__all__ = ["MASK_INTERSECTIONS", "_check_intersections", "_mark_intersections"]


@njit(cache=False, inline="always")
def _mark_intersections(c, marked, n_inter, rint, work, idirty_at):
    """The intersections cell ``c`` is in a rest of, marked: the mask ``marked`` with them (up to
    :data:`MASK_INTERSECTIONS`), or their flags in ``work`` set."""
    ptr, lists = rint[28], rint[29]
    if n_inter <= MASK_INTERSECTIONS:
        if n_inter > 0:
            marked |= np.uint64(rint[_ix(lists + c)])
        return marked
    for k in range(rint[_ix(ptr + c)], rint[_ix(ptr + c + 1)]):
        work[_ix(idirty_at + rint[_ix(lists + k)])] = 1
    return marked


@njit(cache=False, inline="always")
def _check_intersections(marked, n_inter, size, state, rint, work, idirty_at, inq_at, head_tail):
    """Locked candidates of each marked intersection, in order, the marks cleared (``marked``
    the mask, or the flags in ``work``); -1 on a contradiction, else 0."""
    inter_a, inter_b = rint[26], rint[27]
    if n_inter <= MASK_INTERSECTIONS:
        while marked:
            i = _low_index(marked)
            marked &= marked - np.uint64(1)
            if _same_rests(inter_a + i * size, inter_b + i * size, size, state, rint, work, inq_at, head_tail) < 0:
                return -1
        return 0
    for i in range(n_inter):
        if work[_ix(idirty_at + i)] == 0:
            continue
        work[_ix(idirty_at + i)] = 0
        if _same_rests(inter_a + i * size, inter_b + i * size, size, state, rint, work, inq_at, head_tail) < 0:
            return -1
    return 0
