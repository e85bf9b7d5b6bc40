"""The engines (pipeline.batch.engines): in-process, a process pool whose workers ignore Ctrl-C
and see the stop flag and the puzzle counter."""
from __future__ import annotations

import os
import signal
import threading

from batch_helpers import MIXED

from pipeline.batch import engines
from pipeline.batch.config import SolveOptions
from pipeline.batch.progress import stopped
from pipeline.batch.worker import STOPPED_KEY, solve_records

RECORDS = [(k, MIXED[0], None, None) for k in range(4)]


def _signal_state(_):
    """What a worker process sees: its SIGINT handler, the stop flag, its parent."""
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN, stopped(), os.getppid()


def test_start_method_is_fork_only_without_other_threads():
    assert engines.start_method() in ("fork", "spawn")
    if threading.active_count() == 1 and engines.start_method() == "spawn":
        assert not os.sys.platform.startswith("linux")
    gate = threading.Event()
    helper = threading.Thread(target=gate.wait)
    helper.start()
    try:
        assert engines.start_method() == "spawn"   # fork with other threads alive is not safe
    finally:
        gate.set()
        helper.join()


def test_process_workers_ignore_ctrl_c_count_puzzles_and_stop_on_request():
    pool = engines.Processes(2)
    try:
        ignored, stop_seen, parent = pool.submit(_signal_state, None).result(timeout=60)
        assert ignored and not stop_seen and parent == os.getpid()
        columns = pool.submit(solve_records, RECORDS, SolveOptions()).result(timeout=120)
        assert columns["status"] == ["optimal"] * len(RECORDS)
        assert pool.finished_puzzles() == len(RECORDS)
        pool.request_stop()
        assert pool.submit(_signal_state, None).result(timeout=60)[1]
        cut = pool.submit(solve_records, RECORDS, SolveOptions()).result(timeout=120)
        assert cut[STOPPED_KEY] and cut["index"] == []
    finally:
        pool.close()


def test_in_process_engine_runs_at_once_and_resets_its_flags():
    engine = engines.InProcess()
    future = engine.submit(solve_records, RECORDS[:2], SolveOptions(solver="sat"))
    assert future.done() and future.result()["status"] == ["optimal", "optimal"]
    assert engine.finished_puzzles() == 2
    engine.close()
    assert not stopped()
