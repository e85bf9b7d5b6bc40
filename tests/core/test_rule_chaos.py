"""Chaos construction (issue 33): ``{"rule": "chaos"}``, regions drawn by the solver with
auxiliary columns.

The oracle is written from ISS's definition (N orthogonally connected regions of N cells, each
holding every digit once), never from the rows: the divisions of a 4x4 are enumerated by brute
force (every 4-subset through the first free cell, connectivity by flood fill). The rows are
checked exact by fixing a grid and a division (connected or not) and asking a MIP for the rest;
the engines count the 4x4 Latin squares that admit a division; a 6x6 and a 9x9 are solved.
"""
from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from pipeline import parse_puzzle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.rules.chaos import find_division
from pipeline.core.verify import verify_grid
from pipeline.solvers.base import get_solver


# -- the oracle ----------------------------------------------------------------------------------
def connected(cells: set[int], n: int) -> bool:
    start = min(cells)
    todo, seen = [start], {start}
    while todo:
        r, c = divmod(todo.pop(), n)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            v = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and v in cells and v not in seen:
                seen.add(v)
                todo.append(v)
    return len(seen) == len(cells)


def divisions(n: int, free: frozenset | None = None) -> list[list[tuple[int, ...]]]:
    """Every division of the free cells into connected n-cell regions, regions by first cell."""
    free = frozenset(range(n * n)) if free is None else free
    if not free:
        return [[]]
    root = min(free)
    out = []
    for rest in itertools.combinations(sorted(free - {root}), n - 1):
        region = (root, *rest)
        if connected(set(region), n):
            out += [[region, *tail] for tail in divisions(n, free - set(region))]
    return out


def holds_every_digit(grid: np.ndarray, division: list[tuple[int, ...]]) -> bool:
    flat = grid.ravel()
    return all(len(set(flat[list(region)])) == len(region) for region in division)


def latin_squares(n: int) -> list[np.ndarray]:
    rows = list(itertools.permutations(range(1, n + 1)))
    out: list[list[tuple]] = [[]]
    for _ in range(n):
        out = [sq + [r] for sq in out for r in rows if all(r[j] != s[j] for s in sq for j in range(n))]
    return [np.array(sq) for sq in out]


DIVISIONS_4 = divisions(4)
GIVENS_6 = "6....5" + "." * 29 + "1"


def _doc(n: int, givens: str | None = None, variant: str = "latin", rules: list | None = None) -> str:
    doc: dict = {"size": n, "variant": variant, "rules": [{"rule": "chaos"}, *(rules or [])]}
    if givens:
        doc["givens"] = givens
    return json.dumps(doc)


# -- tests ---------------------------------------------------------------------------------------
def test_oracle_divisions_of_4x4():
    assert len(DIVISIONS_4) == 117                  # the tetromino tilings of the 4x4 square
    assert all(sorted(c for reg in d for c in reg) == list(range(16)) for d in DIVISIONS_4)


def test_model_size_and_names():
    model = build_model(parse_puzzle(_doc(9)))
    assert model.n_aux == 2 * 9 ** 3 * (9 + 1)    # region, seen: N^3 each; reach, pair: N^4 each
    names = model.aux_names
    assert names[0] == "aux_chaosregion_1_1_1" and names[-1] == "aux_chaospair_9_9_9_9"
    assert {"chaosdigit", "chaospair", "chaosstep", "chaosconnected"} <= set(model.rule_family_counts())


def _feasible(model, grid: np.ndarray, regions: np.ndarray) -> bool:
    """Is there a 0-1 point of the model with this grid and this region of each cell?"""
    n = grid.shape[0]
    lb, ub = model.lb.copy(), model.ub.copy()
    n_vars = model.convention.n_vars
    cells = model.columns < n_vars
    x = np.zeros(n_vars)
    rr, cc = np.divmod(np.arange(n * n), n)
    x[model.convention.position(rr, cc, grid.ravel() - 1)] = 1
    fixed = x[model.columns[cells]]
    lb[: fixed.size] = fixed
    ub[: fixed.size] = fixed
    first = int(cells.sum())
    reg = np.zeros((n * n, n))
    reg[np.arange(n * n), regions.ravel() - 1] = 1
    lb[first:first + n * n * n] = reg.ravel()
    ub[first:first + n * n * n] = reg.ravel()
    cons = [LinearConstraint(model.Aeq, model.beq, model.beq)]
    if model.n_ineq:
        cons.append(LinearConstraint(model.Aineq, -np.inf, model.bineq))
    result = milp(np.zeros(model.n_cols), constraints=cons, bounds=Bounds(lb, ub), integrality=model.integrality)
    return bool(result.status == 0)


