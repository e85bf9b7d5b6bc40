"""The counting engine of a grid shape: generate's and explain's view of the SAT engine.

Uniqueness is proved by :class:`pipeline.solvers.sat.SatEngine` (python-sat, CaDiCaL 1.5.3, one
incremental solver per grid shape holding the rules, from the one engine cache
:func:`pipeline.solvers.sat.engine_for`; clues are assumptions). To test whether a clue set still
determines the known solution ``S``, the engine gets a blocking clause "not S" guarded by a fresh
activation literal: the clues are unique exactly when the solver answers UNSAT under (clues,
activation). The literal is retired afterwards.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.puzzle import Puzzle
from pipeline.solvers.sat import delete_solver, engine_for as sat_engine_for, run_sliced

__all__ = ["ShapeEngine", "count_up_to", "engine_for"]


class ShapeEngine:
    """The rules of one grid shape in the SAT engine: generate's and explain's view of the shape's
    cached :class:`~pipeline.solvers.sat.SatEngine` (:func:`pipeline.solvers.sat.engine_for`, the one engine cache).

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (size, box, variant, regions); its clues are ignored.

    Examples
    --------
    >>> eng = ShapeEngine(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    >>> eng.count(np.zeros((4, 4), dtype=int), 1000)
    288
    """

    def __init__(self, shape: Puzzle):
        n = self.n = shape.n
        empty = Puzzle(np.zeros((n, n), dtype=np.int64), shape.h, shape.w, shape.variant, shape.regions)
        self.model = build_model(empty, "ijk", "C", clues="bounds")
        self.convention = self.model.convention
        self.sat = sat_engine_for(self.model, DEFAULT_AMO, keep_clauses=True)
        self.solver = self.sat.solver

    @property
    def clauses(self) -> list[list[int]]:
        """The rules' clauses (e.g. the hard part of a MaxSAT formula)."""
        return self.sat.rule_clauses

    def literals(self, r, c, d) -> np.ndarray:
        """Engine literals of 0-based (row, column, digit) (convention position + 1)."""
        return self.convention.position(r, c, d) + 1

    def clue_literals(self, grid: np.ndarray) -> list[int]:
        """Positive literals of the clues of ``grid`` (0 = empty)."""
        r, c = np.nonzero(grid)
        return self.literals(r, c, grid[r, c] - 1).tolist()

    def grid_of(self, model_lits) -> np.ndarray:
        """Grid of a solver model (list of signed literals over at least the cell variables)."""
        lits = np.asarray(model_lits[: self.n ** 3], dtype=np.int64)
        r, c, d = self.convention.cell_digit(lits[lits > 0] - 1)
        grid = np.zeros((self.n, self.n), dtype=np.int64)
        grid[r, c] = d + 1
        return grid

    def random_full_grid(self, rng: np.random.Generator) -> np.ndarray | None:
        """A full grid from a fresh solver with random decision phases (None: the rules have none).

        A fresh solver makes the grid a function of ``rng`` alone (the cached engine's learnt
        clauses would make it depend on earlier calls)."""
        n = self.n
        preferred = rng.integers(0, n, size=(n, n))
        phases = -np.arange(1, n ** 3 + 1, dtype=np.int64)
        r, c = np.indices((n, n))
        chosen = self.literals(r, c, preferred).ravel() - 1
        phases[chosen] = -phases[chosen]
        solver = self.sat.fresh_solver()
        try:
            solver.set_phases(phases.tolist())
            return self.grid_of(solver.get_model()) if run_sliced(solver) else None
        finally:
            delete_solver(solver)

    def exclude(self, solution: np.ndarray) -> int:
        """Add "not ``solution``" guarded by a new activation literal; return the literal."""
        act = self.sat.new_var()
        r, c = np.indices(solution.shape)
        block = (-self.literals(r, c, solution - 1)).ravel().tolist()
        self.solver.add_clause(block + [-act])
        return act

    def retire(self, act: int) -> None:
        """Switch an activation literal off for good (its blocking clause is then satisfied)."""
        self.sat.retire(act)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None) -> bool:
        """True when the clues are proved to admit no solution besides the one excluded under
        ``act``; with a conflict ``budget``, an undecided call counts as False (not proved)."""
        assumptions = self.clue_literals(clue_grid) + [act]
        if budget is None:
            return not run_sliced(self.solver, assumptions)
        self.solver.conf_budget(budget)
        return self.solver.solve_limited(assumptions=assumptions) is False

    def count(self, grid: np.ndarray, limit: int, keep: bool = False):
        """Solutions of the clues of ``grid`` up to ``limit`` (the engine's ``count_assumed``);
        with ``keep`` return ``(count, grids)``."""
        clues = self.clue_literals(grid)
        result = self.sat.count_assumed(clues, limit, clues)
        return (result.count, result.grids) if keep else result.count


def engine_for(puzzle: Puzzle) -> ShapeEngine:
    """The :class:`ShapeEngine` of ``puzzle``'s shape (size, box, variant, regions), around the
    shape's cached SAT engine (the cache is :func:`pipeline.solvers.sat.engine_for`'s)."""
    return ShapeEngine(puzzle)


def count_up_to(puzzle: Puzzle, limit: int) -> int:
    """Number of solutions of ``puzzle``, counted up to ``limit`` by the SAT engine.

    Parameters
    ----------
    puzzle : Puzzle
    limit : int
        Stop counting here (at least 1).

    Returns
    -------
    int

    Raises
    ------
    SolveError
        ``limit < 1``.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> count_up_to(parse_puzzle("1..." + "." * 12), 1000)
    72
    """
    return engine_for(puzzle).count(np.asarray(puzzle.grid), limit)
