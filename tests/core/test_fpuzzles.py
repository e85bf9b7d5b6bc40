"""The f-puzzles reader: each supported element maps to the rule it means (checked by counting
against the oracle's own reading of the f-puzzles JSON), links in their usual forms, unsupported
elements refused by name, and random payloads give a PuzzleError at worst."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles import SUPPORTED, document_from_fpuzzles, looks_like_fpuzzles
from pipeline.core.fpuzzles_write import fpuzzles_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import count_solutions

lzstring = pytest.importorskip("lzstring")


def compress(data) -> str:
    return lzstring.LZString().compressToBase64(data if isinstance(data, str) else json.dumps(data))


def grid_of(size: int, givens=None, regions=None) -> list:
    rows = []
    for r in range(size):
        row = []
        for c in range(size):
            cell: dict = {}
            if givens and (r, c) in givens:
                cell.update(value=givens[(r, c)], given=True)
            if regions is not None:
                cell["region"] = regions[r][c]
            row.append(cell)
        rows.append(row)
    return rows


EVERYTHING = {
    "size": 6, "title": "t", "author": "a", "ruleset": "r",
    "grid": grid_of(6, {(0, 0): 1, (5, 5): 2}),
    "diagonal+": True, "diagonal-": True,
    "killercage": [{"cells": ["R2C2", "R2C3"], "value": "7"}, {"cells": ["R6C1", "R6C2"]}],
    "thermometer": [{"lines": [["R3C1", "R4C2", "R5C2"], ["R3C4", "R3C5"]]}],
    "difference": [{"cells": ["R1C4", "R1C5"]}, {"cells": ["R4C4", "R4C5"], "value": "3"}],
    "ratio": [{"cells": ["R5C4", "R5C5"]}, {"cells": ["R2C5", "R2C6"], "value": 3}],
    "odd": [{"cell": "R4C6"}], "even": [{"cell": "R5C6"}, {"cell": "R6C6"}],
    "extraregion": [{"cells": ["R1C2", "R2C4", "R3C6", "R4C1", "R5C3", "R6C5"]}],
}


def test_every_supported_element_maps_to_its_rule():
    doc = document_from_fpuzzles(EVERYTHING)
    assert doc["size"] == 6 and doc["box"] == "2x3" and sorted(doc["givens"]) == ["r1c1=1", "r6c6=2"]
    assert (doc["title"], doc["author"], doc["notes"]) == ("t", "a", "r")
    rules = doc["rules"]
    assert rules[:2] == [{"rule": "diagonal", "which": "main"}, {"rule": "diagonal", "which": "anti"}]
    assert {"rule": "cage", "cells": ["r2c2", "r2c3"], "sum": 7} in rules
    assert {"rule": "cage", "cells": ["r6c1", "r6c2"]} in rules
    assert [r["cells"] for r in rules if r["rule"] == "thermo"] == [["r3c1", "r4c2", "r5c2"], ["r3c4", "r3c5"]]
    assert {"rule": "kropki", "color": "white", "cells": ["r4c4", "r4c5"], "value": 3} in rules
    assert {"rule": "kropki", "color": "black", "cells": ["r2c5", "r2c6"], "value": 3} in rules
    assert {"rule": "odd", "cells": ["r4c6"]} in rules and {"rule": "even", "cells": ["r5c6", "r6c6"]} in rules
    assert {"rule": "extraregion", "cells": ["r1c2", "r2c4", "r3c6", "r4c1", "r5c3", "r6c5"]} in rules


@pytest.mark.parametrize("data", [
    EVERYTHING,
    {"size": 4, "grid": grid_of(4, {(0, 0): 1}), "antiknight": True},
    {"size": 6, "grid": grid_of(6, {(2, 2): 3}), "nonconsecutive": True},
    {"size": 6, "grid": grid_of(6), "antiking": True, "killercage": [{"cells": ["R1C1", "R2C2", "R3C3"], "value": 6}]},
    {"size": 6, "grid": grid_of(6), "disjointgroups": True, "thermometer": [{"lines": [["R1C1", "R2C1", "R3C1"]]}]},
    {"size": 4, "grid": grid_of(4, {(0, 0): 2}, regions=[[0, 0, 0, 1], [2, 0, 1, 1], [2, 2, 3, 1], [2, 3, 3, 3]])},
], ids=["everything", "antiknight", "nonconsecutive", "antiking-cage", "disjoint-thermo", "jigsaw"])
def test_an_f_puzzles_link_counts_as_the_oracle_reads_it(data):
    link = "https://www.f-puzzles.com/?load=" + compress(data)
    want, _ = oracle.count(oracle.spec_from_fpuzzles(data), 3)
    puzzle = parse_puzzle(link)
    got = count_solutions(build_model(puzzle), limit=3)
    assert got.count == want
    assert all(verify_grid(g, puzzle).ok for g in got.grids)


@pytest.mark.parametrize("form", ["bare", "load", "sudokupad", "puzzle", "ctc", "percent", "spaces", "unpadded",
                                  "wrapped", "wrapped-crlf"])
def test_links_in_their_usual_forms(form):
    data = {"size": 4, "grid": grid_of(4, {(0, 0): 3, (3, 3): 1}), "antiknight": True}
    payload = compress(data)
    text = {"bare": payload, "load": f"https://www.f-puzzles.com/?load={payload}",
            "sudokupad": f"https://sudokupad.app/fpuzzles{payload}",
            # SudokuPad's and the CTC app's query form: once "a web link the pipeline cannot read"
            "puzzle": f"https://sudokupad.app/?puzzle=fpuzzles{payload}",
            "ctc": f"https://app.crackingthecryptic.com/sudoku/?puzzle=fpuzzles{payload}&setting-x=1",
            "percent": f"https://f-puzzles.com/?load={quote(payload, safe='')}",
            "spaces": f"https://f-puzzles.com/?load={payload.replace('+', ' ')}",
            "unpadded": payload.rstrip("="),
            # wrapped right after '/fpuzzles': once read as a grid ("line 2 has 72 cells") where a
            # line break anywhere else in the link was dropped
            "wrapped": f"https://sudokupad.app/fpuzzles\n{payload}",
            "wrapped-crlf": f"https://sudokupad.app/fpuzzles\r\n{payload[:20]}\r\n{payload[20:]}"}[form]
    assert looks_like_fpuzzles(text)
    puzzle = parse_puzzle(text)
    assert puzzle.n == 4 and puzzle.n_clues == 2 and [r.kind for r in puzzle.rules] == ["antiknight"]


@pytest.mark.parametrize("link", ["https://sudokupad.app/RPBnQFRLR8", "sudokupad.app/sclN4IgzglgXgpiBcBOANCA5gJwg",
                                  "https://logic-masters.de/Raetselportal/Raetsel/zeigen.php?id=000ABC",
                                  "www.example.com/puzzle"])
def test_a_link_that_carries_no_f_puzzles_payload_says_which_links_are_read(link):
    # SudokuPad's short and scl links are what collections cite: once "no such file"
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(link)
    assert str(e.value) == (f"puzzle: {link!r} is a web link the pipeline cannot read; of links, it reads f-puzzles "
                            "ones (...?load=N4Ig... or sudokupad.app/fpuzzles...): share a SudokuPad short or scl "
                            "link's puzzle as an f-puzzles link")


def test_a_file_holding_a_link_reads_as_the_puzzle(tmp_path):
    path = tmp_path / "puzzle.txt"
    path.write_text("https://www.f-puzzles.com/?load=" + compress({"size": 4, "grid": grid_of(4), "antiking": True}))
    assert [r.kind for r in parse_puzzle(str(path)).rules] == ["antiking"]


@pytest.mark.parametrize("element, value", [
    ("line", [{"lines": [["R1C1", "R1C2"]]}]), ("clock", [{"lines": [["R1C1", "R1C2"]]}]),
    ("circle", [{"cells": ["R1C1"], "value": "3"}]), ("text", [{"cells": ["R1C1"], "value": "a"}]),
])
def test_an_unsupported_element_is_refused_by_name(element, value):
    data = {"size": 4, "grid": grid_of(4), element: value}
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(compress(data))
    assert f"f-puzzles element {element!r} is not supported" in str(e.value) and "\n" not in str(e.value)


def test_empty_unsupported_elements_and_editor_settings_are_ignored():
    data = {"size": 4, "grid": grid_of(4), "arrow": [], "xv": None, "highlightConflicts": True, "solution": []}
    assert parse_puzzle(compress(data)).rules == ()


@pytest.mark.parametrize("data, message", [
    ({"size": 0, "grid": []}, "'size' must be an integer from 1 to 64, found 0"),
    # a string "9" once read "found '9'", as if the number 9 were refused; a missing size "found 'None'"
    ({"size": "9", "grid": grid_of(9)}, "'size' must be an integer from 1 to 64, found \"9\""),
    ({"size": 4.5, "grid": grid_of(4)}, "'size' must be an integer from 1 to 64, found 4.5"),
    ({"grid": grid_of(9)}, "the f-puzzles puzzle has no 'size' (the grid's side, an integer from 1 to 64)"),
    ({"size": 4, "grid": [[{}] * 4] * 3}, "'grid' must be 4 rows of 4 cells"),
    # a prime size reads as a Latin square (tests/formats/test_fpuzzles_no_boxes.py), a composite one
    # its default boxes (tests/formats/test_fpuzzles_default_boxes.py); 1 has neither
    ({"size": 1, "grid": grid_of(1)}, "a 1x1 f-puzzles grid needs regions (no default boxes for 1)"),
    ({"size": 4, "grid": grid_of(4), "killercage": [{"value": 3}]}, "killercage[0] has no 'cells'; it has 'value'"),
    ({"size": 4, "grid": grid_of(4), "killercage": [{"cells": ["R1C1"], "value": "x"}]},
     "killercage[0] value 'x' is not a whole number"),
    ({"size": 4, "grid": grid_of(4), "thermometer": [{"cells": ["R1C1"]}]}, "thermometer[0] has no 'lines'; it has 'cells'"),
    ({"size": 4, "grid": grid_of(4), "killercage": [{"cells": ["R1C1", "R5C1"]}]}, "cell r5c1 is outside the 4x4 grid"),
    ([1, 2], "expected a JSON object, found array"),
    ({"size": 4, "grid": grid_of(4, regions=[[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 9], [2, 2, 3, 3]])},
     "grid 'region' 9 has 1 cell (r3c4); each of the 4 regions of a 4x4 grid needs 4"),
    ({"size": 4, "grid": grid_of(4, regions=[[0, 0, 1, 1], [0, 0, 0, 1], [2, 2, 3, 3], [2, 2, 3, 3]])},
     "grid 'region' 1 has 3 cells (r1c3, r1c4, r2c4); each of the 4 regions of a 4x4 grid needs 4"),
])
def test_malformed_f_puzzles_json_is_one_line(data, message):
    with pytest.raises(PuzzleError) as e:       # a link: a bare payload must start as '{"' does (N4Ig)
        parse_puzzle("https://www.f-puzzles.com/?load=" + compress(data))
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_payload_nested_too_deep_is_one_line():
    """It said "the decompressed data is not JSON (maximum recursion depth exceeded while decoding a
    JSON array from a unicode string)"."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle("https://www.f-puzzles.com/?load=" + compress('{"size": 9, "grid": ' + "[" * 100_000 + "]" * 100_000
                                                                   + "}"))
    assert str(e.value) == "puzzle: the decompressed data is not JSON (nested too deep)"


