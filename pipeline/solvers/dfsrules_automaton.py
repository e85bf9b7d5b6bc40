"""The ``dfsrules`` kernel's handler of regular-language lines (:mod:`pipeline.solvers.dfsrules_kernel`):
the values along the line, read in order, are accepted by a finite automaton
(:mod:`pipeline.core.rules.automaton`: ``automaton``, ISS ``NFA``, and ``regex``, ISS ``Regex``).

A forward pass over the line's steps keeps the states some run reaches on the cells' candidates
(one set per step, bits in ``uint64`` words), among those on some accepting run of the line's
length on any digits (its table's states per step: ISS's published automata of 958 states have
1-836 of them per step); a backward pass keeps those that still reach an
accepting state, and each cell keeps exactly the digits of some transition from such a state at
its step into a state alive after it (arc consistency for the line, as ISS's NFA handler). No
accepting run left is a contradiction. A segment break (``-1`` among the steps) reads the
automaton's break symbol ``N`` and holds no cell. A cell read twice keeps, at each of its steps,
the digits that step allows (sound; exact once the line is decided). Tables: ``rint``'s
``nfa_ptr``, ``nfa_steps``, ``nfa_auto``, ``nfa_tables`` (built by
:func:`pipeline.solvers.dfsrules_automaton_rows.automaton_tables`: per automaton its states, word
count, start and accepting states, and its edges by source state, each with its symbols' mask).
Like the kernel it allocates nothing and raises nothing (compiled into its machine code: listed
in :data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_automaton_rows import NFA_AT
from pipeline.solvers.dfsrules_handlers import _cttz, _push

__all__: list[str] = []


@njit(cache=False, inline="always")
def _has(words, at, q):
    """Is state ``q`` in the set of bit words at ``words[at:]`` (``work`` or ``rint``)?"""
    return (np.uint64(words[at + (q >> 6)]) >> np.uint64(q & 63)) & np.uint64(1) != np.uint64(0)


@njit(cache=False, inline="always")
def _add(work, at, q):
    """Put state ``q`` in the set of bit words at ``work[at:]``."""
    work[at + (q >> 6)] |= np.int64(np.uint64(1) << np.uint64(q & 63))


@njit(cache=False)
def _automaton(r, state, rint, work, scratch_at, inq_at, head_tail):
    """Automaton line ``r``: keep in each of its cells the digits of some accepting run (module
    docstring); -1 on a contradiction, else the cells changed. ``work[scratch_at:]`` holds
    ``(steps + 3) * words`` entries of scratch (``rint``'s ``nfa_scratch`` bounds it)."""
    zero, one = np.uint64(0), np.uint64(1)
    n = rint[1]
    first = rint[rint[NFA_AT] + r]
    size = rint[rint[NFA_AT] + r + 1] - first
    steps_at = rint[NFA_AT + 1] + first
    a = rint[NFA_AT + 6] + rint[rint[NFA_AT + 2] + 2 * r]
    alive_at = rint[NFA_AT + 6] + rint[rint[NFA_AT + 2] + 2 * r + 1]   # per step, the states on some accepting run of any digits
    n_states, words, n_start, n_accept = rint[a], rint[a + 1], rint[a + 2], rint[a + 3]
    starts_at = a + 4
    accepts_at = starts_at + n_start
    ptr_at = accepts_at + n_accept
    mask_at = ptr_at + n_states + 1   # each edge's symbols, then its target
    to_at = mask_at + rint[ptr_at + n_states]
    brk = one << np.uint64(n) if n < 64 else zero   # the break symbol (lines with breaks: n < 64)
    cur_at = scratch_at + (size + 1) * words
    nxt_at = cur_at + words
    # forward: the states some run reaches after each step
    for w in range(words):
        work[scratch_at + w] = 0
    for k in range(n_start):
        q = rint[starts_at + k]
        if _has(rint, alive_at, q):
            _add(work, scratch_at, q)
    for i in range(size):
        c = rint[steps_at + i]
        mask = state[c] if c >= 0 else brk
        here = scratch_at + i * words
        there = here + words
        alive = alive_at + (i + 1) * words
        for w in range(words):
            work[there + w] = 0
        reached = False
        for w in range(words):
            bits = np.uint64(work[here + w])
            while bits:
                q = w * 64 + _cttz(bits)
                bits &= bits - one
                for t in range(rint[ptr_at + q], rint[ptr_at + q + 1]):
                    p = rint[to_at + t]
                    if mask & np.uint64(rint[mask_at + t]) and _has(rint, alive, p):
                        _add(work, there, p)
                        reached = True
        if not reached:
            return -1
    # backward: the states reached that still reach an accepting state; each cell's digits
    for w in range(words):
        work[cur_at + w] = 0
    accepted = False
    end = scratch_at + size * words
    for k in range(n_accept):
        q = rint[accepts_at + k]
        if _has(work, end, q):
            _add(work, cur_at, q)
            accepted = True
    if not accepted:
        return -1
    changed = 0
    for i in range(size - 1, -1, -1):
        c = rint[steps_at + i]
        mask = state[c] if c >= 0 else brk
        here = scratch_at + i * words
        support = zero
        for w in range(words):
            work[nxt_at + w] = 0
        for w in range(words):
            bits = np.uint64(work[here + w])
            while bits:
                q = w * 64 + _cttz(bits)
                bits &= bits - one
                alive = False
                for t in range(rint[ptr_at + q], rint[ptr_at + q + 1]):
                    read = mask & np.uint64(rint[mask_at + t])
                    if read and _has(work, cur_at, rint[to_at + t]):
                        support |= read
                        alive = True
                if alive:
                    _add(work, nxt_at, q)
        if c >= 0:
            v = state[c]
            kept = v & support
            if kept == zero:
                return -1
            if kept != v:
                state[c] = kept
                _push(c, work, inq_at, head_tail)
                changed += 1
        elif support == zero:
            return -1
        for w in range(words):
            work[cur_at + w] = work[nxt_at + w]
    return changed
