"""pipeline.core.puzzle: every input form, the default box rule, validation and its exact messages."""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from oracles import box_regions, compact, grid_of, pattern_grid, region_string, shuffled_sudoku
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, default_box, format_grid, parse_box, parse_grid, parse_puzzle

SEED = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"
SEED_GRID = np.array([[int(ch) for ch in SEED[9 * r:9 * r + 9]] for r in range(9)])


def puzzle_error(source, **kw) -> str:
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(source, **kw)
    msg = str(err.value)
    assert "\n" not in msg, msg
    return msg


def test_errors_are_value_errors():
    assert issubclass(PuzzleError, PipelineError) and issubclass(PuzzleError, ValueError)


def test_default_puzzle_is_seed_000():
    assert DEFAULT_PUZZLE == SEED
    p = parse_puzzle(DEFAULT_PUZZLE)
    np.testing.assert_array_equal(p.grid, SEED_GRID)
    assert (p.n, p.h, p.w, p.variant, p.n_clues) == (9, 3, 3, "classic", 23)


# ---------------------------------------------------------------------------------------------
# input forms
# ---------------------------------------------------------------------------------------------
def test_81_char_string_with_dots_and_zeros():
    dots = SEED.replace("0", ".")
    a, b = parse_puzzle(SEED), parse_puzzle(dots)
    np.testing.assert_array_equal(a.grid, SEED_GRID)
    assert a == b
    mixed = "".join(ch if k % 2 else ch.replace("0", ".") for k, ch in enumerate(SEED))
    assert parse_puzzle(mixed) == a
    assert a.to_string() == dots


def test_clues_ordered_by_row_then_column():
    r, c, d = parse_puzzle(SEED).clues()
    expected = [(i, j, SEED_GRID[i, j] - 1) for i in range(9) for j in range(9) if SEED_GRID[i, j]]
    assert list(zip(r.tolist(), c.tolist(), d.tolist())) == expected


def test_grid_text_file_of_n_lines(tmp_path):
    compact_lines = tmp_path / "seed.txt"
    compact_lines.write_text("\n".join(SEED[9 * r:9 * r + 9] for r in range(9)) + "\n")
    spaced = tmp_path / "seed_spaced.txt"
    spaced.write_text("# seed 000\n" + "\n".join(" ".join(SEED[9 * r:9 * r + 9]) for r in range(9)) + "\n")
    for path in (compact_lines, spaced, str(spaced)):
        np.testing.assert_array_equal(parse_puzzle(path).grid, SEED_GRID)


def test_csv_grid_file(tmp_path):
    path = tmp_path / "grid.csv"
    np.savetxt(path, SEED_GRID, fmt="%d", delimiter=",")
    np.testing.assert_array_equal(parse_puzzle(path).grid, SEED_GRID)


@pytest.mark.parametrize("h,w", [(2, 5), (3, 4), (4, 4)])
@pytest.mark.parametrize("sep", [" ", ",", ", ", ";"])
def test_separated_grid_for_n_above_9(h, w, sep):
    n = h * w
    grid = shuffled_sudoku(h, w, np.random.default_rng(n))
    grid[np.random.default_rng(1).random((n, n)) < 0.6] = 0
    text = "\n".join(sep.join(str(v) for v in row) for row in grid)
    p = parse_puzzle(text)
    np.testing.assert_array_equal(p.grid, grid)
    assert (p.h, p.w) == (h, w)
    # all on one line (N^2 integers) is read row-major too
    assert parse_puzzle(" ".join(str(v) for v in grid.ravel())) == p


def test_letters_in_compact_16x16():
    grid = shuffled_sudoku(4, 4, np.random.default_rng(16))
    text = "".join("123456789ABCDEFG"[v - 1] for v in grid.ravel())
    p = parse_puzzle(text)
    np.testing.assert_array_equal(p.grid, grid)
    assert (p.n, p.h, p.w) == (16, 4, 4)
    assert parse_puzzle(text.lower()) == p
    assert p.to_string() == text


def test_letters_up_to_z_for_n_35():
    # A-Z are 10..35: a 35x35 grid (5x7 boxes) with one clue of each letter on the diagonal
    n = 35
    grid = np.zeros((n, n), dtype=int)
    grid[np.arange(n), np.arange(n)] = np.arange(1, n + 1)
    text = compact(grid)
    assert "Z" in text
    p = parse_puzzle(text)
    np.testing.assert_array_equal(p.grid, grid)
    assert (p.h, p.w) == (5, 7)


