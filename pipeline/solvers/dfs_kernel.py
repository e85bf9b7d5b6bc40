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

The functions allocate nothing and raise nothing (scratch arrays come from the caller, rows are
copied cell by cell), so :func:`entry_points` compiles them into C-callable machine code that
needs no numba at run time: :mod:`pipeline.solvers.dfs_native` caches that code and loads it in
a few hundredths of a second, where importing numba and loading its own cache takes about half a
second per process.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from pipeline.solvers.dfs_native import cache_dir

__all__ = ["search", "search_many", "entry_points", "FINISHED"]

#: numba's own cache of these functions (its ``__pycache__`` files, which make a new machine-code
#: object quicker to compile) only where the project keeps its compiled kernels at all: with
#: ``SUDOKU_PIPELINE_CACHE=none`` nothing is written
_NUMBA_CACHE = cache_dir() is not None

#: ``search``'s return value once the search space is exhausted or the limit is reached.
FINISHED = 0


@njit(cache=_NUMBA_CACHE, inline="always")
def _popcount(v):
    count = 0
    while v:
        v &= v - np.uint64(1)
        count += 1
    return count


@njit(cache=_NUMBA_CACHE, inline="always")
def _touch(c, cell_units, n_cell_units, dirty):
    """Mark the units of cell ``c`` for a hidden-single look."""
    for k in range(n_cell_units[c]):
        dirty[cell_units[c, k]] = True


@njit(cache=_NUMBA_CACHE)
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


@njit(cache=_NUMBA_CACHE)
def search(stack: np.ndarray, flags: np.ndarray, origins: np.ndarray, depth: int, found: np.ndarray,
           tallies: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
           n_cell_units: np.ndarray, full: np.uint64, limit: int, budget: int, pause_when_full: bool,
           queue: np.ndarray, dirty: np.ndarray, shares: np.ndarray) -> int:
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
    queue, dirty : numpy.ndarray
        Scratch: ``(cells + 1,)`` ``int64`` and ``(units,)`` ``bool``.
    shares : numpy.ndarray
        ``(cells + 1,)`` ``int64``: each stack row's share of the search tree (row 0's the caller's:
        the whole tree, :data:`pipeline.solvers.dfs.WHOLE`, to start), kept from one call to the next.
        A branch on one of ``k`` candidates gives the child a ``k``-th of its row's share and keeps
        the rest there; a row that fails or is exhausted leaves with its share, so what is left on
        the stack is the tree not yet searched (Knuth's estimate: it supposes a node's branches
        equally large), read between calls.

    Returns
    -------
    int
        The depth to resume from, or :data:`FINISHED` once the space is exhausted or ``limit``
        solutions were found.
    """
    one = np.uint64(1)
    n_cells = stack.shape[1]
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
        share = shares[top] // best_count
        shares[depth] = share
        shares[top] -= share
        # the child (lowest candidate) goes on top and is searched first; the row below keeps
        # the sibling (every other candidate of the cell)
        for c in range(n_cells):   # cell by cell: a whole-row copy brings numba's shape-error path
            stack[depth, c] = state[c]
            flags[depth, c] = placed[c]
        stack[depth, best] = low
        origins[depth] = best
        state[best] = v & ~low
        origins[top] = best
        depth += 1
    return FINISHED


@njit(cache=_NUMBA_CACHE)
def search_many(masks: np.ndarray, peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray,
                cell_units: np.ndarray, n_cell_units: np.ndarray, full: np.uint64, limit: int, budget: int,
                counts: np.ndarray, solutions: np.ndarray, nodes: np.ndarray, unfinished: np.ndarray,
                total_budget: int, stack: np.ndarray, flags: np.ndarray, origins: np.ndarray, tallies: np.ndarray,
                queue: np.ndarray, dirty: np.ndarray, shares: np.ndarray) -> int:
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
    stack, flags, origins, tallies, queue, dirty, shares : numpy.ndarray
        Scratch, shaped as :func:`search` takes them (no estimate is read here: the shares stay 0).

    Returns
    -------
    int
        The puzzles searched (the first ones of ``masks``); the caller passes the rest again.
    """
    n_puzzles, n_cells = masks.shape
    spent = 0
    for p in range(n_puzzles):
        if spent >= total_budget:
            return p
        for c in range(n_cells):
            stack[0, c] = masks[p, c]
            flags[0, c] = False
        origins[0] = -1
        shares[0] = 0
        for k in range(3):
            tallies[k] = 0
        depth = search(stack, flags, origins, 1, solutions[p:p + 1], tallies, peers, n_peers, units, cell_units,
                       n_cell_units, full, limit, budget, False, queue, dirty, shares)
        counts[p] = tallies[0]
        nodes[p] = tallies[1]
        unfinished[p] = depth != FINISHED
        spent += tallies[1]
    return n_puzzles


