"""Input that is not a puzzle is refused (issue 21 section 5), through the command line: one
line and exit 2 for ``solve``, one error row per record for ``batch``, one line for a Parquet
input whose puzzle column is not text."""
from __future__ import annotations

import io
import json
import random

import pandas as pd
import pytest

from pipeline.cli.main import main


@pytest.mark.parametrize("text, n", [(",", 1), (";", 1), ("1", 1), ("12.1", 2), ("1........", 3)])
def test_solve_refuses_a_grid_below_4x4(capsys, text, n):
    assert main(["solve", text]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: puzzle: a {n}x{n} grid is not a puzzle: classic puzzles are 4x4 and larger")
    assert captured.err.count("\n") == 1


def test_three_clues_of_row_col_digit_read_as_a_3x3_grid_say_how_to_read_them_as_a_list(capsys, tmp_path):
    """An N-by-3 list of exactly three clues is also a 3x3 grid: the line says --size decides."""
    path = tmp_path / "three.csv"
    path.write_text("1,1,5\n2,2,3\n3,3,4\n")
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err.endswith("; if it is a list of three [row col digit] clues, give --size N\n")
    assert main(["solve", str(path), "--size", "9", "--no-unique-check"]) == 0


def test_one_clue_line_with_a_field_too_many_says_a_list_has_three_values(capsys, tmp_path):
    """'1,1,5,7' is four cells, a 2x2 grid: the line says what a clue list's line holds."""
    path = tmp_path / "one.csv"
    path.write_text("1,1,5,7\n")
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err.endswith("; a [row col digit] clue list has three values a line\n")


@pytest.mark.parametrize("argv, named", [(["verify", "-", "--puzzle", "-"], "GRID and --puzzle"),
                                         (["solve", "-", "--regions", "-"], "PUZZLE and --regions"),
                                         (["draw", "-", "--grid", "-", "--to", "x.svg"], "PUZZLE and --grid")])
def test_standard_input_named_for_two_inputs_is_refused(capsys, monkeypatch, argv, named):
    """The first input would read standard input whole and the second find it empty."""
    monkeypatch.setattr("sys.stdin", io.StringIO("1" * 81))
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"error: standard input ('-') can be read once, given for {named}: "
                                       "write one of them to a file\n")


def test_a_latin_square_from_2x2_is_kept(capsys):
    assert main(["solve", "1...", "--variant", "latin"]) == 0
    assert capsys.readouterr().out.split() == ["1", "2", "2", "1"]


def test_batch_of_garbage_lines_solves_none_of_them(tmp_path, capsys):
    """Random garbage lines (and the issue's own: ';;', '1#>idED5...') are error rows: none comes
    back optimal as a 1x1, 2x2 or 3x3 grid."""
    rng = random.Random(21)
    alphabet = "0123456789.,;#>|-+ abcdefXYZ"
    lines = [";;", ",", "1", "1#>idED5" + "." * 8, "12.1"] + \
        ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))).strip() or "x" for _ in range(300)]
    lines = [line for line in lines if not line.startswith("#")]
    src = tmp_path / "garbage.txt"
    src.write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["batch", str(src), str(out), "--workers", "1", "--progress", "none"]) == 0
    capsys.readouterr()
    table = pd.read_parquet(out)
    assert len(table) == len(lines)
    solved = table[table["status"] != "error"]
    sizes = solved["puzzle"].str.len()
    assert (sizes >= 16).all(), solved[["puzzle", "status"]].head()
    assert table.loc[0, "status"] == "error"   # ";;": three empty fields, as ",," (Excel's separator)
    assert table.loc[1, "status"] == "error" and "1x1 grid is not a puzzle" in table.loc[1, "error"]


def test_batch_with_a_bom_solves_record_0(tmp_path, capsys):
    src = tmp_path / "bom.txt"
    src.write_bytes("\ufeff".encode() + b"1.......2......3\n")
    out = tmp_path / "out"
    assert main(["batch", str(src), str(out), "--workers", "1", "--progress", "none"]) == 0
    capsys.readouterr()
    assert pd.read_parquet(out)["status"].tolist() == ["optimal"]


