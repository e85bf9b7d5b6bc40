"""formats/solutions/common.py: the numbers of a solver's answer are ASCII, as every solver writes them."""
from __future__ import annotations

import pytest

from formats.solutions.common import parse_float, parse_floats
from pipeline.core.errors import FormatError


@pytest.mark.parametrize("token", ["\u0664", "\uff14", "\U0001d7d2", "\uff14.\uff10", "1\u0660"])
def test_another_script_s_digits_are_not_a_number(token):
    """float() reads them (Arabic-Indic, fullwidth, mathematical bold): an answer with such a cell
    was imported as a grid while the puzzle readers refuse the same characters."""
    assert float(token)   # what the readers had relied on
    with pytest.raises(FormatError, match=rf"^f\.csv: cell: '{token}' is not a number$"):
        parse_floats(["1", "0", token], "f.csv", "cell")
    with pytest.raises(FormatError, match=rf"^f\.csv: line 7: '{token}' is not a number$"):
        parse_floats([token], "f.csv", "cell", lines=[7])
    with pytest.raises(FormatError, match=rf"^f\.sol: objective: '{token}' is not a number$"):
        parse_float(token, "f.sol", "objective")


def test_ascii_numbers_still_read():
    assert parse_floats(["1", "-0", "1e0", "0.5"], "f", "v").tolist() == [1.0, 0.0, 1.0, 0.5]
    assert parse_float(" 2.5 ", "f", "objective") == 2.5
