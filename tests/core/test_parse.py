"""pipeline.core.parse: the one compact-line decoder (many lines at once) and the module's place in the layers.

Input forms and their messages are tested through parse_puzzle in test_puzzle.py and
test_parse_*.py; here the vectorised kernel batch shares with the single-puzzle parser.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline.core.parse as parse
from pipeline.core.boxlines import drawn_box
from pipeline.core.errors import PuzzleError
from pipeline.core.parse import COMPACT_DIGITS, compact_values, read_puzzle
from pipeline.core.puzzle import Puzzle, grid_to_string, parse_puzzle


@st.composite
def grid_stacks(draw):
    n = draw(st.integers(1, len(COMPACT_DIGITS)))
    count = draw(st.integers(1, 5))
    values = draw(st.lists(st.integers(0, n), min_size=count * n * n, max_size=count * n * n))
    return n, np.array(values, dtype=np.int64).reshape(count, n * n)


@settings(max_examples=60, deadline=None)
@given(grid_stacks(), st.booleans())
def test_compact_values_inverts_grid_to_string_for_a_stack(case, lower):
    n, grids = case
    lines = [grid_to_string(g.reshape(n, n)) for g in grids]
    if lower:
        lines = [line.lower() for line in lines]
    assert np.array_equal(compact_values(lines, n), grids)
    # one line at a time gives the same rows
    assert all(np.array_equal(compact_values(line, n)[0], g) for line, g in zip(lines, grids))


def test_compact_values_marks_characters_outside_the_alphabet():
    values = compact_values(["1.2?", "0bé3"], 2)
    assert values.tolist() == [[1, 0, 2, -1], [0, 11, -1, 3]]


def test_compact_values_names_a_line_of_the_wrong_length():
    with pytest.raises(PuzzleError, match=r"^compact grid 2: 3 characters; expected 4 \(2x2\)$"):
        compact_values(["1234", "123"], 2)


def test_single_puzzle_parser_uses_the_same_decoder():
    line = "12.." "3..." "...." "..4B"
    with pytest.raises(PuzzleError, match=r"bad character 'B' at position 16"):
        parse_puzzle(line)
    grid = parse_puzzle(line[:-1] + ".").grid.ravel()
    assert np.array_equal(grid, compact_values(line[:-1] + ".", 4)[0])


def test_read_puzzle_gives_the_fields_of_a_puzzle():
    parts = read_puzzle("1..." "...." "...." "...1", box="2x2")
    assert (parts.h, parts.w, parts.variant, parts.regions) == (2, 2, "classic", None)
    assert Puzzle(*parts) == parse_puzzle("1..." "...." "...." "...1")


def test_parse_does_not_know_the_puzzle_type():
    # pipeline.core.puzzle re-exports the parsers; an import back would be a cycle
    tree = ast.parse(Path(parse.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {"puzzle", "pipeline.core.puzzle", "verify", "build"} & {m for m in imported if m}


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "1.5", "8G", "1e-3", "1e999999999", str(2 ** 63)])
def test_max_bytes_that_is_not_a_positive_whole_number_is_one_line(monkeypatch, capsys, value):
    """SUDOKU_PIPELINE_MAX_BYTES=inf was an OverflowError traceback; 0 and -1 were taken and
    then refused every grid as needing 'about 0 MiB, more than the 0 MiB allowed'."""
    from pipeline.cli.main import main

    monkeypatch.setenv(parse.MAX_BYTES_ENV, value)
    with pytest.raises(PuzzleError, match=r"^SUDOKU_PIPELINE_MAX_BYTES: must be a whole number of bytes from 1 to "
                                          rf"2\*\*63 - 1 \(e\.g\. 8000000000 or 8e9\), found {value!r}$"):
        parse.memory_limit()
    assert main(["build"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SUDOKU_PIPELINE_MAX_BYTES: must be a whole number" in err


@pytest.mark.parametrize("value, limit", [("8000000000", 8_000_000_000), ("8e9", 8_000_000_000),
                                          (" 1.5e9 ", 1_500_000_000), ("1000", 1000), ("1E3", 1000)])
def test_max_bytes_forms(monkeypatch, value, limit):
    monkeypatch.setenv(parse.MAX_BYTES_ENV, value)
    assert parse.memory_limit() == limit


def test_a_small_memory_limit_is_said_in_bytes_not_as_0_mib(monkeypatch):
    monkeypatch.setenv(parse.MAX_BYTES_ENV, "1000")
    with pytest.raises(PuzzleError, match=r"needs about 182 KiB, more than the 1,000 bytes allowed"):
        parse.check_grid_size(9)


BOX_SHAPES = [(2, 3), (3, 2), (2, 4), (4, 2), (3, 4), (4, 3), (2, 5), (5, 2), (3, 3), (1, 4)]


@settings(max_examples=40, deadline=None)
@given(shape=st.sampled_from(BOX_SHAPES), blank=st.floats(0, 1), seed=st.integers(0, 2**32))
def test_a_printed_grid_reads_back_with_its_box_shape(shape, blank, seed):
    """``solve`` prints box lines; reading that text back keeps the shape they draw (a 6x6 of
    3x2 boxes came back as 2x3, the default)."""
    from oracles import shuffled_sudoku
    from pipeline.core.gridtext import format_grid
    h, w = shape
    rng = np.random.default_rng(seed)
    grid = shuffled_sudoku(h, w, rng)
    grid[rng.random(grid.shape) < blank] = 0
    parts = read_puzzle(format_grid(grid, h, w) + "\n")
    assert (parts.h, parts.w) == (h, w) and (parts.grid == grid).all()
    assert drawn_box(format_grid(grid, h, w), h * w) == (h, w)
    # a box given wins over the lines; text without lines keeps the default
    assert (read_puzzle(format_grid(grid) + "\n").h, read_puzzle(format_grid(grid) + "\n").w) == parse.default_box(h * w)



def test_a_box_given_wins_over_the_drawn_lines():
    assert read_puzzle("1 2 | . .\n. . | 1 2\n2 1 | . .\n. . | 2 1\n", box="1x4").w == 4


@pytest.mark.parametrize("name", ["nope.fpz", "nope.iss", "dir/p.FPZ"])
def test_a_missing_file_with_an_extension_convert_writes_is_named(name):
    """``solve nope.fpz`` (convert --to writes .fpz and .iss) said "wrong length ... found 8"."""
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(name)
    assert str(err.value) == f"puzzle: no such file {name!r}"


@given(st.integers(0, 80), st.sampled_from([",", " ", "\t", ";"]), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_a_leading_bom_on_text_of_several_lines_is_dropped_as_a_files_is(cell, sep, newline, clue_list):
    # '\ufeff0,0,4,...\r\n...' handed as text said "bad cell '\ufeff0' at row 1, column 1" (a file's
    # BOM, and one on a one-line text, were dropped)
    grid = np.zeros((9, 9), dtype=int)
    grid[4, 4], grid.flat[cell] = 7, 5 if cell != 40 else 7
    if clue_list:
        text = newline.join(sep.join(map(str, (r + 1, c + 1, grid[r, c]))) for r, c in zip(*np.nonzero(grid)))
    else:
        text = newline.join(sep.join(map(str, row)) for row in grid)
    assert np.array_equal(parse.read_puzzle("\ufeff" + text).grid, grid)


@pytest.mark.parametrize("text, message", [
    ('[[1, 2, "\\u0033"]]', None),   # JSON's escape of '3': the clue r1c2=3 as the N-by-3 list reads it
    ('[[1, 2, 3], [2, 1, 1]] ', None),
    ('[[5, 3, "\\u0665", 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]', r"bad cell '٥' at row 1, column 3"),
    ('[[1, 2, "1/2"]]', r"line 1, field 3: '1/2' is not an integer"),
])
def test_a_matrix_holding_a_backslash_or_slash_is_read_as_text_not_as_a_path(text, message):
    # it said "no such file '[[1, 2, \"\\u0033\"]]' (and it is not a puzzle string)"
    if message is None:
        assert parse.read_puzzle(text).grid[0, 1] == 3
    else:
        with pytest.raises(PuzzleError, match=f"^puzzle: {message}"):
            parse.read_puzzle(text)


@pytest.mark.parametrize("text, n", [("1234", 2), ("123456789", 3), ("2", 1)])
def test_a_compact_grid_below_the_variants_least_side_is_refused_by_its_size_not_its_characters(text, n):
    """'1234' said "bad character '3' ... a 2x2 cell is ... one of 1..2" where '12..' said the 2x2
    grid is no puzzle: the character check ran before the size check."""
    with pytest.raises(PuzzleError, match=rf"^puzzle: a {n}x{n} grid is not a puzzle: classic puzzles are 4x4 and larger"):
        parse_puzzle(text)
    # a Latin square is a puzzle from 2x2: its cells are what is wrong
    if n >= 2:
        with pytest.raises(PuzzleError, match=rf"^puzzle: bad character '{n + 1}' at position {n + 1}"):
            parse_puzzle(text, variant="latin")
    with pytest.raises(PuzzleError, match=r"^puzzle: bad character '5' at position 5 \(row 2, column 1\): a 4x4 cell"):
        parse_puzzle("1234567890123456")


@pytest.mark.parametrize("text, char, k, n", [("badrecord", "b", 1, 3), ("12345678a", "a", 9, 3), ("1?34", "?", 2, 2),
                                              ("a", "a", 1, 1)])
def test_a_short_string_with_a_letter_or_symbol_names_it_not_its_size(text, char, k, n):
    """'badrecord' (9 characters) said "a 3x3 grid is not a puzzle": a string with a character that
    is no digit 1-9 nor blank is no small grid, so its first such character is named."""
    with pytest.raises(PuzzleError, match=rf"^puzzle: bad character '{re.escape(char)}' at position {k} .*: a {n}x{n} cell"):
        parse_puzzle(text)


@pytest.mark.parametrize("header", ["r,c,v", "i,j,k", "x; y; v", "I\tJ\tK", "row,col,v"])
def test_a_clue_list_under_a_header_of_one_letter_names_reads_as_the_clues(header):
    """'r,c,v' (or 'row,col,v') over clue rows said "'r' is not an integer": only names of two or more
    characters counted as a header, as one letter is a cell of a big grid; over integer triples
    three letters can only be names (a 3-wide grid is no puzzle)."""
    sep = "\t" if "\t" in header else ";" if ";" in header else ","
    body = "\n".join(sep.join(map(str, clue)) for clue in [(1, 1, 5), (2, 3, 7), (9, 9, 1), (5, 5, 3)])
    grid = read_puzzle(f"{header}\n{body}\n").grid
    assert grid.shape == (9, 9) and np.count_nonzero(grid) == 4
    assert (grid[0, 0], grid[1, 2], grid[8, 8], grid[4, 4]) == (5, 7, 1, 3)
    # a letter in a clue row is still that row's bad entry, named
    with pytest.raises(PuzzleError, match="'a' is not an integer"):
        read_puzzle(f"{header}\n{body}\n1{sep}a{sep}3\n")
