"""Issue 11's parser classes, each pinned: clue-list size, huge numbers and sizes, special paths,
Excel/MATLAB CSV grids, regions in grid form; and a fuzz of every puzzle-input parser."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import build_model, parse_puzzle
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.puzzle import DEFAULT_PUZZLE, MAX_BYTES_ENV, check_grid_size, model_bytes, parse_grid, parse_regions

SEED = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- 1: the size of a clue list ----------------------------------------------------------------
def test_clue_list_is_9x9_and_a_bigger_entry_is_an_error_naming_the_line():
    with pytest.raises(PuzzleError, match=r"line 2: entries must be integers from 1 to 9, found 10"):
        parse_puzzle("1,1,5\n10,2,3\n")


def test_clue_list_size_from_size_or_box():
    assert parse_puzzle("1,1,5\n10,2,3\n", size=16).n == 16
    assert parse_puzzle("1,1,5\n10,2,3\n", box="4x4").n == 16


def test_size_that_contradicts_the_grid_is_an_error():
    with pytest.raises(PuzzleError, match=r"^puzzle: wrong length: expected 256 cells \(16x16 from --size\), found 81$"):
        parse_puzzle(SEED, size=16)
    rows = "\n".join(",".join(SEED[k:k + 9]) for k in range(0, 81, 9))   # separated cells: the grid's own side
    with pytest.raises(PuzzleError, match=r"^puzzle: --size 16 but the grid is 9x9$"):
        parse_puzzle(rows, size=16)


@pytest.mark.parametrize("source, size, message", [
    ("1....1", 9, "puzzle: wrong length: expected 81 cells (9x9 from --size), found 6"),
    ({"size": 9, "givens": "1....1"}, None, "puzzle: givens: wrong length: expected 81 cells (9x9 from 'size'), found 6"),
    ({"size": 9, "givens": "1" + "." * 15}, None, "puzzle: givens: wrong length: expected 81 cells (9x9 from 'size'), "
                                                  "found 16"),
    ("1234", 9, "puzzle: wrong length: expected 81 cells (9x9 from --size), found 4"),   # a square, read as 2x2 before
])
def test_a_given_size_names_itself_and_the_length_it_needs(source, size, message):
    # the size the user gave says what was expected, in the user's own words ('size' in a document)
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(source, size=size)
    assert str(e.value) == message


def test_rule_entries_are_named_as_the_user_gave_them():
    doc = {"size": 4, "givens": "", "rules": [{"rule": "antiknight"}]}
    with pytest.raises(PuzzleError, match=r"^--rule 1: unknown rule 'nope'"):   # not the document's rules[1]
        parse_puzzle(doc, rules=[{"rule": "nope"}])
    with pytest.raises(PuzzleError, match=r"^puzzle: rules\[0\]: unknown rule 'nope'"):
        parse_puzzle({**doc, "rules": [{"rule": "nope"}]}, rules=[{"rule": "antiknight"}])
    with pytest.raises(PuzzleError, match=r"^--rule 2: unknown rule 'nope'"):
        parse_puzzle("." * 16, rules=[{"rule": "antiknight"}, {"rule": "nope"}])
    with pytest.raises(PuzzleError, match=r"^rules\[1\]: unknown rule 'nope'"):
        parse_puzzle("." * 16, rules=[{"rule": "antiknight"}, {"rule": "nope"}], rules_where="rules")


# -- 6: huge numbers and sizes: one line, no allocation ------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("1,1,100000000000000000000000\n", "is too large"),
    ("100000000000000000000000,0\n0,0\n", "is too large"),
    ("2,2,3000000000\n", "entries must be integers from 1 to 9, found 3000000000"),
])
def test_huge_values_are_refused(text, message):
    with pytest.raises(PuzzleError, match=message):
        parse_puzzle(text)


def test_huge_size_says_how_much_memory_it_would_need():
    with pytest.raises(PuzzleError, match=r"grid's model needs about .* more than the .* allowed \(largest N here"):
        parse_puzzle("1,1,5\n", size=100_000_000)


def test_model_memory_is_estimated_before_building(monkeypatch):
    monkeypatch.setenv(MAX_BYTES_ENV, str(model_bytes(16)))
    check_grid_size(16)
    with pytest.raises(PuzzleError, match=r"a 25x25 grid's model needs about .*largest N here: 16"):
        build_model(parse_puzzle("." * 625))


def test_rules_over_the_whole_grid_and_a_layouts_canvas_count_in_the_estimate(monkeypatch):
    """The estimate counted 4 N^3 unit nonzeros only: an empty 100x100 with non-consecutive
    (about 8 more nonzeros per variable) took 1.1 GB under a 400 MB limit, and a layout's canvas
    was counted as one N x N grid."""
    from pipeline.core.limits import MODEL_BYTES_PER_NONZERO, RULE_BYTES_PER_NONZERO
    plain = model_bytes(36)
    with_rule = plain + RULE_BYTES_PER_NONZERO * 8.0 * 36 ** 3
    monkeypatch.setenv(MAX_BYTES_ENV, str((plain + with_rule) // 2))
    build_model(parse_puzzle({"size": 36}))   # fits
    with pytest.raises(PuzzleError) as e:
        build_model(parse_puzzle({"size": 36, "rules": [{"rule": "nonconsecutive"}]}))
    assert str(e.value).startswith("model: the model of a 36x36 grid and its rules needs about ")
    samurai = parse_puzzle({"size": 9, "layout": "samurai"})
    canvas = MODEL_BYTES_PER_NONZERO * 4 * 21 * 21 * 9
    monkeypatch.setenv(MAX_BYTES_ENV, str(canvas - 1))   # a 9x9 grid's estimate is far below it
    with pytest.raises(PuzzleError, match=r"^model: the model of a layout of 441 canvas cells needs about "):
        build_model(samurai)
    monkeypatch.setenv(MAX_BYTES_ENV, str(canvas))
    assert build_model(samurai).n_cols == 369 * 9


def test_big_grid_refused_by_estimate_not_by_the_kernel(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("\n".join(" ".join(["0"] * 1000) for _ in range(1000)))
    with pytest.raises(PuzzleError, match=r"1000x1000 grid's model needs about 238.4 GiB"):
        parse_puzzle(path)


# -- 11: special paths -------------------------------------------------------------------------
def test_directory_fifo_and_device_get_their_own_reason(tmp_path):
    with pytest.raises(PuzzleError, match=r"is a directory, not a puzzle file"):
        parse_puzzle(str(tmp_path))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(PuzzleError, match=r"is a FIFO \(named pipe\)"):   # and does not block
        parse_puzzle(str(fifo))
    with pytest.raises(PuzzleError, match=r"is a device"):
        parse_puzzle("/dev/null")


def test_a_fifo_by_its_bare_name_is_named_so(tmp_path, monkeypatch):
    """'fifo.csv' given without a directory was read as 8 cells of puzzle text."""
    monkeypatch.chdir(tmp_path)
    os.mkfifo("fifo.csv")
    with pytest.raises(PuzzleError, match=r"^puzzle: 'fifo.csv' is a FIFO \(named pipe\), not a puzzle file$"):
        parse_puzzle("fifo.csv")


def test_cli_fifo_is_one_line_exit_2(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "pipeline", "solve", str(fifo)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "FIFO" in done.stderr


# -- 16: CSV grids as Excel and MATLAB write them; regions in grid form ---------------------------
def _csv(grid, empty: str) -> str:
    return "\n".join(",".join(str(v) if v else empty for v in row) for row in grid) + "\n"


@pytest.mark.parametrize("empty", ["", "NaN", "nan", "0"])
def test_csv_grid_with_empty_or_nan_fields(tmp_path, empty):
    grid = parse_puzzle(SEED).grid
    path = tmp_path / "grid.csv"
    path.write_text(_csv(grid, empty))
    np.testing.assert_array_equal(parse_puzzle(path).grid, grid)


def test_numpy_grid_with_nan_cells():
    grid = parse_puzzle(SEED).grid.astype(float)
    grid[grid == 0] = np.nan
    np.testing.assert_array_equal(parse_puzzle(grid).grid, parse_puzzle(SEED).grid)


def test_trailing_comma_is_not_an_extra_column():
    grid = parse_puzzle(SEED).grid
    text = "\n".join(",".join(map(str, row)) + "," for row in grid)
    np.testing.assert_array_equal(parse_puzzle(text).grid, grid)


@pytest.mark.parametrize("sep", ["", " ", ","])
def test_regions_in_grid_form(tmp_path, sep):
    lines = [sep.join(str(3 * (r // 3) + c // 3) for c in range(9)) for r in range(9)]
    path = tmp_path / "regions.txt"
    path.write_text("\n".join(lines) + "\n")
    regions = parse_regions(str(path), 9)
    np.testing.assert_array_equal(regions, np.add.outer(3 * (np.arange(9) // 3), np.arange(9) // 3))


def test_a_regions_file_far_larger_than_its_grids_regions_is_refused_unread(tmp_path):
    """A 300 MB --regions file took 36 s and 3.8 GB to be split and found 150 million ids: a file
    beyond what the regions of an N x N grid can take is refused by its size, before it is read."""
    from pipeline.core import parse

    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.write(b"\xff")   # not UTF-8: had it been read, the error would say so
        handle.truncate(300 * 2 ** 20)   # sparse: nothing written
    with pytest.raises(PuzzleError, match=r"^regions: '.*big\.txt' holds more than 65 KiB of text; "
                                          r"the regions of a 9x9 grid are far smaller$"):
        parse_regions(str(big), 9)
    with pytest.raises(PuzzleError, match=r"^regions: regions holds more than 65 KiB"):   # literal text too
        parse_regions("0 " * 40_000, 9)
    ok = tmp_path / "ok.txt"   # regions with a long comment are well within the bound
    ok.write_text("# " + "x" * 60_000 + "\n" + "".join(str(3 * (r // 3) + c // 3) for r in range(9) for c in range(9)))
    assert parse_regions(str(ok), 9).shape == (9, 9)
    assert parse.region_text_bytes(400) == 400 * 400 * parse.REGION_BYTES_PER_CELL + 64 * 2 ** 10


# -- fuzz: every puzzle-input parser gives a Puzzle/grid or a PipelineError ------------------------
_ALPHABET = st.sampled_from(list("0123456789.,; \t\n|-+#abcxyzABCXYZ") + ["NaN", "1e99", "99999999999999999999"])


@FUZZ
@given(st.lists(_ALPHABET, max_size=200).map("".join).filter(lambda t: t != "-"))  # "-" is stdin
def test_fuzz_parse_puzzle_text(text):
    try:
        p = parse_puzzle(text)
    except PipelineError:
        return
    assert p.n >= 4   # issue 21: garbage never comes back as a 1x1, 2x2 or 3x3 "puzzle"


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_parse_puzzle_bytes_as_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "p.txt"
    path.write_bytes(data)
    for parse in (parse_puzzle, parse_grid):
        try:
            result = parse(path)
        except PipelineError:
            continue
        if parse is parse_puzzle:
            assert result.n >= 4


@FUZZ
@given(st.lists(st.tuples(st.integers(-5, 40), st.integers(-5, 40), st.integers(-5, 40)), max_size=30),
       st.sampled_from([None, 4, 9, 16]))
def test_fuzz_clue_lists(rows, size):
    text = "\n".join(f"{r},{c},{d}" for r, c, d in rows)
    try:
        p = parse_puzzle(text or "1,1,1", size=size)
    except PipelineError:
        return
    assert p.n == (size or 9)


@FUZZ
@given(st.lists(st.sampled_from(list("0123456789AB ,\n")), max_size=120).map("".join))
def test_fuzz_regions(text):
    try:
        regions = parse_regions(text, 9)
    except PipelineError:
        return
    assert regions.shape == (9, 9) and np.all(np.bincount(regions.ravel()) == 9)


# -- issue 21 section 5: input that is not a puzzle is refused -------------------------------------
_GARBAGE = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40)


@FUZZ
@given(_GARBAGE, st.sampled_from(["classic", "x", "latin"]))
def test_fuzz_garbage_lines_are_no_small_puzzles(text, variant):
    """A random line (as batch reads it: text, never a path) never comes back as a puzzle below
    its variant's smallest size: 4x4 for the Sudoku family, 2x2 for a Latin square."""
    try:
        p = parse_puzzle(text.strip() + "\n", variant=variant)
    except PipelineError:
        return
    assert p.n >= (2 if variant == "latin" else 4)
    assert p.n >= 2


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("123456789.0")), min_size=1, max_size=30),
       st.text(min_size=1, max_size=30))
