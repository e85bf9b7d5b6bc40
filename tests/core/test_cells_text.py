"""Cells of one line of grid text (:mod:`pipeline.core.cells_text`)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.core.cells_text import drop_trailing_empty_column, split_cells
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
