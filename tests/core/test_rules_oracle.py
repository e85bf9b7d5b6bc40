"""Solution counts of random small puzzles with rules: the project (HiGHS on the model's Aeq and
Aineq rows) against the independent oracle (CP-SAT on integer cells, tests/core/rule_oracle.py),
and on single 4x4 grids also against brute force over the 576 Latin squares.

Every grid the project returns must be distinct, pass ``verify_grid`` and the oracle's own
check; a puzzle the project refuses must be one the oracle finds no solution for.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rule_oracle as oracle
from random_puzzles import SINGLE, SHAPES, puzzle_documents
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers import highs
from pipeline.solvers.highs import count_solutions

#: Solutions counted per random puzzle (both sides stop there). Counting with HiGHS gets slower
#: with every no-good cut, so the cap is small; the split search (normally past
#: ``highs.SPLIT_AT`` = 16 solutions) is exercised by lowering SPLIT_AT to 2 in some examples.
CAP = 3
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def _check_agreement(doc: dict, clues: str, order: str, cap: int = CAP, split_at: int = highs.SPLIT_AT) -> None:
    spec = oracle.spec_from_document(doc)
    want, _ = oracle.count(spec, cap)
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError as e:
        assert want == 0, f"the project refused a puzzle with {want} solution(s): {e}"
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(highs, "SPLIT_AT", split_at)
        got = count_solutions(build_model(puzzle, order=order, clues=clues), limit=cap)
    assert got.count == want, (got.count, want, doc)
    assert got.status == ("limit" if want >= cap else "complete")
    assert len({g.tobytes() for g in got.grids}) == got.count
    ok = oracle.checker(spec)
    for grid in got.grids:
        verdict = verify_grid(grid, puzzle)
        assert verdict.ok, verdict.message
        assert grid_violations(grid, puzzle) == []
        assert ok(grid), grid
    if doc["size"] == 4 and "layout" not in doc:
        assert oracle.brute_count(spec, cap) == want


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE), clues=st.sampled_from(["rows", "bounds", "reduce"]),
       order=st.sampled_from("FC"), split_at=st.sampled_from([2, highs.SPLIT_AT]))
def test_random_puzzles_count_as_the_oracle(doc, clues, order, split_at):
    _check_agreement(doc, clues, order, split_at=split_at)


@settings(SETTINGS, max_examples=12)
@given(doc=puzzle_documents(shapes=("samurai4", "pair4", "overlap4")), clues=st.sampled_from(["rows", "reduce"]),
       split_at=st.sampled_from([2, highs.SPLIT_AT]))
def test_random_gattai_puzzles_count_as_the_oracle(doc, clues, split_at):
    _check_agreement(doc, clues, "F", split_at=split_at)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_alone_counts_as_the_oracle(shape):
    """No rules, no givens: both stop at the cap (each shape has many solutions), through the
    split search."""
    _check_agreement(dict(SHAPES[shape], rules=[], givens=[]), "rows", "F", cap=4, split_at=2)


@pytest.mark.parametrize("doc, cap", [
    ({"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}]}, 100),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "antiking"}]}, 100),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "nonconsecutive"}]}, 100),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "disjointgroups"}]}, 10),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "windoku"}]}, 10),
    ({"size": 6, "box": "2x3", "rules": [{"rule": "nonconsecutive"}]}, 12),
], ids=lambda v: str(v) if isinstance(v, int) else f"{v['size']}-{v['rules'][0]['rule']}")
def test_each_global_rule_on_an_empty_grid_counts_as_the_oracle(doc, cap):
    """Counted in full where the count is small (24 anti-knight 4x4s, no anti-king or
    non-consecutive 4x4), else up to a cap (168 disjoint-group and windoku 4x4s, 48 non-consecutive
    6x6s): the project, CP-SAT and on 4x4 brute force."""
    spec = oracle.spec_from_document(doc)
    want = oracle.count(spec, cap)[0]
    if doc["size"] == 4:
        assert oracle.brute_count(spec, cap) == want
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(highs, "SPLIT_AT", 4)
        got = count_solutions(build_model(parse_puzzle(doc)), limit=cap)
    assert (got.count, got.status) == (want, "complete" if want < cap else "limit")


def test_the_oracle_and_brute_force_agree_on_the_classic_4x4():
    spec = oracle.spec_from_document({"size": 4, "box": "2x2"})
    assert oracle.brute_count(spec) == oracle.count(spec, 400)[0] == 288
    latin = oracle.spec_from_document({"size": 4, "box": "2x2", "variant": "latin"})
    assert oracle.brute_count(latin) == oracle.count(latin, 1000)[0] == 576


@pytest.mark.parametrize("shape", sorted(set(SHAPES) - set(SINGLE)))
def test_a_gattai_count_beyond_the_split_point(shape):
    """Counting past highs.SPLIT_AT solutions splits the search on a free cell of the canvas (it
    once numbered cells as if the canvas were N x N and crashed on every layout). The default
    SPLIT_AT, on a layout with givens added (in a fixed random order) until 17..40 solutions
    are left, counted in full."""
    doc = dict(SHAPES[shape])
    spec = oracle.spec_from_document(doc)
    base = oracle.solve_one(spec, 7)
    cells = sorted(spec.present())
    order = np.random.default_rng(3).permutation(len(cells))
    for k in range(len(cells)):
        doc["givens"] = [f"r{r + 1}c{c + 1}={base[r, c]}" for r, c in (cells[j] for j in order[:k])]
        want = oracle.count(oracle.spec_from_document(doc), 41)[0]
        if want <= 40:
            break
    assert want > highs.SPLIT_AT
    got = count_solutions(build_model(parse_puzzle(doc), clues="reduce"), limit=50)
    assert (got.count, got.status) == (want, "complete")
    ok = oracle.checker(oracle.spec_from_document(doc))
    assert all(ok(np.asarray(g)) for g in got.grids)
