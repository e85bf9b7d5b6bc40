"""Row and column indexing (pipeline/core/rules/indexing.py): rows, brute force on 4x4, verify,
refusals; value sets (0..3 and others) against ISS's meaning over every 4x4 grid."""
from __future__ import annotations


import numpy as np
import pytest

from oracles import every_4x4_sudoku
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpsat_oracle as oracle
from rule_oracle_batch2 import agree, name
from pipeline import api
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
CELLS = [(r, c) for r in range(4) for c in range(4)]


@SETTINGS
@given(by=st.sampled_from(["column", "row"]), cells=st.lists(st.sampled_from(CELLS), min_size=1, max_size=6, unique=True),
       both=st.booleans(), given_cell=st.sampled_from(CELLS), digit=st.integers(1, 4))
def test_indexing_counts_as_brute_force(by, cells, both, given_cell, digit):
    rules = [{"rule": "indexing", "by": by, "cells": [name(c) for c in cells]}]
    if both:   # the other kind over a column, as the 1-5-9 style puzzles do
        rules.append({"rule": "indexing", "by": "row" if by == "column" else "column",
                      "cells": [name((k, 3)) for k in range(4) if (k, 3) not in cells]})
        rules = [r for r in rules if r["cells"]]
    agree({"size": 4, "box": "2x2", "rules": rules, "givens": [f"{name(given_cell)}={digit}"]})


def test_rows_pair_a_cell_with_its_target_once():
    """Column indexing in column 1: (r, 1) = v iff (r, v) = 1, v = 2..4 (v = 1 says nothing);
    r1c1 and r1c2 both listed give the pair (r1c1 = 2, r1c2 = 1) once."""
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "column", "cells": ["r1c1", "r1c2"]}]})
    m = build_model(p)
    labels = [lab for lab in m.row_labels if lab.startswith("indexing")]
    assert labels == ["indexing_1_1_1_2", "indexing_1_1_1_3", "indexing_1_1_1_4", "indexing_1_1_2_3", "indexing_1_1_2_4"]
    row = m.Aeq.getrow(list(m.row_labels).index("indexing_1_1_2_4"))   # x[r1c2, 4] = x[r1c4, 2]
    r, c, d = m.convention.cell_digit(m.columns[row.indices])
    assert sorted(zip(r + 1, c + 1, d + 1, row.data)) == [(1, 2, 4, 1.0), (1, 4, 2, -1.0)]


def test_verify_names_the_cell_and_its_target():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "row", "cells": ["r2c1"]}]})
    broken = grid_violations(GRID, p)   # r2c1 = 3: r3c1 should hold 2 and holds 2
    assert broken == []
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "column", "cells": ["r2c1"]}]})
    broken = grid_violations(GRID, p)   # r2c1 = 3: r2c3 should hold 1 and holds 1
    assert broken == []
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "column", "cells": ["r2c2"]}]})
    broken = grid_violations(GRID, p)   # r2c2 = 4: r2c4 should hold 2 and holds 2
    assert broken == []
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "row", "cells": ["r1c2"]}]})
    broken = grid_violations(GRID, p)   # r1c2 = 2: r2c2 should hold 1, holds 4
    assert [b["message"] for b in broken] == [
        "row indexing r1c2: r1c2 holds 2, so r2c2 should hold its row number 1, not 4"]


