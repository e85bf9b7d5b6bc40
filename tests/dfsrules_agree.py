"""How the tests of ``dfsrules``' kernel handlers hold it to the SAT engine (one place for the
skyscraper, lunchbox, counting, sum line, hidden skyscraper and automaton tests)."""
from __future__ import annotations

from pipeline.core.build import build_model
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import get_solver
from pipeline.solvers.dfsrules import model_problem

__all__ = ["agree_with_sat"]


def agree_with_sat(puzzle, cap: int = 2, where: object = "", rows_hold: bool = False) -> int:
    """dfsrules takes ``puzzle`` and its count to ``cap`` (and the count's status) equals the SAT
    engine's; with fewer than ``cap`` solutions the grids are the same; the grids are distinct and
    each verifies; with ``rows_hold`` a solved answer's vector keeps every row of the model (the
    auxiliary columns the handlers fill from the grid). ``where`` names the puzzle in a failure.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle dfsrules takes.
    cap : int
        Count to this many.
    where : object
        Shown with a failed assertion (a document, a seed).
    rows_hold : bool
        Also solve it and check the answer's residual.

    Returns
    -------
    int
        The count.
    """
    model = build_model(puzzle)
    assert model_problem(model) is None, where
    got, want = get_solver("dfsrules").count(model, cap), get_solver("sat").count(model, cap)
    assert (got.count, got.status) == (want.count, want.status), where
    assert len({g.tobytes() for g in got.grids}) == got.count, where
    if got.count < cap:
        assert sorted(g.tobytes() for g in got.grids) == sorted(g.tobytes() for g in want.grids), where
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok, where
    if rows_hold and got.count:
        result = get_solver("dfsrules").solve(model)
        assert verify_grid(result.grid, puzzle).ok and residual(model, result.x) <= 1e-9, where
    return got.count
