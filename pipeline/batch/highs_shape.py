"""The HiGHS engine of batch: one Highs instance per shape, per puzzle only column bounds change.

Each worker builds the rules ``A`` once per shape (``h``, ``w``, variant, regions) and per puzzle
changes only column bounds (the ``bounds`` clue encoding: ``lb = 1`` on the clues and on the cells
that naked/hidden singles decide, ``ub = 0`` on the candidates they eliminate; without
propagation the clues only). Bounds, decoding and verification run on a whole block at once.
"""
from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import highspy
import numpy as np

from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.decode import INTEGRALITY_TOL
from pipeline.core.errors import SolveError
from pipeline.core.propagate import MAX_BITS_N, propagate
from pipeline.core.puzzle import Puzzle
from pipeline.solvers import register_batch_kernel
from pipeline.solvers.highs import count_with_cuts, highs_for, run_confirmed
from pipeline.batch.config import SolveOptions
from pipeline.batch.kernels import Record, shape_key
from pipeline.batch.progress import stopped, tick
from pipeline.batch.text import lower_bound, solver_failure

if TYPE_CHECKING:  # annotations only: the worker imports this module
    from pipeline.batch.worker import Shape

__all__ = ["ShapeSolver", "BoundChanges", "solver_for", "solve_shape_highs"]

#: Bound the (P, n_vars) bound arrays of one block: 4M booleans each (25x25: 256 puzzles).
BLOCK_ENTRIES = 4_000_000