@pytest.mark.parametrize("doc, words", [
    ({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "box", "cells": ["r1c1"]}]}, "column or row"),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "cells": ["r1c1"]}]}, "column or row"),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "indexing", "by": "row", "cells": []}]}, "non-empty list"),
    ({"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r1c5"]},
      "rules": [{"rule": "indexing", "by": "row", "cells": ["r1c1"]}]}, "found a layout of"),
    # an extra cell has no row or column (an outside check: a scipy ValueError, or rows accepted)
    ({"size": 4, "box": "2x2", "extra": [{"name": "S", "size": 2}],
      "rules": [{"rule": "indexing", "by": "column", "cells": ["S1", "r1c2"]}]}, "S1 is an extra cell"),
    ({"size": 4, "box": "2x2", "extra": [{"name": "S", "size": 2}],
      "rules": [{"rule": "indexing", "by": "row", "cells": ["r1c2", "S2"]}]}, "S2 is an extra cell"),
])
def test_bad_entries_are_refused_in_one_line(doc, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert words in str(e.value) and "\n" not in str(e.value)


# -- value sets (issue 33): ISS's meaning on a 0..N-1 grid ----------------------------------------
def _grids4() -> list[np.ndarray]:
    return every_4x4_sudoku()


GRIDS4 = _grids4()


def iss_holds(vals: np.ndarray, rules: list[dict]) -> bool:
    """ISS's Indexing, read from js/solver/handlers.js: the cell's value ``V`` is a 1-based place
    in its row (column), so ``1 <= V <= N``, and that place holds the cell's 1-based column (row)
    number, whatever the value set."""
    n = vals.shape[0]
    for rule in rules:
        for text in rule["cells"]:
            r, c = (int(t) - 1 for t in text[1:].split("c"))
            v = int(vals[r, c])
            if not 1 <= v <= n:
                return False
            if rule["by"] == "column" and vals[r, v - 1] != c + 1:
                return False
            if rule["by"] == "row" and vals[v - 1, c] != r + 1:
                return False
    return True


VALUE_CASES = {
    "column 0..3": ([{"rule": "indexing", "by": "column", "cells": ["r1c1", "r2c3"]}], [0, 1, 2, 3]),
    "row 0..3": ([{"rule": "indexing", "by": "row", "cells": ["r2c2", "r3c2", "r1c4"]}], [0, 1, 2, 3]),
    "both 0..3": ([{"rule": "indexing", "by": "column", "cells": ["r1c2", "r1c3"]},
                   {"rule": "indexing", "by": "row", "cells": ["r3c1"]}], [0, 1, 2, 3]),
    "last column 0..3": ([{"rule": "indexing", "by": "column", "cells": ["r2c4"]}], [0, 1, 2, 3]),
    "column 0,1,2,4": ([{"rule": "indexing", "by": "column", "cells": ["r1c1", "r1c2", "r3c4"]}], [0, 1, 2, 4]),
    "row -1,1,2,3": ([{"rule": "indexing", "by": "row", "cells": ["r1c1", "r2c3"]}], [-1, 1, 2, 3]),
    "column 1..4": ([{"rule": "indexing", "by": "column", "cells": ["r1c1", "r1c3", "r2c2"]}], [1, 2, 3, 4]),
}


def _value_doc(rules: list[dict], value_set: list[int]) -> dict:
    doc: dict = {"size": 4, "box": "2x2", "rules": rules}
    if value_set != [1, 2, 3, 4]:
        doc["values"] = value_set
    return doc


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_value_sets_count_as_iss_brute_force(case):
    """SAT, HiGHS, verify and the CP-SAT oracle against every 4x4 grid judged by ISS's meaning."""
    rules, value_set = VALUE_CASES[case]
    table = np.array(value_set)
    want = [g for g in GRIDS4 if iss_holds(table[g - 1], rules)]
    if case != "last column 0..3":
        assert want, case
    else:   # column 4 names the value 4, which 0..3 lacks: ISS's handler finds no place
        assert not want
    puzzle = parse_puzzle(_value_doc(rules, value_set))
    for solver in ("sat", "highs"):
        got = api.count(puzzle, limit=300, solver=solver)
        assert (got.count, got.status) == (len(want), "complete"), (case, solver)
    got = api.count(puzzle, limit=300, solver="sat")
    assert sorted(g.ravel().tolist() for g in got.grids) == sorted(g.ravel().tolist() for g in want)
    for g in GRIDS4[::5]:
        assert bool(verify_grid(g, puzzle)) == iss_holds(table[g - 1], rules), (case, g.tolist())
    assert oracle.count(_value_doc(rules, value_set), cap=300)[0] == len(want)


def test_a_value_outside_the_places_is_named():
    p = parse_puzzle(_value_doc([{"rule": "indexing", "by": "column", "cells": ["r1c1"]}], [0, 1, 2, 3]))
    broken = grid_violations(GRID, p)   # r1c1 holds digit 1, the value 0: no column 0
    assert [b["message"] for b in broken] == ["column indexing r1c1: r1c1 holds 0, which names no column (1..4)"]


def test_rows_on_0_to_3_forbid_0_and_link_by_value():
    """r1c2 by column on 0..3: value 0 (digit 1) is forbidden alone, value 1 (digit 2) links to
    r1c1 holding 2 (digit 3), value 2 is the cell itself (no row), value 3 links to r1c3 = 2."""
    p = parse_puzzle(_value_doc([{"rule": "indexing", "by": "column", "cells": ["r1c2"]}], [0, 1, 2, 3]))
    m = build_model(p)
    at = {lab: k for k, lab in enumerate(m.row_labels) if lab.startswith("indexing")}
    assert sorted(at) == ["indexing_1_1_2_1", "indexing_1_1_2_2", "indexing_1_1_2_4"]
    terms = {}
    for lab, k in at.items():
        row = m.Aeq.getrow(k)
        r, c, d = m.convention.cell_digit(m.columns[row.indices])
        terms[lab] = sorted(zip((r + 1).tolist(), (c + 1).tolist(), (d + 1).tolist(), row.data.tolist()))
    assert terms == {"indexing_1_1_2_1": [(1, 2, 1, 1.0)],
                     "indexing_1_1_2_2": [(1, 1, 3, -1.0), (1, 2, 2, 1.0)],
                     "indexing_1_1_2_4": [(1, 2, 4, 1.0), (1, 3, 3, -1.0)]}


def test_dfsrules_refuses_or_is_right_on_0_to_3():
    rules, value_set = VALUE_CASES["both 0..3"]
    table = np.array(value_set)
    want = sum(iss_holds(table[g - 1], rules) for g in GRIDS4)
    puzzle = parse_puzzle(_value_doc(rules, value_set))
    try:
        got = api.count(puzzle, limit=300, solver="dfsrules")
    except Exception as err:                       # refused in one line: auto hands it to sat
        assert "dfsrules" in str(err) and "\n" not in str(err)
        return
    assert got.count == want


def test_the_iss_entry_on_0_to_8_reads_and_keeps_its_solution():
    """ISS's "0-indexed: Sums and indexing" (Indexing~C on a 0..8 grid) reads and its published
    solution verifies; ``R1C6`` holds 6 there."""
    text = (".Shape~9x9~0-8.SumLine~10~R3C2~R3C3~R3C4~R3C5~R4C5.Sum~0~R4C5~R3C6.~R3C5_8~R8C3_0~R6C5_7~R9C6_2"
            ".RellikCage~5~R6C8~R7C8~R7C7~R7C6.Lunchbox~5~R8C2~R8C3~R8C4~R8C5~R8C6.Lunchbox~11~R2C2~R3C2~R4C2"
            "~R5C2~R6C3.XSum~C7~~16.Sandwich~17~R5.Indexing~C~R1C6.ValueIndexing~R1C7~R2C7~R3C7~R4C7~R5C7~R5C8"
            ".Cage~10~R9C7~R9C8~R9C9~R8C9.NumberedRoom~C8~~8")
    solution = "712456308508731426346280715273108654184625037065374182851047263420563871637812540"
    puzzle = parse_puzzle(text)
    assert [r.kind for r in puzzle.rules].count("indexing") == 1
    digits = np.array([int(ch) + 1 for ch in solution]).reshape(9, 9)
    assert verify_grid(digits, puzzle).ok
    wrong = digits.copy()
    wrong[0, [5, 6]] = wrong[0, [6, 5]]            # r1c6 = 3 would need r1c3 = 6
    assert any("indexing" in b["message"] for b in grid_violations(wrong, puzzle))
    assert parse_puzzle(iss_from_puzzle(puzzle)).to_document() == puzzle.to_document()
