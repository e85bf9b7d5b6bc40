"""The engines (pipeline.batch.engines): in-process, a process pool whose workers ignore Ctrl-C
and see the stop flag and the puzzle counter."""
from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading

import pytest

from batch_helpers import MIXED, serving_port

from pipeline.batch import engines, run_batch
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


@pytest.mark.parametrize("workers", [1, 2])
def test_each_process_worker_takes_its_share_of_the_memory_limit(monkeypatch, workers):
    """The memory models may take is the run's: each of W workers took the whole (half the
    physical memory), so two workers could hold all of it. Set by hand, it stays each one's."""
    from pipeline.core.limits import MAX_BYTES_ENV, memory_limit

    monkeypatch.delenv(MAX_BYTES_ENV, raising=False)
    whole = memory_limit()
    pool = engines.Processes(workers)
    try:
        assert int(pool.submit(os.getenv, MAX_BYTES_ENV).result(timeout=60)) == whole // workers
    finally:
        pool.close(cancel=True)
    monkeypatch.setenv(MAX_BYTES_ENV, "123456789")
    pool = engines.Processes(workers)
    try:
        assert pool.submit(os.getenv, MAX_BYTES_ENV).result(timeout=60) == "123456789"
    finally:
        pool.close(cancel=True)


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


_WARMED: list[int] = []


def _warm():
    _WARMED.append(os.getpid())


def _warmed(_):
    """What a worker inherited of the client's warm-up, and its own pid."""
    return list(_WARMED), os.getpid()


def test_a_forked_pool_runs_the_warm_up_once_in_the_client_and_its_workers_inherit_it():
    _WARMED.clear()
    pool = engines.make_engine("processes", 2, None, warm=_warm)
    try:
        seen, worker = pool.submit(_warmed, None).result(timeout=60)
    finally:
        pool.close()
    if engines.start_method() == "fork":
        assert _WARMED == [os.getpid()] and seen == [os.getpid()] and worker != os.getpid()
    else:   # spawned workers start afresh: the warm-up would be lost on them, so it is not run
        assert _WARMED == [] and seen == []
    # in-process too, before the first record is timed: a fresh cache's compile (2 s) was spread
    # over the first records' seconds by their nodes (1.5 ms a node where 2 us is right)
    _WARMED.clear()
    engines.make_engine("processes", 1, None, warm=_warm).close()
    assert _WARMED == [os.getpid()]


def test_dfs_registers_a_warm_up_that_loads_its_compiled_search():
    pytest.importorskip("numba", reason="the dfs kernel needs numba (the 'fast' extra)")
    from pipeline.batch.dfs_shape import warm_dfs
    from pipeline.solvers import SOLVERS, dfs_native

    assert SOLVERS["dfs"].batch_warm is warm_dfs
    dfs_native._LOADED = None
    warm_dfs()
    assert dfs_native._LOADED is not None   # loaded once here, for the forked workers to inherit


def test_a_stopped_pools_feeder_error_on_a_sentinel_is_not_printed(capsys):
    """The call queue's feeder thread can fail to write a worker's shutdown sentinel once a stopped
    run has killed that worker (CPython closes the pipe under it: EBADF, seen once in a full test
    run as a traceback after batch's one line). The pool's hook drops that error once the run is
    stopping, and reports it, as CPython does, before the stop or for a task."""
    processes = engines.Processes(1)
    try:
        hook = processes.pool._call_queue._on_queue_feeder_error
        bad = OSError(9, "Bad file descriptor")
        try:
            raise bad
        except OSError:
            hook(bad, None)                      # before any stop: CPython's report (a traceback)
        assert "Bad file descriptor" in capsys.readouterr().err
        processes.request_stop()
        try:
            raise bad
        except OSError:
            hook(bad, None)                      # a stopped run's sentinel: nothing to say
        assert capsys.readouterr().err == ""
    finally:
        processes.close(cancel=True)


def test_a_cancelled_pool_s_closed_pipe_error_is_dropped_and_nothing_else():
    """CPython 3.11's ProcessPoolExecutor can write to its closed wake-up pipe when workers end
    during shutdown; its queue feeder thread printed that OSError traceback after 'interrupted'
    (a loaded run of a Ctrl-C inside two long HiGHS runs). Only that error, from the pool's own
    threads, is dropped, and only while a cancelled pool is torn down."""
    import errno
    import threading

    from pipeline.batch.engines import _pool_teardown_quiet

    seen: list[str] = []
    before = threading.excepthook
    threading.excepthook = lambda args: seen.append(f"{args.thread.name}: {args.exc_type.__name__}")
    try:
        def closed_pipe():
            raise OSError(errno.EBADF, "Bad file descriptor")

        def other():
            raise ValueError("not a pipe")

        with _pool_teardown_quiet():
            for target, name in ((closed_pipe, "QueueFeederThread"), (other, "QueueFeederThread"),
                                 (closed_pipe, "a user's thread")):
                thread = threading.Thread(target=target, name=name)
                thread.start()
                thread.join()
        thread = threading.Thread(target=closed_pipe, name="QueueFeederThread")
        thread.start()
        thread.join()
    finally:
        threading.excepthook = before
    assert seen == ["QueueFeederThread: ValueError", "a user's thread: OSError", "QueueFeederThread: OSError"]


