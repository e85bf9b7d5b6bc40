"""Cells of one line of grid text (:mod:`pipeline.core.cells_text`)."""
from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core.cells_text import (drop_trailing_empty_column, matlab_matrix_problem, matlab_matrix_rows,
                                      matrix_of_rows, nested_list_rows, plain_clue_list, refuse_number_column,
                                      rows_as_text, split_cells, token_matrix)
from pipeline.core.errors import PuzzleError
import pipeline.core.document as document_module
import pipeline.core.parse as parse_module
from pipeline.core.parse import read_puzzle
from pipeline.core.puzzle import parse_grid, parse_puzzle

CELL = st.text(alphabet="0123456789.ABC", max_size=3)


@given(st.lists(CELL, min_size=2, max_size=30), st.sampled_from([",", ";", "\t"]))
def test_cells_joined_by_a_separator_split_back(cells, separator):
    assert split_cells(separator.join(cells)) == cells


@given(st.lists(CELL.filter(bool), min_size=1, max_size=30))
def test_cells_quoted_in_a_csv_line_split_back(cells):
    assert split_cells(",".join(f'"{cell}"' for cell in cells) + ",") == cells + [""]


def test_a_quoted_field_past_the_csv_limit_is_a_puzzle_error():
    with pytest.raises(PuzzleError, match=r"^grid\.csv: a quoted field that is no cell \(field larger than"):
        split_cells('1,"' + "a" * 131_073 + '"', "grid.csv")


def test_a_trailing_comma_goes_only_where_it_makes_the_grid_square():
    assert drop_trailing_empty_column([["1", ""], ["2", ""]]) == [["1", ""], ["2", ""]]   # 2x2 already
    assert drop_trailing_empty_column([["1", "2", ""], ["3", "4", ""]]) == [["1", "2"], ["3", "4"]]


# -- MATLAB's matrix syntax ----------------------------------------------------------------------
@pytest.mark.parametrize("text, rows", [
    ("[1 2 3; 2 1 1]", "1,2,3\n2,1,1"),
    ("clues = [1,2,3;2,1,1];", "1,2,3\n2,1,1"),
    ("[1 2 3\n 2 1 1\n 5 5 9]\n", "1,2,3\n2,1,1\n5,5,9"),
    ("1 2 3;\n2 1 1;\n", "1,2,3\n2,1,1"),
    ("[5 NaN 0; 1 2.0 3]", "5,NaN,0\n1,2.0,3"),
    ("% the clues\nclues = [1 2 3   % first\n         2 1 1];\n", "1,2,3\n2,1,1"),
    ("[1 2 ...  row one goes on\n 3; 2 1 1]", "1,2,3\n2,1,1"),
    ("[[1 2 3]; [2 1 1]]", "1,2,3\n2,1,1"),                       # rows stacked in brackets of their own
    ("[1,2,3,;2,1,1,]", "1,2,3\n2,1,1"),                           # a row may end in a comma
    ("[1e0 2 3; 2 1 1.6E1]", "1,2,3\n2,1,16"),                     # exponents
    ("# Octave's comment\n[1 2 3; 2 1 1]  # end", "1,2,3\n2,1,1"),
    ("%{\nblock\n%}\n[1 2 3; 2 1 1]", "1,2,3\n2,1,1"),
    ("x = int8([1 2 3; 2 1 1]);", "1,2,3\n2,1,1"),
])
def test_a_matlab_matrix_reads_as_rows_of_comma_separated_values(text, rows):
    assert matlab_matrix_rows(text) == rows


@pytest.mark.parametrize("text", [
    "1;2;3\n2;1;1\n",            # a CSV with ';' between fields: no spaces between values
    "1,2,3\n2,1,1\n",
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
    "[[1, 2, 3], [2, 1, 1]]",    # a JSON array of arrays: the nested-list reader's
    "[[1 2 3], [2 1 1]]",        # side by side (one row in MATLAB): not stacked rows
    "[1 2 x; 2 1 1]",
    "[]",
    "1 2 3;\n2 1 1\n",           # not every line ends its row
])
def test_other_text_is_not_a_matlab_matrix(text):
    assert matlab_matrix_rows(text) is None


@given(st.lists(st.lists(st.integers(0, 99), min_size=3, max_size=3), min_size=1, max_size=12),
       st.sampled_from([" ", ", ", ","]), st.sampled_from(["; ", ";", ";\n"]))
def test_any_matlab_matrix_of_integers_round_trips(rows, between, row_end):
    text = "[" + row_end.join(between.join(map(str, row)) for row in rows) + "]"
    assert matlab_matrix_rows(text) == "\n".join(",".join(map(str, row)) for row in rows)


