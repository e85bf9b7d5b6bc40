"""Uniqueness and counts from one solution's relabellings (pipeline/solvers/relabel.py), against
brute force: every 4x4 Sudoku grid and every 6x6 one with 2x3 boxes."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pipeline
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver
from pipeline.solvers.relabel import count_by_relabelling, relabelled_second, relabelling_settles


def _every_grid(n: int, h: int, w: int) -> np.ndarray:
    """All completed n x n Sudoku grids with h x w boxes, by backtracking (288 for 4x4)."""
    grid = np.zeros((n, n), dtype=np.int64)
    found = []

    def place(k: int) -> None:
        if k == n * n:
            found.append(grid.copy())
            return
        r, c = divmod(k, n)
        box = grid[r // h * h:r // h * h + h, c // w * w:c // w * w + w]
        for v in range(1, n + 1):
            if v not in grid[r, :c] and v not in grid[:r, c] and v not in box:
                grid[r, c] = v
                place(k + 1)
                grid[r, c] = 0

    place(0)
    return np.array(found)


GRIDS_4 = _every_grid(4, 2, 2)


def _true_count(clues: np.ndarray, grids: np.ndarray) -> int:
    held = clues > 0
    return int((grids[:, held] == clues[held]).all(axis=1).sum())


def test_the_brute_force_knows_every_4x4_grid():
    assert len(GRIDS_4) == 288 and len({g.tobytes() for g in GRIDS_4}) == 288


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 287), st.sets(st.integers(0, 15), max_size=6), st.sampled_from([2, 3, 5, 24]))
def test_auto_counts_a_sparse_4x4_as_brute_force_does(which, cells, limit):
    """Clues of a real grid on any cells: when they use at most two digits, auto's count comes
    from relabelling; either way it agrees with brute force up to the limit, every grid kept is
    a distinct solution."""
    clues = np.zeros(16, dtype=np.int64)
    cells = sorted(cells)
    clues[cells] = GRIDS_4[which].ravel()[cells]
    clues = clues.reshape(4, 4)
    puzzle = parse_puzzle(clues, box=(2, 2))
    model = build_model(puzzle)
    result = pipeline.count(puzzle, limit=limit)
    truth = _true_count(clues, GRIDS_4)
    assert result.count == min(truth, limit)
    assert result.status == ("limit" if truth >= limit else "complete")
    assert len({g.tobytes() for g in result.grids}) == len(result.grids)
    assert all(verify_grid(g, puzzle) for g in result.grids)
    assert relabelling_settles(model) == (np.unique(clues[clues > 0]).size <= 2)


@pytest.mark.parametrize("givens", ["1...............", "12..............", "1..............1", "................"])
def test_a_puzzle_whose_clues_leave_two_digits_is_not_unique(givens):
    puzzle = parse_puzzle(givens)
    answer = pipeline.solve(puzzle)
    assert answer.solved and answer.unique is False and verify_grid(answer.grid, puzzle)
    second = relabelled_second(puzzle, answer.grid)
    assert verify_grid(second, puzzle) and not np.array_equal(second, answer.grid)
    # the cells that differ hold exactly two digits, swapped
    changed = answer.grid != second
    assert sorted(set(answer.grid[changed])) == sorted(set(second[changed])) and len(set(answer.grid[changed])) == 2


def test_three_free_digits_of_a_6x6_give_six_solutions_at_least():
    clues = np.zeros((6, 6), dtype=np.int64)
    clues[0, :3] = (1, 2, 3)                  # one box's row: three of six digits used
    clues[1, :3] = (4, 5, 6)
    clues[2:4, 0] = (2, 3)
    puzzle = parse_puzzle(clues, box=(2, 3))
    assert not relabelling_settles(build_model(puzzle))   # six digits used
    clues[1, :3] = 0
    puzzle = parse_puzzle(clues, box=(2, 3))
    truth = pipeline.count(puzzle, limit=100, solver="sat").count   # a search's count (many)
    for limit in (2, 6):
        got = count_by_relabelling(get_solver("auto").solve, "auto", build_model(puzzle), limit, None, None)
        assert got is not None and got.count == limit <= truth and got.status == "limit"
        assert len({g.tobytes() for g in got.grids}) == limit and all(verify_grid(g, puzzle) for g in got.grids)
    # 3! = 6 relabellings do not reach 7: a search counts
    assert count_by_relabelling(get_solver("auto").solve, "auto", build_model(puzzle), 7, None, None) is None
    assert pipeline.count(puzzle, limit=7).count == min(7, truth)


@pytest.mark.parametrize("document", [
    {"size": 4, "box": "2x2", "givens": "1...............", "rules": [{"rule": "antiknight"}]},
    {"size": 4, "box": "2x2", "givens": "1...............", "rules": [{"rule": "even", "cells": ["r1c2"]}]},
])
def test_rules_tell_digits_apart_so_the_search_decides(document):
    """An even cell or a rule between cells depends on which digit is where: no relabelling."""
    model = build_model(parse_puzzle(document))
    assert not relabelling_settles(model)


def test_variants_of_units_alone_relabel_too():
    for puzzle in (parse_puzzle("1...............", variant="x"),
                   parse_puzzle("1...............", variant="jigsaw", regions="0011001122332233")):
        assert relabelling_settles(build_model(puzzle))
        answer = pipeline.solve(puzzle)
        assert answer.unique is False and verify_grid(relabelled_second(puzzle, answer.grid), puzzle)


def test_a_named_engine_still_searches(capsys):
    """--solver sat asks sat for the proof; auto alone relabels (said with --verbose)."""
    assert main(["solve", "1" + "." * 80, "--format", "json", "--verbose"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["unique"] is False
    assert "solver: not unique: the clues use 1 of 9 digits; the answer with 2 and 3 swapped is a second solution" \
        in captured.err
    assert main(["solve", "1" + "." * 80, "--format", "json", "--solver", "sat", "--verbose"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["unique"] is False and "swapped" not in captured.err


def test_count_of_an_empty_81x81_lists_distinct_solutions(capsys):
    """An empty 81x81 counted to 3 (the SAT engine found none in 20 s): 3 solutions at once."""
    assert main(["count", "." * 81 ** 2, "--box", "9x9", "--limit", "3", "--list"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[0] == "3 (at least: stopped at --limit 3)"
    grids = [np.array(line.split(), dtype=np.int64).reshape(81, 81) for line in lines[1:4]]
    puzzle = parse_puzzle(np.zeros((81, 81), dtype=np.int64), box=(9, 9))
    assert len({g.tobytes() for g in grids}) == 3 and all(verify_grid(g, puzzle) for g in grids)


def test_every_permutation_of_the_free_digits_is_kept_once():
    puzzle = parse_puzzle("1...............")
    got = count_by_relabelling(get_solver("auto").solve, "auto", build_model(puzzle), 6, None, None)
    assert got.count == 6 and len({g.tobytes() for g in got.grids}) == 6
    first = got.grids[0]
    relabellings = {tuple(g[first == d][0] for d in (2, 3, 4)) for g in got.grids}
    assert relabellings == set(itertools.permutations((2, 3, 4)))


def test_the_verbose_line_names_the_swapped_values_of_a_value_set(capsys):
    """Values 0-3: the line named digits 3 and 4 where the printed grid holds values 2 and 3."""
    doc = '{"size": 4, "values": "0-3", "givens": "0 1 . . | . . . . | . . . . | . . . ."}'
    assert main(["solve", doc, "--verbose", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "the answer with 2 and 3 swapped is a second solution" in err and json.loads(out)["unique"] is False