CLUES = [(1, 2, 5), (1, 5, 7), (1, 6, 9), (2, 7, 5), (9, 1, 7), (9, 2, 3), (9, 6, 1)]


def clue_grid(clues, n=9):
    g = np.zeros((n, n), dtype=int)
    for r, c, d in clues:
        g[r - 1, c - 1] = d
    return g


@pytest.mark.parametrize("header", [None, "row,col,digit", "Row, Column, Digit", "row,column,value"])
def test_matlab_n_by_3_csv(tmp_path, header):
    path = tmp_path / "clues.csv"
    body = "\n".join(f"{r},{c},{d}" for r, c, d in CLUES)
    path.write_text((header + "\n" if header else "") + body + "\n")
    p = parse_puzzle(path)
    np.testing.assert_array_equal(p.grid, clue_grid(CLUES))
    assert p.n == 9


def test_n_by_3_matrix_and_list():
    m = np.array(CLUES)
    np.testing.assert_array_equal(parse_puzzle(m).grid, clue_grid(CLUES))
    np.testing.assert_array_equal(parse_puzzle([list(t) for t in CLUES]).grid, clue_grid(CLUES))
    np.testing.assert_array_equal(parse_puzzle(m.astype(float)).grid, clue_grid(CLUES))
    # unordered clue rows give the same puzzle
    np.testing.assert_array_equal(parse_puzzle(m[::-1]).grid, clue_grid(CLUES))


def test_n_by_3_with_size_and_box():
    clues = [(1, 1, 3), (2, 4, 1), (4, 2, 4)]  # 3 clues, 4x4 grid
    rows = clues + [(3, 3, 2)]
    p = parse_puzzle(np.array(rows), size=4)
    np.testing.assert_array_equal(p.grid, clue_grid(rows, 4))
    assert parse_puzzle(np.array(rows), box="2x2") == p


@pytest.mark.parametrize("kw,header", [({}, "row,col,digit\n"), ({"size": 9}, ""), ({"box": "3x3"}, "")])
def test_three_clue_list_is_a_clue_list(kw, header):
    text = header + "1,1,5\n2,2,6\n3,3,7\n"
    p = parse_puzzle(text, **kw)
    np.testing.assert_array_equal(p.grid, clue_grid([(1, 1, 5), (2, 2, 6), (3, 3, 7)]))


def test_3x3_matrix_is_a_latin_square_grid():
    # SEEDS.md 1: the 3x3 "mini Sudoku" (a Latin square of order 3)
    p = parse_puzzle("1 2 3\n2 3 1\n3 1 2\n", variant="latin")
    np.testing.assert_array_equal(p.grid, [[1, 2, 3], [2, 3, 1], [3, 1, 2]])


def test_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(SEED + "\n"))
    np.testing.assert_array_equal(parse_puzzle("-").grid, SEED_GRID)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(f"{r},{c},{d}" for r, c, d in CLUES)))
    np.testing.assert_array_equal(parse_puzzle("-").grid, clue_grid(CLUES))
    for empty in ("", "  \n"):   # nothing on standard input: said so, not "no such file ''"
        monkeypatch.setattr("sys.stdin", io.StringIO(empty))
        with pytest.raises(PuzzleError, match=r"^(<stdin>|puzzle): empty input: expected a puzzle$"):
            parse_puzzle("-")


def test_box_decorated_grid_as_printed():
    text = format_grid(SEED_GRID, 3, 3)
    assert "|" in text and "+" in text
    np.testing.assert_array_equal(parse_puzzle(text).grid, SEED_GRID)
    hand = """
    5 3 . | . 7 . | . . .
    6 . . | 1 9 5 | . . .
    . 9 8 | . . . | . 6 .
    ------+-------+------
    8 . . | . 6 . | . . 3
    4 . . | 8 . 3 | . . 1
    7 . . | . 2 . | . . 6
    ------+-------+------
    . 6 . | . . . | 2 8 .
    . . . | 4 1 9 | . . 5
    . . . | . 8 . | . 7 9
    """
    expected = grid_of("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79")
    np.testing.assert_array_equal(parse_puzzle(hand).grid, expected)


