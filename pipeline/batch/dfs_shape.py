"""The ``dfs`` engine in batch: a chunk's puzzles of one shape searched in one compiled call.

:func:`pipeline.solvers.dfs.search_grids` takes the whole shape's clue grids at once, in slices of
:data:`SLICE_PUZZLES` puzzles (a stop request is honoured between two slices), each puzzle within
:data:`FIRST_BUDGET` nodes. The rare puzzle that needs more is searched again on its own, in
node-budget slices under the run's ``--time-limit`` (:func:`pipeline.solvers.dfs.search_puzzle`).
``--count K`` searches each puzzle up to K solutions. When the engine is ``auto``'s pick, a puzzle
still open after :data:`pipeline.solvers.auto.DFS_COUNT_BUDGET` seconds on its own, and not
listing grids, goes to the SAT engine, as ``auto``'s count hands it on (dfs learns nothing: 4 of 6
16x16 jigsaws with 55 clues ran out of a 10 s limit, where the SAT engine takes under a second).
Solutions are verified in bulk through ``record`` like every kernel's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.errors import SolveError
from pipeline.core.puzzle import Puzzle
from pipeline.core.build import build_model
from pipeline.solvers import SOLVERS, register_batch_kernel
from pipeline.solvers.auto import DFS_COUNT_BUDGET
from pipeline.solvers.dfs import search_grids, search_puzzle
from pipeline.solvers.handoff import stuck_after
from pipeline.batch.config import SolveOptions
from pipeline.batch.kernels import Record, with_clues
from pipeline.batch.sat_shape import EACH_FROM, answer_record
from pipeline.batch.progress import stopped, tick
from pipeline.batch.text import lower_bound, solver_failure

if TYPE_CHECKING:  # annotations only: the worker imports this module
    from pipeline.batch.worker import Shape

__all__ = ["solve_shape_dfs"]

#: Puzzles per bulk search (one verification and one row update pass each).
SLICE_PUZZLES = 256
#: Nodes per compiled call: a stop request is seen between two calls (~0.2 s of 9x9 nodes).
CALL_NODES = 200_000
#: Nodes per puzzle in the bulk call (the hardest 9x9 of the forum set needs under 4,000; a
#: node costs about a microsecond at 9x9), before the puzzle is searched on its own.
FIRST_BUDGET = 100_000
#: With ``--time-limit T`` the bulk budget is at most T times this (nodes per second, the slow
#: end: big grids), so the bulk call keeps within about the limit.
BUDGET_NODES_PER_SECOND = 100_000


def _status(count: int, unfinished: bool) -> str:
    if count:
        return "optimal"
    return "time_limit" if unfinished else "infeasible"


def solve_shape_dfs(shape: Shape, options: SolveOptions, rows: list[dict], record: Record) -> None:
    """The chunk's puzzles of one shape through the compiled search, many per call.

    Parameters
    ----------
    shape : Shape
        The chunk's puzzles of one shape (template, members, clue grids).
    options : SolveOptions
        The run's solve options (``count``, ``time_limit``).
    rows : list of dict
        The chunk's result rows, updated in place.
    record : callable
        Verifies the found grids and writes the solutions (:data:`pipeline.batch.kernels.Record`).
    """
    template = shape.template
    clues = np.stack(shape.grids)
    limit = options.count or 1
    solutions = np.zeros_like(clues)
    has = np.zeros(len(shape.members), dtype=bool)
    budget = FIRST_BUDGET
    if options.time_limit is not None:
        budget = max(1, min(budget, int(options.time_limit * BUDGET_NODES_PER_SECOND)))
    done = 0
    try:
        for lo in range(0, len(shape.members), SLICE_PUZZLES):
            if stopped():
                break
            hi = min(lo + SLICE_PUZZLES, len(shape.members))
            start = time.perf_counter()
            counts, found, nodes, unfinished, searched = search_grids(clues[lo:hi], template, limit, budget,
                                                                      CALL_NODES, stopped)
            hi = lo + searched
            share = (time.perf_counter() - start) * nodes / max(int(nodes[:searched].sum()), 1)   # seconds by nodes
            for j in range(lo, hi):
                k, i = shape.members[j], j - lo
                count, seconds, n_nodes, open_ = int(counts[i]), float(share[i]), int(nodes[i]), bool(unfinished[i])
                status, error = None, None
                if open_:   # beyond the bulk budget: on its own, under the time limit
                    alone = _search_alone(with_clues(template, clues[j]), limit, options)
                    if alone is None:   # stopped: left out, a resume searches it again
                        hi = j
                        break
                    count, n_nodes, open_, status, error = (alone.count, n_nodes + alone.nodes, alone.open,
                                                            alone.status, alone.error)
                    seconds += alone.seconds
                    if alone.grid is not None:
                        found[i] = alone.grid.ravel()
                row = rows[k]
                row.update(status=status or _status(count, open_), seconds=seconds, nodes=n_nodes, error=error,
                           n_solutions=count if options.count else None)
                row["wall_seconds"] += seconds
                if options.count and open_ and count:
                    row["error"] = lower_bound(count)
                if count:
                    solutions[j], has[j] = found[i], True
                tick()
            done = hi
    except SolveError as e:   # numba missing, or a shape the engine cannot take: every member says so
        for k in shape.members[done:]:
            rows[k].update(solver_failure(e))
    record(template, shape.members[:done], rows, clues[:done], solutions[:done], has[:done])


@dataclass
class _Alone:
    """A puzzle's search on its own (:func:`_search_alone`)."""

    count: int
    nodes: int
    seconds: float
    open: bool                 # stopped by the time limit
    grid: np.ndarray | None
    status: str | None = None  # the SAT engine's status, when it took the puzzle over
    error: str | None = None   # and its row's error (a count's lower bound)


