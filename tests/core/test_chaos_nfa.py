"""Automaton lines over chaos construction region cells (ISS ``NFA`` over ``CC<k>`` and grid cells,
as ISS's "Chaos Construction: Thermo Knots" has them): the chaos entry's ``automata``.

A 4x4 Latin chaos construction with a "thermo inside one region" automaton over (region, digit)
pairs is counted by brute force (every Latin square against every connected division) and by two
engines; the ISS string reads, writes back, and verify judges a grid by the line too.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from pipeline import parse_puzzle
from pipeline.core.build import build_model
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.rules.nfa import Nfa, nfa_accepts, nfa_to_iss
from pipeline.core.errors import PuzzleError
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers.base import get_solver
from test_rule_chaos import DIVISIONS_4, _labels, holds_every_digit, latin_squares

N = 4


def thermo_in_region() -> Nfa:
    """Over (region, digit) pairs: every pair in the first pair's region, the digits increasing.
    States: 0 start; 1 + k after region k; 5 + 4k + d after digit d in region k (accepting);
    21 + 4k + d after region k again, waiting for a digit above d."""
    rows = [(0, k, 1 + k) for k in range(N)]
    rows += [(1 + k, d, 5 + 4 * k + d) for k in range(N) for d in range(N)]
    rows += [(5 + 4 * k + d, k, 21 + 4 * k + d) for k in range(N) for d in range(N)]
    rows += [(21 + 4 * k + d, e, 5 + 4 * k + e) for k in range(N) for d in range(N) for e in range(d + 1, N)]
    return Nfa.make(37, [0], [5 + i for i in range(16)], rows)


LINE = [0, 1, 5]          # r1c1, r1c2, r2c2: the regions and digits read in turn
KEY = nfa_to_iss(thermo_in_region())
ISS = (".Shape~4x4.NoBoxes.ChaosConstruction.NFA~" + KEY + "~_knot~"
       + "~".join(f"CC{c + 1}~R{c // N + 1}C{c % N + 1}" for c in LINE) + ".~R4C4_2")


def _accepted(grid: np.ndarray, regions: np.ndarray) -> bool:
    symbols = [int(s) - 1 for c in LINE for s in (regions[c], grid.ravel()[c])]
    allowed = np.zeros((len(symbols), N + 1), dtype=bool)
    allowed[np.arange(len(symbols)), symbols] = True
    return nfa_accepts(thermo_in_region(), allowed)


@functools.lru_cache(maxsize=1)
def brute_force() -> frozenset[tuple[int, ...]]:
    """The grids some division fits with the line accepted (regions numbered by first cell)."""
    grids = [g for g in latin_squares(N) if g[3, 3] == 2]
    return frozenset(tuple(g.ravel().tolist()) for g, division in itertools.product(grids, DIVISIONS_4)
                     if holds_every_digit(g, division) and _accepted(g, _labels(division, N)))


def test_iss_reads_the_line_as_a_chaos_clue_and_writes_it_back():
    doc = document_from_iss(ISS)
    chaos = [r for r in doc["rules"] if r["rule"] == "chaos"]
    assert chaos[0]["automata"] == [{"cells": ["@r1c1", "r1c1", "@r1c2", "r1c2", "@r2c2", "r2c2"], "nfa": KEY,
                                     "name": "knot"}]
    puzzle = parse_puzzle(ISS)
    again = parse_puzzle(iss_from_puzzle(puzzle))
    assert [r.to_dict(again.board) for r in again.rules] == [r.to_dict(puzzle.board) for r in puzzle.rules]


@pytest.mark.parametrize("engine", ["sat", "highs"])
def test_count_matches_brute_force(engine):
    want = brute_force()
    assert 1 < len(want) < 200                     # the line bites, and more than one grid is left
    model = build_model(parse_puzzle(ISS))
    assert get_solver(engine).count(model, 500).count == len(want)


def test_verify_judges_the_line():
    """Every Latin square with the given: verify passes exactly the brute force's grids."""
    puzzle = parse_puzzle(ISS)
    kept = brute_force()
    verdicts = {tuple(g.ravel().tolist()): verify_grid(g, puzzle).ok for g in latin_squares(N) if g[3, 3] == 2}
    assert {g for g, ok in verdicts.items() if ok} == kept and len(verdicts) > len(kept)


def test_a_region_step_on_an_extra_cell_is_refused():
    """An extra cell (ISS ``Var``) has no region: ``@A`` is refused as the other region clues refuse it
    (it would read another block's columns as its region)."""
    doc = {"size": 4, "variant": "latin", "extra": [{"name": "A", "size": 1}],
           "rules": [{"rule": "chaos", "automata": [{"cells": ["@r1c1", "@A"], "nfa": KEY}]}]}
    with pytest.raises(PuzzleError, match=r"chaos.*automata\[0\].*A is an extra cell, which has no region"):
        parse_puzzle(doc)


def test_verify_judges_the_line_with_extra_cells_beside_the_grid():
    """The clues are judged on the grid and its extra cells (16 + 9 cells here): the line still
    reads the grid's digits and regions, as without extra cells."""
    plain = parse_puzzle(ISS)
    with_extra = parse_puzzle(".Shape~4x4.NoBoxes.Var~A~~9.ChaosConstruction" + ISS.split("ChaosConstruction", 1)[1])
    kept = brute_force()
    for g in latin_squares(N):
        if g[3, 3] == 2:
            assert (grid_violations(g, with_extra, extra=np.ones(9, dtype=np.int64)) == []) == (tuple(g.ravel().tolist()) in kept)
            assert verify_grid(g, plain).ok == (tuple(g.ravel().tolist()) in kept)
