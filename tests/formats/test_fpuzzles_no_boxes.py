"""f-puzzles grids of a size with no box shape (5, 7, 11, 13, any prime) and no ``region`` keys.

They were refused ("needs regions"). f-puzzles' importers give such a grid no boxes: its houses
are its rows and columns (dclamage/SudokuSolver ``SudokuSolver/SolverUtility.cs`` DefaultRegions,
SudokuPad/sudokutools ``src/fpuzzlesdecoder.js`` getRegionShape, sigh/Interactive-Sudoku-Solver
``js/cell_geometry.js`` boxDimsForSize), so the reader reads a Latin square and the writer writes
one back the same way.
"""
from __future__ import annotations

import json

import lzstring
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core.fpuzzles import document_from_fpuzzles
from pipeline.core.fpuzzles_write import fpuzzles_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

NO_BOX_SIZES = [2, 3, 5, 7, 11, 13]


def _payload(data: dict) -> str:
    return lzstring.LZString().compressToBase64(json.dumps(data))


def _grid(size: int, givens: dict, regions=None) -> list:
    return [[dict({"value": givens[r, c], "given": True} if (r, c) in givens else {},
                  **({} if regions is None or regions[r][c] is None else {"region": regions[r][c]}))
             for c in range(size)] for r in range(size)]


def _cyclic(size: int, perm: list[int]) -> list[list[int]]:
    """A Latin square: row r is the cyclic shift by r of ``perm``."""
    return [[perm[(r + c) % size] for c in range(size)] for r in range(size)]


@pytest.mark.parametrize("size", NO_BOX_SIZES)
def test_a_grid_of_no_box_shape_without_regions_reads_as_a_latin_square(size):
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {(0, 0): 1})}))
    assert doc["variant"] == "latin" and "box" not in doc and "regions" not in doc
    puzzle = parse_puzzle(json.dumps(doc))
    assert puzzle.variant == "latin" and puzzle.n == size
    square = _cyclic(size, list(range(1, size + 1)))
    assert verify_grid(square, puzzle)   # rows and columns only: any Latin square with the given


@given(size=st.sampled_from(NO_BOX_SIZES), data=st.data())
@settings(max_examples=40, deadline=None)
def test_a_latin_square_of_no_box_shape_round_trips_without_regions(size, data):
    perm = data.draw(st.permutations(range(1, size + 1)))
    square = _cyclic(size, list(perm))
    cells = data.draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=size * 2))
    flags = {key: True for key in data.draw(st.sets(st.sampled_from(["diagonal+", "diagonal-"])))}
    if flags:   # a cyclic square repeats digits on the diagonals: its givens kept off them
        cells = {(r, c) for r, c in cells if r != c and r + c != size - 1}
    source = {"size": size, "grid": _grid(size, {(r, c): square[r][c] for r, c in cells}), **flags}
    doc = document_from_fpuzzles(_payload(source))
    puzzle = parse_puzzle(json.dumps(doc))
    written = fpuzzles_from_puzzle(puzzle)
    assert all("region" not in cell for row in written["grid"] for cell in row)
    again = document_from_fpuzzles(_payload(written))
    assert again == doc
    assert parse_puzzle(json.dumps(again)) == puzzle


@pytest.mark.parametrize("size", [4, 9, 5])
def test_regions_that_are_the_rows_read_as_a_latin_square(size):
    """dclamage/SudokuSolver writes every cell's region, a prime size's being its row
    (SudokuSolver/SolverFactory.cs): that is a Latin square, and a Latin square of a size with
    boxes is written that way, read back the same."""
    rows = [[r] * size for r in range(size)]
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {(1, 1): 2}, rows)}))
    assert doc["variant"] == "latin" and "regions" not in doc and "box" not in doc
    puzzle = parse_puzzle(json.dumps(doc))
    written = fpuzzles_from_puzzle(puzzle)
    assert all(("region" in cell) == (size not in NO_BOX_SIZES) for row in written["grid"] for cell in row)
    assert document_from_fpuzzles(_payload(written)) == doc


def test_cells_without_a_region_in_a_grid_of_no_box_shape_default_to_their_row():
    """As the importers do: a missing 'region' is the cell's default, its row (one id space)."""
    size = 5
    regions = [[None] * size for _ in range(size)]
    regions[0][0], regions[1][0] = 1, 0   # r1c1 and r2c1 trade rows
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {}, regions)}))
    expected = [[r] * size for r in range(size)]
    expected[0][0], expected[1][0] = 1, 0
    assert doc["regions"].split() == [str(g) for row in expected for g in row]
    assert parse_puzzle(json.dumps(doc)).variant == "jigsaw"
