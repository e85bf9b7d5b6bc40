"""``--presolve singles`` (pipeline/core/presolve.py): HiGHS gets the model reduced by naked and
hidden singles, and its answers are the answers of the model as built.

The references are another engine's (the SAT engine, no presolve) and the data sets' reference
answers, never this code's own output.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.presolve import presolve
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver

ROOT = Path(__file__).resolve().parents[2]
SETS = ROOT / "tests" / "data" / "sets"
EXAMPLES = ROOT / "examples"
#: hidden-style sets (unique solutions) and how many of each to solve here
CASES = [("9x9_forum_hardest_1106.txt", {}, 8), ("9x9_norvig_top95.txt", {}, 6), ("9x9_x.txt", {"variant": "x"}, 4),
         ("16x16_classic.txt", {}, 3)]
#: examples/killer.json's solution (the one its source lists)
KILLER = "215647398368952174794381652586274931142593867973816425821739546659428713437165289"


def _lines(name: str, k: int) -> list[str]:
    return [s.strip() for s in (SETS / name).read_text().splitlines() if s.strip()][:k]


@pytest.mark.parametrize("name, options, k", CASES, ids=[c[0] for c in CASES])
def test_presolved_highs_answers_equal_the_sat_engines(name, options, k):
    highs, sat = get_solver("highs"), get_solver("sat")
    reduced = 0
    for text in _lines(name, k):
        puzzle = parse_puzzle(text, **options)
        model = build_model(puzzle)
        reduced += presolve(model).reduced
        got = highs.solve(model, presolve="singles")
        want = sat.solve(model, presolve="none")
        assert got.status == want.status == "optimal"
        assert np.array_equal(got.grid, want.grid) and verify_grid(got.grid, puzzle).ok
        # the answer is over the ORIGINAL model's columns and satisfies its rows
        assert got.x.shape == (model.n_cols,)
        assert np.allclose(model.Aeq @ got.x, model.beq)
    assert reduced, "singles placed nothing on any puzzle: the presolve was not exercised"


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_presolve_maps_back_to_every_clue_encoding(clues):
    text = _lines("9x9_forum_hardest_1106.txt", 1)[0]
    puzzle = parse_puzzle(text)
    model = build_model(puzzle, clues=clues)
    pre = presolve(model)
    assert pre.reduced and pre.model.n_cols < model.n_cols
    r = get_solver("highs").solve(model)
    assert r.x.shape == (model.n_cols,) and np.allclose(model.Aeq @ r.x, model.beq)
    assert np.all(r.x >= model.lb - 1e-9) and np.all(r.x <= model.ub + 1e-9)
    assert verify_grid(r.grid, puzzle).ok


def _killer_with_givens():
    doc = json.loads((EXAMPLES / "killer.json").read_text())
    doc["givens"] = [f"r{i // 9 + 1}c{i % 9 + 1}={KILLER[i]}" for i in range(60) if i % 2 == 0]
    return parse_puzzle(doc)


def test_presolve_keeps_the_rule_rows_of_a_killer():
    puzzle = _killer_with_givens()
    model = build_model(puzzle)
    assert model.has_rules and model.Aineq.shape[0] > 0
    pre = presolve(model)
    assert pre.placed > 0 and pre.model.n_cols < model.n_cols
    assert pre.model.has_rules   # cage rows are kept (those the singles settle drop out)
    for how in ("singles", "none"):
        r = get_solver("highs").solve(model, presolve=how)
        assert r.status == "optimal" and verify_grid(r.grid, puzzle).ok
        assert "".join(map(str, r.grid.ravel())) == KILLER
        # the original model's rows hold, equalities with cage sums and inequalities alike
        assert np.allclose(model.Aeq @ r.x, model.beq)
        assert np.all(model.Aineq @ r.x <= model.bineq + 1e-9)


def test_counting_on_the_presolved_model_counts_the_same_solutions():
    highs = get_solver("highs")
    puzzle = _killer_with_givens()
    model = build_model(puzzle)
    a, b = highs.count(model, 3, presolve="singles"), highs.count(model, 3, presolve="none")
    assert (a.count, a.status) == (b.count, b.status) == (1, "complete")
    empty = build_model(parse_puzzle("1" + "." * 15, box="2x2"))
    assert highs.count(empty, 100, presolve="singles").count == highs.count(empty, 100, presolve="none").count == 72


def test_a_contradiction_found_by_singles_means_no_solution_and_no_engine_call():
    # row 1 needs a 4 in its last cell, column 4 already holds one: singles find it
    puzzle = parse_puzzle("123." "...." "...." "...4", box="2x2")
    model = build_model(puzzle)
    assert presolve(model).contradiction
    for name in ("highs", "sat"):
        assert get_solver(name).solve(model).status == "infeasible"
        assert get_solver(name).solve(model, presolve="none").status == "infeasible"
        assert get_solver(name).count(model, 2).count == 0


def test_an_unknown_presolve_method_is_one_error():
    with pytest.raises(PuzzleError, match="presolve: unknown method 'fast'"):
        presolve(build_model(parse_puzzle("1" + "." * 15, box="2x2")), "fast")


def test_presolve_none_hands_the_engine_the_model_as_built():
    model = build_model(parse_puzzle(_lines("9x9_forum_hardest_1106.txt", 1)[0]))
    pre = presolve(model, "none")
    assert pre.model is model and not pre.reduced


def test_the_cli_presolve_option_gives_the_same_grid(capsys):
    from pipeline.cli.main import main

    text = _lines("9x9_forum_hardest_1106.txt", 2)[1]
    lines = []
    for how in ("singles", "none"):
        assert main(["solve", text, "--solver", "highs", "--presolve", how, "--format", "line",
                     "--no-unique-check"]) == 0
        lines.append(capsys.readouterr().out.strip())
    assert lines[0] == lines[1] and len(lines[0]) == 81


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_the_sat_engine_counts_the_same_grids_presolved(clues):
    puzzle = parse_puzzle("12.." "...." "...." "....", box="2x2")
    model = build_model(puzzle, clues=clues)
    sat = get_solver("sat")
    a, b = sat.count(model, 100), sat.count(model, 100, presolve="none")
    assert a.count == b.count == 24 and a.status == b.status == "complete"
    assert sorted(g.tobytes() for g in a.grids) == sorted(g.tobytes() for g in b.grids)
    assert all(verify_grid(g, puzzle).ok for g in a.grids)


def test_past_the_singles_kernels_side_the_clues_alone_reduce_the_model(monkeypatch):
    """Singles stop at MAX_BITS_N; past it the model still leaves out the clues' cells (a full
    100x100 was 16 million clauses and 26 s of ``solve``). The side is lowered here so a 9x9
    stands in for it; the counts are the model-as-built's."""
    from pipeline.core import presolve as presolve_module
    monkeypatch.setattr(presolve_module, "MAX_BITS_N", 4)
    line = _lines("9x9_forum_hardest_1106.txt", 1)[0]
    puzzle = parse_puzzle(line)
    model = build_model(puzzle)
    pre = presolve(model)
    assert pre.reduced and pre.placed == 0 and "singles stop at 4x4" in pre.skipped
    assert pre.model.is_reduced and pre.model.n_cols < model.n_cols
    sat = get_solver("sat")
    assert sat.count(model, 3).count == sat.count(model, 3, presolve="none").count == 1
    answer = sat.solve(model, check_unique=True)
    assert answer.unique is True and verify_grid(answer.grid, puzzle)
    full = build_model(parse_puzzle("".join(map(str, answer.grid.ravel()))))
    done = presolve(full)
    assert done.model.n_cols == 0
    result = sat.solve(full, check_unique=True)
    assert result.status == "optimal" and result.unique is True
    assert (result.grid == answer.grid).all()
    assert presolve(build_model(parse_puzzle("." * 81))).model.n_cols == 729   # no clue: nothing to leave out


def test_the_presolved_model_shares_the_rule_rows_built_for_the_puzzle():
    # the rule rows do not depend on the clues: the model singles leave reads the rows the
    # puzzle's model built (``auto`` asks the original model first), not a second build
    puzzle = parse_puzzle("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
                          rules=[{"rule": "thermo", "cells": ["r1c3", "r1c4"]}])
    model = build_model(puzzle)
    done = presolve(model)
    assert done.placed > 0 and done.reduced
    assert done.model.R is model.R
    # another convention has other column positions: its own rows
    other = build_model(puzzle, scheme="block", order="C")
    assert other.R is not model.R
    assert other.R.rhs.tolist() == model.R.rhs.tolist()
    assert not np.array_equal(other.R.entries[1], model.R.entries[1])
