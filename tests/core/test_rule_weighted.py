"""Sums with weights, digits may repeat (pipeline/core/rules/weighted.py): rows, brute force on
4x4, verify, refusals."""
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

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
CELLS = [(r, c) for r in range(4) for c in range(4)]


@st.composite
def sums(draw):
    cells = draw(st.lists(st.sampled_from(CELLS), min_size=1, max_size=4, unique=True))
    weights = draw(st.lists(st.sampled_from([-3, -2, -1, 1, 2, 3]), min_size=len(cells), max_size=len(cells)))
    perm = draw(st.permutations([1, 2, 3, 4]))
    grid = np.array(perm)[GRID - 1]
    total = sum(w * int(grid[c]) for w, c in zip(weights, cells)) + draw(st.sampled_from([0, 0, 1, -1]))
    entry = {"rule": "sum", "sum": total, "cells": [name(c) for c in cells]}
    if draw(st.booleans()) or any(w != 1 for w in weights):
        entry["weights"] = weights
    return entry


@SETTINGS
@given(entries=st.lists(sums(), min_size=1, max_size=2))
def test_weighted_sums_count_as_brute_force(entries):
    agree({"size": 4, "box": "2x2", "rules": entries})


def test_one_equality_row_with_the_weights():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "sum", "sum": 1, "cells": ["r1c1", "r2c1"], "weights": [2, -3]},
        {"rule": "sum", "sum": 4, "cells": ["r1c1", "r1c2"], "weights": [1, 1]}]})
    m = build_model(p)
    labels = list(m.row_labels)
    row = m.Aeq.getrow(labels.index("sum_1"))
    r, c, d = m.convention.cell_digit(m.columns[row.indices])
    assert sorted(zip(r + 1, c + 1, d + 1, row.data)) == sorted(
        [(1, 1, k, 2.0 * k) for k in range(1, 5)] + [(2, 1, k, -3.0 * k) for k in range(1, 5)])
    assert m.beq[labels.index("sum_1")] == 1 and m.beq[labels.index("sum_2")] == 4
    assert "weights" not in p.rules[1].to_dict(p.board)     # all 1: written as a plain sum


def test_verify_names_the_broken_sum():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "sum", "sum": 5, "cells": ["r1c1", "r1c2"], "weights": [1, 2]}]})
    assert grid_violations(GRID, p) == []          # 1 + 2 * 2 = 5 holds
    grid = GRID.copy()
    grid[0, 1] = 0
    p2 = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "sum", "sum": 11, "cells": ["r1c1", "r1c2"], "weights": [1, 2]}]})
    broken = [v for v in grid_violations(grid, p2) if v["kind"] == "rule"]
    assert len(broken) == 1 and "can only come to 3..9" in broken[0]["message"]
    grid = GRID.copy()
    p3 = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "sum", "sum": 6, "cells": ["r1c1", "r1c2"]}]})
    assert grid_violations(grid, p3)[0]["message"] == "sum r1c1..r1c2 = 6: comes to 3"


@pytest.mark.parametrize("entry, words", [
    ({"sum": 5, "cells": ["r1c1", "r1c2"], "weights": [1]}, "one integer per cell (2)"),
    ({"sum": 5, "cells": ["r1c1", "r1c2"], "weights": [1, 0]}, "nonzero integer"),
    ({"sum": 5, "cells": ["r1c1", "r1c2"], "weights": [1, 101]}, "nonzero integer from -100 to 100"),
    ({"sum": 5, "cells": ["r1c1", "r1c2"], "weights": [1, "a"]}, "nonzero integer"),
    ({"sum": 50, "cells": ["r1c1", "r1c2"]}, "possible: 2..8"),
    ({"sum": 0, "cells": ["r1c1", "r1c2"], "weights": [1, -1]}, None),   # -3..3: allowed
    ({"cells": ["r1c1"]}, "missing 'sum'"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    doc = {"size": 4, "box": "2x2", "rules": [dict(entry, rule="sum")]}
    if words is None:
        parse_puzzle(doc)
        return
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert words in str(e.value) and "\n" not in str(e.value)
