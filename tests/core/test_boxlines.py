"""The box shape a printed grid's lines draw (pipeline/core/boxlines.py); reading such grids
back is tests/core/test_parse.py's."""
from __future__ import annotations

from pipeline.core.boxlines import drawn_box


def test_uneven_box_lines_draw_no_box():
    assert drawn_box("12|34\n34|12\n21|43\n43|21", 4) == (2, 2)       # columns alone: h = n / w
    assert drawn_box("1234\n3412\n----\n2143\n4321", 4) == (2, 2)     # rows alone: w = n / h
    assert drawn_box("1|234\n34|12\n21|43\n43|21", 4) is None        # one row cut elsewhere
    assert drawn_box("123456\n------\n456123\n234561\n------\n561234\n345612\n612345", 6) is None
    assert drawn_box("12 34\n34 12\n21 43\n43 21", 4) is None         # no lines
