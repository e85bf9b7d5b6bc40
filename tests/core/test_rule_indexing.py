"""Row and column indexing (pipeline/core/rules/indexing.py): rows, brute force on 4x4, verify,
refusals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rule_oracle_batch2 import agree, name
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations

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
      "rules": [{"rule": "indexing", "by": "row", "cells": ["r1c1"]}]}, "not a layout"),
])
def test_bad_entries_are_refused_in_one_line(doc, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert words in str(e.value) and "\n" not in str(e.value)