def test_box_decorated_compact_grid():
    text = "\n".join([
        "53.|.7.|...", "6..|195|...", ".98|...|.6.", "---+---+---",
        "8..|.6.|..3", "4..|8.3|..1", "7..|.2.|..6", "---+---+---",
        ".6.|...|28.", "...|419|..5", "...|.8.|.79",
    ])
    expected = grid_of("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79")
    np.testing.assert_array_equal(parse_puzzle(text).grid, expected)


SMALL_SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3)]   # (1, 1) is no puzzle: test_grids_below_4x4_are_refused
WIDE_SHAPES = [(2, 5), (3, 4), (4, 4)]  # N >= 10: cells are separated, empty ones are ' .'


@pytest.mark.parametrize("h,w", SMALL_SHAPES + WIDE_SHAPES)
def test_format_grid_round_trip(h, w):
    grid = shuffled_sudoku(h, w, np.random.default_rng(h + 7 * w))
    grid[np.random.default_rng(2).random(grid.shape) < 0.5] = 0
    p = parse_puzzle(grid, box=(h, w))
    assert parse_puzzle(format_grid(p.grid, h, w), box=f"{h}x{w}") == p
    assert parse_puzzle(format_grid(p.grid), box=(h, w)) == p
    assert Puzzle.from_dict(p.to_dict()) == p


def test_regions_string_file_and_array(tmp_path):
    regions = box_regions(2, 3, labels=[5, 0, 3, 1, 4, 2])
    text = region_string(regions)
    path = tmp_path / "regions.txt"
    path.write_text(" ".join(str(v + 1) for v in regions.ravel()) + "\n")  # ids 1..N, separated
    a = parse_puzzle("." * 36, regions=text)
    b = parse_puzzle("." * 36, regions=str(path))
    c = parse_puzzle("." * 36, regions=regions)
    for p in (a, b, c):
        assert p.variant == "jigsaw"
        np.testing.assert_array_equal(p.regions, regions)  # ids 0..N-1 / 1..N keep their numbering
    assert parse_puzzle("." * 36, regions=text, variant="jigsaw_x").variant == "jigsaw_x"


def test_letter_region_ids_numbered_in_sorted_order():
    p = parse_puzzle("." * 16, regions="bbaabbaaddccddcc")
    np.testing.assert_array_equal(p.regions, [[1, 1, 0, 0], [1, 1, 0, 0], [3, 3, 2, 2], [3, 3, 2, 2]])


# ---------------------------------------------------------------------------------------------
# the default box rule
# ---------------------------------------------------------------------------------------------
def most_square(n):
    best = max(h for h in range(1, n + 1) if n % h == 0 and h * h <= n)
    return best, n // best


@pytest.mark.parametrize("n", list(range(1, 37)) + [49, 64, 100])
def test_default_box_rule(n):
    h, w = default_box(n)
    assert (h, w) == most_square(n)
    assert h <= w and h * w == n


def test_default_box_examples():
    assert default_box(9) == (3, 3)
    assert default_box(16) == (4, 4)
    assert default_box(6) == (2, 3)
    assert default_box(12) == (3, 4)
    assert default_box(7) == (1, 7)
    p = parse_puzzle("." * 36)
    assert (p.h, p.w) == (2, 3)
    assert (parse_puzzle("." * 36, box="3x2").h, parse_puzzle("." * 36, box="3x2").w) == (3, 2)


def test_parse_box():
    assert parse_box("2x3") == (2, 3)
    assert parse_box(" 3X3 ") == (3, 3)
    assert parse_box("4*2", 8) == (4, 2)
    with pytest.raises(PuzzleError) as err:
        parse_box("3by3")
    assert str(err.value) == "box: '3by3' is not of the form HxW with sides from 1 (e.g. 3x3 or 2x3)"
    with pytest.raises(PuzzleError) as err:
        parse_box("0x3")
    assert str(err.value) == "box: '0x3' is not of the form HxW with sides from 1 (e.g. 3x3 or 2x3)"
    with pytest.raises(PuzzleError) as err:   # of that form, too large: it said "not of the form HxW"
        parse_box("99999999999999999999x9")
    assert str(err.value) == ("box: '99999999999999999999x9' has a side of more than 9 digits (a grid side is at "
                              "most a few hundred)")
    # the two sides as a pair, as read_puzzle takes them (generate(box=(2, 2)) said "not of the form HxW")
    assert parse_box((2, 3), 6) == parse_box([np.int64(2), 3]) == (2, 3)
    for bad in [(2.0, 3), ("2", "3"), (2, 3, 1), (True, 3)]:
        with pytest.raises(PuzzleError, match=r"box: .* is not two whole sides \(e.g. \(3, 3\) or \"2x3\"\)"):
            parse_box(bad)
    with pytest.raises(PuzzleError, match="box: 2x3 boxes do not tile a 9x9 grid"):
        parse_box((2, 3), 9)


