"""The rule handlers of the ``dfsrules`` kernel (:mod:`pipeline.solvers.dfsrules_kernel`), one per
kind of table: a killer cage's digit sets, sandwich and skyscraper lines and two houses'
intersections, with the bit primitives they share (the linear rows' bounds that call the digit
sets are in :mod:`pipeline.solvers.dfsrules_linear`). Each takes a state and the packed
tables (``rint``, ``compat``; offsets in :data:`pipeline.solvers.dfsrules_kernel.HEADER`), narrows
the state in place, puts every cell it changed on the ring and returns how many it changed, or a
negative number on a contradiction. Like the kernel they allocate nothing and raise nothing
(compiled with it into one object: :mod:`pipeline.solvers.dfsrules_native` hashes both sources).

Numba's own disk cache is off here and in the kernel: it keys a function by its own file, so the
kernel's functions would keep a stale copy of a handler changed in this file. The machine-code
cache is the one that lasts (numba compiles once per version of the two files and the CPU).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_BIG = 1 << 60


@intrinsic
def _ctpop(typingctx, v):
    """The CPU's population count of a ``uint64`` (LLVM's ``ctpop``), as an ``int64``."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, v):
    """The index of the lowest set bit of a nonzero ``uint64`` (LLVM's ``cttz``), as an ``int64``."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.int64(types.uint64), codegen


@intrinsic
def _ctlz(typingctx, v):
    """The leading zeros of a nonzero ``uint64`` (LLVM's ``ctlz``), as an ``int64``."""
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.int64(types.uint64), codegen


@njit(cache=False, inline="always")
def _low_index(v):
    """``_cttz`` for callers that mypy checks (it cannot type an intrinsic's call)."""
    return _cttz(np.uint64(v))


@njit(cache=False, inline="always")
def _popcount(v):
    return _ctpop(np.uint64(v))


@njit(cache=False, inline="always")
def _ix(i):
    """``i`` as an unsigned index. numba wraps a signed index around (a negative one counts from
    the end): three more instructions an access, in the loops every node runs. The kernel's
    indices are never negative."""
    return np.uint64(i)


@njit(cache=False, inline="always")
def _push(c, work, inq_at, head_tail):
    """Put cell ``c`` on the ring (``work[:cells]``; the in-ring flags follow it, so ``inq_at`` is
    also the ring's size; ``head_tail`` holds its first slot and its length) unless it is already
    there. The slot wraps by a comparison, not ``%``: a division per push was about 7% of a node."""
    flag = _ix(inq_at) + _ix(c)
    if work[flag] == 0:
        work[flag] = 1
        slot = head_tail[0] + head_tail[1]
        if slot >= inq_at:
            slot -= inq_at
        work[_ix(slot)] = np.int64(c)
        head_tail[1] += 1


@njit(cache=False, inline="always")
def _mark_rows(c, rint, work, ptr_at, rows_at, dirty_at):
    """Flag dirty (``work[dirty_at + row]``) each of a handler's rows that hold cell ``c`` (the
    handler's per-cell lists: ``rint[rows_at + rint[ptr_at + c]:...]``)."""
    for k in range(rint[_ix(ptr_at + c)], rint[_ix(ptr_at + c + 1)]):
        work[_ix(dirty_at + rint[_ix(rows_at + k)])] = 1


@njit(cache=False, inline="always")
def _keep_on_line(cells, first, size, state, work, keep_at, inq_at, head_tail):
    """Each of a line's ``size`` cells (``cells[first + i]``) keeps only the digits its handler
    left in ``work[keep_at + i]``: -1 when a cell is left none, else the cells changed (each pushed
    on the ring). The last step of the line handlers (sandwich, skyscraper, lunchbox, sum line)."""
    zero = np.uint64(0)
    changed = 0
    for i in range(size):
        c = cells[first + i]
        v = state[c]
        w = v & np.uint64(work[keep_at + i])
        if w == zero:
            return -1
        if w != v:
            state[c] = w
            _push(c, work, inq_at, head_tail)
            changed += 1
    return changed


@njit(cache=False, inline="always")
def _within(v, base, most, least, rint):
    """The digits of mask ``v`` whose number ``rint[base + digit]`` (a row's coefficient, a
    digit's value) lies in ``least .. most``."""
    one = np.uint64(1)
    keep = v
    w = v
    while w:
        bit = w & (~w + one)
        w &= w - one
        number = rint[base + _cttz(bit)]
        if number > most or number < least:
            keep &= ~bit
    return keep


@njit(cache=False, inline="always")
def _term_bounds(v, base, order, rint):
    """A term's least and greatest coefficient ``rint[base + digit]`` over the digits of mask ``v``:
    read at the lowest and highest digit where the coefficients rise (``order`` 1) or fall (-1)
    with the digit, else over every digit (``_BIG``, ``-_BIG`` for an empty mask)."""
    one = np.uint64(1)
    if order != 0 and v:   # coefficients in digit order: the ends are the lowest and highest digit's
        first, last = rint[base + _cttz(v)], rint[base + 63 - _ctlz(v)]
        if order > 0:
            return first, last
        return last, first
    mn, mx = _BIG, -_BIG
    while v:
        d = _cttz(v)
        v &= v - one
        co = rint[base + d]
        if co < mn:
            mn = co
        if co > mx:
            mx = co
    return mn, mx


@njit(cache=False, inline="always")
def _narrow(k, most, least, state, rint, work, inq_at, head_tail):
    """Term ``k``'s cell keeps the digits whose coefficient lies in ``least .. most``: -1 when none
    is left, 1 when the cell changed (and is on the ring), else 0."""
    n, term_cell, term_coef = rint[1], rint[9], rint[10]
    c = rint[term_cell + k]
    v = state[c]
    keep = _within(v, term_coef + k * n, most, least, rint)
    if keep == 0:
        return -1
    if keep == v:
        return 0
    state[c] = keep
    _push(c, work, inq_at, head_tail)
    return 1


@njit(cache=False)
def _combos(start, stop, first, last, state, rint, compat, work, inq_at, head_tail, units, cell_units, n_cell_units):
    """Keep in the row's cells only the digits of its digit sets ``compat[first:last]`` that the
    cells can still make; a digit every such set needs is placed when one cell alone can take it,
    and leaves every other cell of a unit that holds all the row's cells that can take it (it is
    among them: a killer cage in a box keeps its needed digits out of the rest of the box);
    negative on a contradiction, else the cells changed."""
    zero, one = np.uint64(0), np.uint64(1)
    term_cell = rint[9]
    union = zero
    for k in range(start, stop):
        union |= state[_ix(rint[_ix(term_cell + k)])]
    valid, needed = zero, ~zero
    for i in range(first, last):
        m = compat[_ix(i)]
        if m & ~union:
            continue
        ok = True
        for k in range(start, stop):
            if state[_ix(rint[_ix(term_cell + k)])] & m == zero:
                ok = False
                break
        if ok:
            valid |= m
            needed &= m
    if valid == zero:
        return -(1 << 40)
    changed = 0
    for k in range(start, stop):
        c = rint[_ix(term_cell + k)]
        v = state[c]
        w = v & valid
        if w == zero:
            return -(1 << 40)
        if w != v:
            state[c] = w
            _push(c, work, inq_at, head_tail)
            changed += 1
    while needed:
        bit = needed & (~needed + one)
        needed &= needed - one
        place, places = -1, 0
        for k in range(start, stop):
            c = rint[_ix(term_cell + k)]
            if state[c] & bit:
                place, places = c, places + 1
        if places == 0:
            return -(1 << 40)
        if places == 1:   # placed: the singles take it from the place's units (the peers)
            if state[place] != bit:
                state[place] = bit
                _push(place, work, inq_at, head_tail)
                changed += 1
            continue
        # the units that hold every place (a mask of the cell's units, up to 64 units), whose other
        # cells lose the digit
        if units.shape[0] > 64:
            continue
        common = ~zero
        for k in range(start, stop):
            c = rint[_ix(term_cell + k)]
            if state[c] & bit:
                mask = zero
                for j in range(n_cell_units[c]):
                    mask |= one << np.uint64(cell_units[c, j])
                common &= mask
        while common:
            u = _cttz(common)
            common &= common - one
            holders = 0
            for i in range(units.shape[1]):
                if state[units[u, i]] & bit:
                    holders += 1
            if holders == places:   # the places alone: nothing to take
                continue
            for i in range(units.shape[1]):
                q = units[u, i]
                w = state[q]
                if (w & bit) == zero:
                    continue
                mine = False
                for k in range(start, stop):
                    if rint[_ix(term_cell + k)] == q:
                        mine = True
                        break
                if mine:
                    continue
                w &= ~bit
                if w == zero:
                    return -(1 << 40)
                state[q] = w
                _push(q, work, inq_at, head_tail)
                changed += 1
    return changed


@njit(cache=False)
def _sandwich(s, state, rint, compat, work, scratch_at, inq_at, head_tail):
    """Sandwich line ``s``: keep in each of its cells the digits that some placement of the 1 and
    the ``N`` gives it, among the placements whose cells between can still make the sum (module
    docstring); -1 on a contradiction, else the cells changed.

    Up to :data:`pipeline.solvers.dfsrules.MAX_SET_DIGITS` digits a placement with ``m`` cells
    between is judged by the digit sets of ``m`` digits that make the sum (``compat``): a set the
    cells between can hold, whose other digits can fill the cells outside; those cells then keep
    the digits of such sets, and the cells outside the others. Above it, by the least and greatest
    sums of the cells between. ``work[scratch_at:]`` holds the prefix sums of each cell's least
    and greatest value between the ends, of the cells that can only be an end, and the digits kept.
    """
    zero, one = np.uint64(0), np.uint64(1)
    n = rint[1]
    cells_at, total, value_at = rint[16] + s * n, rint[rint[17] + s], rint[18]
    sets_at, use_sets = rint[22] + s * (n - 1), rint[23] != 0
    low_bit, top_bit = one, one << np.uint64(n - 1)
    inner = ((one << np.uint64(n - 1)) - one) & ~low_bit   # digits 2 .. N-1
    lo_at, hi_at = scratch_at, scratch_at + n + 1
    gap_at, keep_at = scratch_at + 2 * (n + 1), scratch_at + 3 * (n + 1)
    work[lo_at] = 0
    work[hi_at] = 0
    work[gap_at] = 0
    for i in range(n):
        w = state[rint[cells_at + i]] & inner
        mn, mx, gap = 0, 0, 1   # no digit between 2 and N-1: the cell can only be an end
        if w:
            mn, mx, gap = _BIG, -_BIG, 0
            while w:
                d = _cttz(w)
                w &= w - one
                val = rint[value_at + d]
                mn = min(mn, val)
                mx = max(mx, val)
        work[lo_at + i + 1] = work[lo_at + i] + mn
        work[hi_at + i + 1] = work[hi_at + i] + mx
        work[gap_at + i + 1] = work[gap_at + i] + gap
        work[keep_at + i] = 0
    gaps = work[gap_at + n]
    found = False
    for p in range(n):
        vp = state[rint[cells_at + p]]
        if not vp & low_bit:
            continue
        for q in range(n):
            vq = state[rint[cells_at + q]]
            if q == p or not vq & top_bit:
                continue
            # every cell but the two ends needs a digit between 2 and N-1
            if gaps - (0 if vp & inner else 1) - (0 if vq & inner else 1) > 0:
                continue
            a, b = min(p, q), max(p, q)
            low = work[lo_at + b] - work[lo_at + a + 1]
            high = work[hi_at + b] - work[hi_at + a + 1]
            if low > total or high < total:
                continue
            if use_sets:
                first, last = rint[sets_at + b - a - 1], rint[sets_at + b - a]
                between, outside = zero, zero
                for i in range(n):
                    if a < i < b:
                        between |= state[rint[cells_at + i]]
                    elif i != p and i != q:
                        outside |= state[rint[cells_at + i]]
                between &= inner
                outside &= inner
                n_outside = n - (b - a) - 1
                in_sets, out_sets, some = zero, zero, False
                for k in range(first, last):
                    digits = compat[k]
                    if digits & ~between or _popcount(outside & ~digits) < n_outside:
                        continue
                    in_sets |= digits
                    out_sets |= inner & ~digits
                    some = True
                if not some:
                    continue
                found = True
                work[keep_at + p] |= np.int64(low_bit)
                work[keep_at + q] |= np.int64(top_bit)
                for i in range(n):
                    if a < i < b:
                        work[keep_at + i] |= np.int64(in_sets)
                    elif i != p and i != q:
                        work[keep_at + i] |= np.int64(out_sets)
                continue
            found = True
            work[keep_at + p] |= np.int64(low_bit)
            work[keep_at + q] |= np.int64(top_bit)
            for i in range(n):
                if i == p or i == q:
                    continue
                w = state[rint[cells_at + i]] & inner
                if a < i < b:
                    mn, mx = work[lo_at + i + 1] - work[lo_at + i], work[hi_at + i + 1] - work[hi_at + i]
                    most, least = total - (low - mn), total - (high - mx)
                    if mx > most or mn < least:   # the sum's bounds take some of its digits
                        w = _within(w, value_at, most, least, rint)
                work[keep_at + i] |= np.int64(w)
    if not found:
        return -1
    return _keep_on_line(rint, cells_at, n, state, work, keep_at, inq_at, head_tail)


@njit(cache=False, inline="always")
def _above(x):
    """The digits above digit ``x`` (0 .. 63) as a mask."""
    if x >= 63:
        return np.uint64(0)
    return ~((np.uint64(1) << np.uint64(x + 1)) - np.uint64(1))


@njit(cache=False)
def _skyscraper(s, state, rint, work, scratch_at, inq_at, head_tail):
    """Skyscraper line ``s``: keep in each of its cells exactly the digits on some way along the
    line that the candidates allow and that sees the clue's count (arc consistency for the line).
    -1 on a contradiction, else the cells changed.

    A forward pass finds, after each cell ``i`` and for each count ``k`` seen so far (up to the
    clue), the tallest digits the cells up to ``i`` can have reached (a mask): cell ``i`` with
    digit ``d`` is hidden behind a tallest ``m >= d`` (same ``m`` and ``k``), or seen above every
    ``m < d`` (tallest ``d``, count ``k + 1``; ``k`` for a value of 0 or less, no skyscraper). A
    backward pass from the last cell's states of the clue's count keeps the states that reach
    it, and in each cell the digits of the steps between kept states (ISS's Skyscraper handler
    keeps such masks of heights per count). ``work[scratch_at:]`` holds the forward states
    (``n + 1`` per cell), the backward ones and the digits kept.
    """
    zero, one = np.uint64(0), np.uint64(1)
    n = rint[1]
    cells_at, clue, value_at = rint[38] + s * n, rint[rint[39] + s], rint[18]
    if clue < 0 or clue > n:
        return -1
    width = n + 1
    fwd, bwd, keep_at = scratch_at, scratch_at + n * width, scratch_at + 2 * n * width
    low = zero   # digits of values of 0 or less: no skyscraper, never counted
    for d in range(n):
        if rint[value_at + d] <= 0:
            low |= one << np.uint64(d)
    v = state[rint[cells_at]]
    for k in range(clue + 1):
        work[fwd + k] = 0
    work[fwd] = np.int64(v & low)
    if clue >= 1:
        work[fwd + 1] = np.int64(v & ~low)
    for i in range(1, n):
        v = state[rint[cells_at + i]]
        if v == zero:
            return -1
        at_least = ~((one << np.uint64(_cttz(v))) - one)   # the tallest so far hides a digit of v
        prev, here = fwd + (i - 1) * width, fwd + i * width
        for k in range(clue + 1):
            before = np.uint64(work[prev + k])
            reach = before & at_least
            if before and low:
                reach |= v & low & _above(_cttz(before))
            if k >= 1:
                under = np.uint64(work[prev + k - 1])
                if under:
                    reach |= v & ~low & _above(_cttz(under))
            work[here + k] = np.int64(reach)
    last = (n - 1) * width
    if work[fwd + last + clue] == 0:
        return -1
    for k in range(clue + 1):
        work[bwd + last + k] = 0
    work[bwd + last + clue] = work[fwd + last + clue]
    for i in range(n - 1, 0, -1):
        v = state[rint[cells_at + i]]
        at_least = ~((one << np.uint64(_cttz(v))) - one)
        prev, here = (i - 1) * width, i * width
        for k in range(clue + 1):
            work[bwd + prev + k] = 0
        kept = zero
        for k in range(clue + 1):
            alive = np.uint64(work[bwd + here + k])
            if alive == zero:
                continue
            before = np.uint64(work[fwd + prev + k])
            hidden = before & alive & at_least   # tallest kept: the digits of v up to it
            if hidden:
                kept |= v & ~_above(63 - _ctlz(hidden))
                work[bwd + prev + k] |= np.int64(hidden)
            if before and low:   # seen, uncounted: a digit of value 0 or less above the tallest
                tops = alive & v & low & _above(_cttz(before))
                if tops:
                    kept |= tops
                    work[bwd + prev + k] |= np.int64(before & ((one << np.uint64(63 - _ctlz(tops))) - one))
            if k >= 1:
                under = np.uint64(work[fwd + prev + k - 1])
                if under:
                    tops = alive & v & ~low & _above(_cttz(under))
                    if tops:
                        kept |= tops
                        work[bwd + prev + k - 1] |= np.int64(under & ((one << np.uint64(63 - _ctlz(tops))) - one))
        work[keep_at + i] = np.int64(kept)
    kept = np.uint64(work[bwd]) & low
    if clue >= 1:
        kept |= np.uint64(work[bwd + 1]) & ~low
    work[keep_at] = np.int64(kept)
    return _keep_on_line(rint, cells_at, n, state, work, keep_at, inq_at, head_tail)


@njit(cache=False)
def _same_rests(a_at, b_at, size, state, rint, work, inq_at, head_tail):
    """Locked candidates of one intersection of two houses: the digits of each rest (``rint[a_at:]``,
    ``rint[b_at:]``, ``-1`` ends it) are kept to those the other rest can take; -1 on a
    contradiction, else the cells changed."""
    zero = np.uint64(0)
    union_a, union_b = zero, zero
    for k in range(size):
        c = rint[_ix(a_at + k)]
        if c < 0:
            break
        union_a |= state[_ix(c)]
    for k in range(size):
        c = rint[_ix(b_at + k)]
        if c < 0:
            break
        union_b |= state[_ix(c)]
    if union_a == union_b:
        return 0
    changed = 0
    for at, keep in ((a_at, union_b), (b_at, union_a)):
        for k in range(size):
            c = rint[_ix(at + k)]
            if c < 0:
                break
            v = state[_ix(c)]
            w = v & keep
            if w != v:
                if w == zero:
                    return -1
                state[_ix(c)] = w
                _push(c, work, inq_at, head_tail)
                changed += 1
    return changed


@njit(cache=False)
def _pointing(u, two, state, units, rint, work, inq_at, head_tail):
    """Pointing through pair relations in house ``u`` for its digits of two places (``two``): each
    cell related to both places loses what both ``p = d`` and ``q = d`` take from it. -1 on a
    contradiction, else 0.

    The pair of places found and the digit key their entries (``RuleTables.with_pointing``), one
    ``int64`` each: the cell (16 bits), then the digits both placements take from it."""
    size = units.shape[1]
    ptr, entries, n = rint[32], rint[33], rint[1]
    while two:
        bit = two & (~two + np.uint64(1))
        two &= two - np.uint64(1)
        d = _cttz(bit)
        first, second = -1, -1
        for k in range(size):
            if state[_ix(units[u, k])] & bit:
                if first < 0:
                    first = k
                else:
                    second = k
                    break
        if second < 0:   # a place went meanwhile: the hidden single, or the empty house, is found next
            continue
        key = ((u * size + first) * size + second) * n + d
        for e in range(rint[_ix(ptr + key)], rint[_ix(ptr + key + 1)]):
            x = rint[_ix(entries + e)]
            c = _ix(x & 0xFFFF)
            w = state[c]
            gone = w & np.uint64(x >> 16)
            if gone:
                w &= ~gone
                if w == 0:
                    return -1
                state[c] = w
                _push(c, work, inq_at, head_tail)
    return 0