@dataclass
class BoundChanges:
    """Changed columns of many puzzles, concatenated; puzzle ``j`` owns ``offsets[j]:offsets[j+1]``."""

    cols: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    offsets: np.ndarray

    def __getitem__(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sl = slice(self.offsets[j], self.offsets[j + 1])
        return self.cols[sl], self.lower[sl], self.upper[sl]


class ShapeSolver:
    """The rules ``A`` of one shape in one Highs instance; per puzzle only column bounds change."""

    def __init__(self, template: Puzzle, options: SolveOptions):
        self.template = template
        self.model = build_model(template, clues="bounds")
        self.highs = highs_for(self.model, time_limit=options.time_limit, threads=1,
                               options=options.highs_options)
        self.time_limit = options.time_limit
        conv = self.model.convention
        n = template.n
        cells = np.arange(n * n)
        # pos[cell, d]: column of x[r, c, d] in the model's convention (a permutation)
        self.pos = conv.position(np.repeat(cells // n, n), np.repeat(cells % n, n),
                                 np.tile(np.arange(n), n * n)).reshape(n * n, n)
        self.n_vars = conv.n_vars
        # the inverse of pos: cell and digit of every column
        self.cell_of = np.empty(self.n_vars, dtype=np.int64)
        self.digit_of = np.empty(self.n_vars, dtype=np.int64)
        self.cell_of[self.pos] = cells[:, None]
        self.digit_of[self.pos] = np.arange(n)[None, :]
        self.lb = np.zeros(self.n_vars, dtype=bool)   # bounds currently inside the Highs instance
        self.ub = np.ones(self.n_vars, dtype=bool)
        self.presolve = str(options.highs_options.get("presolve", "choose"))

    def bounds(self, clues: np.ndarray, cand: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Column bounds of puzzles ``(P, N*N)`` as two bool ``(P, n_vars)`` arrays: ``lb`` true
        on clues (and on singles when candidates are given), ``ub`` false on eliminated ones.

        Parameters
        ----------
        clues : numpy.ndarray
            ``(P, N*N)`` int, the puzzles' flat grids (0 = empty).
        cand : numpy.ndarray or None
            ``(P, N*N, N)`` bool candidates after propagation, or None to bound the clues only.
        """
        p = clues.shape[0]
        lb = np.zeros((p, self.n_vars), dtype=bool)
        ub = np.ones((p, self.n_vars), dtype=bool)
        if cand is None:
            puzzle, cell = np.nonzero(clues)
            lb[puzzle, self.pos[cell, clues[puzzle, cell] - 1]] = True
        else:
            lb[:, self.pos] = cand & (cand.sum(axis=2) == 1)[:, :, None]
            ub[:, self.pos] = cand
        return lb, ub

    def bound_changes(self, lbs: np.ndarray, ubs: np.ndarray) -> BoundChanges:
        """Per puzzle, the columns (and new bounds) that differ from the puzzle solved before it.

        Solving the puzzles in order, only these columns need sending: HiGHS's cost of
        changeColsBounds grows with their number, and finding all the differences in bulk
        saves numpy's per-call cost on each puzzle.

        Parameters
        ----------
        lbs : numpy.ndarray
            ``(P, n_vars)`` bool lower bounds, as :meth:`bounds` returns them; the first puzzle
            is compared with the bounds now in the instance.
        ubs : numpy.ndarray
            ``(P, n_vars)`` bool upper bounds, alike.
        """
        # written in place and found through flat indices: at (P, n_vars) every temporary
        # and the 2-D nonzero cost more than the comparisons themselves
        diff = np.empty_like(lbs)
        np.not_equal(lbs[0], self.lb, out=diff[0])
        diff[0] |= ubs[0] != self.ub
        np.not_equal(lbs[1:], lbs[:-1], out=diff[1:])
        diff[1:] |= ubs[1:] != ubs[:-1]
        flat = np.flatnonzero(diff)
        cols = flat % lbs.shape[1]
        offsets = np.zeros(lbs.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.count_nonzero(diff, axis=1), out=offsets[1:])
        return BoundChanges(cols.astype(np.int32), lbs.ravel()[flat].astype(np.float64),
                            ubs.ravel()[flat].astype(np.float64), offsets)

    def set_bounds(self, lb: np.ndarray, ub: np.ndarray, change: tuple | None = None) -> None:
        """Put one puzzle's bounds into the instance (which resets the previous puzzle's);
        ``change`` is its entry of :meth:`bound_changes` when the previous puzzle was solved here.

        Parameters
        ----------
        lb : numpy.ndarray
            ``(n_vars,)`` bool lower bounds of the puzzle.
        ub : numpy.ndarray
            ``(n_vars,)`` bool upper bounds of the puzzle.
        change : tuple of numpy.ndarray, optional
            ``(cols, lower, upper)`` to send; None finds them against the instance's bounds.
        """
        cols, lo, up = change if change is not None else self.bound_changes(lb[None, :], ub[None, :])[0]
        if cols.size and self.highs.changeColsBounds(cols.size, cols, lo, up) == highspy.HighsStatus.kError:
            raise SolveError("highs: changeColsBounds refused the bounds")
        self.lb, self.ub = lb, ub

    def decode(self, xs: np.ndarray) -> tuple[np.ndarray, list[str | None]]:
        """Solution vectors ``(P, n_vars)`` -> flat grids ``(P, N*N)`` and per row why not
        (``x`` not 0/1, or a cell without exactly one digit); ``None`` when the row decoded."""
        # |x - 0.5| within INTEGRALITY_TOL (< 0.5) of 0.5 everywhere: the row is integral and
        # binary, and its ones (x > 0.5) are those of rint(x); any other row (NaN included) is
        # looked at again below
        ones = xs > 0.5
        half = xs - 0.5
        np.abs(half, out=half)   # in place: a second temporary of this size costs page faults
        near = (half.max(axis=1, initial=0.5) <= 0.5 + INTEGRALITY_TOL) & \
            (half.min(axis=1, initial=0.5) >= 0.5 - INTEGRALITY_TOL)
        n = self.template.n
        cells = n * n
        # the ones as flat (puzzle, column) pairs: 1-D work only (no BLAS, no short-axis reductions)
        puzzle, col = np.divmod(np.flatnonzero(ones), xs.shape[1])   # (2-D nonzero is ~5x slower)
        slot = puzzle * cells + self.cell_of[col]
        per_cell = np.bincount(slot, minlength=xs.shape[0] * cells).reshape(xs.shape[0], cells)
        grids = np.zeros((xs.shape[0], cells), dtype=np.int64)
        grids.ravel()[slot] = self.digit_of[col] + 1
        why: list[str | None] = [None] * xs.shape[0]
        for j in np.flatnonzero(~near | (per_cell != 1).any(axis=1)):
            rounded = np.rint(xs[j])
            frac = np.abs(xs[j] - rounded).max(initial=0.0)
            if frac > INTEGRALITY_TOL or not ((rounded == 0) | (rounded == 1)).all():
                why[j] = f"x is not integral (largest fractional part {frac:.3g})"
            elif (per_cell[j] != 1).any():
                cell = int(np.flatnonzero(per_cell[j] != 1)[0])
                why[j] = f"decode: cell ({cell // n + 1}, {cell % n + 1}) holds {int(per_cell[j, cell])} digits"
        return grids, why

    def solve(self, lb: np.ndarray, ub: np.ndarray, count: int, change=None,
              fixed: bool = False) -> tuple[dict, np.ndarray | None]:
        """Solve (and count up to ``count``) one puzzle: (result fields, x when optimal).
        ``fixed``: ``lb == ub`` everywhere (propagation decided every cell).

        Parameters
        ----------
        lb : numpy.ndarray
            ``(n_vars,)`` bool lower bounds of the puzzle.
        ub : numpy.ndarray
            ``(n_vars,)`` bool upper bounds of the puzzle.
        count : int
            Count solutions up to this many (0: solve only, ``n_solutions`` stays None).
        change : tuple of numpy.ndarray, optional
            The puzzle's entry of :meth:`bound_changes`, passed on to :meth:`set_bounds`.
        fixed : bool
            The bounds fix every column, so ``lb`` is the answer when it is feasible.
        """
        self.set_bounds(lb, ub, change)
        started = time.perf_counter()
        status, seconds, nodes, x = run_confirmed(self.highs, lb if fixed else None, self.presolve)
        row: dict[str, Any] = {"status": status, "n_solutions": None, "seconds": seconds, "nodes": nodes, "error": None}
        if status != "optimal":
            x = None
        if count:
            if status == "infeasible":
                row["n_solutions"] = 0
            elif x is not None:
                # the solver's one counting loop, from the solution just found, on these bounds
                # the record's time limit covers its count (each cut's run had the whole limit:
                # a count of minutes under --time-limit 2)
                deadline = None if self.time_limit is None else started + self.time_limit
                try:
                    more = count_with_cuts(self.highs, count, first=x, presolve=self.presolve,
                                           split_on=(self.model, lb, ub), keep=0,   # the row holds x alone
                                           deadline=deadline)
                finally:   # the runs' time limits were what was left: the next record gets its own
                    self.highs.setOptionValue("time_limit", float("inf") if self.time_limit is None
                                              else float(self.time_limit))
                found = more.count
                row["n_solutions"] = found
                row["seconds"] += more.seconds
                row["nodes"] += more.nodes
                if more.status == "interrupted":
                    # a stop ended the count: neither a proof nor a bound worth keeping, so the
                    # row is left out and a rerun counts it again (as the SAT engine's rows)
                    row["status"] = "interrupted"
                elif more.status == "time_limit":
                    row["error"] = lower_bound(found)         # what --retry time_limit takes
                elif more.status not in ("complete", "limit"):
                    row["error"] = f"count: stopped by {more.status} after {found} solutions (a lower bound)"
        return row, x


_LOCAL = threading.local()  # a Dask worker may run tasks in several threads: one cache each
_MAX_SOLVERS = 16           # jigsaw inputs have one shape per region layout: bound the cache


def solver_for(template: Puzzle, options: SolveOptions) -> ShapeSolver:
    """This worker thread's solver for ``template``'s shape (built on first use, LRU-cached).

    Parameters
    ----------
    template : Puzzle
        Any puzzle of the shape.
    options : SolveOptions
        Time limit and HiGHS options (part of the key).
    """
    cache = getattr(_LOCAL, "solvers", None)
    if cache is None:
        cache = _LOCAL.solvers = OrderedDict()
    key = (shape_key(template), options.time_limit, json.dumps(options.highs_options, sort_keys=True))
    solver = cache.get(key)
    if solver is None:
        solver = cache[key] = ShapeSolver(template, options)
        while len(cache) > _MAX_SOLVERS:
            cache.popitem(last=False)
    cache.move_to_end(key)
    return solver


def solve_shape_highs(shape: Shape, options: SolveOptions, rows: list[dict], record: Record) -> None:
    """Solve the chunk's puzzles of one shape: bulk bounds, one HiGHS run each, bulk decode;
    ``record(shape, members, clues, grids, has)`` verifies and writes the solutions.

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
    start = time.perf_counter()
    try:
        solver = solver_for(template, options)
    except Exception as e:  # the shape cannot be modelled: every member gets the message
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        for k in shape.members:
            rows[k].update(solver_failure(e))
        return
    build = time.perf_counter() - start   # shared by the first block's members
    block = max(1, BLOCK_ENTRIES // n ** 3)
    for lo in range(0, len(shape.members), block):
        if stopped():
            return
        members = shape.members[lo:lo + block]
        t0 = time.perf_counter()
        clues = np.stack(shape.grids[lo:lo + block])
        cand = None
        if options.propagate and n <= MAX_BITS_N:
            cand, _ = propagate(clues, template)
        lbs, ubs = solver.bounds(clues, cand)
        changes = solver.bound_changes(lbs, ubs)
        fixed = (lbs == ubs).all(axis=1)
        in_sync = True
        xs = np.zeros((len(members), solver.n_vars))
        has_x = np.zeros(len(members), dtype=bool)
        shared = time.perf_counter() - t0 + build
        build = 0.0
        done = 0
        for j, k in enumerate(members):
            if stopped():   # Ctrl-C: keep what is finished, hand it back now
                break
            t1 = time.perf_counter()
            try:
                # the planned change holds only while the instance has the previous row's bounds
                change, in_sync = (changes[j] if in_sync else None), False
                fields, x = solver.solve(lbs[j], ubs[j], options.count, change, bool(fixed[j]))
                in_sync = True
                rows[k].update(fields)
                if x is not None:
                    xs[j], has_x[j] = x, True
            except Exception as e:  # a solver failure must not lose the rest of the chunk
                stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
                rows[k].update(solver_failure(e))
            rows[k]["wall_seconds"] += time.perf_counter() - t1
            done = j + 1
            tick()
        members, clues, xs, has_x = members[:done], clues[:done], xs[:done], has_x[:done]
        t2 = time.perf_counter()
        grids, why = solver.decode(xs)
        for j in np.flatnonzero(has_x).tolist():
            reason = why[j]
            if reason is not None:
                rows[members[j]].update(status="non_integral" if reason.startswith("x is") else "invalid",
                                        error=reason)
                has_x[j] = False
        record(template, members, rows, clues, grids, has_x)
        shared += time.perf_counter() - t2
        for k in members:
            rows[k]["wall_seconds"] += shared / max(len(members), 1)


register_batch_kernel("highs", solve_shape_highs)