@pytest.mark.parametrize("raw, key", [
    ('{"size": 4, "grid": GRID, "size": 9}', "size"),
    ('{"size": 4, "grid": GRID, "killercage": [{"cells": ["R1C1", "R1C2"], "value": 3, "value": 4}]}', "value"),
])
def test_a_key_given_twice_is_refused_by_name_in_a_payload_as_in_json_text(raw, key):
    """A compressed payload kept the last of a duplicated key without a word (a cage of 4, or
    "'grid' must be 9 rows of 9 cells"), where the same JSON as text is refused naming the key."""
    raw = raw.replace("GRID", json.dumps(grid_of(4)))
    for source in ("https://www.f-puzzles.com/?load=" + compress(raw), raw):
        with pytest.raises(PuzzleError) as e:
            parse_puzzle(source)
        assert str(e.value) == f"puzzle: key {key!r} given twice in one object; give each key once"


def test_a_payload_that_is_not_json_is_refused():
    with pytest.raises(PuzzleError, match="the decompressed data is not JSON"):
        parse_puzzle(compress('{"size": 4, "grid": '))


# ------------------------------------------------------------------------------------------------
# fuzz: f-puzzles-like objects with random values
# ------------------------------------------------------------------------------------------------
SCALAR = st.none() | st.booleans() | st.integers(-20, 100) | st.text(max_size=8)
JSON = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                      max_size=4), max_leaves=12)
CELLS = st.lists(st.from_regex(r"R[0-9]C[0-9]", fullmatch=True) | JSON, max_size=5)
ENTRY = st.fixed_dictionaries({}, optional={"cells": CELLS, "value": JSON, "cell": JSON,
                                            "lines": st.lists(CELLS, max_size=2) | JSON})
