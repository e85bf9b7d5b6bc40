"""A counting engine for shapes with rule rows: the SAT engine's units plus lazily learnt rule clauses.

Until :class:`pipeline.solvers.sat.SatEngine` encodes rule rows itself, :class:`LazyRuleEngine`
proves uniqueness of rule puzzles on a *fresh* solver of the shape's units (the cached engine's
clauses, nothing learnt) by counterexample: every model the solver returns is checked against
the rule rows (:func:`pipeline.core.rules.bounds.broken_rows`); for each broken row the clause
"not these digits in these cells" is added (sound: the row's cells holding those digits break it
whatever the rest holds, so the clause holds in every solution of the shape, for any clues) and
the solver is asked again. A model that breaks no row is a solution. It terminates (each round
removes the model it found), and it is exact: an UNSAT answer means no solution of units *and*
rules.

Anti-knight, anti-king and non-consecutive rows and a cage's distinct digits (at most one of
their literals) are given up front as pairwise clauses (in a :class:`RuleSwitchEngine`, a rule
that comes with a call gets them guarded by its activation literal, so it can be switched off)
(:func:`~pipeline.tools.generate.highs_engine.at_most_one_clauses`: exact, and learning them one
model at a time took minutes on a 9x9 windoku with non-consecutive); a killer cage's sum row,
the first time it breaks, is encoded exactly (:func:`cage_sum_clauses`); other rows (thermometers,
Kropki, ...) are learnt one wrong combination of their cells at a time. Measured against HiGHS's node-limited
checks (:class:`~pipeline.tools.generate.highs_engine.HighsShapeEngine`) in ``docs/tools.md``
(``generate --rule``). The engine is new per shape of one job (never cached), so its answers
depend only on that job's calls.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import time
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.clauses import DEFAULT_AMO
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle
from pipeline.core.rules import Cage
from pipeline.core.rules.base import Rule
from pipeline.core.rules.bounds import RuleTerms, broken_rows, rule_terms
from pipeline.solvers.sat import delete_solver, engine_for as sat_engine_for
from pipeline.solvers.sat_slices import run_sliced
from pipeline.tools.generate.clock import OutOfTime
from pipeline.tools.generate.highs_engine import at_most_one_clauses, sampled_full_grid, shape_of

__all__ = ["LazyRuleEngine", "RuleSwitchEngine", "cage_sum_clauses", "units_only"]


def cage_sum_clauses(cage: Cage, cols: int, n: int, literals: Callable[..., np.ndarray],
                     new_var: Callable[[], int], values: tuple[int, ...] | None = None) -> list[list[int]]:
    """Clauses saying ``cage``'s digits add up to its sum, given they are distinct (its ``cage``
    rows or a unit say so): the cage holds one of the sets of ``len(cells)`` distinct digits with
    that sum (a new variable per set, at least one chosen), and each cell holds a digit of the
    chosen set. Distinct digits of a set of the cage's size fill it exactly, so the sum holds.

    Parameters
    ----------
    cage : Cage
        A cage with a sum.
    cols : int
        Canvas columns (cells are ``r * cols + c``).
    n : int
        Digits.
    literals : callable
        ``literals(r, c, d)`` -> solver literals of 0-based (row, column, digit).
    new_var : callable
        A fresh solver variable.
    values : tuple of int, optional
        The value of each digit (a value set, maybe more values than ``n``); default the digits
        ``1..n``: the sum is of values.

    Returns
    -------
    list of list of int
        Empty combinations make the single empty clause (no set has the sum).
    """
    cells = np.asarray(cage.cells())
    r, c = np.divmod(cells, cols)
    value = tuple(range(1, n + 1)) if values is None else values
    sets = [tuple(d + 1 for d in combo) for combo in itertools.combinations(range(len(value)), cells.size)
            if sum(value[d] for d in combo) == cage.total]
    chosen = [new_var() for _ in sets]
    clauses = [list(chosen)]
    for var, combo in zip(chosen, sets):
        lits = literals(np.repeat(r, len(combo)), np.repeat(c, len(combo)), np.tile(np.array(combo) - 1, cells.size))
        for cell_lits in lits.reshape(cells.size, len(combo)).tolist():
            clauses.append([-var] + cell_lits)
    return clauses


def unit_clauses(cells: np.ndarray, literals: Callable[..., np.ndarray], cols: int, n: int,
                 guard: int) -> list[list[int]]:
    """"Each digit at most once in each unit" as pairwise clauses that hold while ``guard`` is
    true: with every cell holding one digit, a unit of ``n`` cells then holds each digit once.

    Parameters
    ----------
    cells : numpy.ndarray
        ``(U, n)`` canvas cell numbers of the units.
    literals : callable
        ``literals(r, c, d)`` -> solver literals of 0-based (row, column, digit).
    cols : int
        Canvas columns.
    n : int
        Digits.
    guard : int
        The activation literal of the rule that adds the units.

    Returns
    -------
    list of list of int
    """
    first, second = np.triu_indices(cells.shape[1], 1)
    rows, columns = cells // cols, cells % cols
    blocks = []
    for d in range(n):
        lits = literals(rows, columns, np.full(cells.shape, d))
        pairs = np.stack([-lits[:, first], -lits[:, second], np.full((cells.shape[0], first.size), -guard)], axis=-1)
        blocks.append(pairs.reshape(-1, 3))
    return np.concatenate(blocks).tolist() if blocks else []


def units_only(shape: Puzzle) -> Puzzle:
    """``shape`` with only the rules that add units (windoku windows, a diagonal, extra regions):
    the rules with rows beyond units are left out.

    Parameters
    ----------
    shape : Puzzle
        A puzzle (its clues are kept).

    Returns
    -------
    Puzzle
    """
    board = shape.base_board
    kept = tuple(rule for rule in shape.rules if not rule.adds_rows(board))
    return dataclasses.replace(shape, rules=kept)   # the value set and extra cells stay


class LazyRuleEngine:
    """:class:`~pipeline.tools.generate.engine.ShapeEngine`'s calls for a shape with rule rows, on a fresh solver of its units with
    rule clauses learnt from counterexamples (module docstring).

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (size, box, variant, regions, rules); its clues are ignored.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> eng = LazyRuleEngine(parse_puzzle("." * 16, rules=[{"rule": "antiknight"}]))
    >>> eng.count(np.zeros((4, 4), dtype=int), 1000)   # HiGHS's count and brute force agree
    24
    """

    name = "lazy"

    def __init__(self, shape: Puzzle):
        self.n = shape.n
        self.shape = shape_of(shape)
        self.rows, self.cols = self.shape.rows, self.shape.cols
        self.model = build_model(self.shape, "ijk", "C", clues="bounds")
        self.convention = self.model.convention
        self.terms = _learnable(rule_terms(self.shape.rules, self.shape.base_board), self.shape.rules)
        # the cached engine of the shape's units hands out the clauses and fresh variables; the
        # solver is our own, so learnt rule clauses and retired literals stay in this job. The
        # SAT engine encodes rule rows too: its model here is the units' alone (rules that only
        # add units, such as windoku windows, stay), so that the rule rows stay this engine's to
        # learn and, in a RuleSwitchEngine, to switch off
        self.sat = sat_engine_for(build_model(units_only(self.shape), "ijk", "C", clues="bounds"), DEFAULT_AMO,
                                  keep_clauses=True)
        self.solver = self.sat.fresh_solver()
        for clause in at_most_one_clauses(self.terms, self.literals, self.cols):   # exact, cheap: given up front
            self.solver.add_clause(clause)
        #: calls of :meth:`determines` that ran out of their budget (not proved either way)
        self.undecided = 0
        #: the other solution the last :meth:`determines` call found (None: proved, or undecided)
        self.last_other: np.ndarray | None = None
        #: rule clauses learnt so far (one per broken row of a counterexample, one per cage encoded)
        self.learnt = 0
        self.rules = self.shape.rules
        self._encoded: set = set()   # rules whose cage sum is encoded exactly

    def literals(self, r, c, d) -> np.ndarray:
        """Solver literals of 0-based (row, column, digit) (convention position + 1).

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

    def exclude(self, solution: np.ndarray) -> int:
        """Add "not ``solution``" guarded by a new activation literal; return the literal."""
        act = self.sat.new_var()
        r, c = np.nonzero(solution)
        self.solver.add_clause((-self.literals(r, c, solution[r, c] - 1)).tolist() + [-act])
        return act

    def retire(self, act: int) -> None:
        """Switch an activation literal off for good."""
        self.solver.add_clause([-act])

    def close(self) -> None:
        """Free the solver."""
        delete_solver(self.solver)

    def __del__(self):
        try:
            delete_solver(self.solver)
        except Exception:   # interpreter shutdown: nothing left to free
            pass

    def _grid(self) -> np.ndarray:
        lits = np.asarray(self.solver.get_model()[: self.convention.n_vars], dtype=np.int64)
        x = np.zeros(self.convention.n_vars)
        x[lits[lits > 0] - 1] = 1.0
        return grid_from_vector(x, self.convention)

    def _active(self, rules: np.ndarray) -> np.ndarray:
        """Which of the given rules (indices) hold in the solver's model: all of them here."""
        return np.ones(rules.size, dtype=bool)

    def _guards(self, rules: np.ndarray) -> np.ndarray:
        """The literal each learnt clause of the given rules (indices) gets besides its own: none here."""
        return np.zeros(rules.size, dtype=np.int64)

    def _learn(self, grid: np.ndarray) -> bool:
        """Add a clause per rule row ``grid`` breaks; True when it broke none (a solution).

        A killer cage whose sum row breaks for the first time gets its sum encoded exactly instead
        (:func:`cage_sum_clauses`): one "not this combination" clause per wrong sum would take
        thousands of rounds on a 9x9 killer."""
        bad = broken_rows(self.terms, grid)
        bad = bad[self._active(self.terms.rule[bad])]
        if not bad.size:
            return True
        t, cols = self.terms, self.cols
        rules = t.rule[bad]
        cages = np.array([isinstance(self.rules[k], Cage) and self.rules[k].total is not None
                          and t.equal[row] and k not in self._encoded for k, row in zip(rules.tolist(), bad.tolist())],
                         dtype=bool)
        for k, guard in zip(np.unique(rules[cages]).tolist(), self._guards(np.unique(rules[cages])).tolist()):
            for encoded in cage_sum_clauses(self.rules[k], cols, self.n, self.literals, self.sat.new_var,
                                            self.shape.values):
                self.solver.add_clause(encoded + ([-guard] if guard else []))
            self._encoded.add(k)
        bad = bad[~cages]
        pick = np.flatnonzero(np.isin(t.pair_row, bad))
        cell = t.pair_cell[pick]
        lits = -self.literals(cell // cols, cell % cols, grid.ravel()[cell] - 1)
        starts = np.flatnonzero(np.diff(t.pair_row[pick], prepend=-1))
        guards = self._guards(t.rule[t.pair_row[pick][starts]])
        for clause, guard in zip(np.split(lits, starts[1:]), guards.tolist()):
            self.solver.add_clause(clause.tolist() + ([-guard] if guard else []))
        self.learnt += len(starts) + int(cages.sum())
        return False

    def _solve(self, assumptions: list[int], budget: int | None = None,
               deadline: float | None = None) -> np.ndarray | Literal[False] | None:
        """A solution (grid) under ``assumptions``, False when there is none, None when a
        conflict ``budget`` (per solver call) ran out; :class:`OutOfTime` when ``deadline``
        (``time.perf_counter()``) passed, checked between solver calls."""
        while True:
            if deadline is not None and time.perf_counter() >= deadline:
                raise OutOfTime("the time limit was reached")
            if budget is None:
                answer = run_sliced(self.solver, assumptions, deadline)
                if answer is None:   # only a deadline stops an unbudgeted search
                    raise OutOfTime("the time limit was reached")
            else:
                self.solver.conf_budget(budget)
                answer = self.solver.solve_limited(assumptions=assumptions)
            if answer is None:
                return None
            if not answer:
                return False
            grid = self._grid()
            if self._learn(grid):
                return grid

    def random_full_grid(self, rng: np.random.Generator, deadline: float | None = None) -> np.ndarray | None:
        """A full grid of the shape (:func:`~pipeline.tools.generate.highs_engine.sampled_full_grid`);
        :class:`OutOfTime` when ``deadline`` passed before the call.

        Parameters
        ----------
        rng : numpy.random.Generator
            The sampler's randomness.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        if deadline is not None and time.perf_counter() >= deadline:
            raise OutOfTime("no full grid before the deadline")
        return sampled_full_grid(self.model, self.terms, rng)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None,
                   deadline: float | None = None) -> bool:
        """True when the clues are proved to admit no solution besides the one excluded under ``act``;
        with a ``budget``, an undecided call counts as False (not proved); :class:`OutOfTime` when
        ``deadline`` passes, checked between solver calls.

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        act : int
            What :meth:`exclude` returned for the solution to look past.
        budget : int, optional
            Conflicts per solver call; None: until decided.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        self.last_other = None
        answer = self._solve(self.clue_literals(clue_grid) + [act], budget, deadline)
        self.undecided += answer is None
        if answer is not None and answer is not False:
            self.last_other = answer
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
            answer = self._solve(self.clue_literals(clue_grid) + [act])
            return None if answer is False else answer
        finally:
            self.retire(act)

    def count(self, grid: np.ndarray, limit: int, keep: bool = False, deadline: float | None = None):
        """Solutions of the clues of ``grid`` up to ``limit``; with ``keep`` ``(count, grids)``;
        :class:`OutOfTime` when ``deadline`` passes, checked between solver calls.

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
        found: list[np.ndarray] = []
        acts: list[int] = []
        try:
            while len(found) < limit:
                answer = self._solve(clues + acts, deadline=deadline)
                if answer is False or answer is None:
                    break
                found.append(answer)
                acts.append(self.exclude(answer))
        finally:
            for act in acts:
                self.retire(act)
        return (len(found), found) if keep else len(found)


def left_out_kinds(terms: RuleTerms, rules: Sequence[Rule]) -> list[str]:
    """The kinds of the rules whose rows ``terms`` left out (auxiliary columns:
    :func:`~pipeline.core.rules.bounds.rule_terms`), in order, each once.

    Parameters
    ----------
    terms : RuleTerms
        ``rule_terms(rules, ...)``.
    rules : sequence of Rule
        The rules ``terms`` were made of.

    Returns
    -------
    list of str
        Each kind's noun (``set of counting circles``).
    """
    return list(dict.fromkeys(getattr(rules[k], "noun", "") or rules[k].kind for k in terms.left_out))


def _learnable(terms: RuleTerms, rules: Sequence[Rule]) -> RuleTerms:
    """``terms``, when this engine can learn every rule from them; else :class:`PuzzleError`: a
    rule left out of the terms would never be learnt, and its grids would count as solutions."""
    kinds = left_out_kinds(terms, rules)
    if kinds:
        raise PuzzleError(f"rules with auxiliary columns ({', '.join(kinds)}) are not supported by the engine that "
                          "learns and switches rules")
    return terms


class RuleSwitchEngine(LazyRuleEngine):
    """A :class:`LazyRuleEngine` whose rules change from call to call (killer refinement: cages
    split, merge and re-cut between rounds), keeping what it learnt about the rules that stay.

    Each rule gets an activation literal, the first time it is seen (rules are the same when their
    document entries are); a clause learnt from a rule's row is guarded by it, and a call assumes
    the literals of its puzzle's rules only, so the clauses of a rule that is gone are inactive.
    The units are those of ``shape`` (its rules that add units, e.g. windoku windows, stay for
    every call); :meth:`another_under` takes the puzzle of the call.

    Parameters
    ----------
    shape : Puzzle
        The shape without the switching rules (size, box, variant, regions, rules kept throughout).
    """

    name = "lazy"

    def __init__(self, shape: Puzzle):
        super().__init__(shape)
        self._acts: dict[str, int] = {}
        self._rule_acts = np.zeros(0, dtype=np.int64)
        self._encoded_keys: set[str] = set()
        self._keys: list[str] = []
        # the shape's own rules have their at-most-one rows unguarded (super().__init__); a rule
        # seen first in use() gets them guarded by its literal, so that it can be switched off
        board = shape.base_board
        self._amo_given = {json.dumps(rule.to_dict(board), sort_keys=True) for rule in self.shape.rules}

    def _guards(self, rules: np.ndarray) -> np.ndarray:
        return self._rule_acts[rules]

    def _active(self, rules: np.ndarray) -> np.ndarray:
        # a rule whose literal the model sets false is switched off: its broken rows are no counterexample
        model = self.solver.get_model()
        return np.array([model[v - 1] > 0 for v in self._rule_acts[rules].tolist()], dtype=bool)

    def use(self, puzzle: Puzzle) -> np.ndarray:
        """Take ``puzzle``'s rules for the next calls; return their activation literals (to assume,
        or to leave free: a rule whose literal is false is off)."""
        self._encoded_keys |= {self._keys[k] for k in self._encoded}
        board = puzzle.base_board
        keys = [json.dumps(rule.to_dict(board), sort_keys=True) for rule in puzzle.rules]
        for key in keys:
            if key not in self._acts:
                self._acts[key] = self.sat.new_var()
        self._rule_acts = np.array([self._acts[k] for k in keys], dtype=np.int64)
        self.terms = _learnable(rule_terms(puzzle.rules, board), puzzle.rules)
        fresh = {k: int(self._rule_acts[k]) for k, key in enumerate(keys) if key not in self._amo_given}
        if fresh:
            for clause in at_most_one_clauses(self.terms, self.literals, self.cols, guards=fresh):
                self.solver.add_clause(clause)
            for k, act in fresh.items():   # units a rule adds (windoku windows): switched like its rows
                for _, cells in puzzle.rules[k].units(board):
                    self.solver.append_formula(unit_clauses(cells, self.literals, self.cols, self.n, act))
            self._amo_given |= {keys[k] for k in fresh}
        self.rules = puzzle.rules
        # a cage is encoded once per activation literal (the same cage keeps its literal)
        self._encoded = {k for k, key in enumerate(keys) if key in self._encoded_keys}
        self._keys = keys
        return self._rule_acts

    def solve_under(self, assumptions: list[int]) -> np.ndarray | Literal[False]:
        """A solution under ``assumptions`` (clue and rule literals), or False (the solver's core
        then names the assumptions it used: ``solver.get_core()``)."""
        answer = self._solve(list(assumptions))
        return False if answer is None else answer

    def another_under(self, puzzle: Puzzle, solution: np.ndarray, deadline: float | None = None) -> np.ndarray | None:
        """A solution of ``puzzle`` (the shape's units, ``puzzle``'s rules and clues) other than
        ``solution``, or None when ``solution`` is its only one; :class:`OutOfTime` once
        ``deadline`` passes (checked between the search's slices).

        Parameters
        ----------
        puzzle : Puzzle
            A puzzle of the engine's shape; its rules' literals are assumed for this call.
        solution : numpy.ndarray
            ``(rows, cols)`` full grid, a known solution of ``puzzle``.
        deadline : float, optional
            A ``time.perf_counter()`` value; None: no deadline.
        """
        acts = self.use(puzzle)
        act = self.exclude(solution)
        try:
            answer = self._solve(self.clue_literals(np.asarray(puzzle.grid)) + acts.tolist() + [act],
                                 deadline=deadline)
            return None if answer is False else answer
        finally:
            self.retire(act)
