"""Progress per puzzle and the stop flag (pipeline.batch.progress), as a worker sees them."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from batch_helpers import MIXED

from pipeline.batch import progress
from pipeline.batch.config import SolveOptions
from pipeline.batch.worker import STOPPED_KEY, solve_records

RECORDS = [(k, MIXED[0], None, None) for k in range(6)]


@pytest.fixture
def flags():
    stop, counter = SimpleNamespace(value=0), SimpleNamespace(value=0)
    progress.init_worker(stop, counter)
    yield stop, counter
    progress.init_worker(None, None)


@pytest.mark.parametrize("solver", ["highs", "sat"])
def test_every_puzzle_is_counted_in_the_shared_counter(flags, solver):
    _, counter = flags
    columns = solve_records(RECORDS, SolveOptions(solver=solver))
    assert columns["status"] == ["optimal"] * len(RECORDS)
    assert counter.value == len(RECORDS) and not columns[STOPPED_KEY]


@pytest.mark.parametrize("solver", ["highs", "sat"])
def test_a_stop_request_hands_back_the_finished_puzzles_only(flags, monkeypatch, solver):
    stop, _ = flags
    real_tick = progress.tick
    seen = []

    def tick():   # the stop arrives while the third puzzle is being solved
        seen.append(1)
        if len(seen) == 2:
            stop.value = 1
        real_tick()

    module = "pipeline.batch.highs_shape" if solver == "highs" else "pipeline.batch.sat_shape"
    monkeypatch.setattr(f"{module}.tick", tick)
    columns = solve_records(RECORDS, SolveOptions(solver=solver))
    assert columns[STOPPED_KEY]
    assert columns["index"] == [0, 1] and columns["status"] == ["optimal", "optimal"]
    assert all(columns["solution"])


def test_the_meter_moves_with_the_workers_count_between_parts():
    stream = io.StringIO()
    meter = progress.Progress(100, 10, "log", 0.0, stream)
    meter.running(25)                     # 25 finished in workers, no part written yet
    assert "batch: 35/100 (35.0%)" in stream.getvalue()
    meter.update(["optimal"] * 20)       # a part of 20 written: 5 still in flight
    assert "batch: 35/100 (35.0%)" in stream.getvalue().splitlines()[-1]
    assert "optimal 20" in stream.getvalue().splitlines()[-1]
