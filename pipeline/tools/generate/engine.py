"""The counting engine of a grid shape: generate's and explain's view of the engine that proves uniqueness.

Which engine is :func:`counting_engine`'s choice, by capability: the SAT engine
(:class:`ShapeEngine`) for every shape whose rows it handles, i.e. units alone (classic, X,
jigsaw, Latin, windoku windows, ...), and any shape once its registry entry declares
:attr:`pipeline.solvers.base.Solver.rule_rows`; otherwise HiGHS
(:class:`~pipeline.tools.generate.highs_engine.HighsShapeEngine`, rows beyond units such as killer
cages, anti-knight, non-consecutive), or the SAT engine's units with rule clauses learnt lazily
(:class:`~pipeline.tools.generate.lazy_engine.LazyRuleEngine`, the default: :data:`RULE_ROWS_ENGINE`).
All offer the same calls (``count``, ``random_full_grid``,
``exclude``/``determines``/``retire``, ``another``), so generate and explain never ask which.

Uniqueness is proved by :class:`pipeline.solvers.sat.SatEngine` (python-sat, CaDiCaL 1.5.3, one
incremental solver per grid shape holding the rules, from the one engine cache
:func:`pipeline.solvers.sat.engine_for`; clues are assumptions). To test whether a clue set still
determines the known solution ``S``, the engine gets a blocking clause "not S" guarded by a fresh
activation literal: the clues are unique exactly when the solver answers UNSAT under (clues,
activation). The literal is retired afterwards.
"""
from __future__ import annotations

import time

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.puzzle import Puzzle
from pipeline.solvers.base import SOLVERS
from pipeline.solvers.sat import SetupOutlasts, delete_solver, engine_for as sat_engine_for
from pipeline.solvers.sat_slices import run_sliced
from pipeline.tools.generate.clock import OutOfTime
from pipeline.tools.generate.highs_engine import HighsShapeEngine, shape_of
from pipeline.tools.generate.lazy_engine import LazyRuleEngine
from pipeline.tools.generate.search_first import SearchFirstEngine, search_first_takes

__all__ = ["CountingEngine", "RULE_ROWS_ENGINE", "ShapeEngine", "count_up_to", "counting_engine", "engine_for"]

#: the counting engine of shapes with rule rows the SAT engine does not read (yet): the SAT
#: engine's units with rule clauses learnt from counterexamples. Measured on 9x9 generate --seed 1
#: (one puzzle each, shared 2-core machine): anti-knight 0.4 s and non-consecutive 1.5 s with it,
#: 25 s and 155 s with HiGHS's node-limited checks (``"highs"``).
RULE_ROWS_ENGINE = "lazy"


