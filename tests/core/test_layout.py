"""Gattai layouts: the samurai's canvas, cells and units counted from its definition (five 9x9
grids, four corners and a centre sharing one box with each), the model over present cells, and
custom layouts."""
from __future__ import annotations

import numpy as np
import pytest

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.errors import ConventionError, PuzzleError
from pipeline.core.layout import Layout, layout_from_spec, samurai
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import solve


def test_the_samurai_canvas_cells_and_units():
    lay = samurai(3, 3)
    assert (lay.rows, lay.cols, lay.n_grids) == (21, 21, 5)
    assert lay.origins == ((0, 0), (0, 12), (12, 0), (12, 12), (6, 6))
    present = lay.present().reshape(21, 21)
    assert present.sum() == 5 * 81 - 4 * 9          # four shared boxes counted once
    assert not present[0, 9:12].any() and not present[9:12, 0].any() and present[9:12, 6:15].all()
    families = dict(lay.unit_families())
    assert families["row"].shape == (45, 9) and families["col"].shape == (45, 9)
    assert families["box"].shape == (5 * 9 - 4, 9)   # a shared box is one unit
    shared = [(6, 6), (6, 12), (12, 6), (12, 12)]
    tops = {tuple(divmod(int(b.min()), 21)) for b in families["box"]}
    assert set(shared) <= tops
    # units numbered grid by grid: the centre grid's first row is unit 37
    assert families["row"][36].tolist() == [6 * 21 + 6 + k for k in range(9)]


def test_a_samurai_model_has_variables_of_present_cells_only():
    puzzle = parse_puzzle({"size": 9, "layout": "samurai"})
    m = build_model(puzzle)
    assert m.n_cols == 369 * 9 and m.convention.n_vars == 21 * 21 * 9
    assert m.family_counts() == {"cell": 369, "row": 405, "col": 405, "box": 369}
    record = puzzle.to_dict()
    assert record["layout"] == "samurai" and record["canvas"] == [21, 21]
    with pytest.raises(ConventionError, match="only the ijk scheme"):
        build_model(puzzle, scheme="block")


def test_a_solved_samurai_verifies_and_satisfies_the_oracle():
    doc = {"size": 9, "layout": "samurai", "rules": [{"rule": "cage", "cells": ["r7c7", "r8c8"], "sum": 3}]}
    puzzle = parse_puzzle(doc)
    result = solve(build_model(puzzle))
    assert result.status == "optimal" and verify_grid(result.grid, puzzle).ok
    assert oracle.check(oracle.spec_from_document(doc), result.grid)
    assert (result.grid[9:12, 0:6] == 0).all()


@pytest.mark.parametrize("spec, message", [
    ({"grids": ["r1c1", "r2c2"]}, "grid 2 does not sit on the 3x3 box lattice"),
    ({"grids": ["r1c1", "r1c1"]}, "two grids at the same place"),
    ({"grids": []}, "no grids"),
    ({"grids": ["a1"]}, "grids[0] 'a1' is not a cell"),
    ({"grids": [5]}, "grids[0] must be a cell"),
    ("hexagon", "expected \"samurai\" or"),
])
def test_bad_layouts_are_one_line(spec, message):
    with pytest.raises(PuzzleError, match=message.replace("[", r"\[").replace("(", r"\(")):
        layout_from_spec(spec, 3, 3)


@pytest.mark.parametrize("digit", ["\u0665", "\uff15"])   # Arabic-Indic and full-width 5
def test_a_canvas_cell_of_another_scripts_digit_is_refused(digit):
    # str.isdigit and int() take them, so a canvas in tokens read '٥' as 5 where the same
    # canvas written compactly refused it
    givens = " ".join([digit] + ["."] * 440)
    with pytest.raises(PuzzleError, match=f"^puzzle: givens: cell 1 is '{digit}', not a digit$"):
        parse_puzzle({"size": 9, "layout": "samurai", "givens": givens})


def test_samurai_needs_square_boxes():
    with pytest.raises(PuzzleError, match="samurai needs square boxes"):
        samurai(2, 3)


def test_a_custom_layout_shifts_to_its_first_grid_and_reads_back():
    lay = layout_from_spec({"grids": ["r4c4", "r7c10"]}, 3, 3)
    assert lay.origins == ((0, 0), (3, 6)) and (lay.rows, lay.cols) == (12, 15)
    assert isinstance(lay, Layout) and layout_from_spec(lay.to_spec(), 3, 3) == lay


@pytest.mark.parametrize("doc", [
    {"size": 9, "layout": "samurai", "givens": "", "rules": [{"rule": "antiknight"}, {"rule": "thermo",
                                                                                        "cells": ["r1c1", "r2c2"]}]},
    {"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r3c3"]}, "givens": ["r1c1=1", "r6c6=2"]},
])
def test_a_layout_puzzle_reads_back_from_its_document(doc):
    puzzle = parse_puzzle(doc)
    again = parse_puzzle(puzzle.to_document())
    assert again == puzzle and np.array_equal(again.present, puzzle.present)


@pytest.mark.parametrize("corner,message", [
    ("r3000c3000", "grids[1] 'r3000c3000': a corner's row and column must be 1 to 999"),
    ("r0c1", "grids[1] 'r0c1': a corner's row and column must be 1 to 999"),
    ("r1x1", "grids[1] 'r1x1' is not a cell like \"r1c13\""),
])
def test_a_corner_out_of_range_is_named_as_such(corner, message):
    """A corner such as r3000c3000 is a cell, only too far: it was called 'not a cell'."""
    with pytest.raises(PuzzleError) as caught:
        layout_from_spec({"grids": ["r1c1", corner]}, 3, 3, "layout")
    assert str(caught.value) == f"layout: {message}"


def test_grids_far_apart_are_refused_before_the_canvas_is_modelled():
    """Two 16x16 grids at opposite corners of a 1008x1008 canvas: every canvas cell is modelled,
    so 512 cells cost 4.5 GB and over a minute (also past --time-limit). Refused in one line."""
    with pytest.raises(PuzzleError) as e:
        layout_from_spec({"grids": ["r1c1", "r993c993"]}, 4, 4)
    assert str(e.value) == ("layout: the grids span a 1008x1008 canvas for 512 cells; at most 16 canvas cells per "
                            "cell of the puzzle (the whole canvas is modelled): place the grids so that they touch "
                            "or overlap")
    # grids that touch corner to corner in a chain stay well inside the bound
    chain = layout_from_spec({"grids": [f"r{1 + 9 * k}c{1 + 9 * k}" for k in range(8)]}, 3, 3)
    assert (chain.rows, chain.cols) == (72, 72)


def test_a_custom_layout_with_rectangular_boxes_names_its_grids():
    # to_spec compared it with samurai(2, 3), which refuses rectangular boxes: export failed
    layout = layout_from_spec({"grids": ["r1c1", "r3c4"]}, 2, 3)
    assert layout.to_spec() == {"grids": ["r1c1", "r3c4"]}