def test_scratch_of_a_killed_client_is_removed_by_the_next_run(tmp_path):
    """A local cluster's scratch went with its client's close; a client killed by SIGKILL left it
    in /tmp for good. The next local-cluster run removes those whose client pid is gone."""
    import subprocess
    import sys

    from pipeline.batch.engines import SCRATCH_PREFIX, remove_orphaned_scratch

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dead = tmp_path / f"{SCRATCH_PREFIX}{gone}-abc"
    alive = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    odd = tmp_path / f"{SCRATCH_PREFIX}x12-ghi"
    for d in (dead, alive, odd):
        (d / "worker-1").mkdir(parents=True)
    (tmp_path / f"{SCRATCH_PREFIX}{gone}-file").write_text("not a directory")
    assert remove_orphaned_scratch(str(tmp_path)) == [str(dead)]
    assert not dead.exists() and alive.exists() and odd.exists()
    assert (tmp_path / f"{SCRATCH_PREFIX}{gone}-file").exists()


@pytest.fixture
def http_port():
    """A TCP port whose server answers every connection at once with an HTTP 400 and closes it,
    as a proxy or web server does to Dask's first frame."""
    def answer(conn: socket.socket) -> bool:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return False
    with serving_port(answer) as port:
        yield port


def test_a_server_that_answers_at_once_but_not_as_dask_gets_the_port_hint(tmp_path, http_port):
    """A helper's probe: an HTTP 400 read as Dask's frame header is a length of exabytes, and the
    run said "did not answer (Unable to allocate 3.07 EiB for an array ...)"."""
    pytest.importorskip("distributed")
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n")
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}
    proc = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(src), str(tmp_path / "out"),
                           "--scheduler", f"tcp://127.0.0.1:{http_port}", "--progress", "none"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: batch: the Dask scheduler at tcp://127.0.0.1:{http_port} did not answer "
                                  "(something answered there, not as a Dask scheduler ("), proc.stderr
    assert proc.stderr.endswith("): is it the scheduler's port, not its dashboard's?); nothing was solved\n")
    assert proc.stderr.count("\n") == 1 and "EiB" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_local_dask_cluster_s_workers_log_nothing_below_critical():
    """A Ctrl-C of a --engine dask batch printed a worker's 30-line "Failed to communicate with
    scheduler during heartbeat" traceback (logged at ERROR, which silence_logs=ERROR let through)
    after the run's own line."""
    import logging

    options = engines.local_cluster_options(2, "/tmp/x")
    assert options["silence_logs"] == logging.CRITICAL
    assert options["n_workers"] == 2 and options["threads_per_worker"] == 1 and options["local_directory"] == "/tmp/x"


def test_a_stop_after_the_pool_started_before_it_was_returned_leaves_no_worker(tmp_path, monkeypatch):
    """A Ctrl-C handled once ``Processes`` had started its workers, before ``runner =
    make_engine(...)`` was assigned, ended the run as an interrupted one but never closed the
    pool: its workers stayed alive (idle) until the interpreter's exit. The engine is now known
    to the run from the moment it holds something to close. The stop is raised right after the
    pool's start returns, where Python's SIGINT handler would raise it."""
    real = engines.Processes.__init__
    made: list = []
    workers: list = []

    def started_then_stopped(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)
        workers.extend(self.pool._processes.values())
        raise KeyboardInterrupt
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 4)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(engines.Processes, "__init__", started_then_stopped)
            summary = run_batch(src, tmp_path / "out", workers=2, progress="none")
        assert summary.interrupted and summary.solved_now == 0
        assert made and workers
        assert not [p.pid for p in workers if p.is_alive()]
    finally:
        for pool in made:
            pool.close(cancel=True)


def test_a_stop_after_overwrite_s_cluster_started_before_it_was_returned_closes_it(tmp_path, monkeypatch):
    """``--overwrite`` with Dask reaches its cluster before the run plans: a stop handled once
    the cluster was up, before ``runner = make_engine(...)`` was assigned (while Dask counts its
    workers' threads), left it open. The engine stands in here for a started cluster; the stop
    is raised right after its start, where the signal's handler would raise it."""
    if importlib.util.find_spec("distributed") is None:   # the run refuses engine="dask" before it starts
        pytest.skip("dask.distributed is not installed")

    class Started:
        closed = 0

        def __init__(self, workers, scheduler, made=None):
            if made is not None:
                made(self)
            raise KeyboardInterrupt

        def close(self, cancel=False, abort=None):
            Started.closed += 1
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 2)
    out = tmp_path / "out"
    assert run_batch(src, out, workers=1, progress="none").complete
    with monkeypatch.context() as patch:
        patch.setattr(engines, "Dask", Started)
        with pytest.raises(KeyboardInterrupt):
            run_batch(src, out, engine="dask", overwrite=True, workers=2, progress="none")
    assert Started.closed >= 1