@pytest.mark.parametrize("text, problem", [
    ("x = [1 1 5; 1 2 3;", "has no closing ']'"),
    ("[1 1 5; 1 2 3]\n[2 1 6]", "2 '[' ... ']' pairs"),
    ("[1 1 5; 2 2 x]", "row 2 of the MATLAB matrix, '2 2 x': 'x' is not a number"),
    ("clues = [1 1 5]; disp(clues)", "text after the MATLAB matrix's ']': 'disp(clues)'"),
    ("[ ; % nothing\n ]", "has no rows"),
    ("N = 9;\nclues = [1 1 5];", "text before the MATLAB matrix, 'N = 9;': give the matrix alone"),
    ("x = int8([1 1 5];", "'x = int8([1 1 5];' is not a MATLAB matrix as written"),
    ("% only a comment", "only MATLAB comments ('%'), no matrix"),
])
def test_text_that_opens_a_matlab_matrix_is_told_what_keeps_it_from_one(text, problem):
    assert matlab_matrix_rows(text) is None
    assert problem in matlab_matrix_problem(text)


@pytest.mark.parametrize("text", ["1 1 5", "53..7....", "[[1, 2], [3, 4]]", "a = 5", "1,[2],3"])
def test_text_that_opens_no_matlab_matrix_has_no_matlab_problem(text):
    assert matlab_matrix_problem(text) is None


@pytest.mark.parametrize("text, rows", [
    ("[[5, 3, 0], [null, 1, 2]]", "5,3,0\n,1,2"),
    ("[['5', '.', None], ['', 1, 2]]", "5,.,\n,1,2"),            # Python's repr of a list of lists
    ("\ufeff [[1.0, NaN]]\n", "1.0,nan"),
])
def test_nested_lists_read_as_rows_of_comma_separated_cells(text, rows):
    assert nested_list_rows(text) == rows


@pytest.mark.parametrize("text, message", [
    ("[[1, 2], [3", "not an array of rows"),
    ("[[1, 2], 3]", "item 2 of the array of rows is no row: 3"),
    ("[[1, true]]", "row 1, column 2: true is not a cell"),
    ("[[\"1,2\", 3]]", 'row 1, column 1: "1,2" is not a cell'),   # would split into two cells
    ("[[[1]]]", "row 1, column 1: [1] is not a cell"),
    ("[[], []]", "holds no cells"),
    ("[" * 100_000, "nested too deep"),
])
def test_nested_lists_that_are_no_grid_are_one_puzzle_error(text, message):
    with pytest.raises(PuzzleError, match="^here: ") as caught:
        nested_list_rows(text, "here")
    assert message in str(caught.value)


@given(st.lists(st.lists(st.one_of(st.none(), st.integers(0, 99), st.sampled_from([".", "0", "x"])),
                         min_size=1, max_size=9), min_size=1, max_size=9))
def test_any_nested_list_of_cells_round_trips(rows):
    text = json.dumps(rows)
    expected = "\n".join(",".join("" if v is None else str(v) for v in row) for row in rows)
    assert nested_list_rows(text) == expected


def test_rows_as_text_reads_python_rows_as_their_json_text():
    # a Python list of rows holding "5" or "" said "entries must be numbers", naming no cell,
    # where the same rows as JSON text read fine
    rows = [["1", "", "", ""], ["", "", "3", ""], [None, "4", "", ""], ["", "", "", 2]]
    assert parse_puzzle(rows, variant="latin").to_string() == parse_puzzle(json.dumps(rows), variant="latin").to_string()
    assert rows_as_text([[1, 2], [3, 4]]) is None
    with pytest.raises(PuzzleError, match="row 1, column 1"):
        parse_puzzle([["1,2", ""], ["", ""]])


@pytest.mark.parametrize("text", ["[[1234],[3412],[2143],[4321]]", "[[1234], [3412], [2143], [4321]]",
                                  "[1234; 3412; 2143; 4321]", "[[1234]; [3412]; [2143]; [4321]]",
                                  "[[1200340000000000]]", "[1200340000000000]", "[[99999999999999999999]]", "[[1e3]]"])
def test_a_matrix_of_one_number_a_row_is_no_grid_of_those_digits(text):
    # a matrix's number is one cell: read as the digits of a compact row, [[1234], ...] was a 4x4
    # grid while the same list handed to the API is a 4-by-1 matrix, and [[99999999999999999999]]
    # was "wrong length: ... found 20"
    with pytest.raises(PuzzleError, match=r"^puzzle: matrix is \d+-by-1 .*must be N-by-3 or N-by-N"):
        read_puzzle(text)


