"""The SAT engine of batch (one incremental solver per shape, clues as assumptions) and any other
in-process registry engine (cpsat: one model and one call per puzzle)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core import stops
from pipeline.core.build import Model, build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.propagate import MAX_BITS_N, propagate
from pipeline.core.puzzle import Puzzle
from pipeline.solvers import CountResult, Solver, get_solver, register_batch_kernel
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.base import STATUSES
from pipeline.solvers.relabel import count_by_relabelling, relabelling_settles
from pipeline.solvers.sat import SatEngine, setup_outlasts
from pipeline.solvers.sat import engine_for as sat_engine_for
from pipeline.batch.config import SolveOptions
from pipeline.batch.kernels import Record, with_clues
from pipeline.batch.progress import stopped, tick
from pipeline.batch.text import lower_bound, solver_failure, solver_said

if TYPE_CHECKING:  # annotations only: the worker imports this module
    from pipeline.batch.worker import Shape

__all__ = ["EACH_FROM", "answer_record", "count_status", "solve_shape_sat", "solve_shape_each"]


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


def _engine_options(solver: Solver, what: str, options: SolveOptions, shared: bool) -> dict:
    """What the engine declares of: the shape's cached engine (``reuse``: clues as assumptions) or
    not, its SAT backend and encoding (the SAT engine takes them; HiGHS and CP-SAT none)."""
    return solver.pick_options({"reuse": shared, "sat_backend": options.sat_backend,
                                "amo": options.amo or DEFAULT_AMO, "keep": 1}, what)   # a row holds one grid


def answer_record(solver: Solver, model: Model, options: SolveOptions,
                  shared: bool = True) -> tuple[str, np.ndarray | None, dict]:
    """(status, grid, row fields) of one record: ``solver``'s ``count`` or ``solve`` of ``model``
    (the ``error`` field says why when it stopped without a grid).

    Parameters
    ----------
    solver : Solver
        The engine.
    model : Model
        The record's model.
    options : SolveOptions
        The run's options (``count``, ``time_limit``, the SAT backend and encoding).
    shared : bool, default True
        A SAT engine shares the group's solver (``reuse``: clues as assumptions); False: one of
        its own, on the model with its singles taken first.

    Returns
    -------
    tuple
        The row's status, the grid found (None without one) and the row's other fields.
    """
    if options.count and solver.count is not None:
        result = None
        if options.rules_by_auto and relabelling_settles(model):   # clues that leave two digits unused
            pick = pick_solver("solve", model)
            result = count_by_relabelling(pick.solver.solve, pick.name, model, options.count, options.time_limit, 1)
        if result is None:
            extra = _engine_options(solver, "count", options, shared)
            result = solver.count(model, options.count, time_limit=options.time_limit, **extra)
        grid = result.grids[0] if result.grids else None
        status = count_status(result, grid)
        fields: dict[str, Any] = {"seconds": result.seconds, "n_solutions": result.count}
        if result.status == "time_limit" and grid is not None:
            fields["error"] = lower_bound(result.count)
        elif grid is None and result.message:   # why it stopped (an engine that could not be set up in time)
            fields["error"] = solver_said(result.message)
        return status, grid, fields
    r = solver.solve(model, time_limit=options.time_limit, **_engine_options(solver, "solve", options, shared))
    fields = {"seconds": r.seconds, "nodes": r.nodes}
    if r.grid is None and r.message and r.status != "infeasible":
        fields["error"] = solver_said(r.message)
    return r.status, r.grid, fields


#: Grids from this side get an engine of their own per record (:func:`solve_shape_each`): the
#: shape's shared engine takes each record's decided cells as assumptions over the whole grid's
#: clauses, which a minimal 25x25 searched 13-15x longer than ``solve`` does on its presolved
#: model (4.4 s against 56-88 s, outside check); at 9x9-16x16 the shared engine's saved set-up wins.
EACH_FROM = 25


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
    if n >= EACH_FROM:   # a large grid's own model, singles taken first, as solve has it
        solve_shape_each(shape, options, rows, record)
        return
    try:
        model = build_model(template, "ijk", "C", "bounds")
        too_long = setup_outlasts(model, options.time_limit, True, options.amo or DEFAULT_AMO, options.sat_backend)
        engine = None if too_long else _sat_engine(model, options)
    except Exception as e:  # the shape cannot be encoded: every member gets the message
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        for k in shape.members:
            rows[k].update(solver_failure(e))
        return
    if engine is None:   # the shape's engine would take longer to build than --time-limit allows
        for k in shape.members:
            rows[k].update(status="time_limit", seconds=0.0, nodes=0, error=solver_said(too_long))
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
            stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
            row.update(solver_failure(e))
        finally:
            row["wall_seconds"] += time.perf_counter() - t1 + shared
            done = j + 1
            tick()
    record(template, shape.members[:done], rows, clues[:done], solutions[:done], has[:done])


def solve_shape_each(shape: Shape, options: SolveOptions, rows: list[dict], record: Record) -> None:
    """Any other in-process registry engine (cpsat), and ``sat`` from :data:`EACH_FROM`: one model
    and one call per puzzle.

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
            status, found, fields = answer_record(solver, model, options, shared=False)
            row.update(status=status, **fields)
            if found is not None:
                solutions[j], has[j] = np.asarray(found).ravel(), True
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
            row.update(solver_failure(e))
        finally:
            row["wall_seconds"] += time.perf_counter() - t1
            done = j + 1
            tick()
    record(template, shape.members[:done], rows, clues[:done], solutions[:done], has[:done])


register_batch_kernel("sat", solve_shape_sat)
register_batch_kernel("cpsat", solve_shape_each)   # one model and one call per puzzle
