"""Rules between neighbours on a gattai layout act within each grid (docs/conventions.md): two
cells side by side in two grids are not a king's or a knight's move apart, nor neighbours, to
anti-king, anti-knight and non-consecutive. ``verify``, the model and ``draw``'s candidates
agree (once ``verify`` accepted a grid with r1c6 = r1c7 across two grids while the model, given
that grid as clues, was infeasible)."""
from __future__ import annotations

import numpy as np
import pytest

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers import highs

CORNERS = ["r1c1", "r1c7", "r7c1", "r7c7"]   # four 6x6 grids tiling a 12x12 canvas


def _doc(rule: str, givens: str | None = None) -> dict:
    doc = {"size": 6, "layout": {"grids": CORNERS}, "rules": [{"rule": rule}]}
    if givens is not None:
        doc["givens"] = givens
    return doc


def _canvas(rule: str, a: tuple[int, int], b: tuple[int, int], related) -> np.ndarray:
    """A 12x12 canvas of four solutions of the 6x6 puzzle with ``rule`` (grid 1 at the top left,
    grid 2 to its right) where canvas cells ``a`` (grid 1) and ``b`` (grid 2) hold digits the rule
    would forbid if it acted across grids (``related(x, y)``)."""
    spec = oracle.spec_from_document({"size": 6, "box": "2x3", "rules": [{"rule": rule}]})
    first = oracle.solve_one(spec, 0)
    assert first is not None and oracle.check(spec, first)
    for seed in range(1, 60):
        second = oracle.solve_one(spec, seed)
        if related(first[a], second[b[0], b[1] - 6]):
            break
    else:
        raise AssertionError("no pair of solutions found")
    canvas = np.zeros((12, 12), dtype=np.int64)
    canvas[:6, :6], canvas[:6, 6:], canvas[6:, :6], canvas[6:, 6:] = first, second, first, first
    return canvas


CASES = {
    "antiking-side": ("antiking", (0, 5), (0, 6), lambda x, y: x == y),
    "antiking-diagonal": ("antiking", (0, 5), (1, 6), lambda x, y: x == y),
    "antiknight": ("antiknight", (0, 5), (1, 7), lambda x, y: x == y),
    "nonconsecutive": ("nonconsecutive", (0, 5), (0, 6), lambda x, y: abs(x - y) == 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_verify_the_model_and_draw_agree_that_the_rule_acts_within_each_grid(case):
    rule, a, b, related = CASES[case]
    canvas = _canvas(rule, a, b, related)
    assert related(canvas[a], canvas[b])
    rules_only = parse_puzzle(_doc(rule))
    assert grid_violations(canvas, rules_only) == [] and verify_grid(canvas, rules_only).ok
    clued = parse_puzzle(_doc(rule, "".join(map(str, canvas.ravel()))))
    solved = highs.solve(build_model(clued))
    assert solved.status == "optimal" and np.array_equal(solved.grid, canvas)
    if rule != "nonconsecutive":   # draw rules out what anti-king and anti-knight see
        from pipeline.tools.draw import candidates
        open_b = canvas.copy()
        open_b[b] = 0
        assert candidates(rules_only, open_b)[b[0], b[1], canvas[b] - 1]


@pytest.mark.parametrize("rule", ["antiking", "antiknight", "nonconsecutive"])
def test_four_separate_grids_have_four_times_one_grids_rows(rule):
    one = build_model(parse_puzzle({"size": 6, "box": "2x3", "rules": [{"rule": rule}]}))
    four = build_model(parse_puzzle(_doc(rule)))
    assert four.R.labels.size == 4 * one.R.labels.size > 0


def test_within_a_grid_the_rule_still_binds():
    """The same digit a king's move apart inside grid 2 (canvas r2c7 and r3c8, two boxes)."""
    canvas = _canvas("antiking", (0, 5), (0, 6), lambda x, y: x == y)
    broken = canvas.copy()
    broken[2, 7] = broken[1, 6]
    messages = [v["message"] for v in grid_violations(broken, parse_puzzle(_doc("antiking")))]
    assert f"r2c7 and r3c8 are a king's move apart and both hold {canvas[1, 6]}" in messages
