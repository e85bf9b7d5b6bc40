"""Outside clues with a value set (issue 33): skyscraper and counting circles read values as ISS
does (a value of 0 or less is no skyscraper and is never seen), brute force over every 4x4 grid
with the values 0..3 and 1,2,4,7; sandwich, X-sum and numbered room take value sets too (their
brute force on five value sets: tests/core/test_rule_outside_values.py)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeline import api
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid


def _grids() -> list[np.ndarray]:
    perms = [np.array(p) for p in itertools.permutations(range(4))]
    return [g for g in (np.stack(rows) for rows in itertools.product(perms, repeat=4))
            if all(len(set(g[:, j])) == 4 for j in range(4))
            and all(len(set(g[r:r + 2, c:c + 2].ravel())) == 4 for r in (0, 2) for c in (0, 2))]


GRIDS = _grids()   # digit indices 0..3


def _seen(line) -> int:
    """Skyscrapers seen along ``line`` (values), ISS's way: a value of 0 or less is no skyscraper."""
    top, count = 0, 0
    for v in line:
        if v > top:
            top, count = v, count + 1
    return count


def _circles_ok(values) -> bool:
    return all(values.count(v) == v for v in set(values))


CIRCLES = ["r1c1", "r1c2", "r2c3", "r3c4", "r4c1"]
CASES = {
    "skyscraper": ({"rule": "skyscraper", "clue": "r0c2", "count": 3}, lambda g: _seen(list(g[:, 1])) == 3),
    "skyscraper right": ({"rule": "skyscraper", "clue": "r3c5", "count": 2}, lambda g: _seen(list(g[2, ::-1])) == 2),
    "countingcircles": ({"rule": "countingcircles", "cells": CIRCLES},
                        lambda g: _circles_ok([int(g[int(c[1]) - 1, int(c[3]) - 1]) for c in CIRCLES])),
}


@pytest.mark.parametrize("values", [[0, 1, 2, 3], [1, 2, 4, 7]])
@pytest.mark.parametrize("name", sorted(CASES))
def test_outside_rules_with_a_value_set_count_as_brute_force(name, values):
    entry, plain = CASES[name]
    table = np.array(values)
    puzzle = parse_puzzle({"size": 4, "values": values, "rules": [entry]})
    want = [g for g in GRIDS if plain(table[g])]
    assert 0 < len(want) < len(GRIDS), name
    got = api.count(puzzle, limit=1000, solver="sat")
    assert (got.count, got.status) == (len(want), "complete"), name
    for g in GRIDS[::7]:
        assert bool(verify_grid(g + 1, puzzle)) == plain(table[g]), (name, g.tolist())


@pytest.mark.parametrize("entry", [{"rule": "sandwich", "clue": "r0c1", "sum": 2},
                                   {"rule": "xsum", "clue": "r0c1", "sum": 3},
                                   {"rule": "numberedroom", "clue": "r0c1", "digit": 2}])
def test_value_index_rules_take_a_value_set(entry):
    """They once refused one ("needs the values 1..4"); ISS reads them on 0..N-1 grids."""
    for values in ("0-3", None):
        doc = {"size": 4, "rules": [entry]} | ({"values": values} if values else {})
        assert parse_puzzle(doc).rules[0].kind == entry["rule"]


def test_an_x_sum_that_no_value_set_allows_says_so():
    """Values -3..0 give no first cell a count 1..4: an outside probe got "'sum' must be from 1 to 0"."""
    with pytest.raises(PuzzleError, match=r"rules\[0\] \(xsum\): no X-sum clue is possible with the values -3\.\.0$"):
        parse_puzzle({"size": 4, "values": "-3-0", "rules": [{"rule": "xsum", "clue": "r0c2", "sum": 13}]})
