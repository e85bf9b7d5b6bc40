"""Quadruples (pipeline/core/rules/quadruple.py): rows, brute force on 4x4, verify, refusals."""
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


@st.composite
def quadruples(draw):
    r, c = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    square = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
    digits = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    order = draw(st.permutations(square))
    return {"rule": "quadruple", "cells": [name(x) for x in order], "digits": digits}


@SETTINGS
@given(entries=st.lists(quadruples(), min_size=1, max_size=3))
def test_quadruples_count_as_brute_force(entries):
    agree({"size": 4, "box": "2x2", "rules": entries})


def test_one_row_per_distinct_digit_with_its_multiplicity():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "quadruple", "cells": ["r2c3", "r2c2", "r3c2", "r3c3"], "digits": [3, 1, 1]}]})
    m = build_model(p)
    assert list(m.ineq_labels) == ["quadruple_1_1", "quadruple_1_3"]
    assert m.bineq.tolist() == [-2.0, -1.0]
    assert (m.Aineq.data == -1).all() and m.Aineq.nnz == 8
    assert p.rules[0].to_dict(p.board) == {"rule": "quadruple", "cells": ["r2c2", "r2c3", "r3c2", "r3c3"],
                                           "digits": [1, 1, 3]}


def test_verify_names_the_missing_digit():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "quadruple", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [1, 3]}]})
    broken = grid_violations(GRID, p)   # the box holds 1, 2, 3, 4: fine
    assert broken == []
    grid = GRID.copy()
    p2 = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "quadruple", "cells": ["r2c2", "r2c3", "r3c2", "r3c3"], "digits": [2, 3]}]})
    broken = grid_violations(grid, p2)   # r2c2..r3c3 hold 4, 1, 1, 4
    assert [v["kind"] for v in broken] == ["rule"]
    assert len(broken) == 1 and "quadruple 2,3 at r2c2: the square lacks 2, 3" in broken[0]["message"]


@pytest.mark.parametrize("entry, words", [
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c3"], "digits": [1]}, "2x2 square"),
    ({"cells": ["r1c1", "r1c2", "r2c1"], "digits": [1]}, "a quadruple takes the 4 cells of a 2x2 square, found r1c1, r1c2, r2c1"),
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": []}, "1 to 4 digits"),
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [1, 2, 3, 4, 1]}, "1 to 4 digits"),
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [5]}, "not a digit from 1 to 4"),
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [2, 2]}, "at most once"),
    ({"cells": ["r2c2", "r2c3", "r3c2", "r3c3"], "digits": [2, 2, 2]}, "at most twice"),
    ({"cells": ["r1c1", "r1c2", "r2c1", "r2c2"]}, "'digits' must list"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 4, "box": "2x2", "rules": [dict(entry, rule="quadruple")]})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_digits_are_drawn_spaced_and_three_or_four_in_two_rows():
    """``16`` read as the number sixteen (and spilled out of its circle), ``1122`` as 1,122."""
    import xml.etree.ElementTree as ET

    from pipeline.core.svg import grid_svg
    rules = [{"rule": "quadruple", "cells": ["r4c3", "r4c4", "r5c3", "r5c4"], "digits": [1, 6]},
             {"rule": "quadruple", "cells": ["r2c3", "r2c4", "r3c3", "r3c4"], "digits": [1, 1, 2, 2]},
             {"rule": "quadruple", "cells": ["r4c5", "r4c6", "r5c5", "r5c6"], "digits": [4, 5, 4]}]
    puzzle = parse_puzzle({"size": 6, "rules": rules})
    assert [g.label for rule in puzzle.rules for g in rule.glyphs(puzzle.board)] == ["1 6", "1 1\n2 2", "4 4\n5"]
    root = ET.fromstring(grid_svg(puzzle))
    texts = [el for el in root.iter("{http://www.w3.org/2000/svg}text") if "dot-label" in (el.get("class") or "")]
    assert [t.text for t in texts] == ["1 6", "1 1", "2 2", "4 4", "5"]
    rows_of_one = [float(t.get("y")) for t in texts[1:3]]
    assert rows_of_one[1] > rows_of_one[0] and texts[1].get("x") == texts[2].get("x")