# ---------------------------------------------------------------------------------------------
# bad input: exact one-line messages
# ---------------------------------------------------------------------------------------------
def test_shape_must_be_n_by_3_or_n_by_n():
    assert puzzle_error(np.zeros((9, 4), dtype=int)) == "puzzle: matrix is 9-by-4: must be N-by-3 or N-by-N"
    assert puzzle_error("12\n34\n56\n") == "puzzle: grid is 3-by-2: must be N-by-3 or N-by-N"
    assert puzzle_error(np.zeros((2, 2, 2))) == "puzzle: input must be a non-empty 2-D matrix: must be N-by-3 or N-by-N"


@pytest.mark.parametrize("text, what", [
    ("1" + "." * 15 + "\n" + "." * 15 + "2\n", "2 lines of 16 cells"),
    ("." * 81 + "\n" + "5" + "." * 80 + "\n" + "." * 81 + "\n", "3 lines of 81 cells"),
    ("puzzle,regions,variant\n" + "." * 81 + ",,classic\n", "a table with a 'puzzle' column"),
    ("id,Puzzle\n1," + "." * 16 + "\n2," + "1" + "." * 15 + "\n", "a table with a 'puzzle' column"),
    ("puzzle\n1.....3...4....2\n", "a table with a 'puzzle' column"),   # one column, one record: no comma
])
def test_a_file_of_several_puzzles_points_to_batch(text, what):
    """A batch's input given where one puzzle is read: it said "grid is 7-by-81: must be N-by-3 or
    N-by-N", or for the CSV "line 2, field 1: '4.....' is not an integer" (outside check)."""
    assert puzzle_error(text) == (f"puzzle: {what}: puzzles one a row, as batch reads them; this reads one puzzle "
                                  f"('python -m pipeline batch FILE OUTDIR' solves them all)")


@pytest.mark.parametrize("text", ["[1 2 3; 2 1 1; 9 9 4; 5 5 5]", "1 2 3;\n2 1 1;\n9 9 4;\n5 5 5;\n",
                                  "x = [1,2,3\n2,1,1\n9,9,4\n5,5,5];"])
def test_a_clue_list_in_matlab_matrix_syntax_reads_as_the_same_list(text):
    """It was "bad cell '[1 2 3' at row 1, column 1" (the MATLAB round trip's finding)."""
    grid = parse_puzzle(text).grid
    assert grid[0, 1] == 3 and grid[1, 0] == 1 and grid[8, 8] == 4 and grid[4, 4] == 5 and np.count_nonzero(grid) == 4


def test_a_zero_based_clue_list_is_told_that_rows_and_columns_count_from_1():
    assert puzzle_error("0,1,3\n1,0,1\n8,8,9\n4,4,2\n") == (
        "puzzle: line 1: entries must be integers from 1 to 9, found 0; rows and columns count from 1, as in "
        "MATLAB: add 1 to 0-based ones")
    # a 0 digit is no clue of another numbering; a 9 row of a 9x9 list is no 0-based one
    assert puzzle_error("1,1,0\n2,2,1\n3,3,3\n4,4,4\n").endswith("found 0")
    assert puzzle_error("0,1,3\n9,9,1\n2,2,2\n3,3,3\n").endswith("found 0")


def test_entries_must_be_integers_from_1_to_n():
    assert puzzle_error(np.array([[1, 1, 5], [1, 2, 0]])) == \
        "puzzle: line 2: entries must be integers from 1 to 9, found 0"
    assert puzzle_error(np.array([[1, 1, 5], [1, 2, 3], [10, 1, 1], [2, 2, 2]]), size=9) == \
        "puzzle: line 3: entries must be integers from 1 to 9, found 10"
    assert puzzle_error("1,1,-5\n2,2,6\n") == "puzzle: line 1: entries must be integers from 1 to 9, found -5"
    assert puzzle_error("1,1,5.5\n2,2,6\n") == \
        "puzzle: line 1, field 3: '5.5' is not an integer: entries must be integers"
    assert puzzle_error(np.array([[1.0, 1, 5], [2, 2, 6.5]])) == "puzzle: entries must be integers"
    assert puzzle_error("1,2,0,0\n0,0,0,0\n0,0,0,0\n0,0,0,10\n") == \
        "puzzle: cell (4, 4) holds 10: entries must be integers from 1 to 4 (0 for empty)"