@given(st.lists(st.integers(10, 10**30), min_size=1, max_size=12), st.booleans())
def test_any_column_of_numbers_is_refused_as_n_by_1(numbers, matlab):
    text = ("[" + "; ".join(map(str, numbers)) + "]") if matlab else json.dumps([[v] for v in numbers])
    with pytest.raises(PuzzleError, match=rf"matrix is {len(numbers)}-by-1"):
        read_puzzle(text)


def test_rows_of_compact_text_still_read_as_a_grid():
    assert read_puzzle("1234\n3412\n2143\n4321").grid.tolist() == [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    assert refuse_number_column(None) is None


@pytest.mark.parametrize("rows, message", [
    ([[True, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4], "row 1, column 1: True is a bool, not a cell"),
    ([[1, 1, True]], "row 1, column 3: True is a bool, not a cell"),
    ([[1, 2, 3], [False, 1, 1]], "row 2, column 1: False is a bool, not a cell"),
    (np.array([[1, 2, True]], dtype=object), "row 1, column 3: True is a bool"),
    ([[10**30]], "row 1, column 1: entry 1000000000000000000000000000000 is too large"),
    ([[1, 1, 99999999999999999999]], "row 1, column 3: entry 99999999999999999999 is too large"),
    ([[1e308]], "row 1, column 1: entry 1e[+]308 is too large"),
    ([[1, 2, 1.5]], "row 1, column 3: 1.5 is not an integer"),
    ([[1, 2], [3]], "the grid's rows are of different lengths"),
])
def test_a_list_of_rows_names_the_entry_it_cannot_read(rows, message):
    # True among numbers was read as the digit 1 (JSON's true and a bool array are refused), and
    # 10**30 was told as its rounded float, 1000000000000000019884624838656, with no place
    with pytest.raises(PuzzleError, match=f"^puzzle: {message}"):
        read_puzzle(rows)
    with pytest.raises(PuzzleError, match=message):
        matrix_of_rows(rows)


@given(st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=1, max_size=9))
def test_a_list_of_plain_numbers_is_the_array_numpy_makes(rows):
    assert matrix_of_rows(rows).tolist() == np.asarray(rows).tolist()


@pytest.mark.parametrize("text", ["[" + ",".join(["0"] * 100_000) + "]", "[" + " ".join(["1"] * 100_000) + "]",
                                  "[[" + ",".join(["0"] * 100_000) + "]]", "x = int8([" + "; ".join(["1 1 1"] * 30_000) + "]);"])
def test_reading_a_long_matlab_matrix_takes_memory_of_its_size_not_hundreds_of_bytes_a_character(text):
    # the regular expressions kept a backtracking frame a character or value: 167 MB for a row of
    # 200,000 cells (400 KB of text), so some 27 GB for a 64 MiB one-line matrix
    tracemalloc.start()
    try:
        rows = matlab_matrix_rows(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows is not None and peak < 20 * len(text), (peak, len(text))


@pytest.mark.parametrize("cell", ["\u0665", "1e0", "\uff15", "0x5"])
@pytest.mark.parametrize("make", [lambda rows: np.array(rows, dtype=str), lambda rows: np.array(rows, dtype=object),
                                  lambda rows: [np.array(row, dtype=object) for row in rows]],
                         ids=["str-array", "object-array", "object-rows"])
def test_an_array_of_text_refuses_what_the_same_rows_as_json_refuse(cell, make):
    """An array of text went to astype(float), which takes '\u0665' (Arabic-Indic 5) and '1e0' as 5 and 1
    where a list of the same rows (and their JSON text) refuse them."""
    rows = [["0"] * 4 for _ in range(4)]
    rows[1][2] = cell
    message = f"puzzle: bad cell {cell!r} at row 2, column 3"
    for source in (rows, json.dumps(rows), make(rows)):
        with pytest.raises(PuzzleError) as e:
            read_puzzle(source)
        assert str(e.value) == message


def test_an_array_of_text_reads_as_its_rows():
    rows = [["1", "", "nan", "4.0"], ["0"] * 4, ["0"] * 4, ["0"] * 4]
    assert read_puzzle(np.array(rows)).grid.tolist() == read_puzzle(rows).grid.tolist()
    assert read_puzzle(np.array(rows, dtype=object)).grid[0].tolist() == [1, 0, 0, 4]


@pytest.mark.parametrize("cell", ["\u0665", "1e0", "\uff15", "0x5"])
@pytest.mark.parametrize("dtype", [str, object])
def test_a_claimed_solution_as_an_array_of_text_refuses_what_its_rows_refuse(cell, dtype):
    """parse_grid (verify's solution reader) sent an array of text to astype(float), which read '1e0' as 1 and
    '\u0665' (Arabic-Indic 5) as 5, where the same rows as text, and read_puzzle, refuse them by row and column."""
    rows = [["1", "2", "3", "4"], ["3", "4", "1", "2"], ["2", "1", "4", "3"], ["4", "3", "2", "1"]]
    rows[1][2] = cell
    for source in (json.dumps(rows), np.array(rows, dtype=dtype)):
        with pytest.raises(PuzzleError, match=rf"^grid: bad cell '{cell}' at row 2, column 3$"):
            parse_grid(source)


def test_a_claimed_solution_as_an_array_of_text_reads_as_its_rows():
    rows = [["1", "", "nan", "4.0"], ["3", "4", "1", "2"], ["2", "1", "4", "3"], ["4", "3", "2", "1"]]
    assert parse_grid(np.array(rows)).tolist() == parse_grid(json.dumps(rows)).tolist()
    assert parse_grid(np.array(rows, dtype=object))[0].tolist() == [1, 0, 0, 4]
    assert parse_grid(np.array([["1", "1", "5"]]), size=9)[0, 0] == 5   # a clue list of text, as before


FOUR = "[3,3,3],[4,4,4]"   # two more rows: lists of three rows or fewer keep the text path


@pytest.mark.parametrize("text, clues", [
    (f"[[1,1,5],[2,3,7],{FOUR}]", [[1, 1, 5], [2, 3, 7], [3, 3, 3], [4, 4, 4]]),
    ("\ufeff [[1, 1, 5],\n  [2, 3, 7],\n [3, 3, 3], [4, 4, 4] ] \n", [[1, 1, 5], [2, 3, 7], [3, 3, 3], [4, 4, 4]]),
    (f"[[1,1,0],[1,2,123456789],{FOUR}]", [[1, 1, 0], [1, 2, 123456789], [3, 3, 3], [4, 4, 4]]),
    ("[[1,1,1],[1,2,2],[1,1,1],[1,2,2]]", [[1, 1, 1], [1, 2, 2], [1, 1, 1], [1, 2, 2]]),
])
def test_plain_clue_list_reads_rows_of_three_whole_numbers(text, clues):
    result = plain_clue_list(text)
    assert result is not None and result.dtype == np.int64 and result.tolist() == clues


@pytest.mark.parametrize("text", [
    "[[1,1,1],[1,2,2],[3,3,3]]",         # three rows: a 3x3 grid unless a size says otherwise
    "[[2,3,14]]", "[[1,1,5],[2,3,7]]",   # short: the text path's messages (a row's "of the MATLAB matrix")
    *(text.replace("]]", f"],{FOUR}]", 1) for text in (
        "[[1,1,01],[1,2,2]]", "[[1,1,-1],[1,2,2]]", "[[1,1,1.0],[1,2,2]]", "[[1,1,1e0],[1,2,2]]",
        "[[1,1,null],[1,2,2]]", '[[1,1,"5"],[1,2,2]]', "[[1,1,1 2],[1,2,2]]", "[[1,1,1234567890],[1,2,2]]",
        "[[1,1,1],[1,2,2],]", "[[1,1,1]],[[1,2,2]]", "[[1,1],[1,2,2]]", "[[1,1,1,1],[1,2,2,2]]", "[[1,,1],[1,2,2]]",
        "[[1,1,\u0665],[1,2,2]]", "[[1,1,1]\x0b,[1,2,2]]")),
    "[[]]", "[[1,1,1],[1,2,2]", "[1,1,1]",
])
def test_plain_clue_list_leaves_anything_else_to_the_json_reader(text):
    assert plain_clue_list(text) is None


@pytest.mark.parametrize("text", [
    "[[1,1,1],[1,2,2],[1,1,1],[1,2,2]]", "[[1,1,1],[1,1,2]]", "[[0,0,1],[1,2,2]]", "[[1,1,12],[1,2,2]]",
    "[[1,1,1],[1,2,2],[3,3,3],[9,9,0]]", "[[1,1,1],[1,2,2],[1,10,3],[2,2,2]]", " [[1, 1, 1],\n [2, 2, 2]] ",
])
@pytest.mark.parametrize("size", [None, 4, 16])
def test_a_plain_clue_list_reads_as_json_read_it(text, size, tmp_path, monkeypatch):
    """The same grid, or the same message, as when json.loads read the file."""
    path = tmp_path / "clues.json"
    path.write_text(text)

    def read():
        try:
            return parse_puzzle(str(path), size=size).grid.tolist()
        except PuzzleError as e:
            return str(e)

    fast = read()
    monkeypatch.setattr(parse_module, "plain_clue_list", lambda text: None)
    monkeypatch.setattr(document_module, "plain_clue_list", lambda text: None)
    assert fast == read()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 4, 9, 10, 16, 17, 99, 10**9, 10**10]), min_size=3, max_size=3),
                min_size=0, max_size=9),
       st.sampled_from([",", ", ", ",\n", " ,\t"]), st.sampled_from([None, 4, 9, 16]))
