"""--minimal's check spared by the second solutions the removal pass found (removal.witnessed_clues)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from oracles import is_valid_solution
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.generate import engine_for, generate, removable_clues
from pipeline.tools.generate import removal
from pipeline.tools.generate.removal import is_minimal, witnessed_clues


def _minimal(size: int, variant: str = "classic", seed: int = 11):
    return next(generate(size=size, variant=variant, seed=seed, minimal=True))


def _other_without(puzzle, solution, cell):
    """A second solution of ``puzzle`` with the clue at flat ``cell`` removed (engine's)."""
    without = np.asarray(puzzle.grid).copy()
    without.flat[cell] = 0
    other = engine_for(puzzle).another(without, solution)
    assert other is not None   # the puzzle is minimal: every clue is needed
    return other


def test_a_true_second_solution_shows_its_clue_needed_and_nothing_else():
    g = _minimal(9)
    clues = np.flatnonzero(g.puzzle.grid)
    cell = int(clues[3])
    other = _other_without(g.puzzle, g.solution, cell)
    without = np.asarray(g.puzzle.grid).copy()
    without.flat[cell] = 0
    assert is_valid_solution(other, 3, 3, clues=without)
    assert witnessed_clues(g.puzzle, g.solution, [other]).tolist() == [cell]
    assert witnessed_clues(g.puzzle, g.solution, []).tolist() == []


def test_a_grid_that_breaks_a_rule_is_no_witness():
    """The engine is not trusted: the solution with one clue's digit changed agrees with every
    other clue, but breaks its row, so it shows nothing."""
    g = _minimal(9)
    cell = int(np.flatnonzero(g.puzzle.grid)[0])
    forged = g.solution.copy()
    forged.flat[cell] = forged.flat[cell] % 9 + 1
    assert witnessed_clues(g.puzzle, g.solution, [forged]).tolist() == []


def test_a_grid_off_two_clues_shows_neither():
    g = _minimal(9)
    a, b = (int(c) for c in np.flatnonzero(g.puzzle.grid)[:2])
    other = _other_without(g.puzzle, g.solution, a)
    assert other.flat[a] != g.solution.flat[a]
    both = other.copy()
    both.flat[b] = g.solution.flat[b] % 9 + 1   # now off two clues: a witness of neither alone
    assert witnessed_clues(g.puzzle, g.solution, [both]).tolist() == []


def test_forged_witnesses_do_not_hide_a_removable_clue():
    """A puzzle with one clue too many stays not minimal, whatever grids are offered."""
    g = _minimal(9)
    empty = np.flatnonzero(g.puzzle.grid == 0)
    grid = g.puzzle.grid.copy()
    grid.flat[empty[0]] = g.solution.flat[empty[0]]
    puzzle = dataclasses.replace(g.puzzle, grid=grid)
    forged = []
    for cell in np.flatnonzero(grid):
        bad = g.solution.copy()
        bad.flat[cell] = bad.flat[cell] % 9 + 1
        forged.append(bad)
    assert not is_minimal(puzzle, g.solution, others=forged)
    assert removable_clues(puzzle, g.solution, others=forged) == removable_clues(puzzle, g.solution)


@pytest.mark.parametrize("size, variant, seed", [(9, "classic", 3), (9, "jigsaw", 4), (16, "classic", 5),
                                                 (20, "classic", 6)])
def test_minimal_check_needs_no_engine_call_after_a_full_removal_pass(monkeypatch, size, variant, seed):
    """Without symmetry every clue left was tried alone and kept: the removal pass met a second
    solution each time, so --minimal's check calls the engine for none of them (it used to call
    it once per clue) and still agrees with the engine's own check."""
    calls = []
    made = removal.engine_for

    def counted(puzzle):
        eng = made(puzzle)
        determines = eng.determines
        eng.determines = lambda *a, **k: calls.append(1) or determines(*a, **k)
        return eng

    monkeypatch.setattr(removal, "engine_for", counted)
    g = next(generate(size=size, variant=variant, seed=seed, minimal=True))
    assert g.minimal is True
    assert calls == []
    monkeypatch.setattr(removal, "engine_for", made)
    assert removable_clues(g.puzzle, g.solution) == []


@pytest.mark.parametrize("rule_engine", ["sat", "lazy", "highs"])
def test_each_counting_engine_hands_back_the_other_solution_it_met(rule_engine):
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "givens": "1..." "...." "...." "...4",
                           "rules": [{"rule": "thermo", "cells": ["r1c2", "r2c2"]}]})
    eng = engine_for(puzzle, rule_engine)
    count, grids = eng.count(np.asarray(puzzle.grid), 2, keep=True)
    assert count == 2
    act = eng.exclude(grids[0])
    try:
        assert not eng.determines(np.asarray(puzzle.grid), act)
        assert eng.last_other is not None and not np.array_equal(eng.last_other, grids[0])
        other = eng.last_other
        assert is_valid_solution(other, 2, 2, clues=puzzle.grid) and other[0, 1] < other[1, 1]   # the thermometer
        assert eng.determines(np.asarray(grids[0]), act)   # the full grid: nothing else
        assert eng.last_other is None
    finally:
        eng.retire(act)
