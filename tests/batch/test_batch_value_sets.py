"""Batch records with a value set (issue 33): they go through the whole model (the unit-only
kernels know the digits 1..N), records of other value sets never share an engine, and the
``solution`` column holds values, as ``solve`` prints them."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pipeline.batch import run_batch
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.values import parse_value_grid
from pipeline.core.verify import verify_grid

RECORDS = [".Shape~6x6~0-8.~R1C1_0~R2C2_8",                     # nine values on a side of six
           ".Shape~6x6~1-9.~R1C1_9~R2C2_5",                     # the same shape, other values
           ".Shape~4x4~0-3.~R1C1_0~R1C2_1~R1C3_2~R2C1_2~R2C2_3~R3C1_1~R3C3_3~R4C4_0",   # unique
           "1..." "..3." ".4.." "...2"]                         # no value set: digits


@pytest.mark.parametrize("engine", ["sat", "highs"])
def test_value_set_records_solve_and_print_values(tmp_path, engine):
    pytest.importorskip({"sat": "pysat", "highs": "highspy"}[engine])
    path, out = tmp_path / "in.txt", tmp_path / "out"
    path.write_text("\n".join(RECORDS) + "\n")
    assert run_batch(path, out, workers=1, solver=engine, progress="none").complete
    rows = sorted(pq.read_table(out).to_pylist(), key=lambda r: r["index"])
    assert [r["status"] for r in rows] == ["optimal"] * len(RECORDS), rows
    for text, row in zip(RECORDS, rows):
        puzzle = parse_puzzle(text)
        values = puzzle.values or tuple(range(1, puzzle.n + 1))
        grid = parse_value_grid(row["solution"], puzzle.n, tuple(values))
        assert verify_grid(grid, puzzle).ok, (text, row["solution"])
    assert rows[0]["solution"][0] == "0" and rows[0]["solution"][7] == "8"
    assert rows[1]["solution"][0] == "9" and "0" not in rows[1]["solution"]
