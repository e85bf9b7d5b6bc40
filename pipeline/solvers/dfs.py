"""``dfs``: depth-first search with naked and hidden singles, compiled with numba (the ``fast`` extra).

The classic Sudoku search, written for many puzzles of one shape per call: candidates as one
``uint64`` bitmask per cell, naked and hidden singles to a fixed point at every node (the rules of
:mod:`pipeline.core.propagate`), then the cell with the fewest candidates is split. It learns
nothing, so it is the engine for the many small puzzles of a batch (thousands of hard 9x9 per
second, where a SAT solver's per-call overhead dominates), not for a minimal 25x25 (use ``sat``).

It reads the puzzle's unit families (:meth:`pipeline.core.puzzle.Puzzle.unit_families`): any box
shape, variant, jigsaw regions and unit rules (windoku windows) up to 64x64. Rows beyond units
(cages, thermometers, Kropki, ...) and gattai layouts need an engine with ``rule_rows``; this one
refuses them with one line. ``count`` and the uniqueness check search on past the first
solution; ``time_limit`` is checked between node-budget slices, so Ctrl-C and the time limit
take effect within milliseconds.

The kernel (:mod:`pipeline.solvers.dfs_kernel`) is compiled by numba on a machine's first use
(about 5 s) and kept as machine code that later processes load without numba
(:mod:`pipeline.solvers.dfs_native`: ``~/.cache/sudoku-pipeline``, ``SUDOKU_PIPELINE_CACHE``
moves it).
"""
from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pipeline.core.build import Model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import SolveError
from pipeline.core.extras import install_hint
from pipeline.core.options import time_limit_bound
from pipeline.core.propagate import unit_tables
from pipeline.core.puzzle import Puzzle
from pipeline.solvers import dfs_native
from pipeline.solvers.base import CountResult, GiveUp, Solver, SolveResult, register_solver, without_give_up
from pipeline.solvers.dfs_native import KernelCalls

__all__ = ["MAX_DFS_N", "WHOLE", "tree_searched", "Search", "Searched", "ShapeTables", "grids_of", "search_grids",
           "search_puzzle", "shape_tables", "start_masks"]

#: Candidate sets are ``uint64`` bitmasks.
MAX_DFS_N = 64
#: Nodes of the first slice of one search; later slices are sized to last about
#: :data:`SLICE_SECONDS` (a 9x9 node takes about a microsecond, a 25x25 node some tens). Python
#: runs only between two compiled calls: a signal and the clock are seen between two slices.
SLICE_NODES = 20_000
SLICE_SECONDS = 0.1
MAX_SLICE_NODES = 1 << 40
#: Solutions held per drain of a count's buffer.
FOUND_BUFFER = 256
#: The largest limit the kernels' int64 takes; a larger one counts as this (never reached).
COUNT_LIMIT_MAX = int(np.iinfo(np.int64).max)
#: A search's whole tree in the kernels' shares of it (each stack row's share, in units of 2**-62:
#: :func:`pipeline.solvers.dfs_kernel.search`, and the ``dfsrules`` kernel's): what is left on the
#: stack, over this, is the share of the tree not yet searched.
WHOLE = 1 << 62


def tree_searched(shares: np.ndarray, depth: int) -> float:
    """The share of a search's tree searched (0 to 1): the whole less what the stack's ``depth``
    rows still hold (their ``shares``, :data:`WHOLE` in all at the root).

    Parameters
    ----------
    shares : numpy.ndarray
        Each stack row's share (``int64``).
    depth : int
        Rows in use.

    Returns
    -------
    float
    """
    return 1.0 - float(shares[:depth].sum()) / WHOLE


