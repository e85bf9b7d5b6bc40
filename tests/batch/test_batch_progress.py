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


def test_a_zero_interval_writes_each_state_once():
    """An outside check: ``--log-interval 0`` printed every line twice (the run shows the meter
    after a part is written and again after it asks the workers' counter, which said the same)."""
    stream = io.StringIO()
    meter = progress.Progress(100, 0, "log", 0.0, stream)
    meter.update(["optimal"] * 10)
    meter.running(10)                     # the workers' counter: nothing new
    meter.running(10)
    assert len(stream.getvalue().splitlines()) == 1
    meter.running(12)                     # two more finished in the workers: a new line
    meter.update(["optimal"] * 2)         # the same two written: the counts moved, a new line
    meter.running(12)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and "12/100" in lines[1] and "optimal 12" in lines[2]
    meter.detail("step 1")                # generate's detail text is a change too
    meter.detail("step 1")
    assert len(stream.getvalue().splitlines()) == 4


def test_a_positive_interval_still_writes_a_line_when_nothing_moved(monkeypatch):
    """A long puzzle keeps the run silent between parts: a line every interval says it is alive."""
    clock = [1000.0]
    monkeypatch.setattr("pipeline.core.progress.time.monotonic", lambda: clock[0])
    stream = io.StringIO()
    meter = progress.Progress(100, 0, "log", 5.0, stream)
    meter.running(0)
    assert stream.getvalue() == ""        # before the first interval: nothing
    clock[0] += 5.0
    meter.running(0)
    clock[0] += 5.0
    meter.running(0)
    assert len(stream.getvalue().splitlines()) == 2


def test_a_bar_without_tqdm_says_so_once_and_logs(monkeypatch, tmp_path, capsys):
    """An outside check: ``--progress bar`` without tqdm (a core install), even on a terminal, fell
    back to log lines in silence. One note names the extra; the meter then logs."""
    import sys

    from pipeline.cli.main import main
    monkeypatch.setitem(sys.modules, "tqdm", None)   # as on an install without the progress extra
    stream = io.StringIO()
    meter = progress.Progress(2, 0, "bar", 0.0, stream)
    meter.update(["optimal"])
    meter.update(["optimal"])
    meter.close()
    lines = stream.getvalue().splitlines()
    assert meter.mode == "log" and lines[0].startswith("note: --progress bar needs tqdm (the progress extra), which is "
                                                       "not installed: ") and "[progress]'" in lines[0], lines
    assert sum(line.startswith("note:") for line in lines) == 1 and lines[1].startswith("batch: 1/2"), lines
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1", "--chunk-size", "1", "--solver", "sat",
                 "--progress", "bar"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "needs tqdm" in notes[0], notes