def _labels(division: list[tuple[int, ...]], n: int) -> np.ndarray:
    out = np.zeros(n * n, dtype=np.int64)
    for k, region in enumerate(sorted(division, key=min)):
        out[list(region)] = k + 1
    return out


def test_rows_are_exact_for_fixed_grid_and_division():
    """Every connected division, and random disconnected ones, against the oracle."""
    model = build_model(parse_puzzle(_doc(4)))
    rng = random.Random(7)
    squares = latin_squares(4)
    for grid in (squares[0], squares[100], squares[345]):
        for division in DIVISIONS_4[::3]:
            assert _feasible(model, grid, _labels(division, 4)) == holds_every_digit(grid, division)
        flat = grid.ravel()
        tried = 0
        while tried < 8:                     # disconnected divisions whose regions hold 1..4: refused
            cells = list(range(16))
            rng.shuffle(cells)
            division = [tuple(sorted(cells[4 * k:4 * k + 4])) for k in range(4)]
            if all(connected(set(reg), 4) for reg in division) or not holds_every_digit(grid, division):
                by_digit = [sorted(np.flatnonzero(flat == d + 1).tolist(), key=lambda _: rng.random()) for d in range(4)]
                division = [tuple(sorted(by_digit[d][k] for d in range(4))) for k in range(4)]
                if all(connected(set(reg), 4) for reg in division):
                    continue
            assert not _feasible(model, grid, _labels(division, 4))
            tried += 1


def test_find_division_matches_the_oracle():
    for grid in latin_squares(4)[::7]:
        want = any(holds_every_digit(grid, d) for d in DIVISIONS_4)
        got = find_division(grid)
        assert (got is not None) == want
        if got is not None:
            regions = [tuple(np.flatnonzero(got.ravel() == k).tolist()) for k in range(1, 5)]
            assert all(connected(set(reg), 4) for reg in regions) and holds_every_digit(grid, regions)
    # a grid whose rows repeat digits, but that some connected division still fits
    snake = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [4, 3, 2, 1], [4, 3, 2, 1]])
    want = any(holds_every_digit(snake, d) for d in DIVISIONS_4)
    assert (find_division(snake) is not None) == want
    assert find_division(np.ones((4, 4), dtype=int)) is None


def test_4x4_latin_count_matches_brute_force():
    # rows are always a division, so every Latin square qualifies: the oracle says so independently
    want = sum(any(holds_every_digit(g, d) for d in DIVISIONS_4) for g in latin_squares(4))
    model = build_model(parse_puzzle(_doc(4)))
    assert get_solver("sat").count(model, 2000).count == want == 576


def test_6x6_solved_and_verified():
    model = build_model(parse_puzzle(_doc(6, givens=GIVENS_6)))
    result = get_solver("sat").solve(model)
    assert result.status == "optimal"
    grid = result.grid
    assert find_division(grid) is not None
    assert verify_grid(grid, parse_puzzle(_doc(6, givens=GIVENS_6))).ok


def test_verify_names_a_grid_without_division():
    puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [{"rule": "chaos"}]}))
    good = latin_squares(4)[5]
    assert verify_grid(good, puzzle).ok
    assert find_division(np.ones((4, 4), dtype=int)) is None


@pytest.mark.parametrize("doc, word", [
    ({"size": 4, "rules": [{"rule": "chaos", "cells": ["r1c1"]}]}, "cells"),
    ({"size": 6, "values": [0, 1, 2, 3, 4, 5, 6, 7], "rules": [{"rule": "chaos"}]}, "chaos"),
])
def test_bad_entries_refused_in_one_line(doc, word):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(json.dumps(doc))
    assert "\n" not in str(info.value) and word in str(info.value)
