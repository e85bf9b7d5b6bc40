"""A table of one record (``generate --format csv`` writes one) read where one puzzle is read:
``solve`` and ``count`` take it as batch takes its row (pipeline.cli.args, pipeline.batch.worker's
``one_row_table``); a table of more rows stays batch's input, refused in one line."""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from pipeline.cli.main import main


def _generated(tmp_path, capsys, *extra: str):
    path = tmp_path / "g.csv"
    assert main(["generate", "--format", "csv", "--to", str(path), *extra]) == 0
    capsys.readouterr()
    return path, pd.read_csv(path, dtype=str, keep_default_na=False).iloc[0]


@pytest.mark.parametrize("extra", [("--seed", "31"), ("--seed", "7", "--variant", "jigsaw", "--size", "6"),
                                   ("--seed", "5", "--size", "4", "--variant", "latin"),
                                   ("--seed", "12", "--killer", "--rule", "thermo")])
def test_solve_and_count_read_the_row_generate_wrote(tmp_path, capsys, extra):
    """It was refused as "a table with a 'puzzle' column" and pointed to batch: the generator's
    own solution column is the reference."""
    path, row = _generated(tmp_path, capsys, *extra)
    assert main(["solve", str(path), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["line"] == row["solution"] and answer["verified"] and answer["unique"]
    assert main(["count", str(path)]) == 0
    assert capsys.readouterr().out == "1 (unique)\n"


def test_a_one_row_parquet_with_its_rules_is_read(tmp_path, capsys):
    rules = [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]
    path = tmp_path / "one.parquet"
    pd.DataFrame({"puzzle": ["." * 16], "variant": ["latin"], "rules": [json.dumps(rules)]}).to_parquet(path)
    assert main(["count", str(path), "--limit", "1000"]) == 0
    counted = int(capsys.readouterr().out.split()[0])
    assert main(["count", "." * 16, "--variant", "latin", "--rule", json.dumps(rules[0]), "--limit", "1000"]) == 0
    assert counted == int(capsys.readouterr().out.split()[0]) > 1


def test_the_callers_variant_fills_a_row_without_one_and_may_not_differ_from_its_own(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("puzzle\n" + "1" + "." * 15 + "\n")
    assert main(["count", str(path), "--variant", "latin", "--limit", "1000"]) == 0
    latin = int(capsys.readouterr().out.split()[0])
    assert main(["count", str(path), "--limit", "1000"]) == 0
    assert latin > int(capsys.readouterr().out.split()[0])   # a latin square has no boxes: more grids
    path.write_text("puzzle,variant\n" + "1" + "." * 15 + ",x\n")
    assert main(["solve", str(path), "--variant", "latin"]) == 2
    assert capsys.readouterr().err == f"error: {path}: its row's variant is 'x', and 'latin' was asked for: give one\n"
    assert main(["solve", str(path), "--regions", "0" * 16]) == 2
    assert capsys.readouterr().err == f"error: {path}: a table's regions are its 'regions' column, not --regions\n"


def test_a_bad_row_is_one_line_naming_the_file_and_many_rows_stay_batchs(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("puzzle\n11" + "." * 14 + "\n")
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: its one row: ") and err.count("\n") == 1
    path.write_text("puzzle\n" + "." * 16 + "\n" + "1" + "." * 15 + "\n")
    assert main(["solve", str(path)]) == 2
    assert "a table with a 'puzzle' column: puzzles one a row, as batch reads them" in capsys.readouterr().err


def _stdin(monkeypatch, text: str) -> None:
    """Standard input holding ``text`` as bytes (what a pipe gives)."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))


@pytest.mark.parametrize("separator", [",", "\t"])
def test_a_one_row_table_piped_in_is_read_as_the_file_is(tmp_path, capsys, monkeypatch, separator):
    """Standard input is read once, as text: a table piped in pointed to batch, which reads no stdin."""
    path, row = _generated(tmp_path, capsys, "--seed", "44", "--size", "6")
    _stdin(monkeypatch, path.read_text().replace(",", separator))
    assert main(["solve", "-", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["line"] == row["solution"] and answer["verified"] and answer["unique"]


def test_a_piped_table_names_standard_input_in_its_errors(tmp_path, capsys, monkeypatch):
    _stdin(monkeypatch, "puzzle,variant\n" + "1" + "." * 15 + ",x\n")
    assert main(["solve", "-", "--variant", "latin"]) == 2
    assert capsys.readouterr().err == "error: <stdin>: its row's variant is 'x', and 'latin' was asked for: give one\n"
    _stdin(monkeypatch, "puzzle\n" + "1" + "." * 15 + "\n" + "2" + "." * 15 + "\n")
    assert main(["solve", "-"]) == 2
    assert "as batch reads them" in capsys.readouterr().err


UNIQUE = "47.1.......59..3.....6...5.2..4.1..67..8..5..6...9.7...41...8.3.3.5.........8.4.."


def test_explain_reads_a_one_row_table_whose_clues_break_a_rule(tmp_path, capsys, monkeypatch):
    """explain read its input only as one puzzle: a one-row table pointed to batch."""
    path = tmp_path / "bad.csv"
    path.write_text("puzzle,variant\n11" + "." * 14 + ",latin\n")
    assert main(["explain", str(path)]) == 1
    out = capsys.readouterr().out
    assert "minimal conflicting clues (2): r1c1=1 r1c2=1" in out
    _stdin(monkeypatch, path.read_text())
    assert main(["explain", "-"]) == 1
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("header", ["puzzle,n", "puzzle,my-note", "puzzle,source.url", "puzzle,"])
def test_a_header_of_any_other_names_is_read_as_batch_reads_it(tmp_path, capsys, header):
    """A column name that is not a word ('n', 'my-note', an empty one) made the header a row of cells."""
    path = tmp_path / "h.csv"
    path.write_text(f"{header}\n{UNIQUE},1\n")
    assert main(["solve", str(path), "--format", "line"]) == 0
    assert main(["solve", UNIQUE, "--format", "line"]) == 0
    out = capsys.readouterr().out.split()
    assert out[0] == out[1]


def test_a_quoted_field_longer_than_the_csv_modules_limit_is_read(tmp_path, capsys):
    """A traceback (_csv.Error: field larger than field limit) from the grid reader's line split."""
    path = tmp_path / "q.csv"
    path.write_text(f'puzzle,note\n{UNIQUE},"{"a" * 131_073}"\n')
    assert main(["solve", str(path), "--format", "line"]) == 0
    assert len(capsys.readouterr().out.strip()) == 81
    grid = tmp_path / "g.csv"
    grid.write_text(f'1,2,"{"a" * 131_073}"\n')
    assert main(["solve", str(grid)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {grid}: a quoted field that is no cell") and err.count("\n") == 1


def test_a_table_with_no_record_is_said_so(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    header = tmp_path / "h.csv"
    header.write_text("puzzle,variant\n")
    empty = tmp_path / "zero.parquet"
    pq.write_table(pa.table({"puzzle": pa.array([], pa.string())}), empty)
    for path in (header, empty):
        assert main(["solve", str(path)]) == 2
        assert capsys.readouterr().err == f"error: {path}: a table with no record under its header: expected a puzzle\n"


def test_batchs_reason_is_given_not_advice_to_run_batch(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    capital = tmp_path / "cap.csv"   # a header's case is no reason: read as batch reads it
    capital.write_text(f"Puzzle,Variant\n{UNIQUE},classic\n")
    assert main(["solve", str(capital), "--format", "line"]) == 0
    numbers = tmp_path / "int.parquet"
    pq.write_table(pa.table({"puzzle": pa.array([1], pa.int64())}), numbers)
    assert main(["solve", str(numbers)]) == 2
    assert "column 'puzzle' is int64, not text" in capsys.readouterr().err


def test_a_parquet_row_too_large_unpacked_is_refused_unread(tmp_path, capsys):
    """A 4 KB zstd file of a 100 MB column was read whole (2.2 GB for a 700 MB one)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "bomb.parquet"
    pq.write_table(pa.table({"puzzle": [UNIQUE], "note": pa.array(["a" * 70_000_000], pa.large_string())}), path,
                   compression="zstd")
    assert path.stat().st_size < 100_000
    assert main(["solve", str(path)]) == 2
    assert "bytes uncompressed: more than the 67,108,864 a puzzle may take" in capsys.readouterr().err


def test_an_empty_rules_list_in_the_row_leaves_room_for_the_callers(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_text("puzzle,rules\n" + "." * 16 + ",[]\n")
    assert main(["count", str(path), "--rule", "antiknight", "--limit", "1000"]) == 0
    with_rule = int(capsys.readouterr().out.split()[0])
    assert main(["count", str(path), "--limit", "1000"]) == 0
    assert with_rule < int(capsys.readouterr().out.split()[0])


def test_a_byte_that_is_not_utf8_is_a_bad_field_of_the_row_as_batch_reads_it(tmp_path, capsys):
    """The whole file was refused as not UTF-8 where batch reads the row (its field is not read)."""
    ignored = tmp_path / "latin1.csv"
    ignored.write_bytes(f"puzzle,variant,note\n{UNIQUE},classic,caf".encode() + b"\xe9\n")
    assert main(["solve", str(ignored), "--format", "line"]) == 0
    assert main(["solve", UNIQUE, "--format", "line"]) == 0
    out = capsys.readouterr().out.split()
    assert out[0] == out[1]
    read = tmp_path / "variant.csv"
    read.write_bytes(f"puzzle,variant\n{UNIQUE},classi".encode() + b"\xe9\n")
    assert main(["solve", str(read)]) == 2
    assert "the variant field holds a byte that is not UTF-8 text" in capsys.readouterr().err
    text = tmp_path / "p.txt"
    text.write_bytes(UNIQUE.encode() + b"\xe9\n")
    assert main(["solve", str(text)]) == 2
    assert capsys.readouterr().err == (f"error: puzzle: {str(text)!r} is not UTF-8 text (byte 0xe9 at offset 81: "
                                       "invalid continuation byte)\n")