ELEMENT = SCALAR | JSON | st.lists(ENTRY | JSON, max_size=3)
GRID_CELL = st.fixed_dictionaries({}, optional={"value": st.integers(-1, 10) | JSON, "given": st.booleans() | JSON,
                                                "region": st.integers(0, 5) | JSON,
                                                "givenPencilMarks": st.lists(st.integers(-1, 10), max_size=4) | JSON,
                                                "c": JSON}) | JSON


@st.composite
def fpuzzles_objects(draw):
    """f-puzzles-like objects: known keys (supported, unsupported, metadata) with random values."""
    size = draw(st.sampled_from([4, 6, 9]) | JSON)
    n = size if isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= 9 else 4
    data = {"size": size, "grid": draw(st.lists(st.lists(GRID_CELL, min_size=n, max_size=n), min_size=n, max_size=n)
                                       | JSON)}
    for key in draw(st.lists(st.sampled_from(sorted(SUPPORTED) + ["arrow", "title", "solution"]), max_size=4)):
        data[key] = draw(ELEMENT)
    return data


@st.composite
def damaged_everything(draw):
    """EVERYTHING with one value somewhere inside replaced by random JSON."""
    data = json.loads(json.dumps(EVERYTHING))
    node, key = data, draw(st.sampled_from(sorted(data)))
    while isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
        node = node[key]
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
    node[key] = draw(JSON)
    return data


FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _read_or_refuse(data):
    try:
        puzzle = parse_puzzle("https://www.f-puzzles.com/?load=" + compress(data))
    except PuzzleError as e:
        assert "\n" not in str(e)
    else:
        assert puzzle.n == data["size"]


@FUZZ
@given(fpuzzles_objects())
def test_random_f_puzzles_objects_read_or_fail_with_a_puzzle_error(data):
    _read_or_refuse(data)


@FUZZ
@given(damaged_everything())
def test_damaged_f_puzzles_objects_read_or_fail_with_a_puzzle_error(data):
    _read_or_refuse(data)


@pytest.mark.parametrize("value", [True, 5, "abc", {"a": 1}])
@pytest.mark.parametrize("element", ["killercage", "thermometer", "difference", "ratio", "odd", "even", "extraregion"])
def test_an_element_that_is_not_a_list_is_refused(element, value):
    """Once a TypeError ('bool' object is not iterable) for ``"thermometer": true``."""
    with pytest.raises(PuzzleError, match=f"f-puzzles element '{element}' must be a list"):
        document_from_fpuzzles({"size": 4, "grid": grid_of(4), element: value})


