"""How the tests of ``dfsrules``' kernel handlers hold it to the SAT engine (one place for the
skyscraper, lunchbox, counting, sum line, hidden skyscraper and automaton tests), and to ISS's
published answers (the skyscraper, hidden skyscraper and anti-taxicab tests)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from oracles import ISS_COLLECTION
from pipeline import read_puzzle
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import get_solver
from pipeline.solvers.dfsrules import model_problem

__all__ = ["agree_with_sat", "iss_entry_params", "solves_iss_entry"]


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


def iss_entry_params(marker: str) -> list:
    """``pytest.param`` of each ISS collection entry whose input holds ``marker`` (a constraint
    type, ``".Skyscraper~"``) and that has a solution; one skipped param when ``../shared`` is absent.

    Parameters
    ----------
    marker : str
        Text the entry's ISS input holds.

    Returns
    -------
    list
    """
    entries = [] if not ISS_COLLECTION.is_file() else [
        json.loads(line) for line in ISS_COLLECTION.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [pytest.param(e, id=e["name"][:40]) for e in entries if marker in e["input"] and e.get("solution")] or [
        pytest.param(None, id="absent", marks=pytest.mark.skip(
            reason=f"{ISS_COLLECTION} is absent (../shared is not beside the project)"))]


def solves_iss_entry(entry: dict) -> None:
    """dfsrules counts ``entry`` (an ISS collection entry) unique within 20 s to ISS's solution,
    and it verifies; skips an entry not read here, refused by dfsrules, or not finished in 20 s
    (a loaded machine, or the kernel's first compile in this worker).

    Parameters
    ----------
    entry : dict
        ``name``, ``input`` (ISS's string) and ``solution``.
    """
    try:
        puzzle = read_puzzle(entry["input"])
    except PipelineError as e:
        pytest.skip(f"not read here: {e}")
    model = build_model(puzzle)
    problem = model_problem(model)
    if problem:
        pytest.skip(problem)
    found = get_solver("dfsrules").count(model, 2, time_limit=20)
    if found.status == "time_limit":
        pytest.skip(f"dfsrules did not finish counting {entry['name']!r} within 20 s here")
    assert found.status == "complete" and found.count == 1, entry["name"]
    shown = np.asarray(puzzle.board.value_of)[found.grids[0].ravel() - 1]
    solution = entry["solution"]
    want = [int(ch) for ch in solution if ch.isdigit()] if isinstance(solution, str) else np.ravel(solution).tolist()
    assert shown.tolist() == want, entry["name"]
    assert verify_grid(found.grids[0], puzzle).ok
