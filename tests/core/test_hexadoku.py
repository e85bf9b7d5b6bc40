"""16x16 grids in the hexadoku alphabet ``0-F`` (``0`` a value, ``.`` or ``-`` empty): every clue
is read, the ``0`` ones too (they were read as empty cells, without a word), as the values 0..15;
a grid whose ``0`` could be either reading is refused, and a ``1-G`` grid reads as it always did."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import shuffled_sudoku
from pipeline.core.errors import PuzzleError
from pipeline.core.hexadoku import Alphabet
from pipeline.core.puzzle import parse_grid, parse_puzzle

HEX = "0123456789ABCDEF"   # the value v written as HEX[v], independently of the reader


def _hex_text(values: np.ndarray, holes: np.ndarray, empty: str, lines: bool) -> str:
    """The grid of values 0..15 in 0-F, ``empty`` in the holes, one line or 16."""
    cells = np.where(holes, empty, np.array(list(HEX))[values])
    rows = ["".join(row) for row in cells]
    return "\n".join(rows) + "\n" if lines else "".join(rows)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.2, 0.8), empty=st.sampled_from(".-"),
       lines=st.booleans())
def test_a_0_to_F_grid_keeps_every_clue(seed, density, empty, lines):
    rng = np.random.default_rng(seed)
    values = shuffled_sudoku(4, 4, rng) - 1          # a solution in the values 0..15
    holes = rng.random((16, 16)) < density
    holes[values == 0] = False                       # '0' clues ...
    holes[0, 1] = holes[0, 1] or values[0, 1] != 0   # ... and at least one empty cell (no '0' at r1c2)
    puzzle = parse_puzzle(_hex_text(values, holes, empty, lines))
    assert puzzle.values == tuple(range(16))
    assert puzzle.n_clues == int((~holes).sum())
    shown = puzzle.shown(puzzle.grid)                # the givens in values, 0 for empty
    assert np.array_equal(shown[~holes], values[~holes])
    assert np.array_equal(puzzle.grid == 0, holes)


def test_the_0_clues_were_lost_before():
    # r1: 0 1 2 ... F with r1c2 empty: the old reader took the '0' for an empty cell and 1-F for 1..15
    values = shuffled_sudoku(4, 4, np.random.default_rng(7)) - 1
    holes = np.zeros((16, 16), dtype=bool)
    holes[:, ::3] = True
    holes[values == 0] = False
    puzzle = parse_puzzle(_hex_text(values, holes, ".", lines=False))
    assert puzzle.n_clues == int((~holes).sum())
    assert (puzzle.shown(puzzle.grid)[values == 0] == 0).all() and (puzzle.grid[values == 0] == 1).all()


def test_the_answer_is_written_back_in_0_to_F():
    values = shuffled_sudoku(4, 4, np.random.default_rng(3)) - 1
    holes = np.zeros((16, 16), dtype=bool)
    holes[5, 5] = True
    puzzle = parse_puzzle(_hex_text(values, holes, ".", lines=True))
    assert puzzle.to_document()["values"] == "0-15"
    assert puzzle.to_document()["givens"] == _hex_text(values, holes, ".", lines=False)


def test_an_ambiguous_grid_is_refused_in_one_line():
    # '0' cells, no 'G', no '.': 1-G with '0' empty, or a full 0-F grid; either guess could lose clues
    values = shuffled_sudoku(4, 4, np.random.default_rng(5)) - 1
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(_hex_text(values, np.zeros((16, 16), dtype=bool), ".", lines=False))
    message = str(err.value)
    assert "\n" not in message and "ambiguous 16x16 grid" in message
    assert "'0' cells but no 'G' and no '.' or '-'" in message and '"values": "0-15"' in message


def test_a_1_to_G_grid_reads_as_ever():
    # a 'G' says 1-G: '0' and '.' are both empty cells, as they always were
    digits = shuffled_sudoku(4, 4, np.random.default_rng(9))
    text = "".join(np.array(list("." + "123456789ABCDEFG"))[np.where(np.arange(256).reshape(16, 16) % 5 == 0,
                                                                          0, digits)].ravel())
    text = text.replace(".", "0", 10)
    assert "G" in text and "0" in text and "." in text
    puzzle = parse_puzzle(text)
    assert puzzle.values is None
    assert np.array_equal(puzzle.grid, np.where(np.arange(256).reshape(16, 16) % 5 == 0, 0, digits))


def test_a_9x9_grid_keeps_0_as_empty():
    # only the 16x16 hexadoku alphabet is 0-based: a 9x9 with '0' and '.' and no '9' reads 0 as empty
    puzzle = parse_puzzle("0.3" + "." * 78)
    assert puzzle.values is None and puzzle.n_clues == 1


def test_a_document_says_its_alphabet_itself():
    # a document's givens are read by its "values": 0-F text there is unchanged by this reading
    values = shuffled_sudoku(4, 4, np.random.default_rng(11)) - 1
    holes = np.zeros((16, 16), dtype=bool)
    holes[:, 0] = True
    text = _hex_text(values, holes, ".", lines=False)
    doc = parse_puzzle({"size": 16, "values": "0-15", "givens": text})
    assert doc == parse_puzzle(text)


@pytest.mark.parametrize("sep", [" ", ","])
def test_separated_0_to_F_cells_keep_every_clue(sep):
    # '0 1 . 3 ...' or '0,1,,3,...': one character a cell, a letter among them, as compact cells are
    values = shuffled_sudoku(4, 4, np.random.default_rng(13)) - 1
    holes = np.random.default_rng(14).random((16, 16)) < 0.5
    holes[values == 0] = False
    cells = np.where(holes, "." if sep == " " else "", np.array(list(HEX))[values])
    puzzle = parse_puzzle("\n".join(sep.join(row) for row in cells) + "\n")
    assert puzzle.values == tuple(range(16)) and puzzle.n_clues == int((~holes).sum())
    assert np.array_equal(puzzle.shown(puzzle.grid)[~holes], values[~holes])


def test_a_16x16_grid_of_numbers_keeps_0_as_empty():
    # '0 5 12 ...': numbers, no letter; 0 is empty as ever (examples/grid16.txt)
    digits = shuffled_sudoku(4, 4, np.random.default_rng(15))
    digits[:, ::2] = 0
    puzzle = parse_puzzle("\n".join(" ".join(map(str, row)) for row in digits) + "\n")
    assert puzzle.values is None and np.array_equal(puzzle.grid, digits)


def test_two_0_in_a_row_are_empty_cells_as_ever():
    # the value 0 twice in a row is no 0-F grid: '0' can only be empty (an all-'0' grid is empty)
    assert parse_puzzle("0" * 256).n_clues == 0
    values = shuffled_sudoku(4, 4, np.random.default_rng(17)) - 1
    holes = np.zeros((16, 16), dtype=bool)
    holes[0, :3] = True
    text = _hex_text(values, holes, "0", lines=False)   # '0' for each hole: row 1 holds two or three
    text = text[:16] + "." + text[17:] if text[16] != "0" else text[:17] + "." + text[18:]   # a '.' too
    puzzle = parse_puzzle(text)
    assert puzzle.values is None and not (puzzle.grid[0, :3]).any()


def test_a_full_0_to_F_answer_reads_as_0_to_F_only_when_asked():
    # an answer has no empty cells: the ambiguous kind is 0-F there (verify), refused for a puzzle,
    # and parse_grid without an alphabet reads '0' as empty as ever
    values = shuffled_sudoku(4, 4, np.random.default_rng(19)) - 1
    text = _hex_text(values, np.zeros((16, 16), dtype=bool), ".", lines=False)
    assert (parse_grid(text) == 0).sum() == 16
    alphabet = Alphabet(answer=True)
    grid = parse_grid(text, alphabet=alphabet)
    assert alphabet == [tuple(range(16))] and np.array_equal(grid, values + 1)
    with pytest.raises(PuzzleError, match="ambiguous 16x16 grid"):
        parse_grid(text, alphabet=[])
