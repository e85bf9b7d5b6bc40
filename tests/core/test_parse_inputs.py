"""Inputs as spreadsheets and MATLAB write them (issue 11 #16), and regions files in grid form.

Written before the fix; they failed then and guard it now. A CSV grid with empty fields (``,5,,,7,9,,,``) or ``NaN`` cells is
the grid with those cells empty, exactly like ``0``; a regions file of N lines of N compact ids
is the same regions as the one-line form. Expected grids come from the oracle (``grid_of``) and
the files from ``examples/``, not from the parser.
"""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline.core.cells_text as cells_text
import pipeline.core.document as document
import pipeline.core.parse as parse
import pipeline.core.textin as textin
from oracles import PROJECT, grid_of, pattern_grid, region_string
from pipeline.core.errors import PuzzleError
from pipeline.core.parse import parse_grid, read_puzzle
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle, parse_regions

EXAMPLES = PROJECT / "examples"
ISSUE = "issue 11 #16"
SEED = grid_of(DEFAULT_PUZZLE)


def write_grid(path, grid, empty: str, sep: str = ",", newline: str = "\n") -> None:
    """A CSV grid as a spreadsheet writes it: ``empty`` for each empty cell."""
    lines = [sep.join(empty if v == 0 else str(v) for v in row) for row in np.asarray(grid)]
    path.write_bytes((newline.join(lines) + newline).encode())


def test_examples_are_the_seed_grid_in_three_spellings():
    # the files themselves (independent of the parser): zeros, empty fields, NaN
    zeros = [line.split(",") for line in (EXAMPLES / "grid.csv").read_text().splitlines()]
    empty = [line.split(",") for line in (EXAMPLES / "grid_empty_fields.csv").read_text().splitlines()]
    nan = [line.split(",") for line in (EXAMPLES / "grid_nan.csv").read_text().splitlines()]
    assert np.array_equal(np.array(zeros, dtype=int), SEED)
    assert [["0" if v == "" else v for v in row] for row in empty] == zeros
    assert [["0" if v == "NaN" else v for v in row] for row in nan] == zeros


def test_zero_filled_csv_grid_still_parses():
    assert np.array_equal(parse_puzzle(str(EXAMPLES / "grid.csv")).grid, SEED)


@pytest.mark.parametrize("name", ["grid_empty_fields.csv", "grid_nan.csv"])
def test_spreadsheet_csv_grid_parses_as_the_grid(name):
    puzzle = parse_puzzle(str(EXAMPLES / name))
    assert (puzzle.n, puzzle.variant) == (9, "classic")
    assert np.array_equal(puzzle.grid, SEED)


@pytest.mark.parametrize("empty", ["", "NaN", "nan", " "])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("empty_row", [4, 0])   # a first row of NaN was once taken for a header
def test_empty_cell_spellings_with_an_all_empty_row(tmp_path, empty, newline, empty_row):
    # an all-empty row (",,,,,,,," : N-1 commas) and an empty first and last column, CRLF too
    grid = SEED.copy()
    grid[empty_row, :] = 0
    grid[:, 0] = 0
    grid[:, 8] = 0
    path = tmp_path / "grid.csv"
    write_grid(path, grid, empty, newline=newline)
    assert np.array_equal(parse_puzzle(str(path)).grid, grid)


def test_16x16_csv_grid_with_empty_fields(tmp_path):
    solved = pattern_grid(4, 4)
    grid = np.where(np.arange(256).reshape(16, 16) % 3 == 0, 0, solved)
    path = tmp_path / "grid16.csv"
    write_grid(path, grid, "")
    puzzle = parse_puzzle(str(path))
    assert puzzle.n == 16 and np.array_equal(puzzle.grid, grid)


def test_short_row_with_empty_fields_names_the_line(tmp_path):
    # one field missing on line 3: a grid error naming that line, not a clue-list message
    path = tmp_path / "short.csv"
    lines = (EXAMPLES / "grid_empty_fields.csv").read_text().splitlines()
    lines[2] = lines[2][: lines[2].rindex(",")]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(PuzzleError, match=r"line 3 has 8 cells; expected 9"):
        parse_puzzle(str(path))