def _import_problem() -> str | None:
    """None if numba and llvmlite are installed, else why not (in words a user can act on).

    Looked up, not imported: the kernel's cached machine code needs llvmlite only
    (:mod:`pipeline.solvers.dfs_native`), and numba's import is what that cache saves.
    """
    global _IMPORTS_FOUND
    if _IMPORTS_FOUND:   # found once: a module the process found stays found (a lookup costs 0.1 ms a solve)
        return None
    if any(importlib.util.find_spec(name) is None for name in ("numba", "llvmlite")):
        return f"needs numba (the fast extra): {install_hint('fast')}"
    _IMPORTS_FOUND = True
    return None


_IMPORTS_FOUND = False


def kernel() -> KernelCalls:
    """The compiled kernel (:func:`pipeline.solvers.dfs_native.load`); SolveError naming the extra when numba is missing."""
    problem = _import_problem()
    if problem:
        raise SolveError(f"solver dfs: {problem}")
    return dfs_native.load()


@dataclass(frozen=True)
class ShapeTables:
    """What the kernel needs of a shape: every cell's peers (padded; ``n_peers`` of them are
    real), every unit's cells, every cell's units (padded; ``n_cell_units`` real), and the mask
    of all ``n`` digits; ``unit_pairs``: which cells share a unit, one bit per cell pair (read-only,
    :meth:`share_unit` reads it; a 64x64's boolean matrix would hold 16.7 MB per cached shape)."""

    n: int
    peers: np.ndarray
    n_peers: np.ndarray
    units: np.ndarray
    cell_units: np.ndarray
    n_cell_units: np.ndarray
    full: np.uint64
    unit_pairs: np.ndarray

    def share_unit(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Whether cells ``a[i]`` and ``b[i]`` (``a[i] != b[i]``) lie in one unit.

        Parameters
        ----------
        a, b : numpy.ndarray
            Cell numbers (integers), of one shape.

        Returns
        -------
        numpy.ndarray
            Booleans, of that shape.
        """
        return ((self.unit_pairs[a, b >> 3] >> (b & 7)) & 1).astype(bool)

    @functools.cached_property
    def native_args(self) -> tuple:
        """The tables as the compiled entry points take them (:func:`pipeline.solvers.dfs_native.table_args`:
        pointers into these arrays, and sizes), made once per shape: every search call converted
        the five pointers again (10-15 us a call)."""
        return dfs_native.table_args(self.peers, self.n_peers, self.units, self.cell_units, self.n_cell_units,
                                     self.peers.shape[0], self.full)


_TABLES: dict[bytes, ShapeTables] = {}
_MAX_TABLES = 64   # jigsaw batches have one shape per region layout


def shape_tables(puzzle: Puzzle) -> ShapeTables:
    """The kernel's tables for ``puzzle``'s shape (its unit families), cached by the families.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle of the shape; its clues are not used.

    Returns
    -------
    ShapeTables

    Raises
    ------
    SolveError
        Grids above :data:`MAX_DFS_N`.
    """
    n = puzzle.n
    if n > MAX_DFS_N:
        raise SolveError(f"solver dfs: grids up to {MAX_DFS_N}x{MAX_DFS_N} (64-bit candidate masks), found {n}x{n}")
    _, units_by_position, units_of_cells, key = unit_tables(puzzle)   # propagate's tables, cached by shape
    tables = _TABLES.get(key)
    if tables is not None:
        return tables
    n_cells = n * n
    units = np.ascontiguousarray(units_by_position.T, dtype=np.int64)
    # peers: every other cell of any of the cell's units, gathered from an adjacency matrix
    adjacent = np.zeros((n_cells, n_cells), dtype=bool)
    adjacent[units[:, :, None], units[:, None, :]] = True
    adjacent[np.arange(n_cells), np.arange(n_cells)] = False
    n_peers = adjacent.sum(axis=1).astype(np.int64)
    peers = np.argsort(~adjacent, axis=1, kind="stable")[:, :max(int(n_peers.max(initial=0)), 1)]
    # every cell's units: propagate's table, its padding (unit number U) past n_cell_units
    cell_units = np.ascontiguousarray(units_of_cells.T, dtype=np.int64)
    n_cell_units = (cell_units < units.shape[0]).sum(axis=1).astype(np.int64)
    unit_pairs = np.packbits(adjacent, axis=1, bitorder="little")
    unit_pairs.flags.writeable = False   # shared by every puzzle of the shape (dfsrules' pair tables read it)
    tables = ShapeTables(n, np.ascontiguousarray(peers, dtype=np.int64), n_peers, units,
                         cell_units, n_cell_units, np.uint64((1 << n) - 1), unit_pairs)
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    _TABLES[key] = tables
    return tables


def start_masks(grids: np.ndarray, n: int) -> np.ndarray:
    """Clue grids ``(P, N*N)`` (0 = empty) -> the search's start states ``(P, N*N)`` of ``uint64``.

    Parameters
    ----------
    grids : numpy.ndarray
        Clue grids, values ``0..N``.
    n : int
        Grid side.

    Examples
    --------
    >>> start_masks(np.array([[1, 0, 4, 2]]), 4).tolist()
    [[1, 15, 8, 2]]
    """
    grids = np.asarray(grids, dtype=np.int64)
    bits = np.left_shift(np.uint64(1), np.maximum(grids - 1, 0).astype(np.uint64))
    return np.where(grids > 0, bits, np.uint64((1 << n) - 1)).astype(np.uint64)


def grids_of(masks: np.ndarray) -> np.ndarray:
    """Solved states (one bit per cell) -> digits ``1..N`` (same shape).

    Parameters
    ----------
    masks : numpy.ndarray
        ``uint64`` masks with one bit set per cell.

    Examples
    --------
    >>> grids_of(np.array([1, 8, 2], dtype=np.uint64)).tolist()
    [1, 4, 2]
    """
    return np.bitwise_count(np.asarray(masks, dtype=np.uint64) - np.uint64(1)).astype(np.int64) + 1


class Searched(NamedTuple):
    """What :func:`search_grids` found, per puzzle (the first ``searched`` rows are filled)."""

    counts: np.ndarray       # (P,) solutions found, at most the limit
    solutions: np.ndarray    # (P, N*N) the first solution's digits (0 where none was found)
    nodes: np.ndarray        # (P,) search nodes
    unfinished: np.ndarray   # (P,) the per-puzzle budget ran out first
    searched: int            # puzzles searched: all of them unless ``stop`` said so


def search_grids(grids: np.ndarray, template: Puzzle, limit: int, budget: int, total_budget: int | None = None,
                 stop: Callable[[], bool] | None = None) -> Searched:
    """Search many puzzles of ``template``'s shape in compiled calls, each within ``budget`` nodes.

    Parameters
    ----------
    grids : numpy.ndarray
        ``(P, N*N)`` clue grids, 0 = empty.
    template : Puzzle
        Any puzzle of the shape.
    limit : int
        Stop each puzzle at this many solutions (1: solve, 2: solve and prove uniqueness).
    budget : int
        Nodes per puzzle; a puzzle that needs more is flagged unfinished (its count is a lower
        bound and it may have no solution yet).
    total_budget : int, optional
        Nodes per compiled call (at least one puzzle each): between two calls Python runs, so
        a signal is handled within about that many nodes. Default: no bound.
    stop : callable, optional
        Asked between two calls; True leaves the remaining puzzles unsearched.

    Returns
    -------
    Searched
    """
    tables = shape_tables(template)
    masks = start_masks(grids, tables.n)
    n_puzzles = masks.shape[0]
    counts = np.zeros(n_puzzles, dtype=np.int64)
    found = np.zeros_like(masks)
    nodes = np.zeros(n_puzzles, dtype=np.int64)
    unfinished = np.zeros(n_puzzles, dtype=np.bool_)
    compiled, done = kernel(), 0
    total = np.iinfo(np.int64).max if total_budget is None else total_budget
    while done < n_puzzles and not (done and stop is not None and stop()):
        done += compiled.search_many(masks[done:], tables.peers, tables.n_peers, tables.units, tables.cell_units,
                                     tables.n_cell_units, tables.full, limit, budget, counts[done:], found[done:],
                                     nodes[done:], unfinished[done:], total)
    solutions = np.where(counts[:, None] > 0, grids_of(found), 0)
    return Searched(counts, solutions, nodes, unfinished, done)


@dataclass
class Search:
    """The outcome of one puzzle's search (:func:`search_puzzle`)."""

    count: int
    grids: list[np.ndarray]
    status: str          # complete | limit | time_limit | stopped
    nodes: int
    seconds: float


def search_puzzle(puzzle: Puzzle, limit: int, *, keep: int = 1, time_limit: float | None = None,
                  stop: Callable[[], bool] | None = None, give_up: GiveUp | None = None) -> Search:
    """One puzzle's search in node-budget slices (the clock and signals are looked at in between).

    Parameters
    ----------
    puzzle : Puzzle
        The clues and the shape.
    limit : int
        Stop at this many solutions.
    keep : int
        Keep the grids of the first ``keep`` solutions.
    time_limit : float, optional
        Seconds; the status is ``time_limit`` when the search was stopped by it.
    stop : callable, optional
        Asked between two slices; True ends the search with status ``stopped`` (batch's stop
        request).
    give_up : callable, optional
        ``give_up(solutions, seconds, progress)`` (:class:`~pipeline.solvers.base.GiveUp`), asked
        between two slices with the solutions found, the seconds spent so far and the share of the
        tree searched (from the shares the kernel keeps per stack row: what is left on the stack is
        the tree not yet searched); True ends the search with status ``time_limit`` (a budget of
        the caller's own: ``auto`` hands a search that is stuck to the SAT engine).

    Returns
    -------
    Search
    """
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    limit = min(limit, COUNT_LIMIT_MAX)   # the kernel's int64: 2**63 wrapped to a "complete" count of 1
    tables = shape_tables(puzzle)
    compiled = kernel()
    n_cells = tables.n * tables.n
    stack = np.empty((n_cells + 1, n_cells), dtype=np.uint64)
    flags = np.zeros((n_cells + 1, n_cells), dtype=np.bool_)
    origins = np.full(n_cells + 1, -1, dtype=np.int64)
    stack[0] = start_masks(np.asarray(puzzle.grid).reshape(1, n_cells), tables.n)[0]
    found = np.zeros((max(min(keep, FOUND_BUFFER), 1), n_cells), dtype=np.uint64)
    tallies = np.zeros(3, dtype=np.int64)
    shares = np.zeros(n_cells + 1, dtype=np.int64)
    shares[0] = WHOLE
    grids: list[np.ndarray] = []
    depth, budget, status = 1, SLICE_NODES, ""
    while True:
        slice_start, nodes_before = time.perf_counter(), int(tallies[1])
        depth = compiled.search(stack, flags, origins, depth, found, tallies, tables.peers, tables.n_peers,
                                tables.units, tables.cell_units, tables.n_cell_units, tables.full, limit, budget,
                                keep > found.shape[0], shares)
        stored = int(tallies[2])
        if stored and len(grids) < keep:   # drain the buffer (a count with --list keeps them all)
            grids.extend(g.reshape(tables.n, tables.n) for g in grids_of(found[:min(stored, keep - len(grids))]))
            tallies[2] = 0
        if depth == compiled.FINISHED:
            status = "limit" if tallies[0] >= limit else "complete"
            break
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            status = "time_limit"
            break
        if stop is not None and stop():
            status = "stopped"
            break
        if give_up is not None and give_up(int(tallies[0]), now - start, tree_searched(shares, depth)):
            status = "time_limit"
            break
        # the next slice lasts about SLICE_SECONDS, or up to the deadline when that is sooner
        # (measured on the nodes this slice visited: it may have paused early to hand over grids)
        spent = int(tallies[1]) - nodes_before
        if spent >= budget:
            rate = spent / max(now - slice_start, 1e-6)
            want = SLICE_SECONDS if deadline is None else min(SLICE_SECONDS, deadline - now)
            budget = int(min(max(rate * want, 1_000), 4 * budget, MAX_SLICE_NODES))
    return Search(int(tallies[0]), grids, status, int(tallies[1]), time.perf_counter() - start)


def solve(model: Model, *, time_limit: float | None = None, check_unique: bool = False) -> SolveResult:
    """Solve ``model``'s puzzle by search (its clues and unit families).

    Parameters
    ----------
    model : Model
        A model without rows beyond units (the registry entry refuses those).
    time_limit : float, optional
        Seconds; ``time_limit`` status when reached.
    check_unique : bool
        Search on past the first solution: ``unique`` says whether it is the only one.

    Returns
    -------
    SolveResult
        ``x`` over the model's columns and ``grid`` when solved; ``nodes`` the search nodes.
    """
    found = search_puzzle(model.puzzle, 2 if check_unique else 1, time_limit=time_limit)
    if not found.grids:
        status = "time_limit" if found.status == "time_limit" else "infeasible"
        return SolveResult(status, None, None, found.seconds, found.nodes, solver="dfs")
    grid = found.grids[0]
    unique = None if not check_unique or found.status == "time_limit" else found.count == 1
    x = vector_from_grid(grid, model.convention)[model.columns]
    return SolveResult("optimal", x, 0.0, found.seconds, found.nodes, grid=grid, solver="dfs", unique=unique)


def count_or_give_up(model: Model, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None,
                     give_up: GiveUp | None = None) -> CountResult:
    """Count ``model``'s solutions up to ``limit`` by search, keeping the grids of the first ``keep``.

    Parameters
    ----------
    model : Model
        A model without rows beyond units.
    limit : int
        Stop at this many solutions.
    time_limit : float, optional
        Seconds; ``time_limit`` status (the count is then a lower bound).
    keep : int, optional
        Keep the grids of the first ``keep`` solutions only (default: all, up to ``limit``).
        This search finds grids fast (an empty 16x16: ~100,000 a second), so ``count`` without
        ``--list`` keeps one and its memory stays bounded whatever ``--limit`` is.
    give_up : callable, optional
        As :func:`search_puzzle` takes it.

    Returns
    -------
    CountResult
    """
    if limit < 1:
        raise SolveError(f"count: --limit must be at least 1, found {limit}")
    found = search_puzzle(model.puzzle, limit, keep=limit if keep is None else min(keep, limit), time_limit=time_limit,
                          give_up=give_up)
    return CountResult(found.count, found.grids, found.status, found.seconds)


#: the registered count (the options a user may pass): :func:`count_or_give_up` without ``give_up``
count = without_give_up(count_or_give_up)


def _size_problem(model: Any) -> str | None:
    """Why the search cannot take ``model``: a grid above :data:`MAX_DFS_N` (its candidate masks
    are 64-bit), or None. ``problem_with`` says so before a call (a batch's auto pick passes the
    records of such a size to an engine that takes them)."""
    n = model.puzzle.n
    return f"grids up to {MAX_DFS_N}x{MAX_DFS_N} (64-bit candidate masks), found {n}x{n}" if n > MAX_DFS_N else None


register_solver(Solver(
    name="dfs", description="depth-first search with naked/hidden singles, numba-compiled (many puzzles per call)",
    solve=solve, count=count, count_or_give_up=count_or_give_up, available=_import_problem, install_hint=install_hint("fast"),
    model_problem=_size_problem,
    start_problem=dfs_native.start_problem, statuses={"complete": "optimal", "time_limit": "time_limit"},
    proves_unique=True, timed_call="the compiled search", wide_values=False,
    # any finite limit: the deadline is checked between node-budget slices
    bounds={"time_limit": time_limit_bound()}))
