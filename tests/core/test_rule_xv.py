"""X and V marks, strict XV and strict Kropki (pipeline/core/rules/xv.py): rows, brute force on
4x4, verify, refusals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rule_oracle_batch2 import ORTHO, agree, name
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])


@st.composite
def marked_puzzles(draw, strict: str | None, colored: bool = False):
    """Marks read off a random solution (all of them, or some), now and then one wrong; with
    ``strict`` the global rule too. 4x4 digits add up to 5 but never to 10: V marks only, and an
    X is refused (tested below)."""
    perm = draw(st.permutations([1, 2, 3, 4]))
    grid = np.array(perm)[GRID - 1]
    pairs = draw(st.lists(st.sampled_from(ORTHO), unique=True, max_size=8))
    rules = []
    for a, b in pairs:
        va, vb = int(grid[a]), int(grid[b])
        if strict == "strictkropki":
            color = "white" if abs(va - vb) == 1 else "black" if 2 * min(va, vb) == max(va, vb) else None
            if color is None or draw(st.integers(0, 9)) == 0:
                color = draw(st.sampled_from(["white", "black"]))
            rules.append({"rule": "kropki", "color": color, "cells": [name(a), name(b)]})
        elif va + vb == 5 or draw(st.integers(0, 5)) == 0:
            rules.append({"rule": "xv", "letter": draw(st.sampled_from(["v", "V"])), "cells": [name(a), name(b)]})
    if strict:
        rules.append({"rule": strict})
        if colored:   # only the white or only the black dots all given
            rules[-1]["color"] = draw(st.sampled_from(["white", "black"]))
    doc = {"size": 4, "box": "2x2", "rules": rules}
    if draw(st.booleans()):
        r, c = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        doc["givens"] = [f"{name((r, c))}={grid[r, c]}"]
    return doc


@SETTINGS
@given(doc=marked_puzzles(None))
def test_v_marks_count_as_brute_force(doc):
    agree(doc)


@SETTINGS
@given(doc=marked_puzzles("strictxv"))
def test_strict_xv_counts_as_brute_force(doc):
    agree(doc)


@SETTINGS
@given(doc=marked_puzzles("strictkropki"), clues=st.sampled_from(["rows", "reduce"]))
def test_strict_kropki_counts_as_brute_force(doc, clues):
    agree(doc, clues=clues, cpsat=True)


@SETTINGS
@given(doc=marked_puzzles("strictkropki", colored=True), clues=st.sampled_from(["rows", "reduce"]))
def test_strict_kropki_of_one_colour_counts_as_brute_force(doc, clues):
    agree(doc, clues=clues, cpsat=True)


def test_strict_kropki_of_one_colour_forbids_that_colour_alone():
    white, black = ({"size": 4, "box": "2x2", "rules": [{"rule": "strictkropki", "color": c}]} for c in ("white", "black"))
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])   # 1-2 side by side: both
    no_double = np.array([[1, 3, 2, 4], [2, 4, 1, 3], [3, 1, 4, 2], [4, 2, 3, 1]])
    assert grid_violations(grid, parse_puzzle(white)) and grid_violations(grid, parse_puzzle(black))
    assert any("(consecutive)" in v["message"] for v in grid_violations(no_double, parse_puzzle(white)))
    assert not any("double" in v["message"] for v in grid_violations(no_double, parse_puzzle(white)))
    assert parse_puzzle(white).rules[0].to_dict(parse_puzzle(white).board) == {"rule": "strictkropki", "color": "white"}
    assert parse_puzzle(black).summary() == "4x4 classic, 0 clues; strict Kropki (black dots)"


def test_all_v_marks_of_a_grid_with_strict_xv_leave_it_a_solution():
    """Every 5-pair of a grid marked and strict XV: the grid itself solves the puzzle."""
    rules = [{"rule": "xv", "letter": "v", "cells": [name(a), name(b)]} for a, b in ORTHO if GRID[a] + GRID[b] == 5]
    doc = {"size": 4, "box": "2x2", "rules": rules + [{"rule": "strictxv"}]}
    assert agree(doc) >= 1
    assert grid_violations(GRID, parse_puzzle(doc)) == []


def test_rows_of_a_v_and_of_an_x():
    p = parse_puzzle({"size": 9, "box": "3x3", "rules": [{"rule": "xv", "letter": "v", "cells": ["r1c1", "r1c2"]},
                                                         {"rule": "xv", "letter": "x", "cells": ["r2c1", "r3c1"]}]})
    m = build_model(p)
    counts = m.rule_family_counts()
    assert counts == {"xv": 4 + 9, "xvnot": 2}        # V: 1..4 have partners, 5..9 none; X: every digit
    labels = list(m.row_labels)
    row = m.Aeq.getrow(labels.index("xv_1_2"))        # x[r1c1, 2] - x[r1c2, 3] = 0
    r, c, d = m.convention.cell_digit(m.columns[row.indices])
    assert sorted(zip(r + 1, c + 1, d + 1, row.data)) == [(1, 1, 2, 1.0), (1, 2, 3, -1.0)]


def test_strict_rules_leave_out_the_marked_pairs():
    dot = {"rule": "kropki", "color": "white", "cells": ["r1c1", "r1c2"]}
    alone = build_model(parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "strictkropki"}]}))
    marked = build_model(parse_puzzle({"size": 4, "box": "2x2", "rules": [dot, {"rule": "strictkropki"}]}))
    per_pair = alone.rule_family_counts()["strictkropki"] // len(ORTHO)
    assert per_pair == 4                # {1,2} {2,3} {3,4} consecutive, {1,2} {2,4} double: {1,2} once
    assert marked.rule_family_counts()["strictkropki"] == alone.rule_family_counts()["strictkropki"] - per_pair
    assert not any(label.startswith("strictkropki_1_") for label in marked.ineq_labels)   # pair 1: r1c1-r1c2


def test_verify_names_a_broken_mark_and_an_unmarked_pair():
    p = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "xv", "letter": "v", "cells": ["r1c1", "r1c2"]},
                                                         {"rule": "strictxv"}]})
    messages = [v["message"] for v in grid_violations(GRID, p)]
    assert "V r1c1-r1c2: 1 + 2 is not 5" in messages
    assert "r1c2 and r1c3 hold 2 and 3 (adding up to 5 or 10) but no X or V joins them (strictxv)" in messages
    assert len(messages) == 1 + sum(1 for a, b in ORTHO if GRID[a] + GRID[b] in (5, 10) and (a, b) != ((0, 0), (0, 1)))


@pytest.mark.parametrize("entry, words", [
    ({"rule": "xv", "letter": "x", "cells": ["r1c1", "r1c2"]}, "no two digits 1..4 add up to 10"),
    ({"rule": "xv", "letter": "w", "cells": ["r1c1", "r1c2"]}, "'letter' must be x"),
    ({"rule": "xv", "letter": "v", "cells": ["r1c1", "r2c2"]}, "not orthogonal neighbours"),
    ({"rule": "xv", "letter": "v", "cells": ["r1c1", "r1c2", "r1c3"]}, "joins 2 cells"),
    ({"rule": "strictxv", "all": True}, "unknown key 'all'"),
    ({"rule": "strictkropki", "cells": ["r1c1"]}, "unknown key 'cells'"),
    ({"rule": "strictkropki", "color": "grey"}, "'color' must be white or black (or left out: every dot), found 'grey'"),
])
def test_bad_entries_are_refused_in_one_line(entry, words):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 4, "box": "2x2", "rules": [entry]})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_strict_rule_twice_is_refused():
    with pytest.raises(PuzzleError, match="strictxv is given twice"):
        parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "strictxv"}, {"rule": "strictxv"}]})