@functools.cache
def entry_points() -> dict:
    """C-callable versions of :func:`search` and :func:`search_many` (numba ``cfunc``), compiled here.

    Every array is passed as a pointer with its sizes; the argument order of each is
    :data:`pipeline.solvers.dfs_native.SIGNATURES`'s (flags as ``int64``).

    Returns
    -------
    dict
        ``{"search": cfunc, "search_many": cfunc}`` (compiled once per process).
    """
    from numba import carray, cfunc, types

    u64p, i64p, bp = types.CPointer(types.uint64), types.CPointer(types.int64), types.CPointer(types.boolean)
    i64, u64 = types.int64, types.uint64
    # the shape's tables: peers, peer width, n_peers, units, n_units, unit size, cell_units, their
    # width, n_cell_units, cells, full
    tables = (i64p, i64, i64p, i64p, i64, i64, i64p, i64, i64p, i64, u64)
    scratch = (i64p, bp, i64p)   # queue, dirty, shares

    def search_c(stack_p, flags_p, origins_p, depth, found_p, n_found, tallies_p, peers_p, peer_width, n_peers_p,
                 units_p, n_units, unit_size, cell_units_p, cell_unit_width, n_cell_units_p, n_cells, full, limit,
                 budget, pause_when_full, queue_p, dirty_p, shares_p):
        return search(carray(stack_p, (n_cells + 1, n_cells)), carray(flags_p, (n_cells + 1, n_cells)),
                      carray(origins_p, (n_cells + 1,)), depth, carray(found_p, (n_found, n_cells)),
                      carray(tallies_p, (3,)), carray(peers_p, (n_cells, peer_width)), carray(n_peers_p, (n_cells,)),
                      carray(units_p, (n_units, unit_size)), carray(cell_units_p, (n_cells, cell_unit_width)),
                      carray(n_cell_units_p, (n_cells,)), full, limit, budget, pause_when_full != 0,
                      carray(queue_p, (n_cells + 1,)), carray(dirty_p, (n_units,)), carray(shares_p, (n_cells + 1,)))

    def search_many_c(masks_p, n_puzzles, peers_p, peer_width, n_peers_p, units_p, n_units, unit_size, cell_units_p,
                      cell_unit_width, n_cell_units_p, n_cells, full, limit, budget, counts_p, solutions_p, nodes_p,
                      unfinished_p, total_budget, stack_p, flags_p, origins_p, tallies_p, queue_p, dirty_p, shares_p):
        return search_many(carray(masks_p, (n_puzzles, n_cells)), carray(peers_p, (n_cells, peer_width)),
                           carray(n_peers_p, (n_cells,)), carray(units_p, (n_units, unit_size)),
                           carray(cell_units_p, (n_cells, cell_unit_width)), carray(n_cell_units_p, (n_cells,)),
                           full, limit, budget, carray(counts_p, (n_puzzles,)),
                           carray(solutions_p, (n_puzzles, n_cells)), carray(nodes_p, (n_puzzles,)),
                           carray(unfinished_p, (n_puzzles,)), total_budget,
                           carray(stack_p, (n_cells + 1, n_cells)), carray(flags_p, (n_cells + 1, n_cells)),
                           carray(origins_p, (n_cells + 1,)), carray(tallies_p, (3,)),
                           carray(queue_p, (n_cells + 1,)), carray(dirty_p, (n_units,)),
                           carray(shares_p, (n_cells + 1,)))

    search_sig = i64(u64p, bp, i64p, i64, u64p, i64, i64p, *tables, i64, i64, i64, *scratch)
    many_sig = i64(u64p, i64, *tables, i64, i64, i64p, u64p, i64p, bp, i64, u64p, bp, i64p, i64p, *scratch)
    # error_model numpy: no Python exception paths (the code must link without numba's runtime)
    return {"search": cfunc(search_sig, error_model="numpy")(search_c),
            "search_many": cfunc(many_sig, error_model="numpy")(search_many_c)}