def test_batch_refuses_a_parquet_puzzle_column_of_integers(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"puzzle": pa.array([1, 2], pa.int64())}), src)
    assert main(["batch", str(src), str(tmp_path / "out"), "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: batch: {str(src)!r}: column 'puzzle' is int64, not text: puzzles, regions, variants and rules are strings\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, found", [("[1,2,3]", "an array"), ("null", "null"), ('"abc"', "a string"),
                                         ("true", "a boolean")])
def test_a_json_file_of_no_document_says_what_json_it_holds(capsys, tmp_path, text, found):
    """Its text went on to the grid readers: "'[1' is not an integer", "bad character 'n'"."""
    path = tmp_path / "p.json"
    path.write_text(text + "\n")
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err == (f"error: {path}: a puzzle document is a JSON object "
                                       f'({{"size": ..., "givens": ...}}), found {found}\n')


@pytest.mark.parametrize("text, reason", [("[[1,2],[3,4]", "Expecting ',' delimiter at column 13"),
                                          ("[1,2,3", "Expecting ',' delimiter at column 7"),
                                          ("[" * 100_000, "nested too deep"),
                                          ('{"size": 9, "givens": ' + "[" * 100_000 + "]" * 100_000 + "}",
                                           "nested too deep")])
def test_a_json_file_of_broken_json_says_so(capsys, tmp_path, text, reason):
    """Broken JSON of an array went on to the grid readers: "bad cell '[[1'", "'[1' is not an
    integer", or for 100,000 '[' "wrong length" (outside check)."""
    path = tmp_path / "p.json"
    path.write_text(text)
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err == f"error: {path}: not a JSON puzzle document ({reason})\n"


def test_a_json_file_of_one_line_of_digits_is_still_a_grid(capsys, tmp_path):
    path = tmp_path / "p.json"
    path.write_text("1000000000000000\n")   # JSON (a number), and a 4x4 compact line
    assert main(["solve", str(path), "--no-unique-check"]) == 0


@pytest.mark.parametrize("doc, key", [('{"size": 4, "size": 9}', "size"),
                                      ('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], '
                                       '"sum": 3, "sum": 4}]}', "sum")])
def test_a_key_given_twice_in_a_document_is_refused_not_the_last_taken(capsys, doc, key):
    assert main(["solve", doc]) == 2
    assert capsys.readouterr().err.endswith(f"key {key!r} given twice in one object; give each key once\n")


@pytest.mark.parametrize("argv, said", [
    (["import", "-"], "error: import: reads the solver's answer from a file, not standard input ('-')"),
    (["batch", "-", "out"], "error: batch: reads its puzzles from a file (text, CSV or Parquet), not standard input ('-')"),
])
def test_commands_that_read_files_only_say_so_for_standard_input(capsys, monkeypatch, tmp_path, argv, said):
    """'-: no such file' and "no such input file '-'" named no reason."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(said)
    assert list(tmp_path.iterdir()) == []


def test_a_json_file_of_an_array_of_rows_is_a_grid(capsys, tmp_path):
    """An array of rows ([[5, 3, 0, ...], ...], as JSON, JavaScript or Python write a grid) was
    refused as "a puzzle document is a JSON object ..., found an array"."""
    grid = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, None, "", "."]]
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(grid))
    assert main(["count", str(path), "--limit", "1000"]) == 0
    on_text = capsys.readouterr().out
    assert main(["count", json.dumps(grid), "--limit", "1000"]) == 0
    assert capsys.readouterr().out == on_text
    assert main(["count", "1..........2....", "--limit", "1000"]) == 0
    assert capsys.readouterr().out == on_text


@pytest.mark.parametrize("text, message", [
    ("x = [1 1 5; 1 2 3;", "puzzle: the MATLAB matrix opened with '[' has no closing ']'"),
    ("[1 1 5; 2 2 x]", "puzzle: row 2 of the MATLAB matrix, '2 2 x': 'x' is not a number"),
    ("[[1, 2], [3, true]]", "puzzle: row 2, column 2: true is not a cell (a number, its text, or null for an empty one)"),
    ("[1 1 4; 1 7]", "puzzle: row 2 of the MATLAB matrix has 2 values; expected 3 (row,col,digit)"),
    ("[1 1 16; 16 16 1]", "puzzle: row 1 of the MATLAB matrix: entries must be integers from 1 to 9, found 16; for a "
                          "bigger grid give --size (--size 16 holds this list's largest entry)"),
])
def test_a_bracketed_puzzle_that_does_not_parse_names_what_is_wrong(capsys, text, message):
    """Before, the message named a first cell such as "bad cell '[1 1 5'"."""
    assert main(["solve", text]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


@pytest.mark.parametrize("command", ["solve", "rate"])
def test_a_compact_grid_below_4x4_with_a_digit_past_its_side_is_refused_by_its_size(capsys, command):
    """'rate 1234' said "bad character '3' ... a 2x2 cell is ... one of 1..2" where 'rate 12..'
    named the size: the character check ran first."""
    assert main([command, "1234"]) == 2
    assert capsys.readouterr().err == ("error: puzzle: a 2x2 grid is not a puzzle: classic puzzles are 4x4 and larger "
                                       "(a Latin square from 2x2: --variant latin); a [row col digit] clue list has "
                                       "three values a line\n")


@pytest.mark.parametrize("command", ["solve", "rate"])
def test_a_nine_letter_string_names_its_bad_character_not_a_3x3_grid(capsys, command):
    """'solve badrecord' said "a 3x3 grid is not a puzzle": nine letters are no 3x3 grid."""
    assert main([command, "badrecord"]) == 2
    assert capsys.readouterr().err == ("error: puzzle: bad character 'b' at position 1 (row 1, column 1): a 3x3 cell is "
                                       "'.' or '0' (empty) or one of 1..3\n")
