"""The OPB reader's byte parser: the statements of a file as numpy arrays, the same as the text
parser's (which gives the messages of bad files), with memory in proportion to the file, not a
Python list per statement and a str per term (a 44 MB 100x100 file peaked at 1.35 GB). No timing:
the memory bound is the text parser's own twice over."""
from __future__ import annotations

import dataclasses
import tracemalloc

import numpy as np
import pytest

import formats.opb as opb
import formats.opb_read as opb_read
from formats.base import ModelData
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle
from tests.formats.test_opb import assert_same

CAGE = '{"size": 4, "givens": ["r1c1=1"], "rules": [{"rule": "cage", "cells": ["r2c1", "r2c2"], "sum": 7}, ' \
       '{"rule": "greater", "cells": ["r3c1", "r3c2"]}]}'


def _parsed(text: str) -> tuple[opb_read._Statements, opb_read._Statements | None]:
    data = np.frombuffer(text.encode("ascii"), np.uint8)
    return opb_read._parse_text(text, "m.opb"), opb_read._parse_bytes(data, "m.opb")


def _assert_same_statements(a, b) -> None:
    for field in dataclasses.fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if field.name == "cost_terms":
            assert len(x) == len(y) and all(np.array_equal(u, v) and np.array_equal(c, d) for (u, c), (v, d) in zip(x, y))
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), field.name
        else:
            assert x == y, field.name


def _variants(text: str) -> list[str]:
    """The same statements spelled as other tools may: CRLF, tabs, ';' glued to the last token,
    comment lines between rows (one with a ';' in it), an objective, a statement over two lines."""
    head, _, body = text.partition("* variables")
    lines = body.splitlines()
    glued = "\n".join(line.replace(" ;", ";") for line in lines)
    commented = "\n".join(f"{line}\n  * note; {k}" for k, line in enumerate(lines))
    return [text, text.replace("\n", "\r\n"), text.replace(" x", "\tx"), head + "* variables" + glued,
            head + "* variables" + commented, text.replace(" = 1 ;\n", "\n = 1 ;\n", 3),
            text.replace("* variables", "max: -3 x2 +4 x7 ;\nmin: ;\n* variables")]


@pytest.mark.parametrize("puzzle, clues", [('{"size": 4}', "rows"), ("1...............", "bounds"),
                                           ("1..2............", "reduce"), (CAGE, "rows"), (CAGE, "reduce")])
def test_the_byte_parser_reads_what_the_text_parser_reads(tmp_path, puzzle, clues):
    model = build_model(parse_puzzle(puzzle, box="2x2") if puzzle[0] != "{" else parse_puzzle(puzzle), clues=clues)
    opb.write(model, tmp_path / "m.opb")
    for text in _variants((tmp_path / "m.opb").read_text()):
        by_text, by_bytes = _parsed(text)
        assert by_bytes is not None
        _assert_same_statements(by_text, by_bytes)
    assert_same(opb.read(tmp_path / "m.opb"), ModelData.from_model(model))


@pytest.mark.parametrize("edit", [lambda t: t.replace("x3 ", "x3\x0b", 1), lambda t: t + "+1 x1 = 1",
                                  lambda t: t + ";", lambda t: t.replace("+1 x5", "+1 X5"),
                                  lambda t: t.replace("+1 x5", "1+ x5"), lambda t: t.replace("= 1 ;", "== 1 ;", 1),
                                  lambda t: t.replace("+1 x5", "+1 x5 +1"), lambda t: t + ";* x\n"])
def test_anything_else_is_left_to_the_text_parser(tmp_path, edit):
    # its messages are the ones tests/formats/test_opb.py asserts; the byte parser only declines
    opb.write(build_model(parse_puzzle('{"size": 4}')), tmp_path / "m.opb")
    text = edit((tmp_path / "m.opb").read_text())
    assert opb_read._parse_bytes(np.frombuffer(text.encode("ascii"), np.uint8), "m.opb") is None


def test_reading_holds_no_python_object_per_term(tmp_path, monkeypatch):
    path = tmp_path / "m.opb"
    opb.write(build_model(parse_puzzle('{"size": 25}')), path)    # 62,500 terms, 0.6 MB
    size = path.stat().st_size
    monkeypatch.setattr(opb_read, "_CHUNK", 4096)                 # a chunk's temporaries, not the file's
    monkeypatch.setattr(opb_read, "_BYTES_CHUNK", 1 << 15)
    monkeypatch.setattr(opb_read, "_model_data", lambda parsed, where: parsed)   # the parse alone
    tracemalloc.start()
    try:
        opb.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the text parser's lists of words peak at about 20 times the file, the arrays at 5 (the
    # text, its bytes, 32-bit token offsets, the terms' int64 values)
    assert peak < 10 * size, peak / size


@pytest.mark.parametrize("ascii_only", [True, False])
@pytest.mark.parametrize("constraint, var, message", [
    (1, "x0", "constraint 1: variable x0 does not exist: OPB numbers variables from x1"),
    (3, "x0", "constraint 3: variable x0 does not exist: OPB numbers variables from x1"),
    (5, "x65", "constraint 5: variable x65 is beyond the model's 64 variables"),
])
def test_a_variable_outside_the_model_is_named_itself_and_where(tmp_path, ascii_only, constraint, var, message):
    # an x0 was refused as 'variable x64 is beyond the model's 64 variables': the highest
    # variable of the file, a valid one, and no place
    path = tmp_path / "m.opb"
    opb.write(build_model(parse_puzzle("1...........3...", box="2x2")), path)
    lines = path.read_text().splitlines()
    rows = [k for k, line in enumerate(lines) if line.endswith(";") and not line.startswith(("*", "min:"))]
    k = rows[constraint - 1]
    lines[k] = lines[k].replace(lines[k].split()[1], var, 1)
    path.write_text("\n".join(lines) + ("\n" if ascii_only else "\n* \u00e9\n"))
    with pytest.raises(FormatError) as caught:
        opb.read(path)
    assert str(caught.value) == f"{path}: {message}"
