"""Rectangular R x C grids (pipeline.core.rect): brute force counts, round trips, one-line refusals."""
import itertools
import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.solvers import get_solver


def _direct_count(rows: int, cols: int, v: int, boxes=None) -> int:
    """Grids of rows x cols over 1..v, each row, column (and box) without a repeated value."""
    count = 0
    for flat in itertools.product(range(1, v + 1), repeat=rows * cols):
        g = np.array(flat).reshape(rows, cols)
        units = list(g) + list(g.T)
        if boxes:
            h, w = boxes
            units += [g[r:r + h, c:c + w].ravel() for r in range(0, rows, h) for c in range(0, cols, w)]
        count += all(len(set(u)) == len(u) for u in units)
    return count


@pytest.mark.parametrize("doc, boxes", [
    ({"size": "2x3", "variant": "latin"}, None),
    ({"size": "3x2", "variant": "latin"}, None),
    ({"size": "2x4", "box": "2x2"}, (2, 2)),
    ({"size": "2x3", "variant": "latin", "box": "1x4"}, None),
])
def test_counts_match_a_direct_enumeration(doc, boxes):
    p = parse_puzzle(doc)
    found = get_solver("cpsat").count(build_model(p), 10_000)
    count = getattr(found, "count", getattr(found, "n_solutions", found))
    assert count == _direct_count(p.rows, p.cols, p.n_values, boxes)


def test_document_and_manifest_round_trip():
    p = parse_puzzle({"size": "6x8", "values": "0-7", "givens": "0" + "." * 47})
    assert p.is_rect and (p.rows, p.cols, p.n, p.h, p.w) == (6, 8, 8, 2, 4)
    assert parse_puzzle(p.to_document()) == p
    assert Puzzle.from_dict(p.to_dict()) == p


def test_iss_round_trip_and_solution():
    text = ".Shape~4x7.Jigsaw~0111111000002133330223332222.~R2C4_2~R3C6_3~R4C5_4~R3C1_5~R4C3_6~R1C7_7"
    p = parse_puzzle(text)
    assert parse_puzzle(iss_from_puzzle(p)) == p
    grid = get_solver("highs").solve(build_model(p)).grid
    assert grid.shape == (4, 7) and all(len(set(r)) == 7 for r in grid) and all(len(set(c)) == 4 for c in grid.T)


@pytest.mark.parametrize("doc, words", [
    ({"size": "9x8"}, "no boxes of 9 cells tile"),
    ({"size": "6x8", "variant": "x"}, "a rectangular grid takes"),
    ({"size": "6x8", "box": "2x3"}, "holds 6 values"),
    ({"size": "6x8", "givens": "9" + "." * 47}, "9 is not one of the values"),
])
def test_refusals_are_one_line(doc, words):
    with pytest.raises(PipelineError, match=words) as e:
        parse_puzzle(doc)
    assert "\n" not in str(e.value)


def test_dfs_refuses_in_one_line():
    p = parse_puzzle({"size": "2x3", "variant": "latin"})
    with pytest.raises(PipelineError, match="2x3 grid") as e:
        get_solver("dfsrules").solve(build_model(p))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("rule", [{"rule": "globalmod"}, {"rule": "antitaxicab"}, {"rule": "globalentropy"}])
def test_a_whole_grid_rule_not_checked_on_rectangles_is_refused_in_one_line(rule):
    """Rules over the whole grid read its side as N: on a rectangle they are refused by name (the
    rules over listed cells, outside clues, indexing and neighbour rules are checked)."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(json.dumps({"size": "4x6", "box": "2x3", "rules": [rule]}))
    assert "\n" not in str(e.value) and f"{rule['rule']} is not checked on rectangular grids" in str(e.value)


def test_the_neighbour_rules_are_checked_on_rectangles():
    """Anti-knight on a 2x4 over 1..4: the counts equal a direct enumeration of the rule."""
    doc = {"size": "2x4", "box": "2x2", "rules": [{"rule": "antiknight"}]}
    puzzle = parse_puzzle(json.dumps(doc))
    grids = [np.array(g).reshape(2, 4) for g in itertools.product(range(1, 5), repeat=8)]
    def keeps(g):
        rows_ok = all(len(set(row)) == 4 for row in g)
        cols_ok = all(len(set(g[:, c])) == 2 for c in range(4))
        boxes_ok = all(len(set(g[:, c:c + 2].ravel())) == 4 for c in (0, 2))
        knights = all(g[0, c] != g[1, c + d] for c in range(4) for d in (-2, 2) if 0 <= c + d < 4)
        return rows_ok and cols_ok and boxes_ok and knights
    want = sum(keeps(g) for g in grids)
    assert get_solver("sat").count(build_model(puzzle), 1000).count == want