@pytest.mark.parametrize("sep", ["", ",", " "])
def test_a_short_first_line_is_the_one_blamed(sep):
    """The first line's width was the expected one: a short line 1 was reported as "line 2 has 9
    cells; expected 8" (an outside check)."""
    rows = ["53..7....", "6..195...", ".98....6.", "8...6...3", "4..8.3..1", "7...2...6", ".6....28.", "...419..5",
            "....8..79"]
    rows[0] = rows[0][:8]
    with pytest.raises(PuzzleError, match=r"^puzzle: line 1 has 8 (cells|values); expected 9"):
        parse_puzzle("\n".join(sep.join(row) for row in rows) + "\n")


@pytest.mark.parametrize("quoting", [csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC, csv.QUOTE_MINIMAL])
@pytest.mark.parametrize("header", [None, [f"col{k}" for k in range(1, 10)]])
def test_csv_with_quoted_fields_and_a_header_reads_as_the_grid(tmp_path, quoting, header):
    # as Python's csv, R's write.csv or pandas' to_csv(quoting=...) write it: "5" is the cell 5,
    # "" an empty cell, and a header of names with digits ("col1") is a header, not a grid row
    grid = np.where(np.arange(81).reshape(9, 9) % 4 == 0, 0, SEED)
    path = tmp_path / "quoted.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, quoting=quoting)
        if header:
            writer.writerow(header)
        writer.writerows([["" if v == 0 else (str(v) if quoting != csv.QUOTE_NONNUMERIC else v) for v in row]
                          for row in grid.tolist()])
    assert np.array_equal(parse_puzzle(str(path)).grid, grid)


def test_a_quoted_field_holding_a_comma_is_one_bad_cell(tmp_path):
    path = tmp_path / "comma.csv"
    path.write_text('1,2,3,4\n3,4,1,2\n2,1,"5,5",3\n4,3,2,1\n')
    with pytest.raises(PuzzleError, match=r"bad cell '5,5' at row 3, column 3$"):
        parse_puzzle(str(path))


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=st.lists(st.booleans(), min_size=81, max_size=81), empty=st.sampled_from(["", "NaN"]))
def test_any_blank_pattern_round_trips(tmp_path, blank, empty):
    grid = np.where(np.array(blank).reshape(9, 9), 0, pattern_grid(3, 3))
    path = tmp_path / "g.csv"
    write_grid(path, grid, empty)
    assert np.array_equal(parse_puzzle(str(path)).grid, grid)