def test_cells_without_a_region_keep_their_default_box():
    """f-puzzles writes 'region' only on the cells a jigsaw moved out of their box (SudokuPad's
    importer reads a missing one as the default box); such a grid was refused ("some cells have
    a 'region' and others not"). Read both ways, it is the same puzzle."""
    size, (h, w) = 6, (2, 3)
    full = [[(r // h) * (size // w) + c // w for c in range(size)] for r in range(size)]
    full[0][2], full[0][3] = 1, 0        # two cells trade boxes
    partial = [[None] * size for _ in range(size)]
    partial[0][2], partial[0][3] = 1, 0
    grids = [grid_of(size, {(1, 1): 3}, regions=full), grid_of(size, {(1, 1): 3})]
    for r in range(size):
        for c in range(size):
            if partial[r][c] is not None:
                grids[1][r][c]["region"] = partial[r][c]
    a, b = (document_from_fpuzzles(compress({"size": size, "grid": g})) for g in grids)
    assert a == b and a["regions"].split()[:4] == ["0", "0", "1", "0"]
    assert parse_puzzle(compress({"size": size, "grid": grids[1]})).variant == "jigsaw"
    # an 18x18 was refused ("... and a 18x18 grid has no default boxes"): its default is 3x6 boxes
    # (tests/formats/test_fpuzzles_default_boxes.py), r1c1's being box 0
    big = grid_of(18)
    big[0][0]["region"] = 0
    assert document_from_fpuzzles(compress({"size": 18, "grid": big}))["box"] == "3x6"


@pytest.mark.parametrize("box", ["3x2", "2x3", "4x2", "2x4", "4x3", "3x4", "5x2", "5x5"])
def test_regions_that_are_boxes_read_back_as_boxes(box):
    """A link carries boxes other than f-puzzles' default shape as regions on every cell: read back,
    they were a jigsaw (another family for draw, batch and ``generate --format grid``), now the boxes."""
    h, w = map(int, box.split("x"))
    puzzle = parse_puzzle(json.dumps({"size": h * w, "box": box, "givens": "1" + "." * (h * w * h * w - 1)}))
    doc = document_from_fpuzzles(fpuzzles_from_puzzle(puzzle))
    assert doc["box"] == box and "regions" not in doc
    assert parse_puzzle(json.dumps(doc)) == puzzle


def test_regions_that_are_not_boxes_stay_a_jigsaw():
    """Boxes of one shape with two cells traded are regions still (no shape's boxes are they)."""
    size, (h, w) = 6, (2, 3)
    full = [[(r // h) * (size // w) + c // w for c in range(size)] for r in range(size)]
    full[1][2], full[2][2] = full[2][2], full[1][2]
    doc = document_from_fpuzzles(compress({"size": size, "grid": grid_of(size, regions=full)}))
    assert "box" not in doc and parse_puzzle(json.dumps(doc)).variant == "jigsaw"


LINES_AND_MARKS = {
    "arrow": [{"cells": ["R1C1"], "lines": [["R1C1", "R1C2", "R1C3"], ["R1C1", "R2C1"]]}],
    "palindrome": [{"lines": [["R2C4", "R3C5", "R4C6"]]}],
    "renban": [{"lines": [["R3C7", "R3C8", "R3C9"]]}],
    "whispers": [{"lines": [["R4C1", "R4C2"]]}],
    "betweenline": [{"lines": [["R5C1", "R5C2", "R5C3"]]}],
    "regionSumLine": [{"lines": [["R6C2", "R6C3", "R6C4"]]}],
    "xv": [{"cells": ["R7C1", "R7C2"], "value": "X"}, {"cells": ["R8C1", "R8C2"], "value": "V"}],
    "littlekillersum": [{"cell": "R0C3", "cells": ["R1C2", "R2C1"], "direction": "DL", "value": "10"},
                        {"cell": "R10C5", "cells": ["R9C6", "R8C7", "R7C8", "R6C9"], "direction": "UR"}],
    "sandwichsum": [{"cell": "R0C9", "value": "17"}, {"cell": "R9C0", "value": "0"}, {"cell": "R0C8"}],
}


def test_line_elements_arrows_xv_and_little_killers_read_and_write_back():
    """The elements setters use most (an outside check found them refused): each line one rule,
    an arrow's shafts from its circle, X and V, a little killer's sum along its diagonal (one
    without a number is only drawn); written back, the link reads as the same puzzle."""
    doc = document_from_fpuzzles({"size": 9, "grid": grid_of(9), **LINES_AND_MARKS})
    kinds = [entry["rule"] for entry in doc["rules"]]
    assert sorted(kinds) == sorted(["palindrome", "renban", "whisper", "between", "regionsum", "arrow", "arrow",
                                    "xv", "xv", "littlekiller", "sandwich", "sandwich"])
    assert {"rule": "sandwich", "clue": "r9c0", "sum": 0} in doc["rules"]
    puzzle = parse_puzzle(json.dumps(doc))
    assert {"rule": "arrow", "cells": ["r1c1", "r2c1"]} in doc["rules"]
    assert {"rule": "littlekiller", "sum": 10, "clue": "r0c3", "cells": ["r1c2", "r2c1"]} in doc["rules"]
    written = fpuzzles_from_puzzle(puzzle)
    assert written["littlekillersum"] == [LINES_AND_MARKS["littlekillersum"][0]]
    assert written["sandwichsum"] == LINES_AND_MARKS["sandwichsum"][:2]
    assert parse_puzzle(json.dumps(document_from_fpuzzles(written))) == puzzle


def test_an_arrow_before_pencil_marks_writes_both():
    """The writer keeps the grid's cells apart from an arrow's (the marks go into the grid after it)."""
    doc = {"size": 9, "rules": [{"rule": "arrow", "cells": ["r1c1", "r1c2"]},
                                {"rule": "pencilmarks", "cells": ["r5c5"], "digits": [1, 2]}]}
    puzzle = parse_puzzle(json.dumps(doc))
    written = fpuzzles_from_puzzle(puzzle)
    assert written["grid"][4][4]["givenPencilMarks"] == [1, 2]
    assert parse_puzzle(json.dumps(document_from_fpuzzles(written))) == puzzle


@pytest.mark.parametrize("element, entry, message", [
    ("arrow", {"cells": ["R1C1", "R1C3"], "lines": [["R1C1", "R2C1", "R3C1"]]}, "pill cells r1c1 and r1c3 do not touch"),
    ("arrow", {"cells": ["R1C1", "R1C2", "R1C3", "R1C4"], "lines": [["R1C1", "R2C1"]]}, "arrow[0] has a circle of 4 cells; a circle covers one cell, or 2 or 3 (a pill)"),
    ("clone", {"cells": ["R1C1", "R1C2"], "cloneCells": ["R5C5"]}, "2 cells and 1 cloneCells"),
    ("quadruple", {"cells": ["R1C1", "R1C2", "R2C1", "R2C2"], "values": "12"}, "'values' must be a list of digits"),
    ("quadruple", {"cells": ["R1C1", "R1C2", "R2C1", "R3C2"], "values": [1]}, "the 4 cells of a 2x2 square"),
    ("minimum", {"cell": "R10C1"}, "minimum[0] 'cell' must be a cell of the grid like \"R1C1\", found \"R10C1\""),
    ("arrow", {"cells": ["R1C1"], "lines": [["R1C1"]]}, "a line with no cell past its circle"),
    ("xv", {"cells": ["R1C1", "R1C2"], "value": "Y"}, "value 'Y' is not X or V"),
    ("xv", {"cells": ["R1C1", "R1C2"]}, "xv[0] has no 'value' (\"X\" or \"V\")"),   # once "value 'None'"
    ("renban", {"lines": "R1C1"}, "has no list of lines"),
    ("littlekillersum", {"cells": ["R1C2"], "value": "5"}, "has no clue cell in 'cell'"),
    # a direction was ignored, whatever it said (the cells decide the diagonal)
    ("littlekillersum", {"cell": "R0C3", "cells": ["R1C2", "R2C1"], "direction": "XX", "value": "10"},
     "littlekillersum[0] direction 'XX' is not one of UL, UR, DL, DR"),
    ("littlekillersum", {"cell": "R0C3", "cells": ["R1C2", "R2C1"], "direction": "DR", "value": "10"},
     "littlekillersum[0] direction 'DR' does not point from r0c3 toward its cells (DL)"),
    ("sandwichsum", {"cell": 3, "value": "5"}, "sandwichsum[0] 'cell' must be a clue cell like \"R0C3\", found 3"),
])
def test_a_line_element_the_reader_cannot_take_is_one_line(element, entry, message):
    with pytest.raises(PuzzleError, match=re.escape(message)) as e:   # the rules' own checks too
        parse_puzzle(json.dumps({"size": 9, "grid": grid_of(9), element: [entry]}))
    assert "\n" not in str(e.value)


#: A 6x6 solution the scenarios below derive their marks from (each holds for it).
SOLUTION = [[1, 2, 3, 4, 5, 6], [4, 5, 6, 1, 2, 3], [2, 3, 1, 5, 6, 4],
            [5, 6, 4, 2, 3, 1], [3, 1, 2, 6, 4, 5], [6, 4, 5, 3, 1, 2]]


def _marks_of_the_solution(seed: int) -> dict:
    """An f-puzzles puzzle of the 6x6 :data:`SOLUTION` with clones, a quadruple, minimum and maximum
    cells, Kropki dots beside non-consecutive and the negative constraints, XV marks, all true of
    the solution; a few givens, drawn by ``seed``."""
    import numpy as np
    rng = np.random.default_rng(seed)
    s = np.array(SOLUTION)
    name = lambda r, c: f"R{r + 1}C{c + 1}"
    pairs = [((r, c), (r, c + 1)) for r in range(6) for c in range(5)] + [((r, c), (r + 1, c)) for r in range(5)
                                                                           for c in range(6)]
    consecutive = [p for p in pairs if abs(s[p[0]] - s[p[1]]) == 1]
    double = [p for p in pairs if s[p[0]] == 2 * s[p[1]] or s[p[1]] == 2 * s[p[0]]]
    sums = [p for p in pairs if s[p[0]] + s[p[1]] in (5, 10)]
    negative = [w for w in ("difference", "ratio", "xv") if rng.random() < 0.3]
    white = "difference" in negative or seed % 2 == 0   # nonconsecutive beside dots on even seeds
    data: dict = {"size": 6, "grid": grid_of(6, {(r, c): int(s[r, c]) for r, c in
                                                 zip(rng.integers(0, 6, 2), rng.integers(0, 6, 2))}),
                  "nonconsecutive": seed % 2 == 0, "negative": negative}
    data["difference"] = [{"cells": [name(*a), name(*b)]} for a, b in consecutive if white or rng.random() < 0.1]
    data["ratio"] = [{"cells": [name(*a), name(*b)]} for a, b in double
                     if "ratio" in negative or rng.random() < 0.1 and (a, b) not in consecutive]
    data["xv"] = [{"cells": [name(*a), name(*b)], "value": "X" if s[a] + s[b] == 10 else "V"} for a, b in sums
                  if "xv" in negative or rng.random() < 0.1]
    same = [((r, c), (r2, c2)) for r in range(6) for c in range(6) for r2 in range(6) for c2 in range(6)
            if (r, c) < (r2, c2) and s[r, c] == s[r2, c2]]
    chosen = [same[k] for k in rng.choice(len(same), 3, replace=False)]
    data["clone"] = [] if seed % 4 == 1 else [{"cells": [name(*a) for a, _ in chosen], "cloneCells": [name(*b) for _, b in chosen]}]
    r, c = (int(v) for v in rng.integers(0, 5, 2))
    square = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
    data["quadruple"] = [{"cells": [name(*x) for x in square], "values": sorted(int(s[x]) for x in square[:1 + seed % 2])}]
    for key, better in (("minimum", np.less), ("maximum", np.greater)):
        data[key] = [{"cell": name(r, c)} for r in range(6) for c in range(6)
                     if all(better(s[r, c], s[r + dr, c + dc]) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                            if 0 <= r + dr < 6 and 0 <= c + dc < 6)][:seed % 3]
    return data


@pytest.mark.parametrize("seed", range(8))
def test_clones_quadruples_extremes_and_negative_constraints_count_as_the_oracle_reads_them(seed):
    """The oracle reads non-consecutive beside dots as f-puzzles' solvers do (a dotted pair is exempt)."""
    data = _marks_of_the_solution(seed)
    spec = oracle.spec_from_fpuzzles(data)
    assert oracle.check(spec, SOLUTION)
    want, _ = oracle.count(spec, 30)
    puzzle = parse_puzzle("https://www.f-puzzles.com/?load=" + compress(data))
    got = count_solutions(build_model(puzzle), limit=30)
    assert got.count == want >= 1
    assert all(oracle.check(spec, g) for g in got.grids)


def test_the_strict_rules_an_f_puzzle_reads_as():
    def kinds(**elements):
        doc = document_from_fpuzzles({"size": 4, "grid": grid_of(4), **elements})
        return [r for r in doc["rules"] if r["rule"] in ("nonconsecutive", "strictkropki", "strictxv")]
    dot = [{"cells": ["R1C1", "R1C2"]}]
    assert kinds(nonconsecutive=True) == [{"rule": "nonconsecutive"}]
    assert kinds(nonconsecutive=True, ratio=dot) == [{"rule": "strictkropki", "color": "white"}]
    assert kinds(negative=["difference"], difference=dot) == [{"rule": "strictkropki", "color": "white"}]
    assert kinds(negative=["ratio"]) == [{"rule": "strictkropki", "color": "black"}]
    assert kinds(nonconsecutive=True, negative=["ratio", "xv"], difference=dot) == [
        {"rule": "strictkropki"}, {"rule": "strictxv"}]


def test_a_pill_arrow_reads_its_pill_in_reading_order():
    entry = {"cells": ["R2C2", "R2C1"], "lines": [["R2C2", "R3C2", "R4C2"], ["R2C1", "R3C1"]]}
    doc = document_from_fpuzzles({"size": 9, "grid": grid_of(9), "arrow": [entry]})
    assert doc["rules"] == [{"rule": "pillarrow", "pill": 2, "cells": ["r2c1", "r2c2", "r3c2", "r4c2"]},
                            {"rule": "pillarrow", "pill": 2, "cells": ["r2c1", "r2c2", "r3c1"]}]


@pytest.mark.parametrize("elements, message", [
    ({"negative": "ratio"}, "'negative' must be a list of element names"),
    ({"negative": ["sandwichsum"]}, "negative constraint 'sandwichsum' is not supported (supported: difference, "
                                    "ratio, xv)"),
    ({"negative": ["difference"], "difference": [{"cells": ["R1C1", "R1C2"], "value": "2"}]},
     "the negative difference constraint beside difference[0] of value 2 is not supported (only the standard 1 is)"),
    ({"negative": ["ratio"], "ratio": [{"cells": ["R1C1", "R1C2"], "value": "3"}]},
     "the negative ratio constraint beside ratio[0] of value 3 is not supported (only the standard 2 is)"),
])
def test_a_negative_constraint_the_reader_cannot_take_is_one_line(elements, message):
    with pytest.raises(PuzzleError, match=re.escape(message)) as e:
        document_from_fpuzzles({"size": 9, "grid": grid_of(9), **elements})
    assert "\n" not in str(e.value)


def test_f_puzzles_json_not_compressed_reads_as_its_link_does():
    """The editor's JSON itself (not LZ-string compressed) got "unknown key 'grid'"."""
    data = {"size": 9, "grid": grid_of(9, {(0, 0): 5, (4, 4): 7}), "antiknight": True,
            "killercage": [{"cells": ["R1C2", "R1C3"], "value": "9"}]}
    plain, linked = parse_puzzle(json.dumps(data)), parse_puzzle(compress(data))
    assert plain.grid.tolist() == linked.grid.tolist()
    assert [r.kind for r in plain.rules] == [r.kind for r in linked.rules]
    with pytest.raises(PuzzleError, match=r"^puzzle \(f-puzzles\): f-puzzles element 'foo' is not supported"):
        parse_puzzle(json.dumps({**data, "foo": 1}))


# ------------------------------------------------------------------------------------------------
# issue 33 part 5: every key is read and enforced, or refused by name (nothing silently dropped)
# ------------------------------------------------------------------------------------------------
def _with_cell(size: int, cell: tuple[int, int], content, givens=None) -> list:
    grid = grid_of(size, givens)
    grid[cell[0]][cell[1]] = content
    return grid


def test_given_pencil_marks_are_a_pencilmarks_rule_that_solve_enforces(capsys):
    """r1c1 limited to 2 or 3, with 2 in its row and 3 in its column: no solution (it once
    printed a grid with 1 there, exit 0)."""
    grid = _with_cell(4, (0, 0), {"givenPencilMarks": [3, 2]}, {(0, 1): 2, (1, 0): 3})
    grid[2][2] = {"givenPencilMarks": [2, 3]}
    grid[3][3] = {"givenPencilMarks": []}    # no marks: nothing
    doc = document_from_fpuzzles({"size": 4, "grid": grid})
    assert doc["rules"] == [{"rule": "pencilmarks", "cells": ["r1c1", "r3c3"], "digits": [2, 3]}]
    from pipeline.cli.main import main
    assert main(["solve", compress({"size": 4, "grid": grid})]) == 1
    assert "no solution" in capsys.readouterr().err


@pytest.mark.parametrize("marks", [{(0, 0): [2, 3]}, {(0, 0): [1, 4], (1, 1): [1, 4], (2, 3): [3]}])
def test_given_pencil_marks_count_as_the_oracle_reads_them(marks):
    grid = grid_of(4)
    for (r, c), digits in marks.items():
        grid[r][c]["givenPencilMarks"] = digits
    data = {"size": 4, "grid": grid}
    spec = oracle.spec_from_fpuzzles(data)
    want = oracle.brute_count(spec)
    assert oracle.count(spec, 300)[0] == want and 0 < want < 288
    got = count_solutions(build_model(parse_puzzle(compress(data))), limit=300)
    assert got.count == want


def _refusal(data) -> str:
    with pytest.raises(PuzzleError) as e:
        parse_puzzle("https://www.f-puzzles.com/?load=" + compress(data))
    assert "\n" not in str(e.value)
    return str(e.value)


@pytest.mark.parametrize("data, message", [
    ({"size": 4, "grid": grid_of(4), "killercage": [{"cells": ["R1C1", "R1C2"], "sum": 7}]},
     "killercage[0] has key 'sum', which the reader does not read (f-puzzles writes it as 'value'); "
     "it reads 'cells', 'value'"),
    ({"size": 4, "grid": grid_of(4), "thermometer": [{"lines": [["R1C1", "R1C2"]], "shape": "bulb"}]},
     "thermometer[0] has key 'shape', which the reader does not read; it reads 'lines'"),
    ({"size": 4, "grid": grid_of(4), "even": [{"cells": ["R1C1"]}]}, "even[0] has no 'cell'; it has 'cells'"),
    ({"size": 4, "grid": grid_of(4), "odd": [{"cell": ["R1C1"]}]}, "odd[0] 'cell' must be a cell like \"R1C1\", "
     "found [\"R1C1\"]"),
    ({"size": 4, "grid": grid_of(4), "odd": ["R1C1"]}, "odd[0] must be an object, found string"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"value": 1, "given": "false"})},
     "grid cell r1c1: 'given' must be true or false, found \"false\""),
    ({"size": 4, "grid": _with_cell(4, (0, 1), "x")},
     "grid cell r1c2 must be an object like {\"value\": 5, \"given\": true}, found \"x\""),
    ({"size": 4, "grid": _with_cell(4, (3, 3), None)},
     "grid cell r4c4 must be an object like {\"value\": 5, \"given\": true}, found null"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"value": 1, "given": True, "candidates": [1]})},
     "grid cell r1c1 has key 'candidates', which the reader does not read; it reads given, givenPencilMarks, "
     "region, value"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"value": -3, "given": True})},
     "grid cell r1c1: the given -3 is not a digit from 1 to 4"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"value": "5", "given": True})},
     "grid cell r1c1: the given \"5\" is not a digit from 1 to 4"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"region": {"a": 1}})},
     "grid cell r1c1: 'region' must be a whole number (the region's id), found {\"a\": 1}"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"givenPencilMarks": [0, 2]})},
     "grid cell r1c1: 'givenPencilMarks' must be a list of digits from 1 to 4, found [0, 2]"),
    ({"size": 4, "grid": _with_cell(4, (0, 0), {"givenPencilMarks": "23"})},
     "grid cell r1c1: 'givenPencilMarks' must be a list of digits from 1 to 4, found \"23\""),
    ({"size": 4, "grid": grid_of(4), "diagonal+": "false"}, "f-puzzles flag 'diagonal+' must be true or false, "
     "found \"false\""),
    ({"size": 4, "grid": grid_of(4), "antiknight": "no"}, "f-puzzles flag 'antiknight' must be true or false, "
     "found \"no\""),
    ({"size": 4, "grid": grid_of(4), "antiking": 1}, "f-puzzles flag 'antiking' must be true or false, found 1"),
    ({"size": 4, "grid": grid_of(4), "killercage": [{"cells": ["R1C1", "R1C2"], "value": "12345678901234567890"}]},
     "killercage[0] value '12345678901234567890' is out of range"),
    # 0 == False and {} were read as "absent": the element was dropped without a word
    ({"size": 4, "grid": grid_of(4), "clock": 0}, "f-puzzles element 'clock' is not supported (supported: "
     + ", ".join(sorted(SUPPORTED)) + ")"),
    ({"size": 4, "grid": grid_of(4), "killercage": 0}, "f-puzzles element 'killercage' must be a list, found number"),
    ({"size": 4, "grid": grid_of(4), "killercage": {}}, "f-puzzles element 'killercage' must be a list, found object"),
    ({"size": 4, "grid": grid_of(4), "thermometer": [{"lines": []}]}, "thermometer[0] has no list of lines in 'lines'"),
    ({"size": 4, "grid": grid_of(4), "quadruple": [{"cells": ["R1C1", "R1C2", "R2C1", "R2C2"], "values": [1, "", None]}]},
     "quadruple[0] 'values' holds a blank; list the digits only"),
], ids=["cage-sum", "thermo-key", "even-cells", "odd-cell-list", "odd-string", "given-string", "cell-text",
        "cell-null", "cell-key", "given-negative", "given-too-large", "region-object", "marks-zero", "marks-text",
        "flag-false-text", "flag-no", "flag-number", "cage-sum-20-digits", "unsupported-zero", "element-zero",
        "element-object", "thermo-no-lines", "quadruple-blank"])
