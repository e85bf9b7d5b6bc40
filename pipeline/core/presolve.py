"""Presolve a model before an engine sees it: naked and hidden singles, then the reduced model.

The singles (:mod:`pipeline.core.propagate`, the one kernel) decide cells that every solution
holds: they follow from the clues and the units alone, so they are sound for puzzles with rules
beyond units too (the units still hold; the rule rows are kept, with the fixed values moved to
their right-hand side by the ``reduce`` clue encoding). The engine gets the model of the puzzle
with those cells added as clues, encoded ``reduce`` (:class:`pipeline.core.build.Model`): only
the candidates singles leave are columns, only the rows they do not settle are rows. Its answer
is mapped back to the original model's columns (:meth:`Presolved.original_x`) and verified
against the ORIGINAL puzzle by the caller, as every answer is.

Counting is sound as well: the reduced model has exactly the solutions of the original one.
A contradiction found by singles (or singles that break a rule) means the puzzle has no solution;
the engine is then not called at all.

Exported files never go through here (``export --clues reduce`` is the way to export a reduced
model).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.propagate import MAX_BITS_N, propagate_puzzle
from pipeline.core.puzzle import with_other_clues

__all__ = ["DEFAULT_PRESOLVE", "PRESOLVE_METHODS", "Presolved", "presolve"]

#: ``singles``: naked and hidden singles, then the reduced model; ``none``: the model as built.
PRESOLVE_METHODS = ("singles", "none")
DEFAULT_PRESOLVE = "singles"


@dataclass(frozen=True, eq=False)
class Presolved:
    """What :func:`presolve` hands an engine.

    ``model`` is what the engine solves (the original model when nothing was done);
    ``original`` the model the caller asked about; ``placed`` the cells singles decided beyond
    the clues; ``contradiction`` True when the puzzle has no solution (do not call the engine);
    ``skipped`` says why no presolve was made (empty when it was, or when ``none`` was asked);
    ``seconds`` the time the presolve took.
    """

    original: Model
    model: Model
    method: str
    placed: int = 0
    contradiction: bool = False
    skipped: str = ""
    seconds: float = 0.0

    @property
    def reduced(self) -> bool:
        """True when the engine gets another model than the original."""
        return self.model is not self.original

    def original_x(self, x: np.ndarray) -> np.ndarray:
        """The engine's answer ``x`` (over ``model``'s columns) over the original model's columns.

        Parameters
        ----------
        x : numpy.ndarray
            Values over :attr:`model`'s solver columns.

        Returns
        -------
        numpy.ndarray
        """
        if not self.reduced:
            return np.asarray(x, dtype=float)
        full = self.model.full_vector(x)
        if self.model.n_aux:   # auxiliary columns: never reduced, the last columns of both views, in order
            full = np.concatenate([full, np.asarray(x, dtype=float)[self.model.columns >= self.model.convention.n_vars]])
        return full[self.original.columns]

    def objective_offset(self) -> float:
        """The cost of the variables the presolve fixed to 1 (added to the engine's objective value)."""
        if not self.reduced or self.original.objective is None:
            return 0.0
        cost = np.asarray(self.original.objective, dtype=float)
        # the original's own objective leaves out what its own reduce fixed (its clues)
        already = cost[self.original.clue_positions].sum() if self.original.is_reduced else 0.0
        return float(cost[self.model.clue_positions].sum() - already)


def presolve(model: Model, method: str = DEFAULT_PRESOLVE) -> Presolved:
    """``model`` presolved by ``method`` for an engine (see the module's docstring).

    Parameters
    ----------
    model : Model
        Any convention, clue encoding and rules.
    method : {"singles", "none"}
        ``singles``: naked and hidden singles, then the ``reduce`` model of the puzzle with them
        as clues; ``none``: ``model`` itself.

    Returns
    -------
    Presolved

    Raises
    ------
    PuzzleError
        An unknown ``method``.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> model = build_model(parse_puzzle("1..." "..1." ".1.." "...1", box="2x2"))
    >>> done = presolve(model)
    >>> done.placed, done.model.n_cols, model.n_cols
    (0, 36, 64)
    >>> presolve(build_model(parse_puzzle("12.." "...." "...." "...3", box="2x2"))).placed
    2
    """
    if method not in PRESOLVE_METHODS:
        raise PuzzleError(f"presolve: unknown method {method!r}; expected one of {', '.join(PRESOLVE_METHODS)}")
    if method == "none":
        return Presolved(model, model, method)
    puzzle = model.puzzle
    if puzzle.layout is not None:
        return Presolved(model, model, method, skipped=f"singles do not cover a {puzzle.layout.name} layout yet")
    conv = model.convention
    if puzzle.n > MAX_BITS_N:
        skipped = f"singles stop at {MAX_BITS_N}x{MAX_BITS_N}"
        if not puzzle.n_clues or model.is_reduced:
            return Presolved(model, model, method, skipped=skipped)
        # the clues alone still leave the model: a full 100x100 was 16 million clauses to encode
        # and 26 s of ``solve``, where its reduced model has no column
        start = time.perf_counter()
        reduced = build_model(puzzle, conv.scheme, conv.order, "reduce", model.objective)
        return Presolved(model, reduced, method, skipped=skipped + "; the clues' cells are left out",
                         seconds=time.perf_counter() - start)
    if puzzle.units_at_most:
        return Presolved(model, model, method, skipped=f"singles assume each unit holds every value, not "
                                                         f"{puzzle.n_values} values on {puzzle.rows}x{puzzle.cols}")
    start = time.perf_counter()
    singles = propagate_puzzle(puzzle)
    if singles.contradiction:
        return Presolved(model, model, method, contradiction=True, seconds=time.perf_counter() - start)
    grid = np.where(puzzle.grid > 0, puzzle.grid, singles.grid)
    placed = int(np.count_nonzero(grid) - np.count_nonzero(puzzle.grid))
    try:
        # the clues alone checked again; the shape cache shared, so the rule rows are not built twice
        with_singles = with_other_clues(puzzle, grid) if placed else puzzle
    except PuzzleError:   # the decided cells break a rule: every solution would hold them, so none exists
        return Presolved(model, model, method, placed, contradiction=True, seconds=time.perf_counter() - start)
    reduced = build_model(with_singles, conv.scheme, conv.order, "reduce", model.objective)
    return Presolved(model, reduced, method, placed, seconds=time.perf_counter() - start)