def test_cli_solves_a_csv_grid_with_empty_fields():
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    runs = [subprocess.run([sys.executable, "-m", "pipeline", "solve", f"examples/{name}"], cwd=PROJECT, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
            for name in ("grid.csv", "grid_empty_fields.csv")]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    assert runs[1].stdout == runs[0].stdout


# ---------------------------------------------------------------------------------------------
# regions files
# ---------------------------------------------------------------------------------------------
def one_line_regions():
    return (EXAMPLES / "jigsaw_regions.txt").read_text().strip()


def test_examples_regions_grid_is_the_one_line_regions():
    rows = (EXAMPLES / "jigsaw_regions_grid.txt").read_text().split()
    assert len(rows) == 9 and all(len(r) == 9 for r in rows)
    assert "".join(rows) == one_line_regions()


def test_regions_grid_with_separated_ids_parses(tmp_path):
    ids = one_line_regions()
    path = tmp_path / "regions.txt"
    path.write_text("\n".join(" ".join(ids[9 * r: 9 * r + 9]) for r in range(9)) + "\n")
    assert np.array_equal(parse_regions(str(path), 9), parse_regions(ids, 9))


@pytest.mark.parametrize("sep", [" ", ",", ";", ", "])
def test_regions_row_words_on_one_line_parse(sep):
    """The grid form's N words of N ids given on one line (as an argument: --regions '0001 0111 ...')."""
    rows = (EXAMPLES / "jigsaw_regions_grid.txt").read_text().split()
    assert np.array_equal(parse_regions(sep.join(rows), 9), parse_regions(one_line_regions(), 9))
    rows[4] = rows[4][:8] + rows[5][:1]   # nine words, one not a row of this grid's regions
    rows[5] = rows[5][1:]
    with pytest.raises(PuzzleError, match=r"^regions: expected 81 cells \(one region id per cell\), found 9$"):
        parse_regions(" ".join(rows), 9)


def test_regions_file_in_grid_form():
    from_grid = parse_regions(str(EXAMPLES / "jigsaw_regions_grid.txt"), 9)
    assert np.array_equal(from_grid, parse_regions(one_line_regions(), 9))
    assert region_string(from_grid) == one_line_regions()  # ids 0-8 keep their numbering


def test_jigsaw_puzzle_with_grid_form_regions():
    puzzle = parse_puzzle(str(EXAMPLES / "jigsaw.txt"), variant="jigsaw",
                          regions=str(EXAMPLES / "jigsaw_regions_grid.txt"))
    want = parse_puzzle(str(EXAMPLES / "jigsaw.txt"), variant="jigsaw", regions=one_line_regions())
    assert puzzle == want


def test_regions_grid_with_a_short_line_names_it(tmp_path):
    rows = (EXAMPLES / "jigsaw_regions_grid.txt").read_text().split()
    rows[4] = rows[4][:8]
    path = tmp_path / "regions.txt"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(PuzzleError, match=r"line 5"):
        parse_regions(str(path), 9)


@pytest.mark.parametrize("sep", [";", "\t", ","])
def test_empty_fields_between_semicolons_or_tabs_are_empty_cells(sep):
    """Excel's ';' CSV and a pasted range's tabs collapsed their empty fields: a 9x9 with three
    givens a row read as a 9-line [row col digit] list, another puzzle, and solved it (outside check)."""
    grid = parse_puzzle(str(EXAMPLES / "puzzle.txt")).grid
    rows = [[v if (r * 9 + c) % 3 == 0 else 0 for c, v in enumerate(row)] for r, row in enumerate(grid.tolist())]
    text = "\n".join(sep.join("" if v == 0 else str(v) for v in row) for row in rows) + "\n"
    assert parse_puzzle(text).grid.tolist() == rows


SEED_LINE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


@pytest.mark.parametrize("width", [9, 3])
def test_one_line_of_groups_reads_as_the_grid(width):
    # rows (or a box's width) of cells side by side on one line, as sites print a grid: it was
    # "bad cell '53..7....' at row 1, column 1"
    grouped = " ".join(SEED_LINE[k:k + width] for k in range(0, 81, width))
    assert np.array_equal(parse_puzzle(grouped).grid, parse_puzzle(SEED_LINE).grid)


@pytest.mark.parametrize("rest", ["trailing garbage", "# a comment", "5"])
def test_a_puzzle_string_followed_by_other_text_is_named(rest):
    # it read as a one-line clue list whose first field "is not an integer"
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(f"{SEED_LINE} {rest}")
    assert str(err.value).startswith(f"puzzle: a 9x9 puzzle string followed by other text ({rest!r}): give the "
                                     "puzzle alone")


@pytest.mark.parametrize("rest", [",extra", ";x", ",,", ",5"])
def test_a_puzzle_string_followed_by_a_separated_field_is_named(rest):
    # a batch line "PUZZLE,extra" said "bad cell '53..7....6..195...' at row 1, column 1"
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(f"{SEED_LINE}{rest}")
    assert str(err.value) == f"puzzle: a 9x9 puzzle string followed by other text ({rest!r}): give the puzzle alone"


def test_a_16x16_puzzle_string_then_a_field_is_named_by_its_side():
    with pytest.raises(PuzzleError, match=r"^puzzle: a 16x16 puzzle string followed by other text \(',x'\)"):
        parse_puzzle("." * 256 + ",x")


@pytest.mark.parametrize("width", [9, 3])
@pytest.mark.parametrize("rest", ["hello", "# a comment", "5 x"])
def test_grouped_puzzle_followed_by_other_text_is_named(width, rest):
    # it blamed the first group: "bad cell '53..7....' at row 1, column 1"
    grouped = " ".join(SEED_LINE[k:k + width] for k in range(0, 81, width))
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(f"{grouped} {rest}")
    assert str(err.value).startswith(f"puzzle: a 9x9 puzzle in {81 // width} groups followed by other text "
                                     f"({rest!r}): give the puzzle alone")


@pytest.mark.parametrize("text", ["1 2 3 4 3 4 1 2 2 1 4 3 4 3 2 .", "1 1 5\n2 3 4", "10 11 12 13",
                                  "10 12 13 14 15 16 11 19 1 2"])
def test_fields_on_one_line_are_not_taken_for_groups(text):
    # single characters and numbers of unequal length stay fields: a grid of numbers, a clue list
    try:
        grid = parse_puzzle(text, box="2x2" if text.startswith("1 2") else None).grid
    except PuzzleError as e:
        assert "followed by other text" not in str(e)
    else:
        assert grid.shape in ((4, 4), (9, 9))


@pytest.mark.parametrize("regions", [[0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3],
                                     [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]],
                                     ("0", "0", "1", "1", "0", "0", "1", "1", "2", "2", "3", "3", "2", "2", "3", "3")])