def test_a_key_the_reader_would_drop_or_misread_is_refused_by_name(data, message):
    assert _refusal(data).endswith(": " + message)


def test_display_only_keys_are_known_and_carry_no_rule():
    grid = grid_of(4, {(0, 0): 1})
    grid[0][0].update(c="#FF0000", highlighted=True, centerPencilMarks=[1, 2], cornerPencilMarks=[3])
    grid[1][1].update(cArray=["#00FF00"], value=3)   # the solver's own entry: not a given
    data = {"size": 4, "grid": grid, "antiknight": False,
            "killercage": [{"cells": ["R1C1", "R1C2"], "value": "5", "outlineC": "#000000", "fontC": "#000000"}],
            "thermometer": [{"lines": [["R3C1", "R3C2"]], "outlineC": "#CFCFCF"}]}
    doc = document_from_fpuzzles(data)
    assert doc["givens"] == ["r1c1=1"]
    assert doc["rules"] == [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 5},
                            {"rule": "thermo", "cells": ["r3c1", "r3c2"]}]


@pytest.mark.parametrize("elements, message", [
    ({"killercage": [{"cells": ["R1C1", "R1C2"], "value": "40"}]},
     "killercage[0] (cage): cage r1c1..r1c2 sum 40 cannot be made by 2 distinct digits 1..6 (possible sums: 3..11)"),
    ({"thermometer": [{"lines": [["R2C2", "R2C3"]]}, {"lines": [["R1C1", "R1C1"]]}]},
     "thermometer[1] (thermo): cell r1c1 is listed twice"),
    ({"quadruple": [{"cells": ["R1C1", "R1C2", "R2C1", "R2C2"], "values": [7]}]},
     "quadruple[0] 'values' holds 7, not a digit from 1 to 6"),
    ({"quadruple": [{"cells": ["R1C1", "R1C2", "R2C1", "R2C2"], "values": [1, 1, 2, 2, 3]}]},
     "quadruple[0] 'values' lists 5 digits; a quadruple shows 1 to 4 digits that its 2x2 cells hold"),
    ({"antiking": True, "whispers": [{"lines": [["R1C1", "R1C1"]]}]},
     "whispers[0] (whisper): the line steps from r1c1 to itself (cells 1 and 2)"),
], ids=["cage-sum", "thermo-repeat", "quadruple-value", "quadruple-five", "whisper-after-a-flag"])
def test_a_rule_s_message_names_the_f_puzzles_element_it_came_from(elements, message):
    """They were named as the converted document's entries ("rules[0] (quadruple): 'digits' holds
    '7'"), which the user never wrote."""
    data = {"size": 6, "grid": grid_of(6), **elements}
    assert _refusal(data).endswith(": " + message)
    with pytest.raises(PuzzleError) as err:   # f-puzzles' JSON itself, as a file holds it
        parse_puzzle(json.dumps(data))
    assert str(err.value) == "puzzle (f-puzzles): " + message