def test_fuzz_text_after_a_hash_is_not_dropped(head, tail):
    """'#' starts a comment only at the start of a line: '1#>idED5...' was the puzzle '1'."""
    try:
        p = parse_puzzle(f"{head}#{tail}\n")
    except PipelineError:
        return
    raise AssertionError(f"{head}#{tail!r} parsed as a {p.n}x{p.n} puzzle")


def test_a_long_string_is_refused_by_its_shape_before_any_memory_estimate(monkeypatch):
    """160,005 characters: not a square number of cells; said before 'a 400x400 grid needs ...'."""
    with pytest.raises(PuzzleError, match=r"wrong length: expected a square number of cells \(160000 for 400x400 "
                                          r"or 160801 for 401x401\), found 160005"):
        parse_puzzle("." * 160005)
    monkeypatch.setenv(MAX_BYTES_ENV, "1000")   # a square length still meets the memory check
    with pytest.raises(PuzzleError, match="model needs about"):
        parse_puzzle("." * 160000)


@pytest.mark.parametrize("stray", ["é", "５", "ü"])
def test_a_stray_non_ascii_character_is_named_with_its_position(stray):
    """A puzzle string with a pasted full-width digit or accent was 'no such file ... (and it is
    not a puzzle string)', where an ASCII 'x' got the character and its position."""
    with pytest.raises(PuzzleError, match=rf"^puzzle: bad character '{stray}' at position 81 \(row 9, column 9\)"):
        parse_puzzle("." * 80 + stray)