def test_bad_character_with_position(tmp_path):
    assert puzzle_error(SEED[:40] + "x" + SEED[41:]) == (
        "puzzle: bad character 'x' at position 41 (row 5, column 5): "
        "a 9x9 cell is '.' or '0' (empty) or one of 1..9")
    # a letter beyond N is a bad character too
    assert puzzle_error(SEED[:80] + "A") == (
        "puzzle: bad character 'A' at position 81 (row 9, column 9): "
        "a 9x9 cell is '.' or '0' (empty) or one of 1..9")
    assert puzzle_error("." * 255 + "H") == (
        "puzzle: bad character 'H' at position 256 (row 16, column 16): "
        "a 16x16 cell is '.' or '0' (empty) or one of 1..G")
    # past 35 the message itself raised IndexError (the compact digits end at Z)
    assert puzzle_error("." * 1295 + "!") == (
        "puzzle: bad character '!' at position 1296 (row 36, column 36): "
        "a 36x36 cell is '.' or '0' (empty) or one of 1..Z; digits past Z need a grid of separated numbers")
    path = tmp_path / "p.txt"
    path.write_text("1 2 . .\n. . . .\n. ? . .\n. . . 4\n")
    assert puzzle_error(path) == f"{path}: bad cell '?' at row 3, column 2"


def test_wrong_length_expected_vs_found():
    assert puzzle_error(SEED[:80]) == \
        "puzzle: wrong length: expected a square number of cells (64 for 8x8 or 81 for 9x9), found 80"
    assert puzzle_error("." * 36, box="3x3") == "puzzle: wrong length: expected 81 cells (9x9, from the box 3x3), found 36"
    assert puzzle_error("." * 81, box="2x2") == "puzzle: wrong length: expected 16 cells (4x4, from the box 2x2), found 81"
    assert puzzle_error("123\n45\n") == "puzzle: line 2 has 2 cells; expected 3"
    assert puzzle_error("1 2\n3 4 5\n") == "puzzle: line 2 has 3 cells; expected 2"
    assert puzzle_error("1,1,5\n2,2,6,3\n") == "puzzle: line 2 has 4 values; expected 3 (row,col,digit)"


def test_same_cell_two_digits_names_both_lines():
    assert puzzle_error(np.array([[1, 1, 5], [2, 3, 4], [1, 1, 6], [4, 4, 4]])) == \
        "puzzle: cell (1, 1) given two digits: 5 (line 1) and 6 (line 3)"
    assert puzzle_error("9,9,1\n1,1,5\n9,9,2\n2,2,2\n") == \
        "puzzle: cell (9, 9) given two digits: 1 (line 1) and 2 (line 3)"
    # the same clue twice is not a contradiction
    np.testing.assert_array_equal(parse_puzzle(np.array([[1, 1, 5], [1, 1, 5]])).grid, clue_grid([(1, 1, 5)]))


def test_line_numbers_count_the_header(tmp_path):
    path = tmp_path / "clues.csv"
    path.write_text("row,col,digit\n1,1,5\n2,3,4\n1,1,6\n4,4,4\n")
    assert puzzle_error(path) == f"{path}: cell (1, 1) given two digits: 5 (line 2) and 6 (line 4)"


DUPLICATES = [
    # (grid cells (r, c) 1-based holding digit 1, variant, expected unit text)
    ([(1, 1), (1, 5)], "classic", "row 1: cells (1, 1) and (1, 5)"),
    ([(4, 7), (9, 7)], "classic", "column 7: cells (4, 7) and (9, 7)"),
    ([(4, 4), (6, 5)], "classic", "box 5: cells (4, 4) and (6, 5)"),
    ([(7, 9), (8, 8)], "classic", "box 9: cells (7, 9) and (8, 8)"),
    ([(2, 2), (8, 8)], "x", "the main diagonal: cells (2, 2) and (8, 8)"),
    ([(1, 9), (9, 1)], "x", "the anti-diagonal: cells (1, 9) and (9, 1)"),
]


@pytest.mark.parametrize("cells,variant,where", DUPLICATES)
def test_two_equal_clues_in_one_unit(cells, variant, where):
    grid = np.zeros((9, 9), dtype=int)
    for r, c in cells:
        grid[r - 1, c - 1] = 1
    assert puzzle_error(compact(grid), variant=variant) == f"puzzle: digit 1 appears twice in {where}"


