"""The JSON puzzle document: its forms of givens, what it refuses, puzzles reading back from
their own documents, and fuzzing (random documents and damaged valid ones give a Puzzle or one
PuzzleError line, never a traceback)."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from random_puzzles import SHAPES, puzzle_documents
from pipeline.core.document import DOCUMENT_KEYS, read_document, rule_entries_text
from pipeline.core.errors import PuzzleError, json_failure
from pipeline.core.puzzle import parse_puzzle

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("givens", [
    "1..." "..3." ".4.." "...2",
    ["1...", "..3.", ".4..", "...2"],
    [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]],
    ["r1c1=1", "r2c3=3", "r3c2=4", "r4c4=2"],
    # a float grid (numpy's tolist, json.dumps of floats) means the same whole numbers
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]],
])
@pytest.mark.parametrize("size", [4, 4.0])
def test_every_form_of_givens_reads_as_one_grid(givens, size):
    puzzle = parse_puzzle({"size": size, "givens": givens})
    assert puzzle.grid.tolist() == [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]]


def test_a_document_as_text_a_file_and_a_dict_read_alike(tmp_path):
    doc = {"size": 4, "givens": ["r1c1=1"], "rules": [{"rule": "antiknight"}], "title": "t", "source": "s"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert parse_puzzle(doc) == parse_puzzle(json.dumps(doc)) == parse_puzzle(str(path))


def test_command_line_options_fill_and_must_agree():
    parts = read_document({"givens": ""}, size=6, box="2x3")
    assert parts.grid.shape == (6, 6) and (parts.h, parts.w) == (2, 3)
    with pytest.raises(PuzzleError, match="--size 9 but the document's grid is 4x4"):
        read_document({"size": 4}, size=9)
    with pytest.raises(PuzzleError, match="--variant x but the document says latin"):
        read_document({"size": 4, "variant": "latin"}, variant="x")
    parts = read_document({"size": 4, "rules": [{"rule": "antiking"}]}, extra_rules=[{"rule": "antiknight"}])
    assert [r["rule"] for r in parts.rules] == ["antiking", "antiknight"]


@pytest.mark.parametrize("doc, message", [
    ("[1, 2]", "a puzzle document is a JSON object, found array"),
    ("{nope", "not a JSON puzzle document"),
    ({"givens": ""}, "no givens and no 'size' or 'box'"),
    ({"size": 4, "box": "3x3"}, "'box' 3x3 does not tile a 4x4 grid"),
    ({"size": 4, "givens": ["r5c1=1"]}, "cell r5c1 is outside the 4x4 grid"),
    ({"size": 4, "givens": ["r1c1=5"]}, "digit 5 is not 1..4"),
    ({"size": 4, "givens": ["r1c1=1", "r1c1=2"]}, "r1c1 is given twice, as 1 and 2"),
    ({"size": 4, "givens": ["r1c1=x"]}, "givens[0] 'r1c1=x' is not like"),
    ({"size": 4, "givens": 5}, "'givens' must be a string, a list of rows"),
    ({"size": 4, "title": 5}, "'title' must be a string"),
    ({"size": True}, "'size' must be an integer from 1 to 400"),
    ({"size": 4.5}, "'size' must be an integer from 1 to 400 (or \"RxC\"), found '4.5'"),
    ({"size": "9y9"}, "'size' must be an integer from 1 to 400 (or \"RxC\"), found '9y9'"),
    ({"size": "0"}, "'size' must be an integer from 1 to 400"),
    ({"givens": [[1, 2], [2.5, 1]]}, "givens: row 2, column 1: '2.5' is not an integer"),
    ({"givens": [[1, 2], [2]]}, "givens: row 2 has 1 entries; row 1 has 2"),   # once a numpy traceback
    ({"size": 4, "rules": True}, "'rules' must be a list"),     # once a TypeError from list(True)
    ({"size": 4, "rules": 7}, "'rules' must be a list"),
])
def test_bad_documents_are_one_puzzle_error_line(doc, message):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc) if isinstance(doc, dict) else read_document(doc)   # text not starting '{' is no document
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("size", [4, 4.0, "4", " 4 ", "4x4", "4X4"])
def test_a_square_size_may_be_written_as_text(size):
    """ "size": "9x9" was refused while "6x8" was taken, and "9" though box strings are taken."""
    assert parse_puzzle({"size": size, "givens": "1..." "..3." ".4.." "...2"}) == parse_puzzle("1..." "..3." ".4.." "...2")


@settings(FUZZ, max_examples=60)
@given(puzzle_documents())
def test_random_puzzles_read_back_from_their_own_documents(doc):
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    again = parse_puzzle(puzzle.to_document())
    assert again == puzzle
    assert parse_puzzle(json.dumps(puzzle.to_document())) == puzzle


# ------------------------------------------------------------------------------------------------
# fuzz
# ------------------------------------------------------------------------------------------------
SCALAR = st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=10)
JSON = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                      max_size=4), max_leaves=10)
RULE = st.fixed_dictionaries({"rule": st.sampled_from(["cage", "thermo", "greater", "kropki", "even", "odd",
                                                       "antiknight", "antiking", "nonconsecutive", "windoku",
                                                       "diagonal", "extraregion", "disjointgroups"]) | JSON},
                             optional={"cells": st.lists(st.from_regex(r"r[0-9]c[0-9]", fullmatch=True) | JSON,
                                                         max_size=5) | JSON,
                                       "sum": st.integers(-3, 40) | JSON, "color": st.sampled_from(["white", "black"])
                                       | JSON, "value": st.integers(-1, 10) | JSON, "which": JSON})
VALUES = {"size": st.sampled_from([4, 6, 9]) | JSON, "box": st.sampled_from(["2x2", "2x3", "3x3"]) | JSON,
          "variant": st.sampled_from(["classic", "latin", "x", "jigsaw"]) | JSON, "regions": JSON,
          "givens": JSON, "grids": st.lists(JSON, max_size=6) | JSON,
          "layout": st.sampled_from(["samurai", {"grids": ["r1c1", "r3c3"]}]) | JSON,
          "rules": st.lists(RULE, max_size=4) | JSON, "title": JSON, "author": JSON, "source": JSON, "notes": JSON}


@st.composite
def random_documents(draw):
    keys = draw(st.lists(st.sampled_from(DOCUMENT_KEYS + ("sise",)), max_size=6, unique=True))
    return {key: draw(VALUES.get(key, JSON)) for key in keys}


@st.composite
def damaged_documents(draw):
    """A valid random document with one value inside replaced by random JSON."""
    doc = json.loads(json.dumps(draw(puzzle_documents(shapes=tuple(SHAPES)))))
    node, key = doc, draw(st.sampled_from(sorted(doc)))
    while isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
        node = node[key]
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
    node[key] = draw(JSON)
    return doc


def _read_or_refuse(doc) -> None:
    for source in (doc, json.dumps(doc)):
        try:
            puzzle = parse_puzzle(source)
        except PuzzleError as e:
            assert "\n" not in str(e)
        else:
            assert puzzle.grid.ndim == 2 and np.count_nonzero(puzzle.grid) == puzzle.n_clues


@FUZZ
@given(random_documents())
def test_random_documents_read_or_fail_with_a_puzzle_error(doc):
    _read_or_refuse(doc)


@settings(FUZZ, max_examples=80)
@given(damaged_documents())
def test_damaged_documents_read_or_fail_with_a_puzzle_error(doc):
    _read_or_refuse(doc)


def test_regions_with_a_layout_are_refused_not_dropped():
    samurai = {"size": 9, "layout": "samurai"}
    with pytest.raises(PuzzleError, match=r"^puzzle: --regions with a layout: the grids of a layout have boxes"):
        parse_puzzle(json.dumps(samurai), regions="0" * 81)
    with pytest.raises(PuzzleError, match=r"^puzzle: 'regions' with a layout: the grids of a layout have boxes"):
        parse_puzzle(json.dumps({**samurai, "regions": "0" * 81}))


def test_text_inside_a_document_or_from_stdin_is_never_a_file_path(tmp_path, monkeypatch):
    """A document's givens or regions and standard input are content: a path there used to be
    opened and read (a batch record could read any file the worker can, and name its first
    character in the error row)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("1234\n3412\n2143\n4321\n")   # a valid 4x4 grid: read as a file, it would solve
    for doc in ({"size": 4, "givens": str(secret)}, {"size": 4, "givens": [str(secret)]},
                {"size": 4, "givens": "." * 16, "variant": "jigsaw", "regions": str(secret)}):
        with pytest.raises(PuzzleError) as caught:
            parse_puzzle(json.dumps(doc))
        assert "1234" not in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.setattr("sys.stdin", io.StringIO(str(secret)))
    # the path read as cells: a wrong length, or (a path of a square number of characters, as
    # some temporary directories give) its first character '/' as a bad cell; never the file
    with pytest.raises(PuzzleError, match=r"^puzzle: (wrong length|bad character '/' at position 1 )") as caught:
        parse_puzzle("-")
    assert "1234" not in str(caught.value)