def _search_alone(puzzle: Puzzle, limit: int, options: SolveOptions) -> _Alone | None:
    """``puzzle`` searched on its own under the run's time limit; when the engine is ``auto``'s
    pick, one stuck past :data:`pipeline.solvers.auto.DFS_COUNT_BUDGET` goes to the SAT engine as
    ``auto``'s count hands it on. None: the batch was asked to stop."""
    alone = search_puzzle(puzzle, limit, time_limit=options.time_limit, stop=stopped,
                          give_up=stuck_after(DFS_COUNT_BUDGET) if options.rules_by_auto else None)
    if alone.status == "stopped":
        return None
    answer = _Alone(alone.count, alone.nodes, alone.seconds, alone.status == "time_limit",
                    alone.grids[0] if alone.grids else None)
    left = None if options.time_limit is None else options.time_limit - alone.seconds
    sat = SOLVERS.get("sat")
    if not (answer.open and options.rules_by_auto and (left is None or left > 0)) or sat is None:
        return answer
    model = build_model(puzzle)
    if sat.problem_with(model):   # python-sat missing here: the dfs answer stands
        return answer
    status, grid, fields = answer_record(sat, model, replace(options, time_limit=left), shared=puzzle.n < EACH_FROM)
    if status == "time_limit" and (fields.get("n_solutions") or 0) < answer.count:
        return answer   # the SAT engine ran out of time too, having found fewer than dfs had
    return _Alone(fields.get("n_solutions") or int(grid is not None), alone.nodes, alone.seconds + fields["seconds"],
                  status == "time_limit", grid if grid is not None else answer.grid, status, fields.get("error"))


def warm_dfs() -> None:
    """Load the compiled bulk search (:mod:`pipeline.solvers.dfs_native`: a few hundredths of a
    second from its cache, seconds to compile it the first time) with a trivial 4x4 search, so
    that a forked pool's workers inherit it; without numba there is nothing to load (the
    workers' rows say why)."""
    try:
        search_grids(np.zeros((1, 16), dtype=np.int64), Puzzle(np.zeros((4, 4), dtype=np.int64), 2, 2), 1, 1)
    except SolveError:
        pass


register_batch_kernel("dfs", solve_shape_dfs, warm_dfs)
