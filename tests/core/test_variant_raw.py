"""The ``raw`` variant (ISS's ``Raw`` grid): no rows, columns or boxes as units; each cell holds
one value and only the rules constrain them."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import highs, sat

# rows 1 and 2 given, with a digit twice in a row and in a column (no unit forbids it)
_TOP = [[1, 1, 2, 2], [1, 3, 3, 4]]
_RULES = [{"rule": "thermo", "cells": ["r3c1", "r3c2", "r3c3"]},
          {"rule": "cage", "cells": ["r4c1", "r4c2"], "sum": 5},
          {"rule": "antiknight"}]


def _doc(rules: list) -> dict:
    givens = [f"r{r + 1}c{c + 1}={d}" for r in range(2) for c, d in enumerate(_TOP[r])]
    return {"size": 4, "variant": "raw", "givens": givens, "rules": rules}


def _brute_force() -> np.ndarray:
    """Every 4x4 grid with rows 1-2 as given that keeps the rules, written from their meaning."""
    bottom = np.array(list(itertools.product(range(1, 5), repeat=8)))
    grids = np.concatenate([np.tile(np.ravel(_TOP), (len(bottom), 1)), bottom], axis=1)
    ok = (grids[:, 8] < grids[:, 9]) & (grids[:, 9] < grids[:, 10])                      # thermo
    ok &= (grids[:, 12] + grids[:, 13] == 5) & (grids[:, 12] != grids[:, 13])            # cage
    for a, b in itertools.combinations(range(16), 2):                                    # anti-knight
        (ra, ca), (rb, cb) = divmod(a, 4), divmod(b, 4)
        if {abs(ra - rb), abs(ca - cb)} == {1, 2}:
            ok &= grids[:, a] != grids[:, b]
    return grids[ok]


def test_raw_counts_match_brute_force():
    expected = {tuple(g) for g in _brute_force().tolist()}
    assert len(expected) > 1
    model = build_model(parse_puzzle(_doc(_RULES)))
    for counted in (sat.count(model, limit=10_000), highs.count_solutions(model, limit=10_000)):
        assert counted.status == "complete" and counted.count == len(expected)
        assert {tuple(np.asarray(g).ravel().tolist()) for g in counted.grids} == expected


def test_verify_rejects_nothing_a_raw_grid_allows():
    puzzle = parse_puzzle(_doc(_RULES))
    brute = _brute_force()
    for grid in brute:
        assert verify_grid(grid.reshape(4, 4), puzzle).ok
    # no rules: any grid of 1..4 keeping the clues is a solution, repeats in every row and column
    bare = parse_puzzle(_doc([]))
    rng = np.random.default_rng(7)
    for _ in range(50):
        grid = np.concatenate([np.ravel(_TOP), rng.integers(1, 5, 8)]).reshape(4, 4)
        assert verify_grid(grid, bare).ok
    assert not verify_grid(np.full((4, 4), 2), bare).ok   # a clue changed is still caught


def test_iss_raw_reads_and_writes_back():
    doc = document_from_iss(".Shape~4x4~0-3~Raw.Thermo~R1C1~R1C2.~R2C2_0~R2C3_0")
    assert doc["variant"] == "raw" and doc["values"] == "0-3"
    puzzle = parse_puzzle(doc)
    assert [name for name, _ in puzzle.unit_families()] == []
    assert iss_from_puzzle(puzzle) == ".Shape~4x4~0-3~Raw.Thermo~R1C1~R1C2.~R2C2_0~R2C3_0"


@pytest.mark.parametrize(("text", "message"), [
    (".Shape~4x4~1-4~Raw.AntiKing", "ISS: AntiKing needs a Sudoku grid, not Raw (constraint 2"),
    (".Shape~4x4~1-4~Raw.NoBoxes", "ISS: NoBoxes needs a Sudoku grid, not Raw (constraint 2"),
    (".Shape~4x4~6~Raw", "ISS: a Raw grid is read only square with as many values as its side, not 4x4 with 6"),
    (".Shape~4x6~1-6~Raw", "ISS: a Raw grid is read only square with as many values as its side, not 4x6 with 6"),
])
def test_iss_raw_refusals_are_one_line(text, message):
    with pytest.raises(PuzzleError) as caught:
        document_from_iss(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(("doc", "message"), [
    ({"size": 4, "variant": "raw", "values": "0-4"}, "values: variant raw takes exactly 4 values on a 4x4 grid, found 5"),
    ({"size": 4, "variant": "raw", "rules": [{"rule": "nonconsecutive"}]},
     "rules[0] (nonconsecutive): needs rows and columns that are units; this grid has none (raw)"),
    ({"size": 4, "variant": "raw", "rules": [{"rule": "antiking"}]},
     "rules[0] (antiking): needs rows and columns that are units; this grid has none (raw)"),
])
def test_raw_refuses_what_needs_units(doc, message):
    with pytest.raises(PuzzleError) as caught:
        parse_puzzle(doc)
    assert message in str(caught.value)


def test_raw_connected_region_may_fill_the_grid():
    """No row holds a value once, so a connected region of one value is not capped at N cells a value."""
    doc = {"size": 2, "box": "1x2", "variant": "raw", "givens": ["r1c1=1", "r1c2=1", "r2c1=1", "r2c2=1"],
           "rules": [{"rule": "connectedvalues", "values": [1]}]}
    puzzle = parse_puzzle(doc)
    solved = highs.solve(build_model(puzzle))
    assert solved.status == "optimal" and verify_grid(solved.grid, puzzle).ok


def test_raw_grids_of_two_sizes_do_not_share_unit_tables():
    """No families at all: the side alone tells a 4x4's tables from a 2x2's (they were one cache entry)."""
    for doc in ({"size": 4, "variant": "raw", "givens": ["r1c1=2"]}, {"size": 2, "box": "1x2", "variant": "raw"}):
        puzzle = parse_puzzle(doc)
        solved = sat.solve(build_model(puzzle))
        assert solved.status == "optimal" and verify_grid(solved.grid, puzzle).ok
