"""Checks shared by the tests of the SAT engine's own encodings of rule rows (running sums,
gated sums, combined sums): the clauses hold on the grid a puzzle's clues came from, and they
change no count. Each test module passes its puzzle and how to switch its encoding off."""
from __future__ import annotations

import json
from typing import Callable

import numpy as np
from pysat.solvers import Solver

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.clauses import clause_list, encode
from pipeline.solvers import sat, sat_rules


def grid_literals(model, grid: np.ndarray) -> list[int]:
    """The literals of a 9x9 ``grid``'s values in ``model``'s positions."""
    r, c = np.divmod(np.arange(81), 9)
    return (model.convention.position(r, c, grid.ravel() - 1).astype(np.int64) + 1).tolist()


def assert_holds_on(doc: dict, grid: np.ndarray, clues: str) -> None:
    """The engine, with the encoding on, accepts ``grid`` (the grid ``doc``'s clues came from)."""
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        outcome = engine.solve_assumed(grid_literals(model, grid), time_limit=60)
    finally:
        engine.close()
    assert outcome.status == "optimal"


def assert_counts_alike(doc: dict, clues: str, switch_off: Callable[[], None]) -> None:
    """``doc`` counted to 2 with the encoding on, then off (``switch_off()`` between the two
    engines' set-ups): the same count, and the same grid when there is one."""
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    ours = sat.SatEngine(model, fix_clues=True)
    switch_off()
    theirs = sat.SatEngine(model, fix_clues=True)
    try:
        a, b = ours.count(model, 2, time_limit=60), theirs.count(model, 2, time_limit=60)
    finally:
        ours.close()
        theirs.close()
    assert a.status != "time_limit" and b.status != "time_limit"
    assert a.count == b.count
    if a.count == 1:
        assert np.array_equal(np.asarray(a.grids[0]), np.asarray(b.grids[0]))


def cadical_within(model, conflicts: int) -> bool | None:
    """CaDiCaL on ``model``'s unit rows and the SAT engine's rule clauses, within ``conflicts``:
    True (a solution), False (none) or None (the budget ran out)."""
    units = encode(model, "pairwise")
    extra, _ = sat_rules.rules_beyond_units(model, units.n_vars, units.amo, view=True)
    solver = Solver(name="cadical153", bootstrap_with=clause_list(units) + extra)
    try:
        solver.conf_budget(conflicts)
        return solver.solve_limited()
    finally:
        solver.delete()
