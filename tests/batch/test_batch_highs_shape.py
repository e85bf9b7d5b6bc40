"""The per-shape HiGHS solver of batch (pipeline.batch.highs_shape)."""
from __future__ import annotations

import numpy as np

from oracles import shuffled_sudoku
from pipeline.batch.config import SolveOptions
from pipeline.batch.highs_shape import ShapeSolver
from pipeline.core.puzzle import Puzzle


def test_decode_flags_fractional_and_ambiguous_vectors():
    template = Puzzle(np.zeros((4, 4), dtype=int), 2, 2)
    solver = ShapeSolver(template, SolveOptions())
    grid = shuffled_sudoku(2, 2, np.random.default_rng(1))
    good = np.zeros(solver.n_vars)
    good[solver.pos[np.arange(16), grid.ravel() - 1]] = 1.0
    fractional = good.copy()
    fractional[solver.pos[0, 0]] = 0.5
    two_digits = good.copy()
    two_digits[solver.pos[5, grid.ravel()[5] % 4]] = 1.0  # cell (2, 2) also gets a second digit
    grids, why = solver.decode(np.stack([good, fractional, two_digits]))
    assert np.array_equal(grids[0], grid.ravel()) and why[0] is None
    assert why[1].startswith("x is not integral")
    assert why[2] == "decode: cell (2, 2) holds 2 digits"


def test_a_highs_count_stops_at_the_records_time_limit_and_retry_takes_it(tmp_path):
    """An outside check: each cut's run got the whole --time-limit, so a count ran for minutes
    under --time-limit 2; its row then said 'stopped by interrupted', which --retry did not take."""
    import time

    from batch_helpers import read
    from pipeline.batch import run_batch

    path = tmp_path / "in.txt"
    path.write_text("." * 81 + "\n" + "1" + "." * 80 + "\n")
    out = tmp_path / "out"
    started = time.perf_counter()
    run_batch(path, out, workers=1, count=10**6, time_limit=1.0, solver="highs", progress="none")
    wall = time.perf_counter() - started
    rows = read(out)
    assert rows["status"].tolist() == ["optimal", "optimal"]
    assert all(e.startswith("count: stopped by time_limit after ") for e in rows["error"])
    assert (rows["n_solutions"] >= 1).all() and (rows["seconds"] < 1.0 + 0.5).all(), rows["seconds"].tolist()
    assert wall < 60, wall          # (minutes before)
    summary = run_batch(path, out, workers=1, count=10**6, time_limit=1.0, solver="highs", retry=("time_limit",),
                        progress="none")
    assert summary.retried == 2


def test_a_count_a_stop_ended_is_an_interrupted_row(monkeypatch):
    """A stop inside the count: the row says 'interrupted', which the worker leaves out after a
    stop so that a rerun counts it (it was 'optimal' with a partial count, kept for good)."""
    import pipeline.batch.highs_shape as highs_shape
    from pipeline.solvers.highs import CutCount

    monkeypatch.setattr(highs_shape, "count_with_cuts", lambda *a, **k: CutCount([], "interrupted", count=9))
    solver = ShapeSolver(Puzzle(np.zeros((9, 9), dtype=int), 3, 3), SolveOptions())
    lb, ub = solver.bounds(np.zeros((1, 81), dtype=np.int64), None)
    row, _ = solver.solve(lb[0], ub[0], count=1000)
    assert row["status"] == "interrupted"
