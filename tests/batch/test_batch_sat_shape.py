"""The other batch engines (pipeline.batch.sat_shape): the SAT engine (one incremental solver per
shape) and CP-SAT, against HiGHS and known counts."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from batch_helpers import MIXED

from oracles import PROJECT
from pipeline.batch import run_batch
from pipeline.batch.sat_shape import solve_shape_each
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, Solver, register_batch_kernel, register_solver
from pipeline.solvers.highs import solve as highs_solve

@pytest.mark.parametrize("solver", ["sat", "cpsat"])
@pytest.mark.parametrize("propagate", [True, False])
def test_batch_other_engines_solve_and_count(tmp_path, solver, propagate):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    summary = run_batch(src, tmp_path / "out", workers=1, count=2, solver=solver, propagate=propagate,
                        progress="none", stream=open(os.devnull, "w"))
    assert summary.solved_now == len(MIXED)
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "optimal", "infeasible", "optimal"]
    assert list(df["n_solutions"]) == [1, 2, 0, 1]
    for text, solution in zip(df["puzzle"][df["solution"].notna()], df["solution"].dropna()):
        assert verify_grid(parse_puzzle(solution).grid, parse_puzzle(text))


def test_batch_sat_matches_highs_on_unique_puzzles(tmp_path):
    lines = [line for line in (PROJECT / "tests" / "data" / "sets" / "9x9_norvig_top95.txt").read_text().split()
             if line][:40] if (PROJECT / "tests" / "data").exists() else MIXED[:1]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    out = {}
    for solver in ("sat", "highs"):
        run_batch(src, tmp_path / solver, workers=1, solver=solver, progress="none", stream=open(os.devnull, "w"))
        out[solver] = pd.read_parquet(tmp_path / solver).sort_values("index")["solution"].tolist()
    assert out["sat"] == out["highs"] and all(out["sat"])   # unique puzzles: the same grids


def test_batch_refuses_unknown_engine_options(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n")
    with pytest.raises(PipelineError, match=r"^solver must be one of highs, sat, cpsat, dfs, got 'glpk'$"):
        run_batch(src, tmp_path / "o1", solver="glpk")
    with pytest.raises(PipelineError, match=r"^sat_backend must be one of .*, got 'nope'$"):
        run_batch(src, tmp_path / "o2", solver="sat", sat_backend="nope")


def test_a_solver_with_a_batch_kernel_is_offered_by_batch(tmp_path):
    """Batch keeps no solver table of its own: a new entry with a batch kernel (here HiGHS's
    solve through the one-call-per-puzzle kernel) is accepted and run, its timed_call named."""
    register_solver(Solver("toy-batch", "HiGHS again", solve=highs_solve, timed_call="the toy's calls"))
    try:
        with pytest.raises(PipelineError, match="solver must be one of highs, sat, cpsat, dfs, got 'toy-batch'"):
            run_batch(tmp_path / "in.txt", tmp_path / "no", solver="toy-batch")
        register_batch_kernel("toy-batch", solve_shape_each)
        src = tmp_path / "in.txt"
        src.write_text("\n".join(MIXED) + "\n")
        summary = run_batch(src, tmp_path / "out", workers=1, solver="toy-batch", progress="none",
                            stream=open(os.devnull, "w"))
        assert summary.solver_call == "the toy's calls"
    finally:
        SOLVERS.pop("toy-batch")
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "optimal", "infeasible", "optimal"]


def test_a_counted_records_status_says_what_the_count_proved():
    """Only a complete count without a grid is infeasible; a count a stop ended is interrupted
    (a resume counts it again: it was recorded as infeasible before when it had no grid yet)."""
    import numpy as np

    from pipeline.batch.sat_shape import count_status
    from pipeline.solvers import CountResult

    grid = np.arange(16)
    assert count_status(CountResult(0, [], "complete", 0.1), None) == "infeasible"
    assert count_status(CountResult(2, [grid], "limit", 0.1), grid) == "optimal"
    assert count_status(CountResult(1, [grid], "complete", 0.1), grid) == "optimal"
    assert count_status(CountResult(0, [], "time_limit", 0.1), None) == "time_limit"
    assert count_status(CountResult(0, [], "interrupted", 0.1), None) == "interrupted"
    assert count_status(CountResult(1, [grid], "interrupted", 0.1), grid) == "interrupted"
    assert count_status(CountResult(0, [], "memory_limit", 0.1), None) == "memory_limit"
    assert count_status(CountResult(0, [], "something new", 0.1), None) == "time_limit"


@pytest.mark.parametrize("count", [None, 2])
def test_a_shape_whose_engine_outlasts_the_time_limit_answers_time_limit_at_once(tmp_path, count):
    # an empty 100x100's SAT engine takes tens of seconds to build; under --time-limit 2 its
    # records say so at once (they spent 45 s before), and a 9x9 beside it is still solved
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n" + "." * 10_000 + "\n")
    run_batch(src, tmp_path / "out", workers=1, solver="sat", time_limit=2.0, progress="none",
              **({"count": count} if count else {}),
              stream=open(os.devnull, "w"))
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "time_limit"]
    assert "setting up the SAT engine" in df["error"].iloc[1]
    assert df["wall_seconds"].iloc[1] < 10.0   # at once (45 s before); wide: CI's loaded machine, not a speed target
    # a count stopped before any grid is no count (<NA>, as HiGHS's rows had it; it said 0)
    assert df["n_solutions"].iloc[1] is pd.NA and (count is None or df["n_solutions"].iloc[0] == 1)


def test_a_large_grid_gets_a_sat_engine_of_its_own(tmp_path, monkeypatch):
    """From 25x25 each record gets its own engine on its presolved model: the shape's shared
    engine, clues as assumptions, searched a minimal 25x25 13-15x longer than solve (outside check)."""
    import pipeline
    from pipeline.batch import sat_shape

    sides = []
    each = sat_shape.solve_shape_each
    monkeypatch.setattr(sat_shape, "solve_shape_each", lambda shape, *rest: (sides.append(shape.template.n),
                                                                            each(shape, *rest))[1])
    n, box = 25, 5
    r, c = np.indices((n, n))
    grid = (box * (r % box) + r // box + c) % n + 1
    givens = np.where((r + 2 * c) % 7 == 0, 0, grid)       # 89 cells to fill
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n" + json.dumps(pipeline.read_puzzle(givens).to_document()) + "\n")
    run_batch(src, tmp_path / "out", workers=1, solver="sat", count=2, progress="none", stream=open(os.devnull, "w"))
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "optimal"] and list(df["n_solutions"]) == [1, 1]
    assert np.array_equal(parse_puzzle(df["solution"].iloc[1]).grid, grid)
    assert sides == [25]


def test_a_time_limit_row_says_why_when_the_engine_did_not(tmp_path):
    """docs/cli.md: a record that stops without a grid says why in ``error``; HiGHS's (and every
    engine's plain) ``time_limit`` rows had it empty (outside check)."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    run_batch(src, tmp_path / "out", workers=1, solver="highs", time_limit=1e-6, count=2, progress="none",
              stream=open(os.devnull, "w"))
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    stopped = df[df["status"] == "time_limit"]
    assert len(stopped) and (stopped["error"] == "solver: time limit of 1e-06 s reached").all()
    assert stopped["n_solutions"].isna().all()


def test_a_large_sparse_record_is_counted_from_one_solution_relabelled(tmp_path):
    """An empty 81x81 (beyond dfs: auto's pick per record) counted to 2 stopped at the time limit
    with no grid; clues that leave two digits unused make any solution's relabelling a second."""
    src = tmp_path / "in.csv"
    src.write_text("puzzle\n" + "." * 81 ** 2 + "\n" + "1" + "." * (81 ** 2 - 1) + "\n")
    run_batch(src, tmp_path / "out", workers=1, solver="dfs", rules_by_auto=True, box="9x9", count=3,
              time_limit=60, progress="none", stream=open(os.devnull, "w"))
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert df["status"].tolist() == ["optimal"] * 2 and df["n_solutions"].tolist() == [3, 3]
    for text, clues in zip(df["solution"], ("." * 81 ** 2, "1" + "." * (81 ** 2 - 1))):
        puzzle = parse_puzzle(clues, box="9x9")
        assert verify_grid(np.array(text.split(), dtype=np.int64).reshape(81, 81), puzzle)