def test_a_command_line_rule_beside_f_puzzles_elements_is_named_as_given():
    data = {"size": 6, "grid": grid_of(6), "killercage": [{"cells": ["R1C1", "R1C2"], "value": "3"}]}
    with pytest.raises(PuzzleError, match=r"^--rule 1 \(cage\): "):
        parse_puzzle(json.dumps(data), rules=[{"rule": "cage", "cells": ["r3c3", "r3c4"], "sum": 40}])
    rules = document_from_fpuzzles(data)["rules"]
    assert rules == [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]   # no name left in the entry


@pytest.mark.parametrize("link, said", [
    ("https://www.f-puzzles.com/?load=", "the f-puzzles link's load= holds no puzzle"),
    ("https://www.f-puzzles.com/?load=!!!***", "bad character '!' at position 1 of the f-puzzles payload"),
    ("https://www.f-puzzles.com/?load=N4Ig!!!abcdefgh", "bad character '!' at position 5 of the f-puzzles payload"),
    ("https://www.f-puzzles.com/?load=N4Ig%20x*y", "bad character '*' at position 7 of the f-puzzles payload"),
])
def test_a_link_with_no_or_a_broken_payload_says_so(link, said):
    """An empty load= was read as a grid of 32 cells, a bad character as data that ends early."""
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(link)
    assert str(err.value).startswith(f"puzzle: {said}"), str(err.value)