@pytest.mark.parametrize("doc,message", [
    ({"box": "100x100"}, "'box' 100x100 makes a 10000x10000 grid; the side must be 1 to 400"),
    ({"box": "2x200000"}, "'box' 2x200000 makes a 400000x400000 grid"),
    ({"box": "9" * 5000 + "x1"}, "box: '" + "9" * 28),
    ('{"size": ' + "9" * 5000 + "}", "not a JSON puzzle document (Exceeds the limit"),
])
def test_a_huge_box_or_integer_is_one_line_before_any_allocation(doc, message):
    with pytest.raises(PuzzleError) as caught:
        read_document(doc if isinstance(doc, str) else json.dumps(doc))
    assert message in str(caught.value) and len(str(caught.value)) < 300


# issue 33 part 5: messages that name the real problem
@pytest.mark.parametrize("doc, message", [
    ({"size": 6, "regions": [{"a": 1}] * 36}, "puzzle: regions[0] is {\"a\": 1}; a region id is a number or a letter"),
    ({"size": 4, "regions": [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, None, 3]]},
     "puzzle: regions[3][2] is null; a region id is a number or a letter"),
    ({"size": 4, "givens": ["r1c1=-3"]}, "puzzle: givens[0]: digit -3 is not 1..4"),
    ({"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 12345678901234567890}]},
     "puzzle: rules[0] (cage): 'sum' is out of range: a 20-digit number (1234567890123456...)"),
    ({"size": 4, "rules": [{"rule": "kropki", "color": "white", "cells": ["r1c1", "r1c2"], "value": 1e20}]},
     "puzzle: rules[0] (kropki): 'value' must be from 1 to 4, found a 21-digit number (1000000000000000...)"),
])
def test_a_message_names_the_real_problem(doc, message):
    """A region id that is an object was split into several ids ("expected 36 cells, found 72"),
    a 20-digit sum "must be an integer", a given of -3 shown as the reader's 'r1c1=-3'."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert str(e.value) == message


def test_regions_as_rows_of_numbers_read_as_their_ids():
    """Rows of integers were read through their text ('[0,' and '1]' two ids)."""
    rows = [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    assert parse_puzzle({"size": 4, "regions": rows}).regions.tolist() == rows


def test_one_limit_for_a_document_as_text_a_file_and_a_link(tmp_path):
    """A document past the old 4,000,000-character limit of links read as a file but was refused
    as a link; both now stop at MAX_DOCUMENT_CHARS, one constant."""
    lzstring = pytest.importorskip("lzstring")
    from pipeline.core import document, fpuzzles, lzstring as ours
    assert document.MAX_DOCUMENT_CHARS is ours.MAX_DOCUMENT_CHARS is fpuzzles.MAX_DOCUMENT_CHARS
    big = {"size": 4, "grid": [[{} for _ in range(4)] for _ in range(4)], "title": "a" * 4_100_000}
    text = json.dumps(big)
    path = tmp_path / "big.json"
    path.write_text(text)
    link = "https://www.f-puzzles.com/?load=" + lzstring.LZString().compressToBase64(text)
    for source in (str(path), text, link):
        assert parse_puzzle(source).n == 4
    with pytest.raises(PuzzleError) as e:
        read_document(" " * document.MAX_DOCUMENT_CHARS + "{}")
    assert str(e.value) == "puzzle: document of 20,000,002 characters; at most 20,000,000"


def test_a_cut_value_in_a_message_says_it_was_cut():
    """Shape '1000000000x100000000' named a number the user never gave: the cut is now marked."""
    with pytest.raises(PuzzleError, match=r"'size' must be an integer from 1 to 400 \(or \"RxC\"\), found "
                                          r"'12345678901234567890\.\.\.'$"):
        parse_puzzle({"size": 123456789012345678901234})


@pytest.mark.parametrize("doc, n", [({"size": 2}, 2), ({"size": "3x3"}, 3), ({"givens": "1..."}, 2)])
def test_a_document_too_small_for_its_variant_is_told_in_document_words(doc, n):
    """It got the command line's advice ("--variant latin", "--size N", "a [row col digit] clue
    list has three values a line"), which a document has no use for (outside check)."""
    with pytest.raises(PuzzleError) as e:
        read_document(doc)
    assert str(e.value) == (f'puzzle: a {n}x{n} grid is not a puzzle: classic puzzles are 4x4 and larger (a Latin '
                            f'square from 2x2: "variant": "latin")')
    assert read_document(dict(doc, variant="latin")).grid.shape == (n, n)