def test_two_equal_clues_in_one_region():
    regions = "0001011122332233"  # region 2 (id 1) = cells (1,4), (2,2), (2,3), (2,4)
    grid = "...3.3.........."      # 3 at (1, 4) and (2, 2): different row, column
    assert puzzle_error(grid, regions=regions) == "puzzle: digit 3 appears twice in region 2: cells (1, 4) and (2, 2)"
    # a jigsaw_x diagonal
    assert puzzle_error("2.........2.....", regions="0011001122332233", variant="jigsaw_x") == \
        "puzzle: digit 2 appears twice in the main diagonal: cells (1, 1) and (3, 3)"


def test_regions_must_be_n_regions_of_n_cells():
    assert puzzle_error("." * 16, regions="0011001122332244") == \
        "regions: expected 4 regions of 4 cells each, found 5 distinct ids"
    assert puzzle_error("." * 16, regions="001100112233223") == \
        "regions: expected 16 cells (one region id per cell), found 15"
    assert puzzle_error("." * 81, regions="0" * 81) == \
        "regions: expected 9 regions of 9 cells each, found 1 distinct ids"
    assert puzzle_error("." * 16, variant="jigsaw") == \
        ("regions: variant jigsaw needs regions (one region id per cell: --regions, a document's \"regions\", or a "
         "batch table's regions column)")
    assert puzzle_error("." * 16, regions="0011001122332233", variant="classic") == \
        "regions: regions are given but variant is 'classic' (use jigsaw or jigsaw_x)"


def test_region_of_wrong_size_is_named():
    # 4 ids, but id 0 has 5 cells and id 1 has 3
    assert puzzle_error("." * 16, regions="0001001122332233") == \
        "regions: expected 4 regions of 4 cells each; region '0' has 5 cells"


def test_box_must_tile_the_grid():
    grid6 = "\n".join(" ".join("0" * 6) for _ in range(6))
    assert puzzle_error(grid6, box="3x3") == "box: 3x3 boxes do not tile a 6x6 grid (h*w must be 6)"
    assert puzzle_error(np.zeros((6, 6), dtype=int), box=(2, 2)) == \
        "box: 2x2 boxes do not tile a 6x6 grid (h*w must be 6)"
    with pytest.raises(PuzzleError) as err:
        Puzzle(np.zeros((9, 9), dtype=int), 2, 2)
    assert str(err.value) == "box: 2x2 boxes do not tile a 9x9 grid (h*w must be 9)"


def test_unknown_variant_and_missing_file():
    assert puzzle_error("." * 16, variant="samurai") == \
        "variant: unknown variant 'samurai'; expected one of classic, x, jigsaw, jigsaw_x, latin, raw"
    assert puzzle_error("/no/such/puzzle.txt") == "puzzle: no such file '/no/such/puzzle.txt'"
    # a name with a reader's extension is a missing file even where it is also valid puzzle text
    assert puzzle_error("nonexist.txt") == "puzzle: no such file 'nonexist.txt'"
    # of a square length too (16, 81 cells), where its letters cannot be a 4x4's or a 9x9's cells,
    # nor '.' a region id: --regions nonexistfile.txt said "expected 4 regions, found 10 ids"
    assert puzzle_error("abcdefghijkl.csv") == "puzzle: no such file 'abcdefghijkl.csv'"
    assert puzzle_error("a" * 77 + ".txt") == f"puzzle: no such file '{'a' * 77}.txt'"
    assert puzzle_error("." * 16, box="2x2", variant="jigsaw", regions="nonexistfile.txt") == \
        "regions: no such file 'nonexistfile.txt'"
    assert puzzle_error("/no/such/puzzle") == "puzzle: no such file '/no/such/puzzle' (and it is not a puzzle string)"


@pytest.mark.parametrize("text", ["", "  ", "\t"])
def test_empty_text_is_empty_input_not_a_missing_file(text):
    """``pipeline.solve('')`` said "no such file ''" (outside check)."""
    assert puzzle_error(text) == "puzzle: empty input: expected a puzzle"
    assert puzzle_error("." * 16, box="2x2", variant="jigsaw", regions=text) == \
        "regions: empty input: expected region ids"


def test_comment_only_input_is_empty():
    assert puzzle_error("# nothing here\n\n") == "puzzle: empty input: expected a puzzle"