def test_any_clue_list_reads_as_json_read_it(rows, sep, size):
    """Hypothesis: every list of rows of three (short, long, 0, past the grid, ten digits) gives
    the grid or the message json.loads' path gives; '[[2,3,14]]' with --size 16 raised ValueError."""
    text = "[" + sep.join("[" + ",".join(map(str, row)) + "]" for row in rows) + "]"

    def read(fast: bool):
        with pytest.MonkeyPatch.context() as patch:
            if not fast:
                patch.setattr(parse_module, "plain_clue_list", lambda text: None)
                patch.setattr(document_module, "plain_clue_list", lambda text: None)
            try:
                return parse_puzzle(text, size=size).grid.tolist()
            except PuzzleError as e:
                return str(e)

    assert read(True) == read(False)


def test_a_long_clue_list_takes_memory_of_its_size_not_fifty_bytes_a_character(tmp_path):
    # json.loads made a Python list and int of every value: 790 MB peak for a 16 MB file
    text = "[" + ",".join(["[1,1,1],[1,2,2]"] * 50_000) + "]"
    path = tmp_path / "clues.json"
    path.write_text(text)
    tracemalloc.start()
    try:
        grid = parse_puzzle(str(path)).grid
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert grid[0, :2].tolist() == [1, 2] and peak < 20 * len(text), (peak, len(text))


