"""Same values (pipeline/core/rules/samevalues.py): rows, brute force on 4x4, verify, refusals."""
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
def same_values(draw):
    groups = draw(st.integers(2, 3))
    size = draw(st.integers(1, 16 // groups if groups == 2 else 3))
    cells = draw(st.permutations(CELLS))[:groups * size]
    return {"rule": "samevalues", "groups": [[name(c) for c in cells[g * size:(g + 1) * size]] for g in range(groups)]}


@SETTINGS
@given(entry=same_values(), given_cell=st.sampled_from(CELLS))
def test_same_values_count_as_brute_force(entry, given_cell):
    agree({"size": 4, "box": "2x2", "rules": [entry], "givens": [f"{name(given_cell)}=2"]})


def test_rows_per_other_group_and_digit():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "samevalues", "groups": [
        ["r1c1", "r1c2"], ["r3c3", "r4c4"], ["r2c3", "r4c1"]]}]})
    m = build_model(p)
    labels = [lab for lab in m.row_labels if lab.startswith("samevalues")]
    assert labels == [f"samevalues_1_{g}_{d}" for g in (2, 3) for d in range(1, 5)]
    row = m.Aeq.getrow(list(m.row_labels).index("samevalues_1_3_4"))
    r, c, d = m.convention.cell_digit(m.columns[row.indices])
    assert sorted(zip(r + 1, c + 1, d + 1, row.data)) == [(1, 1, 4, 1.0), (1, 2, 4, 1.0), (2, 3, 4, -1.0), (4, 1, 4, -1.0)]


def test_verify_names_the_group_that_cannot_match():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "samevalues", "groups": [
        ["r1c1", "r1c2"], ["r1c3", "r1c4"]]}]})
    broken = grid_violations(GRID, p)
    assert len(broken) == 1 and "group 1 (r1c1, r1c2) cannot hold the digits" in broken[0]["message"]
    grid = GRID.copy()
    grid[0, 2:] = 0                       # {1, 2} against two empty cells: judged only on what it shows
    assert [v for v in grid_violations(grid, p) if v["kind"] == "rule"] == []


@pytest.mark.parametrize("entry, words", [
    ({"groups": [["r1c1", "r1c2"]]}, "2 or more lists"),
    ({"groups": [["r1c1", "r1c2"], ["r2c1"]]}, "of one size, found sizes 2, 1"),
    ({"groups": [["r1c1", "r1c2"], ["r2c1", "r1c2"]]}, "r1c2 is in two groups"),
    ({"groups": [["r1c1"], ["r9c9"]]}, "group 2: cell r9c9 is outside"),
    ({"groups": "r1c1"}, "'groups' must be"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 4, "box": "2x2", "rules": [dict(entry, rule="samevalues")]})
    assert words in str(e.value) and "\n" not in str(e.value)
