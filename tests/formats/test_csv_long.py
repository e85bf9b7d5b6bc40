"""The long-form CSV reader (formats/csv_long.py): the bytes path (the file as written) and the
pandas path (quoted fields, other column orders) read the same entries and refuse the same lines
with the same messages."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.csv_long import LONG_HEADER, read_long_entries
from pipeline.core.errors import FormatError

_label = st.from_regex(r"[a-z][a-z0-9_()é]{0,12}", fullmatch=True)
_value = st.one_of(st.integers(-(10 ** 6), 10 ** 6).map(str),
                   st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                   st.sampled_from(["1", "-1", "0.5", "1e3", "+2", "1.", ".5"]))


def _text(lines: list[tuple[str, str, str]], *, quoted: bool, blank_every: int, crlf: bool) -> bytes:
    """The file: the header, then ``label,name,value`` lines (every field in quotes when
    ``quoted``: pandas' path), a blank line after every ``blank_every``-th."""
    end = "\r\n" if crlf else "\n"
    quote = '"' if quoted else ""
    out = [LONG_HEADER.decode()]
    for k, (label, name, value) in enumerate(lines):
        out.append(f"{quote}{label}{quote},{quote}{name}{quote},{value}")
        if blank_every and k % blank_every == blank_every - 1:
            out.append("")
    return (end.join(out) + end).encode()


def _expected(lines: list[tuple[str, str, str]], blank_every: int):
    """The entries by a Python loop over the lines: codes by first appearance."""
    labels, names, rows, cols, values, numbers = {}, {}, [], [], [], []
    line = 1
    for k, (label, name, value) in enumerate(lines):
        line += 1
        row = labels.setdefault(label, len(labels))
        if name:
            rows.append(row)
            cols.append(names.setdefault(name, len(names)))
            values.append(float(value))
            numbers.append(line)
        if blank_every and k % blank_every == blank_every - 1:
            line += 1
    return list(labels), list(names), rows, cols, values, numbers


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_label, st.one_of(st.just(""), _label.map(lambda s: "x_" + s)), _value),
                min_size=1, max_size=30, unique_by=lambda t: (t[0], t[1]) if t[1] else object()),
       st.booleans(), st.integers(0, 4), st.booleans())
def test_both_paths_read_what_a_python_loop_reads(tmp_path_factory, lines, quoted, blank_every, crlf):
    path = tmp_path_factory.mktemp("long") / "Aeq_long.csv"
    path.write_bytes(_text(lines, quoted=quoted, blank_every=blank_every, crlf=crlf))
    got = read_long_entries(path)
    labels, names, rows, cols, values, numbers = _expected(lines, blank_every)
    assert got.row_labels.tolist() == labels and got.col_names.tolist() == names
    assert got.rows.tolist() == rows and got.cols.tolist() == cols
    assert np.array_equal(got.values, np.array(values, dtype=float)) and got.lines.tolist() == numbers


_GOOD = [("cell_1_1", "x_1_1_1", "1"), ("cell_1_1", "x_1_1_2", "1"), ("row_1_1", "x_1_1_1", "-1")]


@pytest.mark.parametrize("line, message", [
    (",x_1_1_3,1", "line 6: a row without a label"),
    ("cell_2,x_1_1_3,x", "line 6: the value 'x' is not a number"),
    ("cell_2,x_1_1_3,1_0", "line 6: the value '1_0' is not a number"),
    ("cell_2,x_1_1_3,inf", "line 6: the value is not a finite number"),
    ("cell_2,x_1_1_3,nan", "line 6: the value is not a finite number"),
    ("cell_2,x_1_1_3,1e400", "line 6: the value is not a finite number"),
    ("cell_2,x_1_1_3,", "line 6: the value is not a finite number"),
    ("row_1_1,x_1_1_1,2", "line 6: entry (row_1_1, x_1_1_1) listed twice"),
])
@pytest.mark.parametrize("quoted", [False, True])
def test_both_paths_refuse_a_bad_line_alike(tmp_path, line, message, quoted):
    # the bad line comes after a blank one: line numbers count blank lines, data numbers do not
    text = _text(_GOOD, quoted=quoted, blank_every=0, crlf=False).decode()
    if quoted:
        label, name, value = line.split(",")
        line = f'"{label}","{name}",{value}' if label else f',"{name}",{value}'
    path = tmp_path / "Aeq_long.csv"
    path.write_text(text + "\n" + line + "\n")
    with pytest.raises(FormatError) as info:
        read_long_entries(path)
    assert str(info.value) == f"{path}: {message}"


@pytest.mark.parametrize("text", ["", "row_label,col_name\nr,x_1,1\n", "a,b,c\n1,2,3\n"])
def test_not_a_long_form_file_is_refused_in_one_line(tmp_path, text):
    path = tmp_path / "Aeq_long.csv"
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        read_long_entries(path)
    assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


def test_extra_columns_and_another_order_go_through_pandas(tmp_path):
    path = tmp_path / "Aeq_long.csv"
    path.write_text("value,note,col_name,row_label\n2.5,a,x_1,r1\n1,b,x_2,r2\n")
    got = read_long_entries(path)
    assert got.row_labels.tolist() == ["r1", "r2"] and got.col_names.tolist() == ["x_1", "x_2"]
    assert got.values.tolist() == [2.5, 1.0] and math.isclose(got.values.sum(), 3.5)
