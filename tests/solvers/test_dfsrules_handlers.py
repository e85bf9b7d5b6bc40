"""The ``dfsrules`` kernel's rule handlers (:mod:`pipeline.solvers.dfsrules_handlers`) and the tables
they read: the houses' intersections (locked candidates) and each term's coefficient order. That
the handlers keep every solution is checked where counts are compared with the SAT engine's
(``test_dfsrules.py``, ``test_dfsrules_innies.py``, ``test_dfsrules_sums.py``)."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import house_intersections, rule_tables
from pipeline.solvers.dfsrules_rows import MASK_INTERSECTIONS

KILLER = {"size": 9, "box": "3x3", "rules": [{"rule": "cage", "cells": ["r5c5", "r5c6", "r6c5"], "sum": 24}]}


def _intersections(doc: dict) -> list[tuple[set[int], set[int]]]:
    count, rest_a, rest_b, unit_ptr, unit_list = house_intersections(shape_tables(parse_puzzle(doc)))
    a, b = rest_a.reshape(count, -1), rest_b.reshape(count, -1)
    return [({int(c) for c in a[i] if c >= 0}, {int(c) for c in b[i] if c >= 0}) for i in range(count)]


@pytest.mark.parametrize(("doc", "expected"), [
    ({"size": 9, "box": "3x3"}, 54),                                   # 18 lines, each meets 3 boxes
    ({"size": 6, "box": "2x3"}, 30),                                   # rows meet 2 boxes in 3 cells, columns 3 in 2
    ({"size": 9, "box": "3x3", "rules": [{"rule": "diagonal"}]}, 57),  # the main diagonal meets 3 boxes in 3 cells
    ({"size": 4, "box": "2x2"}, 16),
])
def test_every_two_houses_sharing_two_cells_or_more_intersect_once(doc, expected):
    found = _intersections(doc)
    assert len(found) == expected
    n = doc["size"]
    for rest_a, rest_b in found:
        assert rest_a and rest_b and not rest_a & rest_b
        assert len(rest_a) == len(rest_b) <= n - 2        # the shared cells are the rest of each house


def test_a_box_and_a_row_leave_the_six_cells_each_outside_the_other():
    found = _intersections({"size": 9, "box": "3x3"})
    row_one = set(range(9))
    box_one = {0, 1, 2, 9, 10, 11, 18, 19, 20}
    assert (row_one - box_one, box_one - row_one) in found or (box_one - row_one, row_one - box_one) in found


def test_each_cell_marks_the_intersections_it_is_in_a_rest_of():
    count, rest_a, rest_b, cell_ptr, cell_list = house_intersections(shape_tables(parse_puzzle({"size": 9,
                                                                                               "box": "3x3"})))
    assert count <= MASK_INTERSECTIONS and np.array_equal(cell_ptr, np.arange(82))   # one mask a cell
    masks = cell_list.view(np.uint64)
    rests = np.concatenate([rest_a.reshape(count, -1), rest_b.reshape(count, -1)], axis=1)
    for c in range(81):
        assert {i for i in range(count) if int(masks[c]) >> i & 1} == {i for i in range(count) if c in rests[i]}
    assert {bin(int(m)).count("1") for m in masks} == {8}   # its box with 2 rows and 2 columns, 2 boxes a line


def test_more_intersections_than_a_mask_holds_are_listed_per_cell():
    count, rest_a, rest_b, cell_ptr, cell_list = house_intersections(shape_tables(parse_puzzle({"size": 16,
                                                                                               "box": "4x4"})))
    assert count > MASK_INTERSECTIONS
    rests = np.concatenate([rest_a.reshape(count, -1), rest_b.reshape(count, -1)], axis=1)
    for c in range(256):
        listed = cell_list[cell_ptr[c]:cell_ptr[c + 1]].tolist()
        assert listed == sorted(set(listed)) == [i for i in range(count) if c in rests[i]]


def test_only_killers_get_locked_candidates_and_every_puzzle_branching_by_conflicts():
    killer = rule_tables(parse_puzzle(KILLER)).rint
    thermo = rule_tables(parse_puzzle({"size": 9, "box": "3x3",
                                       "rules": [{"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}]})).rint
    assert killer[25] == 54 and killer[31] == 1
    assert thermo[25] == 0 and thermo[31] == 1


def test_a_term_s_coefficient_order_is_read_from_its_digits():
    """A cage's terms rise with the digit (their value); an innie row negated falls; the kernel takes
    their least and greatest coefficient at the ends of a candidate mask."""
    tables = rule_tables(parse_puzzle(KILLER))
    rint = tables.rint
    order = rint[rint[30]:rint[30] + tables.n_terms]
    coef = rint[rint[10]:rint[10] + tables.n_terms * 9].reshape(-1, 9)
    rising = np.all(np.diff(coef, axis=1) >= 0, axis=1)
    falling = np.all(np.diff(coef, axis=1) <= 0, axis=1)
    assert np.array_equal(order, np.where(rising, 1, np.where(falling, -1, 0)))
    assert (order == 1).any()


def test_locked_candidates_keep_each_rest_to_the_digits_the_other_rest_can_take():
    """Box 1 and row 1 of a 9x9: 9 is gone from the box's rows 2 and 3, so it stands in the shared
    cells and leaves the rest of the row (pointing); 1 is gone from the row beyond the box, so it
    leaves the box's other rows (claiming); 5, still in both rests, stays."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    from pipeline.solvers.dfsrules_handlers import _same_rests

    row_rest, box_rest = [3, 4, 5, 6, 7, 8], [9, 10, 11, 18, 19, 20]
    rint = np.array(row_rest + [-1, -1, -1] + box_rest + [-1, -1, -1], dtype=np.int64)
    state = np.full(81, (1 << 9) - 1, dtype=np.uint64)
    nine, one = np.uint64(1 << 8), np.uint64(1)
    state[box_rest] &= ~nine
    state[row_rest] &= ~one
    work = np.zeros(2 * 81, dtype=np.int64)
    head_tail = np.zeros(2, dtype=np.int64)
    changed = _same_rests(0, 9, 9, state, rint, work, 81, head_tail)
    assert changed == 12 and head_tail[1] == 12
    assert all(state[c] & nine == 0 and state[c] & np.uint64(1 << 4) for c in row_rest + box_rest)
    assert all(state[c] & one == 0 for c in box_rest)
    assert _same_rests(0, 9, 9, state, rint, work, 81, head_tail) == 0          # a fixed point
    state[row_rest] = one                                                       # the row's rest cannot take 1 ...
    state[box_rest] &= ~one                                                     # ... nor the box's: a contradiction
    assert _same_rests(0, 9, 9, state, rint, work, 81, head_tail) < 0


