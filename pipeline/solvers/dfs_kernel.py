"""The compiled kernel of the ``dfs`` engine (:mod:`pipeline.solvers.dfs`): imported only when
that engine runs, because importing numba costs a few tenths of a second.

A state is one ``uint64`` candidate bitmask per cell (bit ``d`` set: digit ``d + 1`` still
possible). :func:`search` runs a depth-first search on one puzzle from a stack of states:
propagate naked and hidden singles (the rules of :mod:`pipeline.core.propagate`, one state at a
time), take the cell with the fewest candidates, and split it into "its lowest candidate" (searched
first) and "any other candidate". The stack holds at most one pending sibling per decided cell, so
``cells + 1`` rows always suffice. A search is resumable: it stops after ``budget`` nodes with
its stack intact, and the caller calls it again (the engine checks its deadline and signals in
between). :func:`search_many` runs many puzzles of one shape in one call, each within one budget.

Each stack row carries a second array of flags: the cells whose single candidate has already
been removed from their peers, so a state's naked singles are propagated once along a path.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["search", "search_many", "FINISHED"]

#: ``search``'s return value once the search space is exhausted or the limit is reached.
FINISHED = 0


@njit(cache=True, inline="always")
def _popcount(v):
    count = 0
    while v:
        v &= v - np.uint64(1)
        count += 1
    return count


@njit(cache=True, inline="always")
def _touch(c, cell_units, n_cell_units, dirty):
    """Mark the units of cell ``c`` for a hidden-single look."""
    for k in range(n_cell_units[c]):
        dirty[cell_units[c, k]] = True


@njit(cache=True)
def _propagate(state, placed, origin, peers, n_peers, units, cell_units, n_cell_units, full, queue, dirty):
    """Naked and hidden singles to a fixed point, in place; False on a contradiction.

    ``state`` is a fixed point except at cell ``origin`` (the cell the branch changed), or
    nothing is known of it (``origin < 0``: the root). Only what changed is looked at again: a
    queue of new naked singles, and the units (``dirty``) holding a cell that lost a candidate.
    """
    zero, one = np.uint64(0), np.uint64(1)
    n_cells = state.shape[0]
    n_units, size = units.shape
    queued = 0
    if origin < 0:
        dirty[:] = True
        for c in range(n_cells):
            v = state[c]
            if v == zero:
                return False
            if not placed[c] and (v & (v - one)) == zero:
                queue[queued] = c
                queued += 1
    else:
        dirty[:] = False
        v = state[origin]
        if v == zero:
            return False
        if not placed[origin] and (v & (v - one)) == zero:
            queue[queued] = origin
            queued += 1
        _touch(origin, cell_units, n_cell_units, dirty)
    while True:
        # naked singles: each new one's digit leaves its peers, once per path (placed)
        head = 0
        while head < queued:
            c = queue[head]
            head += 1
            if placed[c]:
                continue
            placed[c] = True
            v = state[c]
            keep = ~v
            for k in range(n_peers[c]):
                q = peers[c, k]
                w = state[q]
                if w & v:
                    w &= keep
                    if w == zero:
                        return False
                    state[q] = w
                    _touch(q, cell_units, n_cell_units, dirty)
                    if (w & (w - one)) == zero:
                        queue[queued] = q
                        queued += 1
        queued = 0
        # hidden singles in the units that changed
        for u in range(n_units):
            if not dirty[u]:
                continue
            dirty[u] = False
            once, twice = zero, zero
            for k in range(size):
                v = state[units[u, k]]
                twice |= once & v
                once |= v
            if once != full:        # a digit with no place left in the unit
                return False
            hidden = once & ~twice  # digits with one place left
            if hidden == zero:
                continue
            for k in range(size):
                c = units[u, k]
                v = state[c]
                h = v & hidden
                if (h & (h - one)) != zero:   # two digits need the same cell (also when they are all it has)
                    return False
                if h != zero and h != v:
                    state[c] = h
                    _touch(c, cell_units, n_cell_units, dirty)
                    queue[queued] = c
                    queued += 1
        if queued == 0:
            # a unit marked by the last hidden single of the loop above, before its index
            for u in range(n_units):
                if dirty[u]:
                    break
            else:
                return True


@njit(cache=True)
def search(stack: np.ndarray, flags: np.ndarray, origins: np.ndarray, depth: int, found: np.ndarray,
           tallies: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
           n_cell_units: np.ndarray, full: np.uint64, limit: int, budget: int, pause_when_full: bool) -> int:
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
    limit : int
        Stop at this many solutions.
    budget : int
        Nodes this call may visit.
    pause_when_full : bool
        Also return (not finished) when ``found`` has just filled up, for the caller to drain
        it (reset ``tallies[2]``) and resume.

    Returns
    -------
    int
        The depth to resume from, or :data:`FINISHED` once the space is exhausted or ``limit``
        solutions were found.
    """
    one = np.uint64(1)
    n_cells = stack.shape[1]
    queue = np.empty(n_cells + 1, dtype=np.int64)
    dirty = np.empty(units.shape[0], dtype=np.bool_)
    spent = 0
    while depth > 0:
        if spent >= budget:
            return depth
        spent += 1
        tallies[1] += 1
        top = depth - 1
        state, placed = stack[top], flags[top]
        if not _propagate(state, placed, origins[top], peers, n_peers, units, cell_units, n_cell_units, full, queue,
                          dirty):
            depth -= 1
            continue
        best, best_count = -1, 65
        for c in range(n_cells):
            v = state[c]
            if (v & (v - one)) != 0:
                k = _popcount(v)
                if k < best_count:
                    best, best_count = c, k
                    if k == 2:
                        break
        if best < 0:   # every cell decided: a solution
            tallies[0] += 1
            if tallies[2] < found.shape[0]:
                found[tallies[2]] = state
                tallies[2] += 1
            depth -= 1
            if tallies[0] >= limit:
                return FINISHED
            if pause_when_full and tallies[2] == found.shape[0] and depth > 0:
                return depth
            continue
        v = state[best]
        low = v & (~v + one)
        # the child (lowest candidate) goes on top and is searched first; the row below keeps
        # the sibling (every other candidate of the cell)
        stack[depth] = state
        flags[depth] = placed
        stack[depth, best] = low
        origins[depth] = best
        state[best] = v & ~low
        origins[top] = best
        depth += 1
    return FINISHED


