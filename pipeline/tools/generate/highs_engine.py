"""The counting engine of a shape with rows beyond units, on HiGHS (until the SAT engine has them).

:class:`HighsShapeEngine` offers the calls of :class:`~pipeline.tools.generate.engine.ShapeEngine`
on one HiGHS instance of the shape (rules, rule rows, no clues; clues are column lower bounds,
set per call and restored):

* ``count``: :func:`pipeline.solvers.highs.count_with_cuts`, the one HiGHS counting loop;
* ``exclude``/``determines``/``retire``: the known solution is cut off by a no-good row
  (:func:`~pipeline.solvers.highs.add_no_good_cut`); the clues determine it exactly when HiGHS
  answers infeasible. A ``budget`` is a number of branch-and-bound nodes (``mip_max_nodes``: a
  work limit, not a time limit, so the answer, proved or undecided, is the same on any machine);
  an undecided call counts as not proved (generate then keeps the clue);
* ``random_full_grid``: a grid sampled by the SAT engine on the shape's units with random
  decision phases (as :class:`ShapeEngine` does), completed lazily with the rule rows: a model
  that breaks rule rows gets, for each broken row, the clause "not these digits in these cells"
  (sound: the row's cells holding those digits break it whatever the rest holds), and the
  solver is asked again until its model breaks none; rows that say "at most one of these"
  (:func:`at_most_one_clauses`) are given up front. Before that, on 9x9: anti-knight about 0.4 s
  (70-100 rounds), anti-king about 1 s, non-consecutive 1.5-11 s; HiGHS itself took 25-84 s per
  non-consecutive grid, a randomised search over the rater's candidates 1-106 s (measured
  2026-11 on the shared 2-core machine under load). The grid depends on the seed alone.

Every instance is new (never cached): its answers depend only on the calls of one job.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle
from pipeline.core.rules.bounds import RuleTerms, broken_rows, rule_terms
from pipeline.solvers.highs import add_no_good_cut, count_with_cuts, drop_rows_from, highs_for, run_confirmed
from pipeline.solvers.sat import delete_solver, engine_for as sat_engine_for
from pipeline.solvers.sat_slices import run_sliced
from pipeline.tools.generate.clock import OutOfTime

__all__ = ["HighsShapeEngine", "LAZY_ROUNDS", "at_most_one_clauses", "REMOVAL_NODES", "sampled_full_grid", "shape_of"]

#: branch-and-bound nodes a clue-removal check may take on HiGHS (``generate`` without ``--minimal``):
#: with few clues left a non-consecutive check can take minutes (9x9 with 8 clues: 19-170 s each);
#: an undecided check keeps its clue, and the puzzle is then not claimed minimal.
REMOVAL_NODES = 10
#: solver rounds of the lazy full-grid sampler before it gives up (None: the caller tries another grid).
LAZY_ROUNDS = 2_000


def shape_of(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` without its clues: every other field (size, box, variant, regions, rules, layout,
    value set, extra cells) kept, so the engine's rows are the puzzle's own (a value set's sums
    are in values; rules may name extra cells)."""
    return dataclasses.replace(puzzle, grid=np.zeros_like(puzzle.grid))