@pytest.mark.parametrize("tail, at", [("%ZZ", 0), ("%", 0), ("%4", 0), ("%3D%zz", 1)])
def test_a_bad_percent_escape_is_named_where_it_is(tail, at):
    """'...?puzzle=fpuzzles<payload>%ZZ' named the payload's '=' padding as the bad character:
    unquote keeps a '%' that starts no escape as it is. Its position counts as a bad character's,
    once the escapes before it are read."""
    payload = compress({"size": 4, "grid": grid_of(4)})
    link = f"https://sudokupad.app/?puzzle=fpuzzles{payload}{tail}"
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(link)
    bad = tail[tail.index("%", 1) if at else 0:][:3]
    assert str(err.value) == (f"puzzle: bad %-escape {bad!r} at position {len(payload) + 1 + at} of the f-puzzles "
                              "payload (a '%' is followed by two hex digits)")


@pytest.mark.parametrize("escapes, shown, at", [("%FF", "%FF", 1), ("%41%FF%42", "%FF", 2), ("%E2%82", "%E2%82", 1),
                                              ("%41%C3%28", "%C3", 2), ("%41%41%f0%9f", "%f0%9f", 3)])
def test_an_escape_of_no_utf8_is_named_as_written(escapes, shown, at):
    """'%FF' in a link's payload was named as the replacement character unquote made of it ('\ufffd')."""
    link = f"https://www.f-puzzles.com/?load=N4Ig{escapes}abc"
    said = f"bad character {shown!r} at position {4 + at} of the f-puzzles payload"
    with pytest.raises(PuzzleError, match=f"^puzzle: {re.escape(said)} "):
        parse_puzzle(link)
    run = subprocess.run([sys.executable, "-m", "pipeline", "solve", link], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0 and said in run.stderr, run.stderr


def test_strict_rules_quadruples_clones_and_pill_arrows_write_back_as_they_read():
    doc = {"size": 9, "givens": ["r1c1=5"], "rules": [
        {"rule": "strictkropki", "color": "black"}, {"rule": "strictxv"},
        {"rule": "quadruple", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [1, 5]},
        {"rule": "samevalues", "groups": [["r5c5"], ["r9c9"], ["r1c9"]]},
        {"rule": "pillarrow", "pill": 2, "cells": ["r4c1", "r4c2", "r5c1", "r6c1", "r7c1"]}]}
    puzzle = parse_puzzle(json.dumps(doc))
    written = fpuzzles_from_puzzle(puzzle)
    assert written["negative"] == ["ratio", "xv"]
    assert written["clone"] == [{"cells": ["R5C5", "R5C5"], "cloneCells": ["R9C9", "R1C9"]}]
    assert written["arrow"] == [{"cells": ["R4C1", "R4C2"], "lines": [["R4C1", "R5C1", "R6C1", "R7C1"]]}]
    back = parse_puzzle(compress(written))
    kinds = sorted(r.kind for r in back.rules)
    assert kinds == ["pillarrow", "quadruple", "samevalues", "samevalues", "strictkropki", "strictxv"]
    assert {r.kind: r.to_dict(back.board) for r in back.rules}["strictkropki"] == {"rule": "strictkropki",
                                                                                  "color": "black"}
    for color, words in ((None, ["difference", "ratio"]), ("white", ["difference"])):
        entry = {"rule": "strictkropki", **({"color": color} if color else {})}
        again = fpuzzles_from_puzzle(parse_puzzle(json.dumps({"size": 9, "rules": [entry]})))
        assert again["negative"] == words
        assert [r.to_dict(None) for r in parse_puzzle(compress(again)).rules] == [entry]


@pytest.mark.parametrize("rules, message", [
    ([{"rule": "nonconsecutive"}, {"rule": "kropki", "color": "black", "cells": ["r1c1", "r1c2"]}],
     "rules[0] (nonconsecutive) beside Kropki dots has no f-puzzles form (f-puzzles exempts the dotted pairs)"),
    ([{"rule": "pillarrow", "pill": 2, "cells": ["r4c2", "r4c1", "r5c1", "r6c1"]}],
     "rules[0] (pillarrow): the pill r4c2, r4c1 is not in reading order, as f-puzzles reads a pill"),
    ([{"rule": "samevalues", "groups": [["r1c1", "r1c2"], ["r5c5", "r5c6"]]}], "rules[0] (samevalues) has no f-puzzles element"),
    ([{"rule": "greater", "cells": ["r1c1", "r1c2"]}],
     "rules[0] (greater) has no f-puzzles element (f-puzzles draws no greater-than sign; the minimum and maximum "
     "cells it reads are such signs, and are not written back)"),
    ([{"rule": "strictkropki"}, {"rule": "kropki", "color": "black", "value": 3, "cells": ["r1c1", "r1c2"]}],
     "rules[0] (strictkropki) beside a black dot of ratio 3 has no f-puzzles form"),
])
def test_what_f_puzzles_would_read_as_another_puzzle_is_not_written(rules, message):
    with pytest.raises(PuzzleError, match=re.escape(message)) as e:
        fpuzzles_from_puzzle(parse_puzzle(json.dumps({"size": 9, "rules": rules})))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("color", [None, "white"])
def test_every_white_dot_given_beside_a_dot_of_another_difference_writes_nonconsecutive(color):
    """f-puzzles' negative difference bans the dots' own difference: beside a value-2 white dot it
    meant another puzzle, and the reader refused the file the writer wrote. nonconsecutive beside
    dots is f-puzzles' every-white-dot-given with dotted pairs exempt: the same rule, read back."""
    entry = {"rule": "strictkropki", **({"color": color} if color else {})}
    doc = {"size": 6, "givens": "1" + "." * 35, "rules": [
        entry, {"rule": "kropki", "color": "white", "value": 2, "cells": ["r1c1", "r1c2"]}]}
    puzzle = parse_puzzle(json.dumps(doc))
    written = fpuzzles_from_puzzle(puzzle)
    assert written["nonconsecutive"] is True
    assert written.get("negative", []) == ([] if color else ["ratio"])
    back = parse_puzzle(compress(written))
    assert sorted(json.dumps(r.to_dict(back.board), sort_keys=True) for r in back.rules) == sorted(
        json.dumps(r.to_dict(puzzle.board), sort_keys=True) for r in puzzle.rules)
    from pipeline import api
    assert api.count(back, limit=50, solver="sat").count == api.count(puzzle, limit=50, solver="sat").count


def test_an_arrow_circle_of_four_cells_is_named_as_f_puzzles_names_it():
    """It was refused as the document's "rules[0] (pillarrow): 'pill' must be from 2 to 3"."""
    data = {"size": 9, "grid": [[{} for _ in range(9)] for _ in range(9)],
            "arrow": [{"cells": ["R1C1", "R1C2", "R1C3", "R1C4"], "lines": [["R1C4", "R2C4", "R3C4"]]}]}
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(compress(data))
    assert str(e.value).endswith("arrow[0] has a circle of 4 cells; a circle covers one cell, or 2 or 3 (a pill)")


def test_f_puzzles_elements_without_its_grid_say_the_grid_is_missing():
    """Such a file read as a puzzle document said only "unknown key 'clone'"."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(json.dumps({"size": 6, "clone": [{"cells": ["R1C1"], "cloneCells": ["R2C2"]}]}))
    assert str(e.value).startswith("puzzle: unknown key 'clone' (expected size, ")
    assert str(e.value).endswith("; as f-puzzles JSON it lacks its 'grid'")
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(json.dumps({"size": 6, "bogus": 1}))
    assert "f-puzzles" not in str(e.value)


def test_a_puzzle_file_under_a_folder_named_fpuzzles_is_no_link(tmp_path):
    """'fpuzzles/puzzle.txt' was read as the link payload '/puzzle': "not LZ-string data (first code 3)"."""
    folder = tmp_path / "fpuzzles"
    folder.mkdir()
    (folder / "puzzle.txt").write_text("1234341221434321\n")
    (tmp_path / "fpuzzlesA.txt").write_text("1234341221434321\n")
    for path in (folder / "puzzle.txt", tmp_path / "fpuzzlesA.txt"):
        assert not looks_like_fpuzzles(str(path))
        assert parse_puzzle(str(path)).grid[0].tolist() == [1, 2, 3, 4]
    assert not looks_like_fpuzzles("fpuzzles/puzzle.txt") and not looks_like_fpuzzles("fpuzzlesA.txt")


def test_a_sudokupad_link_wrapped_over_lines_or_with_no_payload():
    payload = compress({"size": 4, "grid": grid_of(4)})
    link = "https://sudokupad.app/?puzzle=fpuzzles" + payload
    wrapped = link[:50] + "\n" + link[50:70] + "\r\n" + link[70:]   # a long link as a mail or a file wraps it
    assert parse_puzzle(wrapped).grid.shape == (4, 4)   # the line break was read as a '+': "not JSON"
    with pytest.raises(PuzzleError, match=r"^puzzle: the f-puzzles link's puzzle=fpuzzles holds no puzzle$"):
        parse_puzzle("https://sudokupad.app/?puzzle=fpuzzles")   # "a web link the pipeline cannot read"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["https://sudokupad.app/?puzzle=fpuzzles", "https://app.crackingthecryptic.com/sudoku/?puzzle="
                        "fpuzzles", "https://sudokupad.app/fpuzzles", "https://www.f-puzzles.com/?load="]),
       st.lists(st.integers(0, 10_000), max_size=3), st.sets(st.sampled_from("+/="), max_size=3),
       st.sampled_from(["", "&setting-nogrid=1", "#top", "\n"]))
def test_a_link_reads_however_it_is_wrapped_or_encoded(prefix, breaks, encoded, tail):
    """A link's payload read through line breaks (a wrapped link), percent-encoding and what follows it."""
    data = {"size": 4, "grid": grid_of(4, givens={(0, 0): 3})}
    payload = compress(data)
    for ch in encoded:
        payload = payload.replace(ch, quote(ch, safe=""))
    for at in sorted(breaks, reverse=True):
        at = 4 + at % (len(payload) - 3)   # (a path's fpuzzles takes its N4Ig at once)
        payload = payload[:at] + "\n" + payload[at:]
    puzzle = parse_puzzle(prefix + payload + tail)
    assert puzzle.grid.shape == (4, 4) and puzzle.grid[0, 0] == 3
