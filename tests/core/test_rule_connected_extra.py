"""Connected values over a group of extra cells (ISS ``ConnectedValues~VL~1``: ``"group": "L"``).

The oracle is ISS's meaning (js/sudoku_constraint.js ``ConnectedValues``, js/solver/connected_handler.js:
the group's cells holding a listed value form one non-empty orthogonally connected region, the
group laid out in rows of its width, a count in rows of the grid's width, the last row possibly
short), judged on every assignment of the free extra cells with scipy's component labelling.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import ndimage

from pipeline import api
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid

GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])


def holds(vals: np.ndarray, columns: int, chosen: list[int], size: int = 0) -> bool:
    """ISS's meaning on the group's row layout."""
    inside = np.isin(vals, chosen)
    count = int(inside.sum())
    if not count or (size and count != size):
        return False
    rows = -(-vals.size // columns)
    padded = np.zeros(rows * columns, dtype=bool)
    padded[:vals.size] = inside
    return ndimage.label(padded.reshape(rows, columns))[1] == 1


CASES = {   # name: (size text, cells, cells a row, chosen, region size, pencil marks {cell: digit})
    "2x3 values 1,2": ("2x3", 6, 3, [1, 2], 0, {1: 3, 5: 1}),
    "3x3 value 1": ("3x3", 9, 3, [1], 0, {1: 1, 3: 4, 7: 3, 9: 1}),
    "3x3 value 1 size 4": ("3x3", 9, 3, [1], 4, {1: 1, 5: 3, 9: 2}),
    "count 6 in rows of 4": (6, 6, 4, [2, 3], 0, {2: 1, 6: 3}),
}


def _doc(case: str) -> dict:
    size_text, _, _, chosen, size, marks = CASES[case]
    rule: dict = {"rule": "connectedvalues", "values": chosen, "group": "L"}
    if size:
        rule["size"] = size
    return {"size": 4, "givens": [f"r{r + 1}c{c + 1}={GRID[r, c]}" for r in range(4) for c in range(4)],
            "extra": [{"name": "L", "size": size_text}],
            "rules": [rule] + [{"rule": "pencilmarks", "cells": [f"L{k}"], "digits": [d]} for k, d in marks.items()]}


def _wanted(case: str) -> list[np.ndarray]:
    _, count, columns, chosen, size, marks = CASES[case]
    free = [k for k in range(count) if k + 1 not in marks]
    out = []
    for combo in itertools.product(range(1, 5), repeat=len(free)):
        vals = np.zeros(count, dtype=np.int64)
        for k, d in marks.items():
            vals[k - 1] = d
        vals[free] = combo
        out.append(vals)
    return [v for v in out if holds(v, columns, chosen, size)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_match_iss_brute_force(case):
    _, count, columns, chosen, size, marks = CASES[case]
    want = _wanted(case)
    puzzle = parse_puzzle(_doc(case))
    got = api.count(puzzle, limit=2000, solver="sat")
    assert (got.count, got.status) == (len(want), "complete"), case
    high = api.count(puzzle, limit=3, solver="highs")
    assert high.count == min(len(want), 3), case
    free = [k for k in range(count) if k + 1 not in marks]
    for combo in itertools.islice(itertools.product(range(1, 5), repeat=len(free)), 0, None, 7):
        vals = np.array([marks.get(k + 1, 0) for k in range(count)])
        vals[free] = combo
        assert bool(verify_grid(GRID, puzzle, extra=vals)) == holds(vals, columns, chosen, size), (case, vals)


def test_the_cases_discriminate():
    """Each case keeps a strict, non-empty part of its assignments: connectivity over the layout bites."""
    for case, (_, count, _, _, _, marks) in CASES.items():
        assert 0 < len(_wanted(case)) < 4 ** (count - len(marks)), case
    # rows of 3 versus rows of 4: L3 and L4 are next to each other only in rows of 4
    assert holds(np.array([9, 9, 1, 1, 9, 9]), 4, [1]) and not holds(np.array([9, 9, 1, 1, 9, 9]), 3, [1])


def test_columns_and_rows_are_the_groups_layers():
    m = build_model(parse_puzzle(_doc("2x3 values 1,2")))
    aux = [a for a in m.aux_names if a.startswith("aux_connected")]
    assert len(aux) == 6 * 6 and aux[0] == "aux_connected_1_1_1_1" and aux[-1] == "aux_connected_1_2_3_6"
    families = dict((f, k) for f, _, k in m.R.families)
    assert families["connectedroot"] == 1 and families["connectedstep"] == 6 * 5 and families["connectedall"] == 6
    labels = m.row_labels.tolist() + m.ineq_labels.tolist()
    assert len(set(labels)) == len(labels) and "connectedstep_1_2_3_6" in labels


def test_violations_name_the_groups_cells():
    puzzle = parse_puzzle(_doc("2x3 values 1,2"))
    broken = grid_violations(GRID, puzzle, extra=np.array([3, 3, 1, 2, 1, 3]))
    assert len(broken) == 1 and "separate parts" in broken[0]["message"] and "extra cells L" in broken[0]["message"]
    assert grid_violations(GRID, puzzle, extra=np.array([3, 1, 3, 2, 1, 3])) == []


@pytest.mark.parametrize("rule, words", [
    ({"rule": "connectedvalues", "values": [1], "group": "M"}, "'group' must name a group of extra cells (one of L)"),
    ({"rule": "connectedvalues", "values": [1], "group": 3}, "'group' must name"),
    ({"rule": "connectedvalues", "values": [1], "group": "L", "size": 7}, "whole number 1..6"),
])
def test_bad_groups_are_refused_in_one_line(rule, words):
    with pytest.raises(PuzzleError) as err:
        parse_puzzle({"size": 4, "extra": [{"name": "L", "size": "2x3"}], "rules": [rule]})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_iss_reads_and_writes_the_group():
    text = ".Shape~4x4.Var~L~loop~2x3.ConnectedValues~VL~1_2~3.ConnectedValues~~4"
    doc = document_from_iss(text)
    assert {"rule": "connectedvalues", "values": [1, 2], "size": 3, "group": "L"} in doc["rules"]
    puzzle = parse_puzzle(text)
    back = iss_from_puzzle(puzzle)
    assert "ConnectedValues~VL~1_2~3" in back and "ConnectedValues~~4" in back
    assert parse_puzzle(back).to_document() == puzzle.to_document()
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(".Shape~4x4.Var~L~~2x3.ConnectedValues~VM~1")
    assert "declared var-cell group" in str(err.value) and "\n" not in str(err.value)