@njit(cache=True)
def search_many(masks: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray,
                cell_units: np.ndarray, n_cell_units: np.ndarray, full: np.uint64, limit: int, budget: int,
                counts: np.ndarray, solutions: np.ndarray, nodes: np.ndarray, unfinished: np.ndarray,
                total_budget: int) -> int:
    """:func:`search` for every row of ``masks`` (one puzzle's start state each), one stack reused.

    Parameters
    ----------
    masks : numpy.ndarray
        ``(P, cells)`` ``uint64`` start states.
    peers, n_peers, units, cell_units, n_cell_units, full
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
    limit : int
        Stop each puzzle at this many solutions.
    budget : int
        Nodes per puzzle; one that needs more is flagged in ``unfinished``.
    counts, solutions, nodes, unfinished : numpy.ndarray
        Outputs, ``(P,)`` and ``(P, cells)``: solutions found, the first solution's masks,
        nodes visited, budget ran out.
    total_budget : int
        Start no further puzzle once this many nodes were spent in this call (the caller looks
        at the clock and at stop requests between calls).

    Returns
    -------
    int
        The puzzles searched (the first ones of ``masks``); the caller passes the rest again.
    """
    n_puzzles, n_cells = masks.shape
    stack = np.empty((n_cells + 1, n_cells), dtype=np.uint64)
    flags = np.zeros((n_cells + 1, n_cells), dtype=np.bool_)
    origins = np.empty(n_cells + 1, dtype=np.int64)
    tallies = np.zeros(3, dtype=np.int64)
    spent = 0
    for p in range(n_puzzles):
        if spent >= total_budget:
            return p
        stack[0] = masks[p]
        flags[0] = False
        origins[0] = -1
        tallies[:] = 0
        depth = search(stack, flags, origins, 1, solutions[p:p + 1], tallies, peers, n_peers, units, cell_units,
                       n_cell_units, full, limit, budget, False)
        counts[p] = tallies[0]
        nodes[p] = tallies[1]
        unfinished[p] = depth != FINISHED
        spent += tallies[1]
    return n_puzzles