def _cell_by_cell(rows, clue_list, side):
    """The per-cell reader's matrix, or its message."""
    matrix = np.empty((len(rows), len(rows[0])), dtype=np.int64)
    try:
        for i, row in enumerate(rows):
            for j, tok in enumerate(row):
                matrix[i, j] = parse_module._token_value(tok, "p", i + 1, j, clue_list, side)
    except PuzzleError as e:
        return str(e)
    return matrix


#: a cell as a file may hold one: plain numbers most often, and what is near one
TOKEN = st.one_of(
    st.from_regex(r"\A[+-]?[0-9]{1,4}(\.0{0,3})?\Z"),
    st.sampled_from(["", ".", "0", "-", "+", "-0", "+0", "3.0", "3.", "3.5", ".5", "1e0", "\u0665", "nan", "NaN",
                     "a", "Z", "+-1", "1-", "5..0", "5.0.0", "0" * 13, "9" * 12, "9" * 13, "1 2", " 5", "5\n", "\t"]),
    st.text(alphabet="0123456789+-.eE\u0665 x", max_size=14))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.data(), st.booleans())
def test_token_matrix_reads_what_the_cell_by_cell_reader_reads(height, width, data, clue_list):
    rows = [[data.draw(TOKEN) for _ in range(width)] for _ in range(height)]
    side = width if height == width else 0
    fast = token_matrix(rows, clue_list)
    if fast is not None:   # None: the cell-by-cell reader reads them, as before
        slow = _cell_by_cell(rows, clue_list, side)
        assert not isinstance(slow, str), (rows, slow)
        assert fast.dtype == np.int64 and fast.tolist() == slow.tolist(), rows


@pytest.mark.parametrize("cells, clue_list", [([["5", "", "+3"], [".", "-0", "7.00"]], False),
                                              ([["12", "3", "007"], ["-1", "+2", "9."]], True)])
def test_token_matrix_reads_plain_numbers(cells, clue_list):
    assert token_matrix(cells, clue_list).tolist() == _cell_by_cell(cells, clue_list, 0).tolist()


@pytest.mark.parametrize("cells", [[["5", ""]], [["5", "."]], [["1e0"]], [["\u0665"]], [["+"]], [["3.5"]],
                                   [[".5"]], [["9" * 13]], [["a"]]])
def test_token_matrix_leaves_anything_else_to_the_cell_by_cell_reader(cells):
    assert token_matrix(cells, clue_list=True) is None