def test_parse_grid_does_not_check_rules():
    bad = np.ones((9, 9), dtype=int)
    np.testing.assert_array_equal(parse_grid(compact(bad)), bad)
    with pytest.raises(PuzzleError):
        parse_puzzle(compact(bad))


# ---------------------------------------------------------------------------------------------
# the Puzzle object
# ---------------------------------------------------------------------------------------------
def test_puzzle_is_immutable_and_hashable():
    p = parse_puzzle(SEED)
    with pytest.raises(ValueError):
        p.grid[0, 0] = 1
    assert hash(p) == hash(parse_puzzle(SEED.replace("0", ".")))
    assert p != parse_puzzle(SEED, variant="latin")
    assert p != parse_puzzle(SEED[:-1] + "2")


@pytest.mark.parametrize("variant,expected", [
    ("classic", ["row", "col", "box"]), ("x", ["row", "col", "box", "diag", "anti"]),
    ("latin", ["row", "col"]),
])
def test_unit_families(variant, expected):
    p = Puzzle(np.zeros((4, 4), dtype=int), 2, 2, variant)
    fams = p.unit_families()
    assert [f for f, _ in fams] == expected
    cells = dict(fams)
    np.testing.assert_array_equal(cells["row"][1], [4, 5, 6, 7])
    np.testing.assert_array_equal(cells["col"][1], [1, 5, 9, 13])
    if "box" in cells:
        np.testing.assert_array_equal(cells["box"][1], [2, 3, 6, 7])  # boxes row-major
    if "diag" in cells:
        np.testing.assert_array_equal(cells["diag"][0], [0, 5, 10, 15])
        np.testing.assert_array_equal(cells["anti"][0], [3, 6, 9, 12])


def test_pattern_grids_are_valid_puzzles():
    for h, w in [(1, 4), (2, 2), (2, 3), (3, 3), (4, 4)]:
        g = pattern_grid(h, w)
        p = parse_puzzle(g, box=(h, w))
        assert p.n_clues == h * w * h * w


# ---------------------------------------------------------------------------------------------
# property: text forms round-trip for random shapes
# ---------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(h=st.integers(1, 4), w=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), density=st.floats(0, 1),
       sep=st.sampled_from([" ", ",", ", ", "\t"]))
def test_property_text_forms_round_trip(h, w, seed, density, sep):
    rng = np.random.default_rng(seed)
    n = h * w
    assume(n >= 4)   # smaller grids are not puzzles (test_grids_below_4x4_are_refused)
    grid = np.where(rng.random((n, n)) < density, shuffled_sudoku(h, w, rng), 0)
    box = f"{h}x{w}"
    want = Puzzle(grid, h, w)
    assert parse_puzzle(compact(grid), box=box) == want                      # one line, row-major
    assert parse_puzzle("\n".join(compact(row) for row in grid), box=box) == want      # N lines
    separated = "\n".join(sep.join(str(v) for v in row) for row in grid)
    assert parse_puzzle(separated, box=box) == want
    clues = np.argwhere(grid)
    if len(clues) != 3:  # 3 clue rows read as a 3x3 grid: see test_three_clue_list_is_a_clue_list
        rows = np.column_stack([clues + 1, grid[grid > 0]])
        assert parse_puzzle(rows, box=box) == want
    assert Puzzle.from_dict(want.to_dict()) == want


@pytest.mark.parametrize("text, options, n", [
    (",", {}, 1), (";", {}, 1), ("1", {}, 1), (".", {}, 1), ("1\n", {}, 1),
    ("12.1", {}, 2), ("1.2.", {"box": "1x2"}, 2), ("1........", {}, 3), ("1 0 0\n0 0 0\n0 0 0", {}, 3),
    ("1...", {"variant": "x"}, 2), ("1", {"variant": "latin"}, 1),
])
def test_grids_below_4x4_are_refused(text, options, n):
    """Issue 21 section 5: Sudoku-family puzzles are 4x4 and larger, Latin squares 2x2 and larger;
    a lone separator or digit is not a 1x1 puzzle."""
    with pytest.raises(PuzzleError, match=rf"^puzzle: a {n}x{n} grid is not a puzzle: \w+ puzzles are [24]x[24] and larger"):
        parse_puzzle(text, **options)