def test_broken_json_over_several_lines_keeps_its_line_and_one_line_its_column():
    with pytest.raises(PuzzleError, match=r"^d: not a JSON puzzle document \(Expecting value: line 3 column 13 "):
        read_document('{\n  "size": 4,\n  "rules": [}\n}', where="d")
    with pytest.raises(PuzzleError, match=r"^d: not a JSON puzzle document \(Expecting value at column 23\)$"):
        read_document('{"size": 4, "rules": [}', where="d")


def test_a_rules_cell_giving_a_key_twice_is_refused():
    """A batch record's rules cell kept the last 'sum' without a word (a document refuses it)."""
    with pytest.raises(PuzzleError, match=r"^rules: key 'sum' given twice in one rule entry; give each key once$"):
        rule_entries_text('[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 9, "sum": 10}]')


@given(st.lists(st.integers(0, 9), min_size=81, max_size=81), st.sampled_from([None, ""]))
@settings(max_examples=40, deadline=None)
def test_givens_rows_with_null_or_text_read_as_the_array_of_rows_does(cells, empty):
    # [[5, null, ...]] read as a puzzle, but as a document's givens it was refused:
    # "givens row 1, column 2: 'None' is not an integer" (and '5' as text likewise)
    rows = [[empty if v == 0 else (str(v) if k % 2 else v) for v in cells[9 * k:9 * k + 9]] for k in range(9)]
    expected = np.array(cells).reshape(9, 9)
    for source in (json.dumps({"size": 9, "givens": rows}), {"givens": rows}):
        try:
            got = parse_puzzle(source).grid
        except PuzzleError as e:   # a random grid may repeat a digit: the array of rows says the same
            with pytest.raises(PuzzleError) as same:
                parse_puzzle(json.dumps(rows))
            assert str(same.value).split(": ", 1)[1] in str(e)
            continue
        assert (got == expected).all()


