"""``batch`` reads a 16x16 record in the hexadoku alphabet ``0-F`` as ``solve`` reads the same
text: every ``0`` clue kept (the bulk parser took them for empty cells, without a word), the
values 0..15, the answer written in ``0-F``; an ambiguous record is an error row with ``solve``'s
message; a ``1-G`` record reads as it always did."""
from __future__ import annotations

import csv

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import shuffled_sudoku
from pipeline.batch import run_batch
from pipeline.batch.config import SolveOptions
from pipeline.batch.worker import group_records
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle

ZERO_TO_F, ONE_TO_G = "0123456789ABCDEF", "123456789ABCDEFG"


def _record(rng: np.random.Generator, kind: str) -> str:
    """A random 16x16 record: ``0-F`` with holes, a full ``0-F`` grid (ambiguous), ``1-G`` with
    ``0`` or ``.`` for empty, or ``1-G`` with ``0`` once a row and a column and no ``G`` (as a 0-F)."""
    digits = shuffled_sudoku(4, 4, rng)                      # 1..16
    holes = rng.random((16, 16)) < rng.uniform(0.1, 0.7)
    if kind == "0-F":
        holes[digits == 1] = False                           # its '0' clues
        holes[0, 1] |= digits[0, 1] != 1                     # and an empty cell at least
        return "".join(np.where(holes, rng.choice([".", "-"]), np.array(list(ZERO_TO_F))[digits - 1]).ravel())
    if kind == "full 0-F":
        return "".join(np.array(list(ZERO_TO_F))[digits - 1].ravel())
    if kind == "1-G, '0' once":   # the digit G's cells blanked as '0': no 'G', '0' once a row: ambiguous
        return "".join(np.where(digits == 16, "0", np.array(list(ONE_TO_G))[digits - 1]).ravel())
    holes[0, :2] = True                                      # two '0' in row 1 when '0' is the blank
    return "".join(np.where(holes, kind[-1], np.array(list(ONE_TO_G))[digits - 1]).ravel())


def _grouped(records: list[str]) -> tuple[list[dict], dict[int, tuple]]:
    """group_records' rows, and each grouped record's (values, clue grid)."""
    rows = [{"index": k, "puzzle": text, "variant": None, "status": None, "error": None}
            for k, text in enumerate(records)]
    shapes = group_records([(k, text, None, None) for k, text in enumerate(records)], SolveOptions(), rows)
    read = {k: (shape.template.values, np.asarray(grid).reshape(16, 16))
            for shape in shapes.values() for k, grid in zip(shape.members, shape.grids)}
    return rows, read


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       kinds=st.lists(st.sampled_from(["0-F", "full 0-F", "1-G, '0' once", "1-G, 0", "1-G, ."]),
                      min_size=1, max_size=12))
def test_batch_reads_each_record_as_solve_does(seed, kinds):
    rng = np.random.default_rng(seed)
    records = [_record(rng, kind) for kind in kinds]
    rows, read = _grouped(records)
    for k, (kind, text) in enumerate(zip(kinds, records)):
        try:
            puzzle = parse_puzzle(text)                      # what solve reads
        except PuzzleError as e:
            assert kind in ("full 0-F", "1-G, '0' once")
            assert k not in read and rows[k]["status"] == "error"
            assert rows[k]["error"].endswith(str(e)) and "ambiguous 16x16 grid" in rows[k]["error"]
            continue
        assert kind not in ("full 0-F", "1-G, '0' once")
        values, grid = read[k]
        assert values == puzzle.values and np.array_equal(grid, puzzle.grid), (kind, text)
        if kind == "0-F":   # every clue, the '0' ones too, in the values 0..15
            assert values == tuple(range(16))
            assert int((grid > 0).sum()) == sum(ch not in ".-" for ch in text)


def _first_16x16(data_dir) -> tuple[str, str]:
    with open(data_dir / "sets" / "16x16_classic.ref.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["n_solutions_capped"] == "1")
    return row["puzzle"], row["solution"]


@pytest.mark.parametrize("form", ["txt", "csv"])
def test_batch_solves_a_0_to_F_record_and_writes_0_to_F(data_dir, tmp_path, form):
    puzzle, solution = _first_16x16(data_dir)
    shift = str.maketrans(ONE_TO_G, ZERO_TO_F)   # the same puzzle, each digit one lower
    zero_f, answer = puzzle.translate(shift), solution.translate(shift)
    assert "0" in zero_f and "." in zero_f and "G" not in zero_f
    records = [zero_f, puzzle, answer]           # 0-F, the same in 1-G, a full 0-F grid (ambiguous)
    path, out = tmp_path / f"in.{form}", tmp_path / "out"
    path.write_text(("puzzle\n" if form == "csv" else "") + "\n".join(records) + "\n")
    assert run_batch(path, out, workers=1, solver="dfs", progress="none") is not None
    rows = sorted(pq.read_table(out).to_pylist(), key=lambda r: r["index"])
    assert [r["status"] for r in rows] == ["optimal", "optimal", "error"], rows
    assert rows[0]["solution"] == answer         # in 0-F, every '0' clue kept
    assert rows[1]["solution"] == solution       # 1-G as ever
    assert "ambiguous 16x16 grid" in rows[2]["error"] and rows[2]["solution"] is None