class ShapeEngine:
    """The rules of one grid shape in the SAT engine: generate's and explain's view of the shape's
    cached :class:`~pipeline.solvers.sat.SatEngine` (:func:`pipeline.solvers.sat.engine_for`, the one engine cache).

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (size, box, variant, regions, rules, layout); its clues are ignored.

    Examples
    --------
    >>> eng = ShapeEngine(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    >>> eng.count(np.zeros((4, 4), dtype=int), 1000)
    288
    """

    name = "sat"

    def __init__(self, shape: Puzzle, deadline: float | None = None):
        self.n = shape.n
        self.shape = shape_of(shape)
        self.rows, self.cols = self.shape.rows, self.shape.cols
        self.model = build_model(self.shape, "ijk", "C", clues="bounds")
        self.convention = self.model.convention
        try:   # a 64x64's clauses take seconds to list and load: the run's deadline holds
            self.sat = sat_engine_for(self.model, DEFAULT_AMO, keep_clauses=True, deadline=deadline)
        except SetupOutlasts as e:
            raise OutOfTime(str(e)) from None
        self.solver = self.sat.solver
        #: calls of :meth:`determines` that ran out of their budget (not proved either way)
        self.undecided = 0
        #: the other solution the last :meth:`determines` call found (None: it proved the clues
        #: determined, or was undecided): a witness that a removed clue was needed
        self.last_other: np.ndarray | None = None

    @property
    def clauses(self) -> list[list[int]]:
        """The rules' clauses (e.g. the hard part of a MaxSAT formula)."""
        return self.sat.rule_clauses

    def literals(self, r, c, d) -> np.ndarray:
        """Engine literals of 0-based (row, column, digit) (convention position + 1).

        Parameters
        ----------
        r, c, d : int or array_like of int
            0-based rows, columns and digits (digit - 1), broadcast together.
        """
        return self.convention.position(r, c, d) + 1

    def clue_literals(self, grid: np.ndarray) -> list[int]:
        """Positive literals of the clues of ``grid`` (0 = empty)."""
        r, c = np.nonzero(grid)
        return self.literals(r, c, grid[r, c] - 1).tolist()

    def grid_of(self, model_lits) -> np.ndarray:
        """Grid of a solver model (list of signed literals over at least the cell variables)."""
        lits = np.asarray(model_lits[: self.convention.n_vars], dtype=np.int64)
        r, c, d = self.convention.cell_digit(lits[lits > 0] - 1)
        grid = np.zeros((self.rows, self.cols), dtype=np.int64)
        grid[r, c] = d + 1
        return grid

    def random_full_grid(self, rng: np.random.Generator, deadline: float | None = None) -> np.ndarray | None:
        """A full grid from a fresh solver with random decision phases (None: the rules have none).

        A fresh solver makes the grid a function of ``rng`` alone (the cached engine's learnt
        clauses would make it depend on earlier calls). :class:`OutOfTime` once ``deadline`` (a
        ``time.perf_counter()`` value) passes first: random jigsaw regions with anti-knight may
        take minutes to be found empty.

        Parameters
        ----------
        rng : numpy.random.Generator
            Picks each cell's preferred digit (the solver's first decision phase).
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        n = self.n
        preferred = rng.integers(0, n, size=(self.rows, self.cols))
        phases = -np.arange(1, self.convention.n_vars + 1, dtype=np.int64)
        r, c = np.divmod(np.flatnonzero(self.shape.present), self.cols)
        chosen = self.literals(r, c, preferred[r, c]).ravel() - 1
        phases[chosen] = -phases[chosen]
        try:
            solver = self.sat.fresh_solver(deadline)
        except SetupOutlasts as e:
            raise OutOfTime(str(e)) from None
        try:
            solver.set_phases(phases.tolist())
            answer = run_sliced(solver, deadline=deadline)
            if answer is None:
                raise OutOfTime("no full grid before the deadline")
            return self.grid_of(solver.get_model()) if answer else None
        finally:
            delete_solver(solver)

    def exclude(self, solution: np.ndarray) -> int:
        """Add "not ``solution``" guarded by a new activation literal; return the literal."""
        act = self.sat.new_var()
        r, c = np.nonzero(solution)
        block = (-self.literals(r, c, solution[r, c] - 1)).ravel().tolist()
        self.solver.add_clause(block + [-act])
        return act

    def retire(self, act: int) -> None:
        """Switch an activation literal off for good (its blocking clause is then satisfied)."""
        self.sat.retire(act)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None,
                   deadline: float | None = None) -> bool:
        """True when the clues are proved to admit no solution besides the one excluded under
        ``act``; with a conflict ``budget``, an undecided call counts as False (not proved).
        With a ``deadline`` (``time.perf_counter()``), :class:`OutOfTime` when it passes first.

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        act : int
            What :meth:`exclude` returned for the solution to look past.
        budget : int, optional
            Conflicts the solver may spend; None: until decided.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        assumptions = self.clue_literals(clue_grid) + [act]
        self.last_other = None
        if deadline is not None and budget is None:
            answer = self.sat.run_until(assumptions, deadline)
            if answer is None:
                raise OutOfTime("the time limit was reached")
        elif budget is None:
            answer = run_sliced(self.solver, assumptions)
        else:
            self.solver.conf_budget(budget)
            answer = self.solver.solve_limited(assumptions=assumptions)
            self.undecided += answer is None
        if answer:
            self.last_other = self.grid_of(self.solver.get_model())
        return answer is False

    def another(self, clue_grid: np.ndarray, solution: np.ndarray) -> np.ndarray | None:
        """A solution of the clues of ``clue_grid`` other than ``solution``, or None (unique).

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        solution : numpy.ndarray
            ``(rows, cols)`` full grid, a known solution of the clues.
        """
        act = self.exclude(solution)
        try:
            if not run_sliced(self.solver, self.clue_literals(clue_grid) + [act]):
                return None
            return self.grid_of(self.solver.get_model())
        finally:
            self.retire(act)

    def count(self, grid: np.ndarray, limit: int, keep: bool = False, deadline: float | None = None):
        """Solutions of the clues of ``grid`` up to ``limit`` (the engine's ``count_assumed``);
        with ``keep`` return ``(count, grids)``. With a ``deadline`` (``time.perf_counter()``),
        :class:`OutOfTime` when it passes first.

        Parameters
        ----------
        grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        limit : int
            Stop at this many solutions.
        keep : bool
            Also return the solutions' grids.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        clues = self.clue_literals(grid)
        time_limit = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
        if time_limit == 0.0:
            raise OutOfTime("the time limit was reached")
        result = self.sat.count_assumed(clues, limit, clues, time_limit=time_limit)
        if result.status == "time_limit":
            raise OutOfTime("the time limit was reached")
        return (result.count, result.grids) if keep else result.count


#: what :func:`engine_for` returns: every class offers the same calls.
CountingEngine = ShapeEngine | LazyRuleEngine | HighsShapeEngine | SearchFirstEngine


def counting_engine(puzzle: Puzzle, rule_engine: str | None = None) -> str:
    """The engine that proves uniqueness for ``puzzle``'s shape: ``"sat"``, ``"lazy"`` or ``"highs"``.

    The one place generate and explain choose: the SAT engine when it handles every row of the
    shape (units alone, or any row once its registry entry declares
    :attr:`~pipeline.solvers.base.Solver.rule_rows`: then this function needs no change), else
    :data:`RULE_ROWS_ENGINE` for rows beyond units.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle of the shape.
    rule_engine : str, optional
        ``"sat"``, ``"lazy"`` or ``"highs"`` for a shape with rule rows (default: ``"sat"`` when
        the SAT engine reads rule rows, else :data:`RULE_ROWS_ENGINE`).

    Returns
    -------
    str
        ``"sat"`` (:class:`ShapeEngine`), ``"lazy"``
        (:class:`~pipeline.tools.generate.lazy_engine.LazyRuleEngine`) or ``"highs"``
        (:class:`~pipeline.tools.generate.highs_engine.HighsShapeEngine`).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> [counting_engine(parse_puzzle("." * 16, rules=r)) for r in ([], [{"rule": "windoku"}], [{"rule": "antiknight"}])]
    ['sat', 'sat', 'sat']
    """
    if not has_rows_beyond_units(puzzle):
        return "sat"
    if rule_engine:   # asked for by name (explain, the tests, a cages-only refinement)
        return rule_engine
    sat = SOLVERS.get("sat")
    return "sat" if sat is not None and sat.rule_rows else RULE_ROWS_ENGINE


def has_rows_beyond_units(puzzle: Puzzle) -> bool:
    """Does ``puzzle``'s shape have rows beyond units (cages, thermometers, anti-knight, ...) or a
    layout? Rules that only add units (windoku) do not count: they are rows of ``A``.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle of the shape.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> rule_lists = ([], [{"rule": "windoku"}], [{"rule": "antiknight"}])
    >>> [has_rows_beyond_units(parse_puzzle("." * 16, rules=r)) for r in rule_lists]
    [False, False, True]
    """
    if puzzle.layout is not None:
        return True
    board = puzzle.base_board   # the rules' own rows, as build_model fills R from them
    return any(rule.adds_rows(board) for rule in puzzle.rules)


def engine_for(puzzle: Puzzle, rule_engine: str | None = None, deadline: float | None = None) -> CountingEngine:
    """The counting engine of ``puzzle``'s shape (size, box, variant, regions, rules, layout):
    :func:`counting_engine` chooses. The SAT one is a view of the shape's cached SAT engine (the
    cache is :func:`pipeline.solvers.sat.engine_for`'s); a lazy or HiGHS one is new (it holds
    learnt clauses, cuts and bounds of one job).

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle of the shape.
    rule_engine : str, optional
        ``"lazy"`` or ``"highs"`` for a shape with rule rows (default :data:`RULE_ROWS_ENGINE`).
    deadline : float, optional
        A new SAT engine is loaded by this ``time.perf_counter()`` value (:class:`OutOfTime`).

    Returns
    -------
    CountingEngine
    """
    name = counting_engine(puzzle, rule_engine)

    def made() -> ShapeEngine | LazyRuleEngine | HighsShapeEngine:
        if name == "sat":
            return ShapeEngine(puzzle, deadline)
        return LazyRuleEngine(puzzle) if name == "lazy" else HighsShapeEngine(puzzle)
    if rule_engine is None and has_rows_beyond_units(puzzle) and search_first_takes(puzzle):
        return SearchFirstEngine(puzzle, made)   # the rule search answers first (its module docstring)
    return made()


def count_up_to(puzzle: Puzzle, limit: int) -> int:
    """Number of solutions of ``puzzle``, counted up to ``limit`` by its counting engine
    (:func:`counting_engine`).

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
