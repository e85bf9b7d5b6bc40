"""The SAT engine of batch (one incremental solver per shape, clues as assumptions) and any other
in-process registry engine (cpsat: one model and one call per puzzle)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.propagate import MAX_BITS_N, propagate
from pipeline.core.puzzle import Puzzle
from pipeline.solvers import CountResult, get_solver, register_batch_kernel
from pipeline.solvers.base import STATUSES
from pipeline.solvers.sat import SatEngine, setup_outlasts
from pipeline.solvers.sat import engine_for as sat_engine_for
from pipeline.batch.config import SolveOptions
from pipeline.batch.kernels import Record, with_clues
from pipeline.batch.progress import stopped, tick
from pipeline.batch.text import lower_bound, solver_failure

if TYPE_CHECKING:  # annotations only: the worker imports this module
    from pipeline.batch.worker import Shape

__all__ = ["solve_shape_sat", "solve_shape_each"]


def _sat_engine(model: Model, options: SolveOptions) -> SatEngine:
    """This worker's SAT engine for the shape of ``model`` (the template's, scheme ijk / order C,
    so the literal of (r, c, d) is (r*N + c)*N + d + 1): the rules once, every puzzle's clues as
    assumptions."""
    return sat_engine_for(model, options.amo or DEFAULT_AMO, options.sat_backend)


def _fixed_cells(clues: np.ndarray, template: Puzzle, propagate_first: bool):
    """Per puzzle: the mask of decided cells, their digits (0-based) and whether propagation
    already found a contradiction. With propagation, naked/hidden singles count as decided."""
    n = template.n
    if propagate_first and n <= MAX_BITS_N:
        cand, dead = propagate(clues, template)   # dead covers every cell left without a candidate
        return cand.sum(axis=2) == 1, cand.argmax(axis=2), dead
    return clues > 0, np.maximum(clues - 1, 0), np.zeros(clues.shape[0], dtype=bool)


def count_status(result: CountResult, grid: np.ndarray | None) -> str:
    """A counted record's status: ``interrupted`` when a stop ended the count (its count is
    neither a proof nor a bound worth keeping: a resume counts it again), else optimal with a
    grid, infeasible when the search was complete without one, time_limit otherwise.

    Parameters
    ----------
    result : CountResult
        The engine's count.
    grid : numpy.ndarray or None
        The first grid it found.
    """
    if result.status == "interrupted":
        return "interrupted"
    if grid is not None:
        return "optimal"
    if result.status == "complete":
        return "infeasible"
    return result.status if result.status in STATUSES else "time_limit"   # the run's own word (memory_limit, ...)


def solve_shape_sat(shape: Shape, options: SolveOptions, rows: list[dict], record: Record) -> None:
    """The chunk's puzzles of one shape through one incremental SAT solver: each puzzle's decided
    cells as assumptions, ``count`` by blocking clauses; bulk verification through ``record``.

    Parameters
    ----------
    shape : Shape
        The chunk's puzzles of one shape (template, members, clue grids).
    options : SolveOptions
        The run's solve options.
    rows : list of dict
        The chunk's result rows, updated in place.
    record : callable
        Verifies the found grids and writes the solutions (:data:`pipeline.batch.kernels.Record`).
    """
    template, n = shape.template, shape.template.n
    try:
        model = build_model(template, "ijk", "C", "bounds")
        too_long = setup_outlasts(model, options.time_limit, True, options.amo or DEFAULT_AMO, options.sat_backend)
        engine = None if too_long else _sat_engine(model, options)
    except Exception as e:  # the shape cannot be encoded: every member gets the message
        for k in shape.members:
            rows[k].update(solver_failure(e))
        return
    if engine is None:   # the shape's engine would take longer to build than --time-limit allows
        for k in shape.members:
            rows[k].update(status="time_limit", seconds=0.0, nodes=0, error=f"solver: {too_long}")
        return
    clues = np.stack(shape.grids)
    t0 = time.perf_counter()
    decided, digit, dead = _fixed_cells(clues, template, options.propagate)
    shared = (time.perf_counter() - t0) / len(shape.members)
    solutions = np.zeros_like(clues)
    has = np.zeros(len(shape.members), dtype=bool)
    cell_ids = np.arange(n * n)
    done = 0
    for j, k in enumerate(shape.members):
        if stopped():
            break
        t1 = time.perf_counter()
        row = rows[k]
        row.update(seconds=0.0, nodes=0, error=None, n_solutions=0 if options.count else None)
        try:
            if dead[j]:
                row["status"] = "infeasible"
                continue
            cells = cell_ids[decided[j]]
            literals = (cells * n + digit[j, cells] + 1).tolist()
            if options.count:
                result = engine.count_assumed(literals, options.count, literals, time_limit=options.time_limit)
                row.update(seconds=result.seconds, n_solutions=result.count)
                grid = result.grids[0].ravel() if result.grids else None
                status = count_status(result, grid)
                if result.status == "time_limit" and grid is not None:
                    row["error"] = lower_bound(result.count)
            else:
                start = time.perf_counter()
                outcome = engine.solve_assumed(literals, time_limit=options.time_limit)
                row["seconds"] = time.perf_counter() - start
                status = outcome.status
                grid = None if outcome.full is None else outcome.full.reshape(n * n, n).argmax(axis=1) + 1
            row["status"] = status
            if grid is not None:
                solutions[j], has[j] = grid, True
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            row.update(solver_failure(e))
        finally:
            row["wall_seconds"] += time.perf_counter() - t1 + shared
            done = j + 1
            tick()
    record(template, shape.members[:done], rows, clues[:done], solutions[:done], has[:done])


def solve_shape_each(shape: Shape, options: SolveOptions, rows: list[dict], record: Record) -> None:
    """Any other in-process registry engine (cpsat): one model and one call per puzzle.

    Parameters
    ----------
    shape : Shape
        The chunk's puzzles of one shape (template, members, clue grids).
    options : SolveOptions
        The run's solve options.
    rows : list of dict
        The chunk's result rows, updated in place.
    record : callable
        Verifies the found grids and writes the solutions (:data:`pipeline.batch.kernels.Record`).
    """
    template = shape.template
    solver = get_solver(options.solver)
    clues = np.stack(shape.grids)
    solutions = np.zeros_like(clues)
    has = np.zeros(len(shape.members), dtype=bool)
    done = 0
    for j, k in enumerate(shape.members):
        if stopped():
            break
        t1 = time.perf_counter()
        row = rows[k]
        row.update(seconds=0.0, nodes=0, error=None, n_solutions=None)
        try:
            model = build_model(with_clues(template, clues[j]), "ijk", "C", "bounds")
            if options.count and solver.count is not None:
                result = solver.count(model, options.count, time_limit=options.time_limit)
                row.update(seconds=result.seconds, n_solutions=result.count)
                grid = result.grids[0].ravel() if result.grids else None
                row["status"] = count_status(result, grid)
            else:
                r = solver.solve(model, time_limit=options.time_limit)
                row.update(status=r.status, seconds=r.seconds, nodes=r.nodes)
                grid = None if r.grid is None else r.grid.ravel()
            if grid is not None:
                solutions[j], has[j] = grid, True
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            row.update(solver_failure(e))
        finally:
            row["wall_seconds"] += time.perf_counter() - t1
            done = j + 1
            tick()
    record(template, shape.members[:done], rows, clues[:done], solutions[:done], has[:done])


register_batch_kernel("sat", solve_shape_sat)
register_batch_kernel("cpsat", solve_shape_each)   # one model and one call per puzzle
