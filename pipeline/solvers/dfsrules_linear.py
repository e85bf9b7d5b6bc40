"""The ``dfsrules`` kernel's linear rows (:mod:`pipeline.solvers.dfsrules_kernel`): bound propagation,
a killer cage's digit sets (:func:`pipeline.solvers.dfsrules_handlers._combos`), exclusion groups' bounds
and an ``=`` row down to two or three open cells made exact, as ISS's sum handler does. Like the other
handlers they allocate nothing and raise nothing, and compile into the kernel's one object (listed in
:data:`pipeline.solvers.dfsrules_native._KERNEL_SOURCES`).

Three open cells are made exact in ``|a| * |b|`` steps where the third cell's coefficients rise or
fall by one a digit (a cage's, an innie's or an outie's: the third digit read off the rest of the
sum), so the triples are not capped there: ISS's sum handler does all of them through its pairwise
sums. Replaying ISS's MATHEMAGIC #0 search, 160 of the 205 sampled states where ISS took a digit
ours kept were such rows past the cap of 64 triples.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.solvers.dfsrules_handlers import _BIG, _combos, _ctlz, _cttz, _ix, _narrow, _popcount, _push, _term_bounds

__all__: list[str] = []

#: An ``=`` row with three cells open whose third cell's coefficients do not step by one a digit is
#: made exact (:func:`_few_open`) only while their candidates make at most this many triples: 9
#: candidates a cell would cost 729 steps each time it is looked at (those that step by one take
#: ``|a| * |b|``, uncapped).
THREE_OPEN_MOST = 64


@njit(cache=False, inline="always")   # inlined in the kernel (LLVM left it out once the kernel changed: lockout 5% slower)
def _lin_row(r, state, rint, compat, work, tmin_at, tmax_at, group_at, inq_at, head_tail, units, cell_units,
             n_cell_units):
    """Bound propagation of linear row ``r``; -1 on a contradiction, else the cells changed."""
    one = np.uint64(1)
    n = rint[1]
    lin_ptr, term_cell, term_coef = rint[8], rint[9], rint[10]
    start, stop = rint[lin_ptr + r], rint[lin_ptr + r + 1]
    rhs, eq = rint[rint[11] + r], rint[rint[12] + r] != 0
    term_order = rint[30]
    if rint[rint[35] + start] >= 0:   # terms in exclusion groups (cells of one house): their own bounds
        return _grouped_row(start, stop, rhs, eq, state, rint, work, tmin_at, tmax_at, group_at, inq_at, head_tail)
    low, high, n_open = 0, 0, 0
    for k in range(start, stop):
        v = state[_ix(rint[_ix(term_cell + k)])]
        n_open += (v & (v - one)) != 0
        mn, mx = _term_bounds(v, term_coef + k * n, rint[_ix(term_order + k)], rint)
        work[_ix(tmin_at + k)] = mn
        work[_ix(tmax_at + k)] = mx
        low += mn
        high += mx
    if low > rhs or (eq and high < rhs):
        return -1
    changed = 0
    for k in range(start, stop):
        mn, mx = work[_ix(tmin_at + k)], work[_ix(tmax_at + k)]
        most = rhs - (low - mn)                       # the coefficient may be at most this
        least = rhs - (high - mx) if eq else -_BIG    # and, for =, at least this
        if mx <= most and mn >= least:
            continue
        narrowed = _narrow(k, most, least, state, rint, work, inq_at, head_tail)
        if narrowed < 0:
            return -1
        changed += narrowed
    combo_ptr = rint[15]
    first, last = rint[combo_ptr + r], rint[combo_ptr + r + 1]
    if first < last:   # a sum of distinct digits: the digit sets that make it (a killer cage)
        more = _combos(start, stop, first, last, state, rint, compat, work, inq_at, head_tail, units, cell_units,
                       n_cell_units)
        if more < 0:
            return -1
        changed += more
        if eq and 2 <= n_open <= 3:   # the open cells' digits that complete the sum together, distinct
            more = _few_open(start, stop, rhs, state, rint, work, inq_at, head_tail, True)
            if more < 0:
                return -1
            changed += more
    elif eq and 2 <= n_open <= 3:   # counted before the bounds above: fewer now is caught next time
        more = _few_open(start, stop, rhs, state, rint, work, inq_at, head_tail)
        if more < 0:
            return -1
        changed += more
    return changed


@njit(cache=False, inline="always")
def _extreme_sums(mask, count, base, order, least, rint):
    """The sums of the ``count - 1`` and ``count`` least (``least``) or greatest coefficients
    ``rint[base + digit]`` over the digits of ``mask`` (strictly monotone in the digit: ``order``
    1 rising, -1 falling), taken from the low digits or the high ones."""
    one = np.uint64(1)
    low_end = least == (order > 0)
    w = mask
    total, before = 0, 0
    for _ in range(count):
        before = total
        if low_end:
            d = _cttz(w)
        else:
            d = 63 - _ctlz(w)
        w &= ~(one << np.uint64(d))
        total += rint[base + d]
    return before, total


@njit(cache=False)
def _grouped_row(start, stop, rhs, eq, state, rint, work, tmin_at, tmax_at, group_at, inq_at, head_tail):
    """:func:`_lin_row` for a row whose terms fall in exclusion groups (``rint[35]``: each term's
    group by its first term; a group's cells share a house and one strictly monotone coefficient
    vector, so they take distinct coefficients). A group of ``k`` cells adds at least its union's
    ``k`` least coefficients (and at most its ``k`` greatest) as well as its cells' own bounds, and
    a cell's partners at least the union's ``k - 1`` least: ISS's sum handler bounds such groups
    so. -1 on a contradiction (a group whose union has fewer digits than cells included), else
    the cells changed."""
    one = np.uint64(1)
    n, n_terms = rint[1], rint[3]
    term_cell, term_coef, term_order, group = rint[9], rint[10], rint[30], rint[35]
    union_at, size_at, gmin_at, gmax_at = group_at, group_at + n_terms, group_at + 2 * n_terms, group_at + 3 * n_terms
    low_at, high_at, rest_low_at, rest_high_at = (group_at + 4 * n_terms, group_at + 5 * n_terms,
                                                  group_at + 6 * n_terms, group_at + 7 * n_terms)
    n_open = 0
    for k in range(start, stop):
        v = state[_ix(rint[_ix(term_cell + k)])]
        n_open += (v & (v - one)) != 0
        mn, mx = _term_bounds(v, term_coef + k * n, rint[_ix(term_order + k)], rint)
        work[_ix(tmin_at + k)] = mn
        work[_ix(tmax_at + k)] = mx
        g = rint[_ix(group + k)]
        # a group's decided cells apart (their sum and digits in the slots low and high until the
        # next loop): the open ones take other digits of the open ones' union (ISS's sum handler)
        single = (v & (v - one)) == 0
        if g == k:   # a group's first term comes first: its sums start here
            work[_ix(union_at + g)] = 0
            work[_ix(size_at + g)] = 0
            work[_ix(gmin_at + g)] = 0
            work[_ix(gmax_at + g)] = 0
            work[_ix(low_at + g)] = 0
            work[_ix(high_at + g)] = 0
        work[_ix(gmin_at + g)] += mn
        work[_ix(gmax_at + g)] += mx
        if single:
            work[_ix(low_at + g)] += mn
            work[_ix(high_at + g)] |= np.int64(v)
        else:
            work[_ix(union_at + g)] |= np.int64(v)
            work[_ix(size_at + g)] += 1
    low, high = 0, 0
    for g in range(start, stop):
        if rint[_ix(group + g)] != g:
            continue
        size = work[_ix(size_at + g)]   # open cells
        fixed = work[_ix(low_at + g)]
        if size <= 1:
            glow, ghigh, rest_low, rest_high = work[_ix(gmin_at + g)], work[_ix(gmax_at + g)], fixed, fixed
        else:
            mask = np.uint64(work[_ix(union_at + g)]) & ~np.uint64(work[_ix(high_at + g)])
            if _popcount(mask) < size:
                return -1
            base, order = term_coef + g * n, rint[_ix(term_order + g)]
            rest_low, glow = _extreme_sums(mask, size, base, order, True, rint)
            rest_high, ghigh = _extreme_sums(mask, size, base, order, False, rint)
            glow = max(glow + fixed, work[_ix(gmin_at + g)])
            ghigh = min(ghigh + fixed, work[_ix(gmax_at + g)])
            rest_low += fixed
            rest_high += fixed
        work[_ix(low_at + g)] = glow
        work[_ix(high_at + g)] = ghigh
        work[_ix(rest_low_at + g)] = rest_low
        work[_ix(rest_high_at + g)] = rest_high
        low += glow
        high += ghigh
    if low > rhs or (eq and high < rhs):
        return -1
    changed = 0
    for k in range(start, stop):
        g = rint[_ix(group + k)]
        mn, mx = work[_ix(tmin_at + k)], work[_ix(tmax_at + k)]
        if mn == mx:   # a decided cell: the rest is the row's bounds less its own value
            most, least = rhs - (low - mn), rhs - (high - mx) if eq else -_BIG
        else:
            # the rest of the row at least: the other groups, and this cell's partners (the
            # group's decided cells and the open union's least but one)
            others_low = low - work[_ix(low_at + g)] + max(work[_ix(gmin_at + g)] - mn, work[_ix(rest_low_at + g)])
            most = rhs - others_low
            least = -_BIG
            if eq:
                least = rhs - (high - work[_ix(high_at + g)] + min(work[_ix(gmax_at + g)] - mx,
                                                                   work[_ix(rest_high_at + g)]))
        if mx <= most and mn >= least:
            continue
        narrowed = _narrow(k, most, least, state, rint, work, inq_at, head_tail)
        if narrowed < 0:
            return -1
        changed += narrowed
    if eq and 2 <= n_open <= 3:
        more = _few_open(start, stop, rhs, state, rint, work, inq_at, head_tail)
        if more < 0:
            return -1
        changed += more
    return changed


@njit(cache=False)
def _few_open(start, stop, rhs, state, rint, work, inq_at, head_tail, distinct=False):
    """An ``=`` row with two or three cells still open, made exact (ISS's sum handler does so): a
    digit stays only if the other open cells have digits that complete the sum with it (distinct
    where they share an exclusion group, or everywhere with ``distinct``: a sum of distinct digits).
    -1 on a contradiction, else the cells changed."""
    one = np.uint64(1)
    n = rint[1]
    term_cell, term_coef = rint[9], rint[10]
    group = rint[35]   # each term's exclusion group (-1: none)
    open_ = 0
    i, j, l = -1, -1, -1
    rest = rhs
    for k in range(start, stop):
        v = state[_ix(rint[_ix(term_cell + k)])]
        if v & (v - one):
            open_ += 1
            if open_ > 3:
                return 0
            if i < 0:
                i = k
            elif j < 0:
                j = k
            else:
                l = k
        elif v:
            rest -= rint[term_coef + k * n + _cttz(v)]
    if open_ < 2:
        return 0
    ci, cj = rint[_ix(term_cell + i)], rint[_ix(term_cell + j)]
    vi, vj = state[ci], state[cj]
    ai, aj = term_coef + i * n, term_coef + j * n
    gi, gj = rint[_ix(group + i)], rint[_ix(group + j)]
    if distinct:   # every pair apart: as if one group
        gi, gj = 0, 0
    keep_i, keep_j, keep_l = np.uint64(0), np.uint64(0), np.uint64(0)
    if open_ == 2:
        w = vi
        while w:
            d = _cttz(w)
            w &= w - one
            u = vj
            while u:
                e = _cttz(u)
                u &= u - one
                if rint[ai + d] + rint[aj + e] == rest and (d != e or gi < 0 or gi != gj):
                    keep_i |= one << np.uint64(d)
                    keep_j |= one << np.uint64(e)
    else:
        cl = rint[_ix(term_cell + l)]
        vl = state[cl]
        al, gl = term_coef + l * n, 0 if distinct else rint[_ix(group + l)]
        step = _unit_step(al, n, rint)
        if step != 0:   # the third digit read off the rest: |a| * |b| steps
            return _three_open(ci, cj, cl, vi, vj, vl, ai, aj, al, gi, gj, gl, step, rest, state, rint, work,
                               inq_at, head_tail)
        if _popcount(vi) * _popcount(vj) * _popcount(vl) > THREE_OPEN_MOST:
            return 0   # bounds are as good as it gets there, at a fraction of the cost
        w = vi
        while w:
            d = _cttz(w)
            w &= w - one
            u = vj
            while u:
                e = _cttz(u)
                u &= u - one
                if d == e and gi >= 0 and gi == gj:
                    continue
                left = rest - rint[ai + d] - rint[aj + e]
                t = vl
                while t:
                    f = _cttz(t)
                    t &= t - one
                    if rint[al + f] == left and (d != f or gi < 0 or gi != gl) and (e != f or gj < 0 or gj != gl):
                        keep_i |= one << np.uint64(d)
                        keep_j |= one << np.uint64(e)
                        keep_l |= one << np.uint64(f)
        if keep_l == 0:
            return -1
        _kept(cl, keep_l, vl, state, work, inq_at, head_tail)
    if keep_i == 0 or keep_j == 0:
        return -1
    return (_kept(ci, keep_i, vi, state, work, inq_at, head_tail) + _kept(cj, keep_j, vj, state, work, inq_at, head_tail)
            + (open_ == 3 and keep_l != vl))


@njit(cache=False, inline="always")
def _unit_step(base, n, rint):
    """1 when the coefficients ``rint[base:base + n]`` rise by one a digit, -1 when they fall by
    one, else 0."""
    up, down = True, True
    for d in range(1, n):
        diff = rint[base + d] - rint[base + d - 1]
        up &= diff == 1
        down &= diff == -1
    return 1 if up else (-1 if down else 0)


@njit(cache=False)
def _three_open(ci, cj, cl, vi, vj, vl, ai, aj, al, gi, gj, gl, step, rest, state, rint, work, inq_at, head_tail):
    """:func:`_few_open`'s three open cells where the third's coefficients step by ``step`` (1 or
    -1) a digit: each pair of the first two's digits reads the third's digit off the rest of the
    sum. Digits sharing an exclusion group (``g*`` equal and not negative) stay apart. -1 on a
    contradiction, else the cells changed."""
    one = np.uint64(1)
    n = rint[1]
    keep_i, keep_j, keep_l = np.uint64(0), np.uint64(0), np.uint64(0)
    w = vi
    while w:
        d = _cttz(w)
        w &= w - one
        u = vj
        if gi >= 0 and gi == gj:
            u &= ~(one << np.uint64(d))
        while u:
            e = _cttz(u)
            u &= u - one
            f = (rest - rint[ai + d] - rint[aj + e] - rint[al]) * step
            if f < 0 or f >= n or not (vl >> np.uint64(f)) & one:
                continue
            if (d == f and gi >= 0 and gi == gl) or (e == f and gj >= 0 and gj == gl):
                continue
            keep_i |= one << np.uint64(d)
            keep_j |= one << np.uint64(e)
            keep_l |= one << np.uint64(f)
    if keep_i == 0:
        return -1
    return (_kept(ci, keep_i, vi, state, work, inq_at, head_tail) + _kept(cj, keep_j, vj, state, work, inq_at, head_tail)
            + _kept(cl, keep_l, vl, state, work, inq_at, head_tail))


@njit(cache=False, inline="always")
def _kept(c, keep, v, state, work, inq_at, head_tail):
    """Cell ``c`` (digits ``v``) narrowed to ``keep`` and queued: 1, or 0 when nothing was taken."""
    if keep == v:
        return 0
    state[c] = keep
    _push(c, work, inq_at, head_tail)
    return 1
