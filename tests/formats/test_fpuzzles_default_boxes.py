"""f-puzzles grids of a composite size above 16 (18, 20, 21, 24, 25, ... 64) and no ``region`` keys.

They were refused ("needs regions"): the reader's table of default boxes stopped at 16. Both
importers give every size a default box shape, ``h`` rows by ``size // h`` columns with ``h`` the
largest divisor of the size up to its square root: SudokuPad/sudokutools ``src/fpuzzlesdecoder.js``
(``getRegionShape``, ported below) and dclamage/SudokuSolver ``SudokuSolver/SolverUtility.cs``
(``DefaultRegions``, sizes 1 to 31: its case lists are transcribed below). The reader reads those
boxes, and the writer writes no ``region`` keys for them.
"""
from __future__ import annotations

import json
import math

import lzstring
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles import document_from_fpuzzles
from pipeline.core.fpuzzles_write import fpuzzles_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

#: Every size the reader takes ('size' from 1 to 64) that has boxes of at least 2 x 2.
BOX_SIZES = [n for n in range(4, 65) if any(n % d == 0 for d in range(2, math.isqrt(n) + 1))]
#: dclamage/SudokuSolver SolverUtility.cs DefaultRegions: the rows a box is tall, by its case lists
#: (square boxes for 4, 9, 16, 25; the box is size / rows wide).
SUDOKUSOLVER_ROWS = {4: 2, 9: 3, 16: 4, 25: 5, 6: 2, 8: 2, 10: 2, 14: 2, 22: 2, 26: 2,
                     12: 3, 15: 3, 18: 3, 21: 3, 27: 3, 20: 4, 24: 4, 28: 4, 30: 5}


def _sudokupad_shape(size: int) -> tuple[int, int]:
    """SudokuPad/sudokutools src/fpuzzlesdecoder.js getRegionShape: [height, size / height]."""
    height = math.sqrt(size)
    if height.is_integer():
        return int(height), int(height)
    height = math.floor(height)
    while size % height and height > 1:
        height -= 1
    return height, size // height


def _payload(data: dict) -> str:
    return lzstring.LZString().compressToBase64(json.dumps(data))


def _grid(size: int, givens: dict, regions=None) -> list:
    return [[dict({"value": int(givens[r, c]), "given": True} if (r, c) in givens else {},
                  **({} if regions is None or regions[r][c] is None else {"region": int(regions[r][c])}))
             for c in range(size)] for r in range(size)]


def _box_ids(size: int, h: int, w: int) -> np.ndarray:
    """Each cell's box, numbered as both importers number the default regions (row-major)."""
    rows, cols = np.divmod(np.arange(size * size), size)
    return ((rows // h) * (size // w) + cols // w).reshape(size, size)


def _solution(size: int, h: int, w: int, perm) -> np.ndarray:
    """A grid whose rows, columns and h x w boxes each hold every digit once."""
    r, c = np.divmod(np.arange(size * size), size)
    return np.asarray(perm)[(w * (r % h) + r // h + c) % size].reshape(size, size)


def test_the_two_importers_agree_on_the_default_shape():
    """The claim the reader rests on, checked against both sources (rows x columns of a box)."""
    for size, rows in SUDOKUSOLVER_ROWS.items():
        assert _sudokupad_shape(size) == (rows, size // rows)


@pytest.mark.parametrize("size", BOX_SIZES)
def test_a_grid_without_regions_reads_the_importers_default_boxes(size):
    h, w = _sudokupad_shape(size)
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {(0, 0): 1})}))
    assert doc["box"] == f"{h}x{w}" and "regions" not in doc and "variant" not in doc
    if size in SUDOKUSOLVER_ROWS:
        assert h == SUDOKUSOLVER_ROWS[size]
    # the same boxes given cell by cell, as dclamage/SudokuSolver writes them, read the same
    explicit = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {(0, 0): 1}, _box_ids(size, h, w))}))
    assert explicit == doc


@pytest.mark.parametrize("size", [18, 20, 21, 24, 25, 30, 64])
def test_cells_without_a_region_default_to_their_box(size):
    """A missing 'region' is the cell's default box (one id space with the given ones)."""
    h, w = _sudokupad_shape(size)
    boxes = _box_ids(size, h, w)
    regions = [[None] * size for _ in range(size)]
    regions[0][w - 1], regions[0][w] = int(boxes[0, w]), int(boxes[0, w - 1])   # two cells trade boxes
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, {}, regions)}))
    expected = boxes.copy()
    expected[0, w - 1], expected[0, w] = boxes[0, w], boxes[0, w - 1]
    assert doc["regions"].split() == [str(g) for g in expected.ravel()]


def test_a_size_of_one_is_still_refused():
    with pytest.raises(PuzzleError, match=r"a 1x1 f-puzzles grid needs regions \(no default boxes for 1\)"):
        document_from_fpuzzles(_payload({"size": 1, "grid": [[{}]]}))


@given(size=st.sampled_from(BOX_SIZES), transposed=st.booleans(), data=st.data())
@settings(max_examples=60, deadline=None)
def test_a_sudoku_round_trips_with_regions_only_off_the_default(size, transposed, data):
    default = _sudokupad_shape(size)
    h, w = default[::-1] if transposed else default
    perm = data.draw(st.permutations(range(1, size + 1)))
    solution = _solution(size, h, w, perm)
    cells = data.draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=2 * size))
    givens = {cell: solution[cell] for cell in cells}
    regions = _box_ids(size, h, w) if (h, w) != default else None   # the default box is written bare
    doc = document_from_fpuzzles(_payload({"size": size, "grid": _grid(size, givens, regions)}))
    assert doc["box"] == f"{h}x{w}"
    puzzle = parse_puzzle(json.dumps(doc))
    assert (puzzle.h, puzzle.w) == (h, w) and verify_grid(solution, puzzle)
    written = fpuzzles_from_puzzle(puzzle)
    assert all(("region" in cell) == ((h, w) != default) for row in written["grid"] for cell in row)
    again = document_from_fpuzzles(_payload(written))
    assert again == doc
    assert parse_puzzle(json.dumps(again)) == puzzle


@pytest.mark.parametrize("size", BOX_SIZES)
def test_the_writer_writes_the_default_boxes_bare(size):
    """It wrote every cell's 'region' above 16 (its table of default boxes stopped there)."""
    h, w = _sudokupad_shape(size)
    written = fpuzzles_from_puzzle(parse_puzzle(json.dumps({"size": size, "box": f"{h}x{w}", "givens": []})))
    assert written["size"] == size and all("region" not in cell for row in written["grid"] for cell in row)
