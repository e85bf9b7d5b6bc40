"""The ``dfsrules`` kernel's handler for a decided cell whose arcs act only once it is decided
(:data:`pipeline.solvers.dfsrules_rows.DECIDED_ONLY`, anti-taxicab's): its digit leaves only the
partners whose table takes it (:mod:`pipeline.solvers.dfsrules_decided_rows`), where reading each
of its arcs' tables found the same (the anti-taxicab 9x9s: about 5 partners a digit of 50 arcs).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_decided_rows import DEC_AT
from pipeline.solvers.dfsrules_handlers import _ix, _low_index, _push

__all__ = ["_decided"]


@njit(cache=False, inline="always")
def _decided(c, v, n, state, rint, work, inq_at, head_tail):
    """Digit ``v`` (one bit) of decided cell ``c`` taken from the partners its arcs take it from;
    False on a contradiction."""
    at = rint[DEC_AT] + c * n + _low_index(v)
    cells_at = rint[DEC_AT + 1]
    keep = ~v
    for k in range(rint[_ix(at)], rint[_ix(at + 1)]):
        b = _ix(rint[_ix(cells_at + k)])
        w = state[b]
        if w & v:
            w &= keep
            if w == np.uint64(0):
                return False
            state[b] = w
            _push(b, work, inq_at, head_tail)
    return True
