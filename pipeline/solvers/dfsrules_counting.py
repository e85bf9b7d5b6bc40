"""The ``dfsrules`` kernel's handlers of counting rules (:mod:`pipeline.solvers.dfsrules_kernel`):
counting circles and count-distinct clues, whose rows need auxiliary columns, held here over the
cells' candidate masks instead (as ISS's ``CountingCircles`` and ``CountDistinct`` handlers do).

Each constraint is one entry of ``rint``'s counting tables (header slots ``n_cnt`` .. ``cell_cnt``
of :data:`pipeline.solvers.dfsrules_kernel.HEADER`, built by
:func:`pipeline.solvers.dfsrules_counttables.counting_tables`): its cells (``cnt_ptr``, ``cnt_cells``; a
circle set's sorted by exclusion group, ``cnt_group``), its clue cell (``cnt_clue``: a
count-distinct clue's cell, -1 for circles judged by their digit sets, -2 for circles without
them) and its digit sets in ``compat`` (``cnt_sets``). The values are the standard ``1..N``
(digit ``d`` has value ``d + 1``; :func:`pipeline.solvers.dfsrules.model_problem` refuses the
rest).

* **Counting circles**: every circle holds a value, and a value ``v`` is in none or exactly ``v``
  circles, so the values present add up to the number of circles. The digit sets of that sum
  (``compat``) that hold every decided circle's digit and lie within the circles' candidates
  are the sets still possible: the circles keep their union, and a digit in all of them is
  required. Then for each value ``v``: more than ``v`` circles decided to ``v`` is a
  contradiction; fewer than ``v`` exclusion groups (circles pairwise in a house: one ``v`` each)
  that can hold ``v`` leave ``v`` nowhere (a contradiction when it is required); a required ``v``
  with exactly ``v`` candidate circles is placed in all of them, and with exactly ``v`` groups in
  each group's one candidate circle. Exact once the circles are decided.
* **Count-distinct**: the decided cells' values are present (``k`` of them); the open cells add
  at most a maximum matching of them to the other values and at least as many values as a greedy
  packing of pairwise disjoint candidate sets. The clue keeps the counts in that range; a clue
  whose greatest count is ``k`` leaves the open cells only the present values, one whose least
  count is ``k`` plus the open cells leaves them only the others, and one whose least count is
  the number of values any cell can take places a value that only one cell can take. Exact once
  the cells are decided.

Like the kernel these functions allocate nothing and raise nothing (compiled with it into one
object: :mod:`pipeline.solvers.dfsrules_native` hashes this source too).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_counttables import CNT_AT
from pipeline.solvers.dfsrules_handlers import _ctlz, _cttz, _popcount, _push

__all__: list[str] = []

_AT = CNT_AT


@njit(cache=False, inline="always")
def _set(c, keep, state, work, inq_at, head_tail):
    """Cell ``c`` keeps the digits of ``keep``: -1 when none is left, 1 when it changed, else 0."""
    v = state[c]
    w = v & keep
    if w == np.uint64(0):
        return -1
    if w == v:
        return 0
    state[c] = w
    _push(c, work, inq_at, head_tail)
    return 1


@njit(cache=False)
def _circles(r, state, rint, compat, work, inq_at, head_tail):
    """Counting-circle set ``r`` (module docstring); -1 on a contradiction, else the cells changed."""
    zero, one = np.uint64(0), np.uint64(1)
    start, stop = rint[rint[_AT + 1] + r], rint[rint[_AT + 1] + r + 1]
    cells_at, group_at = rint[_AT + 2], rint[_AT + 3]
    every, fixed, unfixed = zero, zero, zero
    for k in range(start, stop):
        v = state[rint[cells_at + k]]
        every |= v
        if v & (v - one):
            unfixed |= v
        else:
            fixed |= v
    allowed, required = every, fixed
    changed = 0
    if rint[rint[_AT + 4] + r] == -1:   # the digit sets whose values add up to the number of circles
        first, last = rint[rint[_AT + 5] + r], rint[rint[_AT + 5] + r + 1]
        allowed, required = zero, ~zero
        for i in range(first, last):
            m = compat[i]
            if fixed & ~m or m & ~every:
                continue
            allowed |= m
            required &= m
        if allowed == zero:
            return -1
        if allowed != every:
            for k in range(start, stop):
                got = _set(rint[cells_at + k], allowed, state, work, inq_at, head_tail)
                if got < 0:
                    return -1
                changed += got
    w = allowed
    while w:
        bit = w & (~w + one)
        w &= w - one
        value = _cttz(bit) + 1
        could, must, groups, last_group = 0, 0, 0, -1
        for k in range(start, stop):
            v = state[rint[cells_at + k]]
            if v & bit:
                could += 1
                must += v == bit
                g = rint[group_at + k]
                if g != last_group:
                    groups += 1
                    last_group = g
        if must > value:
            return -1
        needed = (bit & required) != zero
        if groups < value:   # too few groups can hold it: nowhere
            if needed:
                return -1
            for k in range(start, stop):
                got = _set(rint[cells_at + k], ~bit, state, work, inq_at, head_tail)
                if got < 0:
                    return -1
                changed += got
        elif needed and bit & unfixed and could == value:   # every candidate circle takes it
            for k in range(start, stop):
                c = rint[cells_at + k]
                if state[c] & bit and state[c] != bit:
                    state[c] = bit
                    _push(c, work, inq_at, head_tail)
                    changed += 1
        elif needed and bit & unfixed and groups == value:   # each group's one candidate circle takes it
            last_group, places, place = -1, 0, -1
            for k in range(start, stop + 1):
                g = rint[group_at + k] if k < stop else -2
                if g != last_group:
                    if places == 1 and state[place] != bit:
                        state[place] = bit
                        _push(place, work, inq_at, head_tail)
                        changed += 1
                    last_group, places, place = g, 0, -1
                if k == stop:
                    break
                c = rint[cells_at + k]
                if state[c] & bit:
                    places += 1
                    place = c
    return changed


@njit(cache=False)
def _augment(i, doms_at, owner_at, stack_at, exclude, free, work):
    """Kuhn's augmenting path from open cell ``i`` (its domain ``work[doms_at + i]``) to a free
    value, over the values outside ``exclude``: the matching (``work[owner_at + value]``, the cell
    or -1) flipped along it; the value newly matched, or -1."""
    one = np.uint64(1)
    seen = np.uint64(0)
    sp = 0
    cell_at, value_at = stack_at, stack_at + 65
    work[cell_at] = i
    while sp >= 0:
        avail = np.uint64(work[doms_at + work[cell_at + sp]]) & ~exclude & ~seen
        hit = avail & free
        if hit:
            b = _cttz(hit)
            work[value_at + sp] = b
            for t in range(sp + 1):
                work[owner_at + work[value_at + t]] = work[cell_at + t]
            return b
        if avail:
            b = _cttz(avail)
            seen |= one << np.uint64(b)
            work[value_at + sp] = b
            sp += 1
            work[cell_at + sp] = work[owner_at + b]
        else:
            sp -= 1
    return -1


@njit(cache=False)
def _distinct(r, state, rint, work, scratch_at, inq_at, head_tail):
    """Count-distinct clue ``r`` (module docstring); -1 on a contradiction, else the cells changed.
    ``work[scratch_at:]``: the open cells' masks, the matching's owner of each value and the
    augmenting path's stack (:func:`pipeline.solvers.dfsrules.RuleTables.work_size`)."""
    zero, one = np.uint64(0), np.uint64(1)
    n = rint[1]
    start, stop = rint[rint[_AT + 1] + r], rint[rint[_AT + 1] + r + 1]
    cells_at = rint[_AT + 2]
    clue = rint[rint[_AT + 4] + r]
    owner_at = scratch_at
    stack_at = owner_at + 64
    doms_at = stack_at + 130
    fixed, every = zero, zero
    nu = 0
    for k in range(start, stop):
        v = state[rint[cells_at + k]]
        if v == zero:
            return -1
        every |= v
        if v & (v - one):
            work[doms_at + nu] = np.int64(v)
            nu += 1
        else:
            fixed |= v
    nf = _popcount(fixed)
    # the open cells' new values: at most a maximum matching, at least a greedy packing
    for b in range(n):
        work[owner_at + b] = -1
    full = ~zero >> np.uint64(64 - n)
    free = full & ~fixed
    match = 0
    used, pack = fixed, 0
    for i in range(nu):
        d = np.uint64(work[doms_at + i])
        hit = d & free
        b = -1
        if hit:
            b = _cttz(hit)
            work[owner_at + b] = i
        else:
            b = _augment(i, doms_at, owner_at, stack_at, fixed, free, work)
        if b >= 0:
            free &= ~(one << np.uint64(b))
            match += 1
        if not d & used:
            used |= d
            pack += 1
    least, most = nf + pack, nf + match
    # the clue: counts least .. most (digit d counts d + 1)
    span = (~zero >> np.uint64(64 - most)) & ~((one << np.uint64(least - 1)) - one)
    if _set(clue, span, state, work, inq_at, head_tail) < 0:
        return -1
    changed = 0
    cv = state[clue]
    if nu == 0:
        return changed
    high, low = 64 - _ctlz(cv), _cttz(cv) + 1
    keep = ~zero
    if high == nf:   # no new value: the open cells take the present ones
        keep = fixed
    elif low == nf + nu:   # each open cell a new value of its own: none takes a present one
        keep = ~fixed
    if keep != ~zero:
        for k in range(start, stop):
            c = rint[cells_at + k]
            v = state[c]
            if v & (v - one):
                got = _set(c, keep, state, work, inq_at, head_tail)
                if got < 0:
                    return -1
                changed += got
    elif low == _popcount(every):   # every value any cell can take is present
        w = every & ~fixed
        while w:
            bit = w & (~w + one)
            w &= w - one
            place, places = -1, 0
            for k in range(start, stop):
                c = rint[cells_at + k]
                if state[c] & bit:
                    place, places = c, places + 1
            if places == 0:
                return -1
            if places == 1 and state[place] != bit:
                state[place] = bit
                _push(place, work, inq_at, head_tail)
                changed += 1
    return changed


@njit(cache=False)
def _counting(r, state, rint, compat, work, scratch_at, inq_at, head_tail):
    """Counting constraint ``r``: a counting-circle set or a count-distinct clue (``cnt_clue``);
    -1 on a contradiction, else the cells changed."""
    if rint[rint[_AT + 4] + r] < 0:
        return _circles(r, state, rint, compat, work, inq_at, head_tail)
    return _distinct(r, state, rint, work, scratch_at, inq_at, head_tail)
