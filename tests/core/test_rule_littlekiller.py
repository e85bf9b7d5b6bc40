"""Little killer clues (pipeline/core/rules/littlekiller.py): rows, brute force on 4x4, verify,
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

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])


def _diagonal(r, c, dr, dc, n=4):
    out = []
    while 0 <= r < n and 0 <= c < n:
        out.append((r, c))
        r, c = r + dr, c + dc
    return out


@st.composite
def clues(draw):
    """A clue on any side with any diagonal direction into the grid, its sum near the truth of a
    random solution (so some puzzles have solutions and some none)."""
    dr, dc = draw(st.sampled_from([(1, 1), (1, -1), (-1, 1), (-1, -1)]))
    side = draw(st.sampled_from(["row", "col"]))
    k = draw(st.integers(0, 3))
    if side == "row":            # clue above or below the grid
        start = (0 if dr == 1 else 3, k)
    else:                        # clue left or right of the grid
        start = (k, 0 if dc == 1 else 3)
    cells = _diagonal(*start, dr, dc)
    clue = (start[0] - dr, start[1] - dc)
    perm = draw(st.permutations([1, 2, 3, 4]))
    grid = np.array(perm)[GRID - 1]
    total = int(sum(grid[c] for c in cells)) + draw(st.sampled_from([0, 0, 0, 1, -1]))
    total = min(max(total, len(cells)), 4 * len(cells))
    return {"rule": "littlekiller", "sum": total, "cells": [name(c) for c in cells], "clue": name(clue)}


@SETTINGS
@given(entries=st.lists(clues(), min_size=1, max_size=3))
def test_little_killers_count_as_brute_force(entries):
    agree({"size": 4, "box": "2x2", "rules": entries})


def test_one_equality_row_over_the_values():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "littlekiller", "sum": 7, "cells": ["r1c3", "r2c2", "r3c1"], "clue": "r0c4"}]})
    m = build_model(p)
    labels = list(m.row_labels)
    row = m.Aeq.getrow(labels.index("littlekiller_1"))
    assert row.nnz == 12 and sorted(row.data) == sorted([1.0, 2.0, 3.0, 4.0] * 3)
    assert m.beq[labels.index("littlekiller_1")] == 7
    assert p.rules[0].to_dict(p.board)["clue"] == "r0c4" and p.rules[0].step(p.board) == (1, -1)


def test_verify_names_the_broken_clue():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "littlekiller", "sum": 5, "cells": ["r1c2", "r2c3", "r3c4"], "clue": "r0c1"}]})
    broken = grid_violations(GRID, p)
    assert len(broken) == 1 and "little killer r1c2..r3c4 (sum 5)" in broken[0]["message"]
    assert "add up to 6" in broken[0]["message"]


@pytest.mark.parametrize("entry, words", [
    ({"sum": 5, "cells": ["r1c1", "r2c3"]}, "one diagonal"),
    ({"sum": 3, "cells": ["r1c1", "r2c2", "r3c3", "r4c4"]}, "cannot be made"),
    ({"sum": 40, "cells": ["r1c1", "r2c2"]}, "possible sums: 2..8"),
    ({"sum": 5, "cells": ["r1c2", "r2c3"], "clue": "r0c1"}, "sees 3 cells"),
    ({"sum": 5, "cells": ["r1c2", "r2c3", "r3c4"], "clue": "r0c2"}, "not one diagonal step"),
    ({"sum": 5, "cells": ["r1c2", "r2c3", "r3c4"], "clue": "r1c1"}, "a cell of the grid"),
    ({"sum": 5, "cells": ["r1c2", "r2c3", "r3c4"], "clue": "above"}, "outside position"),
    ({"sum": 5, "cells": ["r1c2"], "clue": "r7c1"}, "not beside"),
    ({"sum": "x", "cells": ["r1c2"]}, "must be an integer"),
    ({"cells": ["r1c2"]}, "missing 'sum'"),
    ({"sum": 5, "cells": ["r1c2"], "arrow": 1}, "unknown key 'arrow'"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 4, "box": "2x2", "rules": [dict(entry, rule="littlekiller")]})
    assert words in str(e.value) and "\n" not in str(e.value) and "littlekiller" in str(e.value)
