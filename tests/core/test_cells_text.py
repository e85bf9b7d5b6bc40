"""Cells of one line of grid text (:mod:`pipeline.core.cells_text`)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.core.cells_text import drop_trailing_empty_column, matlab_matrix_rows, split_cells
from pipeline.core.errors import PuzzleError

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
])
def test_a_matlab_matrix_reads_as_rows_of_comma_separated_values(text, rows):
    assert matlab_matrix_rows(text) == rows


@pytest.mark.parametrize("text", [
    "1;2;3\n2;1;1\n",            # a CSV with ';' between fields: no spaces between values
    "1,2,3\n2,1,1\n",
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
    "[[1, 2, 3], [2, 1, 1]]",    # a JSON array of arrays: the JSON reader's
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
