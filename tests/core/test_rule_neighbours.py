"""Anti-knight, anti-king and non-consecutive keep their rows per board
(:mod:`pipeline.core.rules.neighbours`): the rows depend on the board alone, so puzzles of one
board share them, and a board with other units, boxes or layout gets its own."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import neighbours

KINDS = ("antiknight", "antiking", "nonconsecutive")
#: Boards whose units change which neighbour pairs a unit already covers.
DOCS = (
    {"size": 9, "box": "3x3"},
    {"size": 9, "box": "3x3", "variant": "x"},
    {"size": 9, "box": "3x3", "extra_rules": [{"rule": "windoku"}]},
    {"size": 6, "box": "2x3"},
    {"size": 6, "box": "3x2"},
    {"size": 6, "layout": {"grids": ["r1c1", "r1c7", "r7c1", "r7c7"]}},
)


def _puzzle(doc: dict, kind: str, givens: str | None = None):
    doc = dict(doc)
    rules = [{"rule": kind}] + doc.pop("extra_rules", [])
    if givens is not None:
        doc["givens"] = givens
    return parse_puzzle({**doc, "rules": rules})


def _rule(puzzle, kind: str):
    return next(rule for rule in puzzle.rules if rule.kind == kind)


def _same(blocks, fresh) -> bool:
    return len(blocks) == len(fresh) and all(
        a.family == b.family and a.sense == b.sense and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in
                                                            ("row", "cell", "digit", "coef", "rhs", "labels"))
        for a, b in zip(blocks, fresh))


@pytest.mark.parametrize("kind", KINDS)
def test_rows_kept_per_board_equal_the_rules_own(kind):
    """Each board's kept rows are what the rule builds for it, asked for in turn twice (a key
    that missed the units, the boxes or the layout would hand one board another's rows)."""
    for _ in range(2):
        for doc in DOCS:
            puzzle = _puzzle(doc, kind)
            rule = _rule(puzzle, kind)
            kept = type(rule).rows_of([rule], puzzle.board, 1)
            assert _same(kept, rule.rows(puzzle.board, 1)), doc


def test_puzzles_of_one_board_share_read_only_rows():
    first = _puzzle(DOCS[0], "antiknight", "1" + "." * 80)
    other = _puzzle(DOCS[0], "antiknight", "." * 80 + "2")
    rows_first = type(_rule(first, "antiknight")).rows_of([_rule(first, "antiknight")], first.board, 1)
    rows_other = type(_rule(other, "antiknight")).rows_of([_rule(other, "antiknight")], other.board, 1)
    assert rows_first is rows_other
    with pytest.raises(ValueError, match="read-only"):
        rows_first[0].cell[0] = 0


def test_the_kept_boards_are_bounded():
    for n, box in ((4, "2x2"), (6, "2x3"), (6, "3x2"), (8, "2x4"), (8, "4x2"), (9, "3x3"), (10, "2x5"), (10, "5x2")):
        for kind in KINDS:
            puzzle = _puzzle({"size": n, "box": box}, kind)
            type(_rule(puzzle, kind)).rows_of([_rule(puzzle, kind)], puzzle.board, 1)
    assert len(neighbours._KEPT_ROWS) <= neighbours.ROWS_KEPT