def at_most_one_clauses(terms: RuleTerms, literals: Callable[..., np.ndarray], cols: int,
                        guards: Mapping[int, int] | None = None) -> list[list[int]]:
    """The rule rows that say "at most one of these" (``<=`` 1, every coefficient 1: anti-knight,
    anti-king, non-consecutive, a cage's distinct digits) as pairwise clauses, exactly.

    Learning them from counterexamples one model at a time took minutes on a 9x9 windoku with
    non-consecutive; given up front they cost a few thousand binary clauses.

    Parameters
    ----------
    terms : RuleTerms
        The shape's rule rows.
    literals : callable
        ``literals(r, c, d)`` -> solver literals of 0-based (row, column, digit).
    cols : int
        Canvas columns.
    guards : mapping of int to int, optional
        Rule index (``terms.rule``) -> activation literal: only those rules' rows, each clause
        holding only while its literal is true (a rule that can be switched off). Default:
        every rule's rows, unguarded.

    Returns
    -------
    list of list of int
    """
    ones = np.bincount(terms.term_row, terms.term_coef != 1, minlength=terms.n_rows) == 0
    amo = np.flatnonzero(~terms.equal & (np.abs(terms.rhs - 1) < 0.5) & ones)
    if guards is not None:
        amo = amo[np.isin(terms.rule[amo], list(guards))]
    pick = np.isin(terms.term_row, amo)
    row, cell, digit = terms.term_row[pick], terms.term_cell[pick], terms.term_digit[pick]
    lits = literals(cell // cols, cell % cols, digit)
    clauses = []
    for r in amo.tolist():
        group = lits[row == r].tolist()
        guard = [] if guards is None else [-guards[int(terms.rule[r])]]
        clauses += [[-a, -b, *guard] for i, a in enumerate(group) for b in group[i + 1:]]
    return clauses


def sampled_full_grid(model: Model, terms: RuleTerms, rng: np.random.Generator,
                      rounds: int = LAZY_ROUNDS) -> np.ndarray | None:
    """A full grid obeying ``model``'s units and ``terms``' rule rows, from a fresh SAT solver on
    the units with random phases and lazily added clauses for broken rule rows (module docstring).

    Parameters
    ----------
    model : Model
        The shape's model (``ijk``; its clues are not used).
    terms : RuleTerms
        The shape's rule rows (:func:`pipeline.core.rules.bounds.rule_terms`).
    rng : numpy.random.Generator
        The only source of randomness.
    rounds : int
        Solver calls before giving up.

    Returns
    -------
    numpy.ndarray or None
        The ``(rows, cols)`` grid; None when ``rounds`` ran out (or jigsaw regions admit none).

    Raises
    ------
    PuzzleError
        No grid of the shape (without jigsaw regions) obeys the rules.
    """
    conv, puzzle = model.convention, model.puzzle
    cells = np.flatnonzero(puzzle.present)
    r, c = np.divmod(cells, puzzle.cols)
    phases = -np.arange(1, conv.n_vars + 1, dtype=np.int64)
    chosen = conv.position(r, c, rng.integers(0, puzzle.n, size=cells.size))
    phases[chosen] = -phases[chosen]
    solver = sat_engine_for(model, DEFAULT_AMO, keep_clauses=True).fresh_solver()
    try:
        for pairwise in at_most_one_clauses(terms, lambda r, c, d: conv.position(r, c, d) + 1, puzzle.cols):
            solver.add_clause(pairwise)
        solver.set_phases(phases.tolist())
        for _ in range(rounds):
            if not run_sliced(solver):
                if puzzle.regions is None:   # no other shape to try: say so at once
                    kinds = ", ".join(rule.kind for rule in puzzle.rules)
                    raise PuzzleError(f"generate: no {puzzle.n}x{puzzle.n} {puzzle.variant} grid obeys {kinds}")
                return None
            lits = np.asarray(solver.get_model()[: conv.n_vars], dtype=np.int64)
            x = np.zeros(conv.n_vars)
            x[lits[lits > 0] - 1] = 1.0
            grid = grid_from_vector(x, conv)
            bad = broken_rows(terms, grid)
            if not bad.size:
                return grid
            pick = np.flatnonzero(np.isin(terms.pair_row, bad))
            cell = terms.pair_cell[pick]
            lit = -(conv.position(cell // puzzle.cols, cell % puzzle.cols, grid.ravel()[cell] - 1) + 1)
            starts = np.flatnonzero(np.diff(terms.pair_row[pick], prepend=-1))
            for clause in np.split(lit, starts[1:]):
                solver.add_clause(clause.tolist())
        return None
    finally:
        delete_solver(solver)


def _check(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() >= deadline:
        raise OutOfTime("the time limit was reached")


class HighsShapeEngine:
    """The rules of one shape in one HiGHS instance: :class:`ShapeEngine`'s calls for shapes with
    rows beyond units (module docstring).

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (size, box, variant, regions, rules, layout); its clues are ignored.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> eng = HighsShapeEngine(parse_puzzle("." * 16, rules=[{"rule": "antiknight"}]))
    >>> eng.count(np.zeros((4, 4), dtype=int), 1000)   # of the 288 4x4 grids, by brute force too
    24
    """

    name = "highs"

    def __init__(self, shape: Puzzle):
        self.n = shape.n
        self.shape = shape_of(shape)
        self.rows, self.cols = self.shape.rows, self.shape.cols
        self.model = build_model(self.shape, "ijk", "C", clues="bounds")
        self.convention = self.model.convention
        self.terms = rule_terms(self.shape.rules, self.shape.base_board)
        self.highs = highs_for(self.model)
        self._lower = self.model.lb.copy()
        self._all = np.arange(self.model.n_cols, dtype=np.int32)
        self._nodes = int(self.highs.getOptionValue("mip_max_nodes")[1])
        #: calls of :meth:`determines` that ran out of their budget (not proved either way)
        self.undecided = 0
        #: the other solution the last :meth:`determines` call found (None: proved, or undecided)
        self.last_other: np.ndarray | None = None

    def literals(self, r, c, d) -> np.ndarray:
        """Position + 1 of 0-based (row, column, digit), as the SAT engine numbers its literals.

        Parameters
        ----------
        r, c, d : int or array_like of int
            0-based rows, columns and digits (digit - 1), broadcast together.
        """
        return self.convention.position(r, c, d) + 1

    def _columns(self, grid: np.ndarray) -> np.ndarray:
        """Solver columns of the clues (or digits) of ``grid`` (0 = empty)."""
        r, c = np.nonzero(grid)
        return np.searchsorted(self.model.columns, self.convention.position(r, c, grid[r, c] - 1))

    def _bounds(self, grid: np.ndarray | None) -> np.ndarray:
        lower = self._lower.copy()
        if grid is not None:
            lower[self._columns(grid)] = 1.0
        self.highs.changeColsBounds(self._all.size, self._all, lower, np.ones(self._all.size))
        return lower

    def _run(self, clue_grid: np.ndarray, nodes: int | None = None) -> tuple[str, np.ndarray | None]:
        """One solve under the clues (and the cuts present): HiGHS's status and ``x``."""
        self._bounds(clue_grid)
        self.highs.setOptionValue("mip_max_nodes", self._nodes if nodes is None else int(nodes))
        self.highs.clearSolver()   # no basis from an earlier call: the answer depends on this call alone
        try:
            status, _, _, x = run_confirmed(self.highs)
        finally:
            self.highs.setOptionValue("mip_max_nodes", self._nodes)
            self._bounds(None)
        return status, x

    def grid_of(self, x: np.ndarray) -> np.ndarray:
        """The grid of a solution ``x`` over the model's columns."""
        return grid_from_vector(self.model.full_vector(np.rint(x)), self.convention)

    def random_full_grid(self, rng: np.random.Generator, deadline: float | None = None) -> np.ndarray | None:
        """A full grid of the shape (:func:`sampled_full_grid`); None when none was found;
        :class:`OutOfTime` when ``deadline`` passed before the call.

        Parameters
        ----------
        rng : numpy.random.Generator
            The sampler's randomness.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        _check(deadline)
        return sampled_full_grid(self.model, self.terms, rng)

    def exclude(self, solution: np.ndarray) -> int:
        """Cut ``solution`` off (a no-good row); return the row, the token :meth:`retire` takes."""
        row = self.highs.getNumRow()
        x = np.zeros(self.model.n_cols)
        x[self._columns(solution)] = 1.0
        add_no_good_cut(self.highs, x)
        return row

    def retire(self, act: int) -> None:
        """Drop the cut :meth:`exclude` added (and any added after it)."""
        drop_rows_from(self.highs, act)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None,
                   deadline: float | None = None) -> bool:
        """True when the clues are proved to admit no solution besides the one cut off; with a
        node ``budget`` an undecided call counts as False (not proved); :class:`OutOfTime` when
        ``deadline`` (``time.perf_counter()``) passed before the call.

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        act : int
            What :meth:`exclude` returned for the solution to look past.
        budget : int, optional
            Branch-and-bound nodes HiGHS may spend; None: until decided.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        _check(deadline)
        self.last_other = None
        status, x = self._run(clue_grid, budget)
        if status not in ("infeasible", "optimal"):
            self.undecided += 1
        if status == "optimal" and x is not None:
            self.last_other = self.grid_of(x)
        return status == "infeasible"

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
            status, x = self._run(clue_grid)
        finally:
            self.retire(act)
        return self.grid_of(x) if status == "optimal" and x is not None else None

    def count(self, grid: np.ndarray, limit: int, keep: bool = False, deadline: float | None = None):
        """Solutions of the clues of ``grid`` up to ``limit`` (HiGHS's counting loop); with
        ``keep`` return ``(count, grids)``; :class:`OutOfTime` when ``deadline`` passed before the call.

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
        _check(deadline)
        lower = self._bounds(grid)
        self.highs.clearSolver()
        try:
            run = count_with_cuts(self.highs, limit, split_on=(self.model, lower, np.ones(lower.size)),
                                  keep=None if keep else 0)
        finally:
            self._bounds(None)
        return (run.count, [self.grid_of(x) for x in run.xs]) if keep else run.count

