"""Custom pairwise rules, Pair and PairX (pipeline/core/rules/pairwise.py): rows, brute force on
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

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
CELLS = [(r, c) for r in range(4) for c in range(4)]
PAIRS = [[a, b] for a in range(1, 5) for b in range(1, 5)]


@st.composite
def pair_rules(draw):
    cells = draw(st.lists(st.sampled_from(CELLS), min_size=2, max_size=4, unique=True))
    allowed = draw(st.lists(st.sampled_from(PAIRS), min_size=1, max_size=12, unique_by=tuple))
    entry = {"rule": "pair", "cells": [name(c) for c in cells], "allowed": allowed}
    if draw(st.booleans()):
        entry["all"] = True
    return entry


@SETTINGS
@given(entries=st.lists(pair_rules(), min_size=1, max_size=2))
def test_pairwise_rules_count_as_brute_force(entries):
    agree({"size": 4, "box": "2x2", "rules": entries})


def test_one_exclusion_row_per_forbidden_pair():
    """Consecutive pairs r1c1-r3c2 (no unit shared: 16 - 3 allowed = 13 rows) and r3c2-r3c4 (a
    row: the forbidden equal pairs are left out)."""
    entry = {"rule": "pair", "cells": ["r1c1", "r3c2", "r3c4"], "allowed": [[1, 2], [2, 2], [3, 4]]}
    m = build_model(parse_puzzle({"size": 4, "box": "2x2", "rules": [entry]}))
    labels = list(m.ineq_labels)
    assert len([lab for lab in labels if lab.startswith("pair_1_1_")]) == 13
    assert len([lab for lab in labels if lab.startswith("pair_1_2_")]) == 13 - 3      # (1,1) (3,3) (4,4) out
    assert "pair_1_1_2_2" not in labels and "pair_1_1_1_1" in labels and "pair_1_2_1_1" not in labels
    every = dict(entry, all=True)           # symmetric: no pair allowed both ways but (2, 2)
    m = build_model(parse_puzzle({"size": 4, "box": "2x2", "rules": [every]}))
    assert m.rule_family_counts()["pair"] == 15 + 12 + 15   # r1c1-r3c2, r1c1-r3c4 (no unit), r3c2-r3c4


def test_verify_names_the_pair():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "pair", "name": "odd", "cells": ["r1c1", "r1c2", "r1c3"], "allowed": [[1, 2], [2, 4]]}]})
    broken = grid_violations(GRID, p)
    assert [b["message"] for b in broken] == ["pairwise 'odd' r1c1..r1c3: r1c2 and r1c3 hold 2 and 3, not an allowed pair"]


@pytest.mark.parametrize("entry, words", [
    ({"cells": ["r1c1"], "allowed": [[1, 2]]}, "needs at least 2 cells"),
    ({"cells": ["r1c1", "r1c2"], "allowed": []}, "non-empty list of digit pairs"),
    ({"cells": ["r1c1", "r1c2"], "allowed": [[1, 5]]}, "not a pair of digits from 1 to 4"),
    ({"cells": ["r1c1", "r1c2"], "allowed": [[1, 2, 3]]}, "not a pair of digits"),
    ({"cells": ["r1c1", "r1c2"], "allowed": [[1, 2]], "all": True}, "both orders"),
    ({"cells": ["r1c1", "r1c2"], "allowed": [[1, 2]], "all": "yes"}, "'all' must be true or false"),
    ({"cells": ["r1c1", "r1c2"], "allowed": [[1, 2]], "name": 3}, "'name' must be a string"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 4, "box": "2x2", "rules": [dict(entry, rule="pair")]})
    assert words in str(e.value) and "\n" not in str(e.value)
