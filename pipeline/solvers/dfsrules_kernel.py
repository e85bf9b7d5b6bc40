"""The compiled kernel of the ``dfsrules`` engine (:mod:`pipeline.solvers.dfsrules`): the ``dfs``
search (:mod:`pipeline.solvers.dfs_kernel`) with the puzzle's rule rows propagated at every node.

A state is one ``uint64`` candidate mask per cell. :func:`propagate` runs to a fixed point of

* naked singles (a decided cell's digit leaves its peers) and hidden singles (a digit with one
  place left in a unit), as ``dfs`` does;
* **pair relations** (every rule row over two cells, and every such row on one pair of cells
  together: anti-knight, anti-king, non-consecutive, Kropki, XV, thermometer steps, greater-than,
  whispers, ...): a table per ordered pair, ``compat[t, d]`` = the other cell's digits that go with
  digit ``d`` here; a cell keeps only the digits some candidate of its partner supports (arc
  consistency: exact for a relation of two cells). With ``rint``'s ``arc_lookup`` set, an arc's
  table is its support of every candidate mask instead, read in one load
  (:meth:`pipeline.solvers.dfsrules.RuleTables.with_support_lookup`, for searches that last);
* **linear rows** over three or more cells (cage sums, arrows, a cage's distinct digits, ...):
  ``sum_c coef[c, digit(c)] <= rhs`` (or ``=``), with each cell's coefficient vector over its
  digits. The row's least and greatest activity over the candidates still open bound every cell:
  a digit whose coefficient would push the row past ``rhs`` (or, for ``=``, short of it) goes.
  A sum of distinct digits (a killer cage: its cells pairwise in a unit or apart by a rule) also
  keeps only the digits of the digit sets that make the sum and that its cells can still take,
  and places a digit every such set needs when one cell alone can take it, or takes it from the
  other cells of every unit that holds all the row's cells that can take it (up to 64 units);
* **sandwich lines** (a row or column whose digits strictly between the 1 and the ``N`` add up to
  the clue): every placement of the 1 and the ``N`` that the candidates allow is tried, with the
  least and greatest sum its cells between can make; a cell keeps the digits some placement that
  can still make the sum gives it (the ends there, digits the sum's bounds allow between, any
  other digit outside). Exact once the line is decided, so the rule's big-M rows are not needed.

The search branches on a cell with the fewest candidates; among those, on the one whose branches
failed most often (its **conflict score**, as ISS's candidate selector keeps one: one point per
failed branch, every score halved each :data:`DECAY_EVERY` failures), then on the one in most rule
relations. On the non-consecutive puzzles of the bench set this cut the nodes by a quarter.

A search that is still open after a few hundred nodes starts again with its root **probed**
(:func:`_probe`, singleton arc consistency in one pass): each candidate of each open cell is placed
in a copy and propagated, and a candidate whose placement fails leaves the cell. On lines judged
against their ends (lockout, between, zipper, ...) this leaves a handful of nodes where thousands
were needed; it stops early where the tries remove nothing (non-consecutive).

Only what changed is looked at again: a ring of cells whose mask changed, then the units and the
rows holding them. The rule tables come packed in one ``int64`` array ``rint`` (offsets in its
header, :data:`HEADER`) and one ``uint64`` array of pair tables; scratch comes in one ``int64``
array ``work``. Like ``dfs_kernel`` the functions allocate nothing and raise nothing, so
:func:`entry_points` compiles them into machine code that runs without numba
(:mod:`pipeline.solvers.dfsrules_native`).
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

__all__ = ["FINISHED", "HEADER", "entry_points", "propagate", "search"]

#: ``search``'s return value once the search space is exhausted or the limit is reached.
FINISHED = 0
#: Slots of ``rint``'s header: counts, then the offset of each table (see :func:`search`).
HEADER = ("n_cells", "n", "n_lin", "n_terms", "n_arcs", "arc_ptr", "arc_other", "arc_table", "lin_ptr",
          "term_cell", "term_coef", "lin_rhs", "lin_eq", "cell_lin_ptr", "cell_lin", "combo_ptr",
          "sand_cells", "sand_sum", "digit_value", "cell_sand_ptr", "cell_sand", "n_sand", "sand_sets_ptr",
          "sand_sets", "arc_lookup")
_BIG = 1 << 60
#: Conflicts after which every cell's conflict score is halved (recent conflicts weigh more).
DECAY_EVERY = 1 << 11   # measured against 1 << 8 and 1 << 14: 3-5% fewer nodes


@njit(cache=True, inline="always")
def _popcount(v):
    count = 0
    while v:
        v &= v - np.uint64(1)
        count += 1
    return count


@njit(cache=True, inline="always")
def _push(c, work, inq_at, head_tail):
    """Put cell ``c`` on the ring (``work[:cells]``; the in-ring flags follow it, so ``inq_at`` is
    also the ring's size; ``head_tail`` holds its first slot and its length) unless it is already
    there. The slot wraps by a comparison, not ``%``: a division per push was about 7% of a node."""
    if work[inq_at + c] == 0:
        work[inq_at + c] = 1
        slot = head_tail[0] + head_tail[1]
        if slot >= inq_at:
            slot -= inq_at
        work[slot] = c
        head_tail[1] += 1


@njit(cache=True, inline="always")
def _within(v, base, most, least, rint):
    """The digits of mask ``v`` whose number ``rint[base + digit]`` (a row's coefficient, a
    digit's value) lies in ``least .. most``."""
    one = np.uint64(1)
    keep = v
    w = v
    while w:
        bit = w & (~w + one)
        w &= w - one
        number = rint[base + _popcount(bit - one)]
        if number > most or number < least:
            keep &= ~bit
    return keep


@njit(cache=True)
def _lin_row(r, state, rint, compat, work, tmin_at, tmax_at, inq_at, head_tail, units, cell_units, n_cell_units):
    """Bound propagation of linear row ``r``; -1 on a contradiction, else the cells changed."""
    one = np.uint64(1)
    n = rint[1]
    lin_ptr, term_cell, term_coef = rint[8], rint[9], rint[10]
    start, stop = rint[lin_ptr + r], rint[lin_ptr + r + 1]
    rhs, eq = rint[rint[11] + r], rint[rint[12] + r] != 0
    low, high = 0, 0
    for k in range(start, stop):
        v = state[rint[term_cell + k]]
        mn, mx = _BIG, -_BIG
        base = term_coef + k * n
        while v:
            d = _popcount((v & (~v + one)) - one)
            v &= v - one
            co = rint[base + d]
            if co < mn:
                mn = co
            if co > mx:
                mx = co
        work[tmin_at + k] = mn
        work[tmax_at + k] = mx
        low += mn
        high += mx
    if low > rhs or (eq and high < rhs):
        return -1
    changed = 0
    for k in range(start, stop):
        mn, mx = work[tmin_at + k], work[tmax_at + k]
        most = rhs - (low - mn)                       # the coefficient may be at most this
        least = rhs - (high - mx) if eq else -_BIG    # and, for =, at least this
        if mx <= most and mn >= least:
            continue
        c = rint[term_cell + k]
        v = state[c]
        keep = _within(v, term_coef + k * n, most, least, rint)
        if keep == 0:
            return -1
        if keep != v:
            state[c] = keep
            _push(c, work, inq_at, head_tail)
            changed += 1
    combo_ptr = rint[15]
    first, last = rint[combo_ptr + r], rint[combo_ptr + r + 1]
    if first < last:   # a sum of distinct digits: the digit sets that make it (a killer cage)
        more = _combos(start, stop, first, last, state, rint, compat, work, inq_at, head_tail, units, cell_units,
                       n_cell_units)
        if more < 0:
            return -1
        changed += more
    return changed


@njit(cache=True)
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
        union |= state[rint[term_cell + k]]
    valid, needed = zero, ~zero
    for i in range(first, last):
        m = compat[i]
        if m & ~union:
            continue
        ok = True
        for k in range(start, stop):
            if state[rint[term_cell + k]] & m == zero:
                ok = False
                break
        if ok:
            valid |= m
            needed &= m
    if valid == zero:
        return -(1 << 40)
    changed = 0
    for k in range(start, stop):
        c = rint[term_cell + k]
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
            c = rint[term_cell + k]
            if state[c] & bit:
                place, places = c, places + 1
        if places == 0:
            return -(1 << 40)
        if places == 1 and state[place] != bit:
            state[place] = bit
            _push(place, work, inq_at, head_tail)
            changed += 1
        # the units that hold every place (a mask of the cell's units, up to 64 units), whose other
        # cells lose the digit
        if units.shape[0] > 64:
            continue
        common = ~zero
        for k in range(start, stop):
            c = rint[term_cell + k]
            if state[c] & bit:
                mask = zero
                for j in range(n_cell_units[c]):
                    mask |= one << np.uint64(cell_units[c, j])
                common &= mask
        while common:
            u = _popcount((common & (~common + one)) - one)
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
                    if rint[term_cell + k] == q:
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


@njit(cache=True)
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
                d = _popcount((w & (~w + one)) - one)
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
    changed = 0
    for i in range(n):
        c = rint[cells_at + i]
        v = state[c]
        w = v & np.uint64(work[keep_at + i])
        if w == zero:
            return -1
        if w != v:
            state[c] = w
            _push(c, work, inq_at, head_tail)
            changed += 1
    return changed


@njit(cache=True)
def propagate(state: np.ndarray, placed: np.ndarray, origin: int, peers: np.ndarray, n_peers: np.ndarray,
              units: np.ndarray, cell_units: np.ndarray, n_cell_units: np.ndarray, full: np.uint64, rint: np.ndarray,
              compat: np.ndarray, work: np.ndarray) -> bool:
    """Singles, pair relations and linear rows to a fixed point, in place; False on a contradiction.

    ``state`` is a fixed point except at cell ``origin`` (the cell the branch changed), or
    nothing is known of it (``origin < 0``: the root).

    Parameters
    ----------
    state, placed : numpy.ndarray
        One state's masks and its propagated-single flags (``(cells,)``), updated in place.
    origin : int
        The cell the branch changed, or -1.
    peers, n_peers, units, cell_units, n_cell_units, full
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
    rint, compat : numpy.ndarray
        The rule tables (:func:`search`).
    work : numpy.ndarray
        Scratch (:func:`search`).

    Returns
    -------
    bool
    """
    zero, one = np.uint64(0), np.uint64(1)
    n_cells, n = rint[0], rint[1]
    n_lin, n_terms = rint[2], rint[3]
    n_units, size = units.shape
    arc_ptr, arc_other, arc_table = rint[5], rint[6], rint[7]
    cell_lin_ptr, cell_lin = rint[13], rint[14]
    n_sand, cell_sand_ptr, cell_sand = rint[21], rint[19], rint[20]
    lookup = rint[24] != 0
    inq_at = n_cells                       # work: ring, in-ring flags, dirty units, dirty rows, tmin, tmax,
    udirty_at = 2 * n_cells                # the ring's ends, dirty sandwiches, a sandwich's scratch
    ldirty_at = udirty_at + n_units
    tmin_at = ldirty_at + n_lin
    tmax_at = tmin_at + n_terms
    ht_at = tmax_at + n_terms
    sdirty_at = ht_at + 2
    sscratch_at = sdirty_at + n_sand
    head_tail = work[ht_at:ht_at + 2]
    head_tail[0] = 0
    head_tail[1] = 0
    for c in range(n_cells):
        work[inq_at + c] = 0
    if origin < 0:
        for u in range(n_units):
            work[udirty_at + u] = 1
        for r in range(n_lin):
            work[ldirty_at + r] = 1
        for r in range(n_sand):
            work[sdirty_at + r] = 1
        for c in range(n_cells):
            if state[c] == zero:
                return False
            _push(c, work, inq_at, head_tail)
    else:
        for u in range(n_units):
            work[udirty_at + u] = 0
        for r in range(n_lin):
            work[ldirty_at + r] = 0
        for r in range(n_sand):
            work[sdirty_at + r] = 0
        _push(origin, work, inq_at, head_tail)
    while True:
        # the ring: cells whose mask changed
        while head_tail[1] > 0:
            c = work[head_tail[0]]
            head_tail[0] = head_tail[0] + 1 if head_tail[0] + 1 < n_cells else 0
            head_tail[1] -= 1
            work[inq_at + c] = 0
            v = state[c]
            if v == zero:
                return False
            if not placed[c] and (v & (v - one)) == zero:
                placed[c] = True
                keep = ~v
                for k in range(n_peers[c]):
                    q = peers[c, k]
                    w = state[q]
                    if w & v:
                        w &= keep
                        if w == zero:
                            return False
                        state[q] = w
                        _push(q, work, inq_at, head_tail)
            for a in range(rint[arc_ptr + c], rint[arc_ptr + c + 1]):
                b = rint[arc_other + a]
                if lookup:   # the table's support of every mask, precomputed
                    support = compat[rint[arc_table + a] + np.int64(v)]
                else:
                    t = rint[arc_table + a] * n
                    support = zero
                    w = v
                    while w:
                        bit = w & (~w + one)
                        w &= w - one
                        support |= compat[t + _popcount(bit - one)]
                w = state[b]
                if w & ~support:
                    w &= support
                    if w == zero:
                        return False
                    state[b] = w
                    _push(b, work, inq_at, head_tail)
            for k in range(n_cell_units[c]):
                work[udirty_at + cell_units[c, k]] = 1
            for k in range(rint[cell_lin_ptr + c], rint[cell_lin_ptr + c + 1]):
                work[ldirty_at + rint[cell_lin + k]] = 1
            for k in range(rint[cell_sand_ptr + c], rint[cell_sand_ptr + c + 1]):
                work[sdirty_at + rint[cell_sand + k]] = 1
        # hidden singles in the units that changed
        for u in range(n_units):
            if work[udirty_at + u] == 0:
                continue
            work[udirty_at + u] = 0
            once, twice = zero, zero
            for k in range(size):
                v = state[units[u, k]]
                twice |= once & v
                once |= v
            if once != full:
                return False
            hidden = once & ~twice
            if hidden == zero:
                continue
            for k in range(size):
                c = units[u, k]
                v = state[c]
                h = v & hidden
                if (h & (h - one)) != zero:
                    return False
                if h != zero and h != v:
                    state[c] = h
                    _push(c, work, inq_at, head_tail)
        if head_tail[1] > 0:
            continue
        # sandwich lines holding a changed cell
        for r in range(n_sand):
            if work[sdirty_at + r] == 0:
                continue
            work[sdirty_at + r] = 0
            if _sandwich(r, state, rint, compat, work, sscratch_at, inq_at, head_tail) < 0:
                return False
        if head_tail[1] > 0:
            continue
        # linear rows holding a changed cell (the cheap rules first: a row is looked at once
        # the singles and pairs have settled)
        for r in range(n_lin):
            if work[ldirty_at + r] == 0:
                continue
            work[ldirty_at + r] = 0
            if _lin_row(r, state, rint, compat, work, tmin_at, tmax_at, inq_at, head_tail, units, cell_units,
                        n_cell_units) < 0:
                return False
            if head_tail[1] > 0:
                break
        if head_tail[1] == 0:   # every row looked at without a change: a fixed point
            return True


@njit(cache=True)
def _probe(state, placed, scratch, scratch_flags, idle_limit, peers, n_peers, units, cell_units, n_cell_units, full,
           rint, compat, work) -> bool:
    """One pass of singleton arc consistency on a propagated state, in place: each candidate of
    each open cell, cells with fewer candidates first (their tries fail more often), is placed in
    ``scratch`` and propagated; a candidate whose placement fails leaves the cell (and the state
    is propagated again). Stops once ``idle_limit`` tries in a row removed nothing. False: no
    candidate of some cell survives (no solution below this state)."""
    one = np.uint64(1)
    n_cells = state.shape[0]
    idle = 0
    for size in range(2, rint[1] + 1):
        for c in range(n_cells):
            w = state[c]
            if _popcount(w) != size:
                continue
            while w:
                v = state[c]
                if (v & (v - one)) == 0:   # decided meanwhile
                    break
                bit = w & (~w + one)
                w &= w - one
                if (v & bit) == 0:         # removed meanwhile
                    continue
                idle += 1
                if idle > idle_limit:
                    return True
                for q in range(n_cells):
                    scratch[q] = state[q]
                    scratch_flags[q] = placed[q]
                scratch[c] = bit
                if not propagate(scratch, scratch_flags, c, peers, n_peers, units, cell_units, n_cell_units, full,
                                 rint, compat, work):
                    idle = 0
                    state[c] = v & ~bit
                    if not propagate(state, placed, c, peers, n_peers, units, cell_units, n_cell_units, full, rint,
                                     compat, work):
                        return False
    return True


@njit(cache=True)
def search(stack: np.ndarray, flags: np.ndarray, origins: np.ndarray, depth: int, found: np.ndarray,
           tallies: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
           n_cell_units: np.ndarray, full: np.uint64, rint: np.ndarray, compat: np.ndarray, limit: int, budget: int,
           pause_when_full: bool, work: np.ndarray, probe_idle: int) -> int:
    """Resume the depth-first search held in ``stack[:depth]`` for at most ``budget`` nodes.

    Parameters
    ----------
    stack, flags : numpy.ndarray
        ``(cells + 1, cells)``: the states (``uint64`` masks) and their propagated-single flags.
    origins : numpy.ndarray
        ``(cells + 1,)`` ``int64``: the cell each row's branch changed (-1: a start state).
    depth : int
        Rows of ``stack`` in use (1 to start a search from ``stack[0]``).
    found : numpy.ndarray
        ``(k, cells)`` ``uint64``: each solution's masks go into the next free row.
    tallies : numpy.ndarray
        ``[solutions found, nodes, rows of found in use]``, ``int64``, updated in place.
    peers, n_peers, units, cell_units, n_cell_units, full
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
    rint : numpy.ndarray
        ``int64``: the header (:data:`HEADER`: cells, digits, linear rows, their terms, arcs, then
        offsets), each cell's arcs (``arc_ptr``, partner, pair table), each linear row's terms
        (``lin_ptr``, cell, ``n`` coefficients), its ``rhs`` and ``=`` flag, and each cell's rows.
    compat : numpy.ndarray
        ``uint64`` ``(tables * n,)``: pair table ``t``'s entry for digit ``d`` at ``t * n + d``.
    limit : int
        Stop at this many solutions.
    budget : int
        Nodes this call may visit.
    pause_when_full : bool
        Also return (not finished) when ``found`` has just filled up.
    work : numpy.ndarray
        ``int64`` scratch of ``2 * cells + units + rows + 2 * terms + 2 + sandwiches + 4 * (n + 1)``
        entries, then ``cells + 1`` for the conflict scores and their count (kept from one call to
        the next: zeros to start a search).
    probe_idle : int
        Probe the start state (``stack[0]`` with no branch cell) before its first branch, until
        this many tries in a row removed nothing (:func:`_probe`); 0: no probe.

    Returns
    -------
    int
        The depth to resume from, or :data:`FINISHED`.
    """
    one = np.uint64(1)
    n_cells = stack.shape[1]
    # conflict scores (work's last cells + 1 entries): a branch cell whose state failed scores one;
    # halved every DECAY_EVERY conflicts
    scores_at = work.shape[0] - n_cells - 1
    spent = 0
    while depth > 0:
        if spent >= budget:
            return depth
        spent += 1
        tallies[1] += 1
        top = depth - 1
        state, placed = stack[top], flags[top]
        if not propagate(state, placed, origins[top], peers, n_peers, units, cell_units, n_cell_units, full, rint,
                         compat, work):
            if origins[top] >= 0:
                work[scores_at + origins[top]] += 1
                work[scores_at + n_cells] += 1
                if work[scores_at + n_cells] >= DECAY_EVERY:
                    work[scores_at + n_cells] = 0
                    for c in range(n_cells):
                        work[scores_at + c] >>= 1
            depth -= 1
            continue
        # the start state, before its first branch, probed in the free row above it (the next child's)
        if probe_idle > 0 and top == 0 and origins[0] < 0 and not _probe(
                state, placed, stack[depth], flags[depth], probe_idle, peers, n_peers, units, cell_units,
                n_cell_units, full, rint, compat, work):
            depth -= 1
            continue
        # the cell with the fewest candidates; among those, the one of most conflicts, then the one
        # in most rule relations (pair arcs and linear rows: a choice there propagates furthest)
        best, best_key = -1, 1 << 60
        arc_ptr, cell_lin_ptr = rint[5], rint[13]
        for c in range(n_cells):
            v = state[c]
            if (v & (v - one)) != 0:
                key = (_popcount(v) << 40) - (work[scores_at + c] << 12) \
                    - (rint[arc_ptr + c + 1] - rint[arc_ptr + c]) - (rint[cell_lin_ptr + c + 1] - rint[cell_lin_ptr + c])
                if key < best_key:
                    best, best_key = c, key
        if best < 0:   # every cell decided: a solution
            tallies[0] += 1
            if tallies[2] < found.shape[0]:
                row = tallies[2]
                for c in range(n_cells):
                    found[row, c] = state[c]
                tallies[2] += 1
            depth -= 1
            if tallies[0] >= limit:
                return FINISHED
            if pause_when_full and tallies[2] == found.shape[0] and depth > 0:
                return depth
            continue
        v = state[best]
        low = v & (~v + one)
        for c in range(n_cells):
            stack[depth, c] = state[c]
            flags[depth, c] = placed[c]
        stack[depth, best] = low
        origins[depth] = best
        state[best] = v & ~low
        origins[top] = best
        depth += 1
    return FINISHED


@functools.cache
def entry_points() -> dict:
    """The C-callable version of :func:`search` (numba ``cfunc``), compiled here.

    Every array is passed as a pointer with its sizes, in
    :data:`pipeline.solvers.dfsrules_native.SIGNATURES`' order (flags as booleans).

    Returns
    -------
    dict
        ``{"search": cfunc}`` (compiled once per process).
    """
    from numba import carray, cfunc, types

    u64p, i64p, bp = types.CPointer(types.uint64), types.CPointer(types.int64), types.CPointer(types.boolean)
    i64, u64 = types.int64, types.uint64
    tables = (i64p, i64, i64p, i64p, i64, i64, i64p, i64, i64p, i64, u64)

    def search_c(stack_p, flags_p, origins_p, depth, found_p, n_found, tallies_p, peers_p, peer_width, n_peers_p,
                 units_p, n_units, unit_size, cell_units_p, cell_unit_width, n_cell_units_p, n_cells, full, rint_p,
                 n_rint, compat_p, n_compat, limit, budget, pause_when_full, work_p, n_work, probe_idle):
        return search(carray(stack_p, (n_cells + 1, n_cells)), carray(flags_p, (n_cells + 1, n_cells)),
                      carray(origins_p, (n_cells + 1,)), depth, carray(found_p, (n_found, n_cells)),
                      carray(tallies_p, (3,)), carray(peers_p, (n_cells, peer_width)), carray(n_peers_p, (n_cells,)),
                      carray(units_p, (n_units, unit_size)), carray(cell_units_p, (n_cells, cell_unit_width)),
                      carray(n_cell_units_p, (n_cells,)), full, carray(rint_p, (n_rint,)),
                      carray(compat_p, (n_compat,)), limit, budget, pause_when_full != 0, carray(work_p, (n_work,)),
                      probe_idle)

    search_sig = i64(u64p, bp, i64p, i64, u64p, i64, i64p, *tables, i64p, i64, u64p, i64, i64, i64, i64, i64p, i64,
                     i64)
    return {"search": cfunc(search_sig, error_model="numpy")(search_c)}