@pytest.mark.parametrize("doc, message", [
    ({"size": 4, "givens": ["r1c1=-3"]}, "puzzle: givens[0]: digit -3 is not 1..4"),
    ({"size": 4, "givens": ["r1c1=x"]}, "puzzle: givens[0] 'r1c1=x' is not like \"r1c1=5\""),
    ({"size": 4, "givens": ["r9c1=1"]}, "puzzle: givens[0]: cell r9c1 is outside the 4x4 grid"),
    ({"size": 4, "givens": ["r1c1=1", "r1c1=2"]}, "puzzle: givens[1]: r1c1 is given twice, as 1 and 2"),
    ({"givens": [[1, 2], [2.5, 1]]}, "puzzle: givens: row 2, column 1: '2.5' is not an integer"),
    ({"givens": [[1, 2], [2]]}, "puzzle: givens: row 2 has 1 entries; row 1 has 2"),
    ({"size": 4, "values": "0-3", "givens": 5},
     "puzzle: givens: must be a string, a list of rows or a list of \"r1c1=v\""),
    ({"size": "6x8", "givens": 5}, "puzzle: givens: must be a string, a list of rows or a list of \"r1c1=v\""),
])
def test_a_bad_given_is_named_under_givens_once(doc, message):
    """The reader's place ("puzzle: givens") already names the givens; the messages named them
    again: "puzzle: givens: givens row 2 has 1 entries", "puzzle: givens: givens[0]: ..."."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert str(e.value) == message


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", ['{"size": 9, "givens": ' + DEEP + "}", '{"size": 9, "rules": ' + DEEP + "}",
                                  '{"size": 9, "givens": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}"])
def test_a_document_nested_too_deep_says_so_in_one_line(text):
    """Python's own words came through: "not a JSON puzzle document (maximum recursion depth
    exceeded while decoding a JSON array from a unicode string)"."""
    with pytest.raises(PuzzleError) as e:
        read_document(text)
    assert str(e.value) == "puzzle: not a JSON puzzle document (nested too deep)"