@pytest.mark.parametrize("digit", ["\u0665", "\uff15"])   # Arabic-Indic and full-width 5
@pytest.mark.parametrize("sep, message", [
    (",", r"bad cell '{}' at row 1, column 2$"),   # CSV
    (" ", r"bad cell '{}' at row 1, column 2$"),   # grid text
    (None, r"line 1, field 3: '{}' is not an integer: entries must be integers$"),   # clue list
])
def test_another_scripts_digit_is_refused_in_a_grid_as_in_a_puzzle_string(digit, sep, message):
    """\\d and int() take any script's digits: a CSV or grid-text cell '٥' was read as 5 where a
    puzzle string refuses it (above); each reader names the character and its place."""
    if sep is None:
        text = f"1,1,{digit}\n2,2,3\n"
    else:
        text = "\n".join(sep.join(digit if (r, c) == (0, 1) else "0" for c in range(9)) for r in range(9))
    with pytest.raises(PuzzleError, match=message.format(digit)):
        parse_puzzle(text)


FIVE, TEN = "\u0665", "\u0661\u0660"   # Arabic-Indic 5 and 10


@pytest.mark.parametrize("source, words", [
    ({"size": 9, "givens": [f"r1c1={FIVE}"]}, "givens[0] 'r1c1=\u0665' is not like \"r1c1=5\""),
    ({"size": 9, "box": f"3x{FIVE}"}, "box: '3x\u0665' is not of the form HxW"),
    ({"size": 9, "values": f"1-{FIVE}"}, "'values' '1-\u0665' is not a range"),
    ({"size": 4, "values": "0-3", "givens": [[FIVE, None, None, None]] + [[None] * 4] * 3},
     "givens: r1c1: '\u0665' is not a value"),
    ({"size": 9, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": TEN}]}, "'sum' must be an integer"),
    ({"size": 9, "rules": [{"rule": "thermo", "cells": [f"r1c{FIVE}", "r1c2"]}]}, "'r1c\u0665' is not a cell"),
    ({"size": 4, "rules": [{"rule": "regex", "pattern": f"1{{{FIVE}}}", "cells": ["r1c1", "r1c2"]}]},
     "expected a number at position 2"),
    ({"size": 9, "layout": {"grids": ["r1c1", f"r7c{FIVE}"]}}, "grids[1] 'r7c\u0665' is not a cell"),
    (f".Cage~{TEN}~R1C1~R1C2", "sum '\u0661\u0660' is not a whole number"),
    (f".~R1C1_{FIVE}", "'\u0665' is not a digit 1-9"),
    (f".Shape~6x{FIVE}", "Shape '6x\u0665' is not RxC"),
])
def test_another_scripts_digit_is_refused_in_documents_and_iss_strings(source, words):
    """The same for every number a puzzle's text holds: a regex, \\d or int() took '\u0665' as 5
    (a document's givens, box, values, sums and cells, ISS's sums, givens and shapes)."""
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(source)
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_leading_byte_order_mark_on_a_puzzle_string_is_dropped_as_in_a_file():
    assert parse_puzzle("\ufeff" + "." * 80 + "1").grid[8, 8] == 1


def test_standard_input_and_files_are_read_up_to_a_bound(monkeypatch, tmp_path):
    # solve - </dev/zero grew by a gigabyte a second: input beyond the bound is refused in one
    # line after reading that much, and a puzzle within it still reads
    import io

    from pipeline.core import textin

    monkeypatch.setattr(textin, "MAX_TEXT_BYTES", 100)
    monkeypatch.setattr(sys, "stdin", io.StringIO("." * 81 + "\n" + "0" * 1000))
    with pytest.raises(PuzzleError, match=r"^puzzle: standard input holds more than 100 bytes of text"):
        parse_puzzle("-")
    big = tmp_path / "big.txt"
    big.write_text("." * 81 + "\n" * 50)
    with pytest.raises(PuzzleError, match=r"big\.txt' holds more than"):
        parse_puzzle(str(big))
    monkeypatch.setattr(sys, "stdin", io.StringIO("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"))
    assert parse_puzzle("-").n_clues == 17


def test_a_bare_directory_or_file_name_is_named_as_such(tmp_path, monkeypatch):
    """An outside probe: ``solve examples`` (a directory by a bare relative name) and ``--grid
    nonexist`` said 'wrong length ... found 8': a short word was taken for 8 cells of puzzle text.
    A square number of characters ('.' or a 2x2's 'abcd') is still puzzle text."""
    (tmp_path / "examples").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PuzzleError, match=r"^puzzle: 'examples' is a directory, not a puzzle file$"):
        parse_puzzle("examples")
    with pytest.raises(PuzzleError, match=r"^puzzle: no such file 'nonexist' \(and it is not a puzzle string\)$"):
        parse_puzzle("nonexist")
    with pytest.raises(PuzzleError, match="wrong length"):
        parse_puzzle("12345678")   # digits: puzzle text of 8 cells
    # a directory whose name is a square number of characters that no grid's cells could be
    # ('adir': 'a' is no 2x2 cell) was read as puzzle text: "bad character 'a' at position 1"
    for name in ("adir", "nine_char"):
        (tmp_path / name).mkdir()
        with pytest.raises(PuzzleError, match=rf"^puzzle: '{name}' is a directory, not a puzzle file$"):
            parse_puzzle(name)
    cells = "1..." + "." * 12   # the cells of a 4x4 stay a puzzle, whatever the folder
    (tmp_path / cells).mkdir()
    assert parse_puzzle(cells).n_clues == 1


@pytest.mark.parametrize("doc", [
    {"size": 9, "variant": "z" * 10**6},
    {"size": 9, "z" * 10**6: 1},
    {"size": 9, "rules": [{"rule": "cage", "q" * 10**6: 1, "cells": ["r1c1"]}]},
    {"size": 9, "extra": [{"name": "S", "size": 2, "k" * 10**6: 1}]},
    {"size": 9, "rules": [{"rule": "x" * 10**6}]},
])
def test_an_api_error_quotes_a_huge_value_cut_short(doc):
    """The command line cuts its error line; the API's PuzzleError repeated a million-character
    value in full (an outside check)."""
    with pytest.raises(PuzzleError) as caught:
        parse_puzzle(doc)
    assert len(str(caught.value)) < 1000 and "\n" not in str(caught.value)


def test_a_grid_too_large_is_refused_before_its_cells_are_read(monkeypatch):
    """A 5700x5700 text grid (65 MB) was split and read cell by cell (39 s, 714 MB) before its size
    was refused; the first line and the line count now say the side."""
    import pipeline.core.parse as parse_module

    calls = []
    split = parse_module._split_cells
    monkeypatch.setattr(parse_module, "_split_cells", lambda line, where="": calls.append(1) or split(line, where))
    monkeypatch.setenv(parse_module.MAX_BYTES_ENV, "100000000")   # the same on any machine: N = 100 is too large
    n = 100
    text = "\n".join(" ".join(["0"] * n) for _ in range(n)) + "\n"
    with pytest.raises(PuzzleError, match=rf"a {n}x{n} grid's model needs about .* more than the .* allowed"):
        parse_module.read_puzzle(text)
    assert len(calls) == 1


@pytest.mark.parametrize("unseen", ["\x00", "\u200b", "\ufeff"])
@pytest.mark.parametrize("options", [{}, {"size": 9}, {"box": "3x3"}])
def test_a_wrong_length_names_a_character_that_shows_as_nothing(unseen, options):
    # 81 visible cells and a NUL said only "found 82": which cell was the 82nd could not be seen
    line = DEFAULT_PUZZLE[:10] + unseen + DEFAULT_PUZZLE[10:]
    with pytest.raises(PuzzleError, match=rf"found 82, among them {re.escape(repr(unseen))} at position 11"):
        parse_puzzle(line, **options)


# -- a list of rows holding a non-number names its first one by row and column --------------------
_NON_NUMBERS = [object(), {}, {"a": 1}, b"x", 1 + 2j, [1], {1}, "x" * 80]


@pytest.mark.parametrize("bad", _NON_NUMBERS, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("reader, where", [(parse_grid, "grid"), (parse_puzzle, "puzzle")])
@pytest.mark.parametrize("empty", [0, None])
def test_a_non_number_in_rows_is_named_by_its_place(bad, reader, where, empty):
    # "grid: entries must be numbers", naming no cell of 81 (None elsewhere in the rows took
    # another reader, the message the same)
    rows = [[1, 2, 3, 4], [3, empty, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    rows[2][1] = bad
    for source in (rows, np.array(rows, dtype=object)):
        with pytest.raises(PuzzleError) as caught:
            reader(source)
        message = str(caught.value)
        assert "\n" not in message and len(message) < 200
        if isinstance(bad, str) or empty is None and isinstance(bad, (dict, list)):
            # read as JSON text (a cell's text, null): its own message, naming the cell
            assert re.match(rf"^{where}: (bad cell .* at )?row 3, column 2\b", message), message
            continue
        assert re.match(rf"^{where}: entries must be (real )?numbers: row 3, column 2 holds ", message), message


@FUZZ
@given(st.integers(2, 9), st.data())
def test_fuzz_rows_with_a_non_number_name_the_first(n, data):
    """Every list of rows holding a non-number (among numbers, None and NaN) is a PuzzleError naming
    the first such entry's row and column."""
    fill = st.one_of(st.integers(0, n), st.none(), st.just(float("nan")))
    rows = data.draw(st.lists(st.lists(fill, min_size=n, max_size=n), min_size=n, max_size=n))
    bad_places = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=4))
    for r, c in bad_places:
        rows[r][c] = data.draw(st.sampled_from([v for v in _NON_NUMBERS if not isinstance(v, (str, list))]))
    r, c = min(bad_places)
    # (a dict among None: read as JSON text, "row R, column C: {} is not a cell")
    with pytest.raises(PuzzleError, match=rf"^grid: (entries must be (real )?numbers: )?row {r + 1}, column {c + 1}\b"):
        parse_grid(rows)