def test_the_intersections_reach_a_kernel_search_on_a_killer():
    """Locked candidates are on for a killer (its tables list the intersections): the kernel still
    counts the unique killer of the bench's first killer puzzle as unique."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    import json
    from pathlib import Path

    from pipeline.core.build import build_model
    from pipeline.solvers.dfsrules import search_model

    lines = (Path(__file__).resolve().parents[2] / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    doc = next(json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "killer")
    puzzle = parse_puzzle(doc)
    assert rule_tables(puzzle).rint[25] > 0
    assert search_model(build_model(puzzle), 2).count == 1


def test_a_published_killer_without_givens_is_proved_in_a_few_hundred_thousand_nodes():
    """ISS's MATHEMAGIC_KILLERS#11 (sixteen 5-cell cages and one of 1 cell, no givens): 705,069 nodes
    with the implied sums alone, 314,861 with locked candidates and branching by conflicts per
    candidate, 265,531 with the house digits of two places also nominated (ISS's candidate finders)."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    import json
    from pathlib import Path

    from pipeline.core.build import build_model
    from pipeline.solvers.dfsrules import search_model

    path = Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl"
    entry = next(json.loads(line) for line in path.open() if '"MATHEMAGIC_KILLERS#11"' in line)
    found = search_model(build_model(parse_puzzle(entry["input"])), 2)
    assert found.count == 1
    assert found.nodes < 400_000, found.nodes