def test_a_rules_cell_nested_too_deep_says_so_in_one_line():
    with pytest.raises(PuzzleError) as e:
        rule_entries_text(DEEP)
    assert str(e.value) == "rules: not a usable JSON list of rule entries (nested too deep)"


def test_givens_of_python_lists_nested_too_deep_are_one_puzzle_error():
    """A RecursionError escaped while the message wrote the cell's text."""
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(PuzzleError) as e:
        parse_puzzle({"size": 9, "givens": deep})
    assert str(e.value) == "puzzle: givens: row 1, column 1: 'a list nested too deep' is not an integer"


def test_json_failure_names_nesting_past_the_recursion_limit_and_clips_other_errors():
    """The one wording of the readers of JSON (document, rules cell, f-puzzles payload, array of
    rows, --rule), each of which built "nested too deep" by hand."""
    for text in (DEEP, '{"a": ' * 100_000 + "1" + "}" * 100_000):
        with pytest.raises(RecursionError) as deep:
            json.loads(text)
        assert json_failure(deep.value) == json_failure(deep.value, 5) == "nested too deep"
    with pytest.raises(ValueError) as big:
        json.loads("9" * 5000)
    assert json_failure(big.value) == str(big.value) and len(str(big.value)) > 40
    assert json_failure(big.value, 40) == str(big.value)[:40] + "..."
    with pytest.raises(json.JSONDecodeError) as bad:
        json.loads("[1, x]")
    assert json_failure(bad.value) == "Expecting value: line 1 column 5 (char 4)"


@pytest.mark.parametrize("text, at, rest", [
    ('{"size": 4, "givens": "1..."} junk', "column 31", "junk"),
    ('\ufeff{"size": 4, "givens": "1..."}{"size": 4}', "column 30", '{"size": 4}'),
    ('{"size": 4, "givens": "1..."}\njunk\n', "line 2, column 1", "junk"),       # was "several JSON objects"
    ('{\n  "size": 4,\n  "givens": "1..."\n}\n# a note', "line 5, column 1", "# a note"),
])
def test_a_document_followed_by_other_text_is_named_where(text, at, rest):
    # it said "not a JSON puzzle document (Extra data at column 31)", or took a line of text
    # after a one-line document for JSON Lines
    with pytest.raises(PuzzleError) as e:
        read_document(text)
    assert str(e.value) == f"puzzle: a JSON puzzle document followed by other text at {at} ({rest!r}): give the document alone"


def test_json_lines_are_still_named_so():
    line = '{"size": 4, "givens": "1..."}'
    with pytest.raises(PuzzleError, match=r"^puzzle: several JSON objects, one a line \(JSON Lines\)"):
        read_document(f"{line}\n{line}\n")
