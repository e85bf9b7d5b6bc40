"""The dfs engine in batch (pipeline/batch/dfs_shape.py): the same statuses, counts and grids as the
SAT engine, puzzles beyond the bulk budget searched again on their own, bad records isolated."""
from __future__ import annotations

import os

import pandas as pd
import pytest
from batch_helpers import DUPLICATE, MIXED, WRONG_LENGTH

from oracles import PROJECT
from pipeline.batch import dfs_shape, run_batch
from pipeline.batch.config import SolveOptions
from pipeline.batch.worker import solve_records
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

pytest.importorskip("numba", reason="the dfs engine needs numba (pip install '.[fast]')")

TOP95 = PROJECT / "tests" / "data" / "sets" / "9x9_norvig_top95.txt"


def test_batch_dfs_solves_and_counts_like_sat(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED + [WRONG_LENGTH, DUPLICATE]) + "\n")
    frames = {}
    for solver in ("dfs", "sat"):
        run_batch(src, tmp_path / solver, workers=1, count=2, solver=solver, progress="none",
                  stream=open(os.devnull, "w"))
        frames[solver] = pd.read_parquet(tmp_path / solver).sort_values("index").reset_index(drop=True)
    got, want = frames["dfs"], frames["sat"]
    assert list(got["status"]) == ["optimal", "optimal", "infeasible", "optimal", "error", "error"]
    assert list(got["status"]) == list(want["status"]) and list(got["error"][4:]) == list(want["error"][4:])
    assert got["n_solutions"].tolist()[:4] == [1, 2, 0, 1] == want["n_solutions"].tolist()[:4]
    for text, solution in zip(got["puzzle"][got["solution"].notna()], got["solution"].dropna()):
        assert verify_grid(parse_puzzle(solution).grid, parse_puzzle(text))
    assert (got["nodes"][got["status"] == "optimal"] > 0).all()


def test_batch_dfs_gives_the_unique_answers_sat_gives(tmp_path):
    lines = [s for s in TOP95.read_text().split() if s][:60]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    out = {}
    for solver in ("dfs", "sat"):
        summary = run_batch(src, tmp_path / solver, workers=1, solver=solver, progress="none",
                            stream=open(os.devnull, "w"))
        assert summary.solver == solver
        out[solver] = pd.read_parquet(tmp_path / solver).sort_values("index")["solution"].tolist()
    assert out["dfs"] == out["sat"] and all(out["dfs"])


def test_a_puzzle_beyond_the_bulk_budget_is_searched_on_its_own(monkeypatch):
    records = [(k, text, None, None) for k, text in enumerate(MIXED)]
    bulk = solve_records(records, SolveOptions(solver="dfs", count=2))
    monkeypatch.setattr(dfs_shape, "FIRST_BUDGET", 1)   # every puzzle leaves the bulk call unfinished
    alone = solve_records(records, SolveOptions(solver="dfs", count=2))
    for column in ("status", "n_solutions", "solution"):
        assert alone[column] == bulk[column], column
    assert all(a >= b for a, b in zip(alone["nodes"], bulk["nodes"]))


def test_a_time_limit_in_batch_ends_a_record_as_time_limit():
    empty16 = "." * 256
    columns = solve_records([(0, empty16, None, None)], SolveOptions(solver="dfs", count=10**9, time_limit=0.2))
    assert columns["status"] == ["optimal"] and columns["n_solutions"][0] > 1
    assert "stopped by time_limit" in columns["error"][0]


def _stuck_jigsaw() -> tuple:
    """The empty 16x16 jigsaw dfs finds no solution of for minutes (tests/data/rules), as a record."""
    import json
    doc = json.loads((PROJECT / "tests" / "data" / "rules" / "jigsaw16_dfs_stuck.json").read_text())
    return (0, "." * 256, doc["regions"], "jigsaw")


@pytest.mark.parametrize("count", [0, 2])
def test_auto_s_dfs_hands_a_record_stuck_in_search_to_sat(count, monkeypatch):
    """auto's pick (rules_by_auto): past the budget the SAT engine answers the record, as auto's
    count hands it on; its grid is verified like every other."""
    monkeypatch.setattr(dfs_shape, "DFS_COUNT_BUDGET", 0.05)
    columns = solve_records([_stuck_jigsaw()], SolveOptions(solver="dfs", count=count, time_limit=60,
                                                            rules_by_auto=True))
    assert columns["status"] == ["optimal"] and columns["error"] == [None]
    assert columns["n_solutions"] == [count or None]
    record = _stuck_jigsaw()
    puzzle = parse_puzzle(record[1], variant="jigsaw", regions=record[2])
    assert verify_grid(parse_puzzle(columns["solution"][0], variant="jigsaw", regions=record[2]).grid, puzzle)


def test_a_named_dfs_keeps_a_record_stuck_in_search(monkeypatch):
    """--solver dfs named: the engine alone, for as long as the time limit allows."""
    monkeypatch.setattr(dfs_shape, "DFS_COUNT_BUDGET", 0.05)
    columns = solve_records([_stuck_jigsaw()], SolveOptions(solver="dfs", time_limit=0.5))
    assert columns["status"] == ["time_limit"] and columns["solution"] == [None]