def test_the_smallest_puzzles_are_accepted():
    assert parse_puzzle("12..", variant="latin").n == 2
    assert parse_puzzle("1...", variant="latin").n_clues == 1
    assert parse_puzzle("1." + "." * 14).n == 4
    assert parse_puzzle("1..." + "." * 5, variant="latin").n == 3


@pytest.mark.parametrize("text", ["1#>idED5", "1.......2......3 # row one", "1.......#......3"])
def test_a_hash_inside_a_line_is_not_a_comment(text):
    """A comment is a line that starts with '#': text after a '#' is part of the line (before,
    '1#>idED5...' was the 1x1 puzzle '1')."""
    with pytest.raises(PuzzleError):
        parse_puzzle(text + "\n")
    assert parse_puzzle("# a comment\n  # another\n1.......2......3\n").n_clues == 3


@pytest.mark.parametrize("rows", [
    lambda g: list(g),                                   # a list of numpy rows: their str() was read ("5 '[' ... ']' pairs")
    lambda g: [row.astype(float) for row in g],
    lambda g: tuple(tuple(row) for row in g.tolist()),   # tuples: "bad cell '((1'"
])
def test_parse_grid_reads_rows_by_their_values_not_their_text(rows):
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    np.testing.assert_array_equal(parse_grid(rows(grid)), grid)
    np.testing.assert_array_equal(parse_grid(rows(grid)), parse_puzzle(rows(grid)).grid)


def test_parse_grid_refuses_bad_numpy_rows_by_row_and_column():
    with pytest.raises(PuzzleError, match=r"^grid: row 1, column 1: 1\.5 is not an integer"):
        parse_grid([np.array([1.5, 2.0]), np.array([2.0, 1.0])])
    with pytest.raises(PuzzleError, match=r"^grid: the grid's rows are of different lengths$"):
        parse_grid([np.array([1, 2]), np.array([2])])


def test_parse_grid_reads_rows_that_are_series_by_their_values():
    pd = pytest.importorskip("pandas")
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    frame = pd.DataFrame(grid)   # its rows as a user takes them: their str() was read ("'dtype:' is not a number")
    np.testing.assert_array_equal(parse_grid([row for _, row in frame.iterrows()]), grid)


@pytest.mark.parametrize("source, kind", [(["1234", "3412", "2143", "4321"], "list of str"),
                                          (("1...", "....", "....", "...."), "tuple of str"),
                                          ([np.int64(1)] + [np.int64(0)] * 15, "list of int64")])
def test_parse_grid_refuses_a_flat_list_whose_text_is_no_grid(source, kind):
    # their str() was read: "'1234'" is not a number, bad cell "('1...'", 'np.int64(1)' is not a number
    with pytest.raises(PuzzleError, match=rf"^grid: expected text, a file path, an array or a list of rows, "
                                          rf"found a {kind}$"):
        parse_grid(source)


@pytest.mark.parametrize("value, shown", [(10 ** 5000, "of about 5,000 digits"), (-10 ** 50, "of about 50 digits")],
                         ids=["5000 digits", "50 digits"])
def test_parse_grid_names_a_huge_entry_of_a_row(value, shown):
    # an int past a float raised OverflowError (math.isfinite), one past 4,300 digits ValueError (its str())
    with pytest.raises(PuzzleError, match=rf"^grid: row 1, column 1: entry {shown} is too large$"):
        parse_grid([[value, 0, 0, 0]] + [[0] * 4] * 3)


def test_parse_grid_reads_float16_rows_without_an_overflow_warning():
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    rows = [row.astype(np.float16) for row in np.where(grid == 4, np.nan, grid)]
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("error")   # abs(v) > 2**31 cast 2**31 to float16: RuntimeWarning
        np.testing.assert_array_equal(parse_grid(rows), np.where(grid == 4, 0, grid))


ROW_KINDS = [list, tuple, np.array, lambda r: np.array(r, dtype=float), lambda r: np.array(r, dtype=object),
             lambda r: np.array(r, dtype=np.int8), lambda r: np.array([str(v) for v in r])]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.data())
def test_parse_grid_reads_rows_of_any_kind_by_their_values(side, data):
    """Rows of mixed kinds (lists, tuples, numpy rows of ints, floats, objects or text) read as their array."""
    grid = np.array([[data.draw(st.integers(0, side)) for _ in range(side)] for _ in range(side)])
    rows = [data.draw(st.sampled_from(ROW_KINDS))(row.tolist()) for row in grid]
    np.testing.assert_array_equal(parse_grid(rows), grid)