def test_regions_as_a_python_list_read_as_the_array(regions):
    # a list was turned into its text and split: "expected 4 regions of 4 cells each, found 6 distinct ids"
    p = parse_puzzle("." * 16, regions=regions, variant="jigsaw")
    assert p.regions.ravel().tolist() == [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3]


@pytest.mark.parametrize("regions, words", [([[0, 0, 1], [1]], "ragged"), ([None] * 16, "integer or text ids"),
                                            ([True] * 16, "integer or text ids")])
def test_a_bad_regions_list_is_one_line(regions, words):
    with pytest.raises(PuzzleError, match=words):
        parse_puzzle("." * 16, regions=regions, variant="jigsaw")


def test_a_complex_array_is_refused_not_read_as_its_real_part():
    grid = np.array([[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]]) + 5j
    with pytest.raises(PuzzleError, match=r"^puzzle: entries must be real numbers, found complex ones$"):
        parse_puzzle(grid)


def test_the_summary_names_a_value_set_of_more_values_than_the_side():
    # 1..5 on a 4x4 was left out ("4x4 classic, 0 clues"), 0..4 named
    assert parse_puzzle({"size": 4, "values": "1-5"}).summary() == "4x4 classic, values 1..5, 0 clues"
    assert parse_puzzle({"size": 4}).summary() == "4x4 classic, 0 clues"


def test_three_clue_rows_as_an_array_read_as_the_text_does_with_a_size():
    # the text "1,1,5\n2,2,6\n3,3,7" with size 9 was three clues, the same rows as a list
    # "--size 9 but the grid is 3x3"
    text = parse_puzzle("1,1,5\n2,2,6\n3,3,7", size=9)
    for rows in ([[1, 1, 5], [2, 2, 6], [3, 3, 7]], np.array([[1, 1, 5], [2, 2, 6], [3, 3, 7]])):
        assert np.array_equal(parse_puzzle(rows, size=9).grid, text.grid)
    assert parse_puzzle([[1, 2, 3], [2, 3, 1], [3, 1, 2]], variant="latin").n == 3   # no size: a 3x3 grid


