"""Numeric tables (formats/solutions/tables.py): MATLAB grids with a ragged row."""
from __future__ import annotations

import re

import pytest

from formats.solutions import read_solution
from pipeline.core.errors import FormatError

SOLVED = ["5,3,4,6,7,8,9,1,2", "6,7,2,1,9,5,3,4,8", "1,9,8,3,4,2,5,6,7", "8,5,9,7,6,1,4,2,3", "4,2,6,8,5,3,7,9,1",
          "7,1,3,9,2,4,8,5,6", "9,6,1,5,3,7,2,8,4", "2,8,7,4,1,9,6,3,5", "3,4,5,2,8,6,1,7,9"]


@pytest.mark.parametrize("line, text", [
    (9, "\n".join(SOLVED[:8] + ["3,4"]) + "\n"),                       # a short last row
    (2, "\n".join(SOLVED[:1] + ["6,7"] + SOLVED[2:]) + "\n"),           # a short row inside
    (5, "Var1,Var2,Var3,Var4\n1,2,3,4\n\n3,4,1,2\n2,1,4\n4,3,2,1\n"),    # writetable's names, a blank line
    (4, "S =\n\n 1 2 3 4\n 3 4\n 2 1 4 3\n 4 3 2 1\n"),                 # Octave's display
])
def test_a_ragged_grid_row_is_named_as_verify_names_it(tmp_path, line, text):
    """An outside probe: a MATLAB grid with one short row was "unrecognised solution format;
    tried ..." on import, while verify said "line 9 has 2 cells; expected 9"."""
    path = tmp_path / "g_ragged.csv"
    path.write_text(text)
    width = 4 if "Var1" in text or "S =" in text else 9
    with pytest.raises(FormatError, match=rf"^{re.escape(str(path))}: line {line} has \d cells; expected {width}$"):
        read_solution(path)


def test_a_ragged_matrix_row_is_named_by_its_row(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("[1 2 3 4; 3 4 1 2; 2 1; 4 3 2 1]\n")
    with pytest.raises(FormatError, match=r"x\.txt: row 3 of the MATLAB matrix has 2 cells; expected 4$"):
        read_solution(path)