def test_array_likes_read_as_the_array_they_hold():
    # a DataFrame was read as its printed text ("line 1 has 4 cells; expected 5"), np.int64(5) as "5"
    import pandas as pd
    grid = np.array([[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])
    assert np.array_equal(parse_puzzle(pd.DataFrame(grid)).grid, grid)
    for source in (np.int64(5), pd.Series([1, 2, 3])):
        with pytest.raises(PuzzleError, match=r"^puzzle: input must be a non-empty 2-D matrix"):
            parse_puzzle(source)


@pytest.mark.parametrize("dtype", ["Int64", "Float64", object])
def test_a_pandas_missing_value_is_an_empty_cell_as_nan_and_none_are(dtype):
    """A nullable Int64 column's pd.NA was "entries must be numbers", naming no cell, where NaN and
    None read as empty cells."""
    pd = pytest.importorskip("pandas")
    grid = np.array([[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])
    rows = [[pd.NA if v == 0 else int(v) for v in row] for row in grid]
    frame = pd.DataFrame(rows, dtype=dtype)
    assert np.array_equal(parse_grid(frame), grid)
    assert np.array_equal(read_puzzle(frame).grid, grid)
    assert np.array_equal(parse_puzzle(frame).grid, grid)
    assert np.array_equal(parse_grid(rows), grid)   # the rows as a list, as [[1, None, ...], ...] read
    with pytest.raises(PuzzleError, match="^puzzle: entries must be integers$"):   # in a clue list, as NaN is
        parse_puzzle(pd.DataFrame([[1, 1, 5], [2, 2, pd.NA]], dtype="Int64"), size=9)


@pytest.mark.parametrize("dtype, words", [(bool, "bool"), ("M8[s]", "datetime64[s]"), ("m8[D]", "timedelta64[D]")])
def test_a_boolean_or_date_array_is_refused_not_read_as_digits(dtype, words):
    # a mask of clue cells read as a grid of 1s ("digit 1 appears twice in row 1"), dates as their
    # seconds since 1970: neither holds digits, and verify and regions refuse booleans already
    grid = np.array([[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]]).astype(dtype)
    with pytest.raises(PuzzleError, match=rf"^puzzle: entries must be numbers, found {re.escape(words)} ones$"):
        parse_puzzle(grid)


def test_a_huge_unsigned_entry_is_named_as_given():
    # the int64 cast wrapped it: "cell (1, 1) holds -1: entries must be integers from 1 to 4"
    with pytest.raises(PuzzleError, match=r"^puzzle: entry 18446744073709551615 is too large$"):
        parse_puzzle(np.full((4, 4), 2**64 - 1, np.uint64))


@pytest.mark.parametrize("name", ["puzzle.txt", "grid.csv", "clues.csv"])
def test_a_leading_bom_on_puzzle_text_is_dropped_as_a_files_is(name):
    # a file's BOM was dropped, and one line's, but several lines of text kept it as a cell:
    # "line 1 has 10 cells", "bad cell '\ufeff0'", "'\ufeff1' is not an integer"
    path = PROJECT / "examples" / name
    text = path.read_text()
    assert (parse_puzzle("\ufeff" + text).grid == parse_puzzle(path).grid).all()


@pytest.mark.parametrize("sep", [",", " ", ";", "\t"])
@pytest.mark.parametrize("letter, n", [("x", 9), ("A", 9), ("a", 4), ("H", 16)])
def test_a_letter_past_the_grids_digits_is_named_as_the_character(sep, letter, n):
    """A one-letter cell of separated cells was read as its letter-digit value: 'x' in a 9x9 grid
    said "cell (9, 1) holds 33", naming a number the user never wrote."""
    rows = [["0"] * n for _ in range(n)]
    rows[n - 1][2] = letter
    text = "\n".join(sep.join(row) for row in rows)
    letters = ", A to G" if n == 16 else ""
    message = (f"puzzle: bad cell '{letter}' at row {n}, column 3: not a digit of a {n}x{n} grid "
               f"(a cell is 1 to {n}{letters}, or 0, '.' or nothing for empty)")
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(text)
    assert str(e.value) == message


def test_a_letter_within_a_big_grids_digits_is_still_its_value():
    rows = [["0"] * 16 for _ in range(16)]
    rows[0][0], rows[1][1] = "G", "a"
    grid = parse_puzzle("\n".join(",".join(row) for row in rows)).grid
    assert (grid[0, 0], grid[1, 1]) == (16, 10)


@pytest.mark.parametrize("sep", [",", ";", "\t", " ,"])
def test_a_puzzle_string_with_a_trailing_separator_names_the_separator(sep):
    """A batch line ``530070000...079,`` (a puzzle string, then a comma) dropped the empty last
    field and read the 81 digits as one cell: "cell at row 1, column 1: value 53007000060019500009...
    is too large"."""
    last = sep.strip(" ")
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(DEFAULT_PUZZLE + sep)
    assert str(e.value) == (f"puzzle: 81 characters then a trailing {last!r} (an empty last cell): a puzzle string "
                            f"is its cells alone; drop the {last!r}")


def test_a_row_of_separated_cells_keeps_its_trailing_comma():
    assert (parse_puzzle(",".join(DEFAULT_PUZZLE.replace(".", "0")) + ",").grid == SEED).all()


def test_a_json_file_of_a_clue_list_is_scanned_once(tmp_path, monkeypatch):
    """A ``.json`` clue list was scanned by NumPy twice: once to tell it from JSON that is no puzzle
    (refuse_json_of_no_document), once more by the grid reader, which read the file again."""
    scans: list[int] = []

    def counted(text):
        scans.append(len(text))
        return cells_text.plain_clue_list(text)
    for module in (document, parse):
        monkeypatch.setattr(module, "plain_clue_list", counted)
    clues = [[1, 1, 5], [2, 3, 7], [4, 4, 1], [9, 9, 9], [5, 5, 6]]
    path = tmp_path / "clues.json"
    path.write_text(str(clues))
    grid = parse_puzzle(str(path)).grid
    assert len(scans) == 1
    assert grid.tolist() == parse_puzzle("\n".join(" ".join(map(str, clue)) for clue in clues)).grid.tolist()
    path.write_text(str(clues + [[1, 1, 2]]))   # the grid reader's messages still name the file and the clue
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(str(path))
    assert str(e.value) == f"{path}: cell (1, 1) given two digits: 5 (line 1) and 2 (line 6)"


@pytest.mark.parametrize("name, text", [
    ("grid.json", json.dumps(SEED.tolist())),   # a grid as a JSON array of rows
    ("nulls.json", json.dumps([[v or None for v in row] for row in SEED.tolist()])),
    ("grid.txt", DEFAULT_PUZZLE),
    ("grid.csv", "\n".join(",".join(map(str, row)) for row in SEED.tolist())),
])
def test_a_puzzle_file_is_read_once_and_its_json_parsed_once(tmp_path, monkeypatch, name, text):
    """A file that is no puzzle document was read twice (once to tell whether it is one, once more
    by the grid reader), and a ``.json`` grid as an array of rows went through ``json.loads``
    twice (once to tell it from JSON that is no puzzle, once more by the grid reader)."""
    path = tmp_path / name
    path.write_text(text)
    opened: list[str] = []
    parsed: list[str] = []
    loads = json.loads

    def counted_open(file, *args, **kwargs):
        opened.append(str(file))
        return open(file, *args, **kwargs)

    def counted_loads(s, *args, **kwargs):
        if isinstance(s, str) and s.strip() == text.strip():
            parsed.append(s)
        return loads(s, *args, **kwargs)
    monkeypatch.setattr(textin, "open", counted_open, raising=False)   # read_text_file's one way in
    monkeypatch.setattr(json, "loads", counted_loads)
    for source in (str(path), path):
        opened.clear()
        parsed.clear()
        assert (parse_puzzle(source).grid == SEED).all()
        assert opened == [str(path)]
        assert len(parsed) == (1 if name.endswith(".json") else 0)
