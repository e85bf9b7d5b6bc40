"""A pool worker that dies on its own (the OOM killer, a crash, ``kill -9``) ends the run at once:
one line, exit 1, nothing left running, and a rerun resumes.

Workers ignore SIGTERM (:data:`pipeline.batch.engines.STOP_SIGNALS`), so CPython's own clean-up of
a broken pool (SIGTERM to the other workers, then an unbounded join) waited forever for them, and
the client, blocked in that join, answered no signal but SIGKILL.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from batch_helpers import lines, parts, read, refs

from oracles import PROJECT
from pipeline.batch import engines

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not Path("/proc/self/stat").exists(),
                                reason="POSIX signals and /proc (a process's children)")

#: Seconds a run may take to end after one of its workers is killed (it takes well under one).
CRASH_ANSWER_SECONDS = 10.0


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]   # the command name may hold spaces
        if int(ppid) == pid and state != "Z":
            found.append(int(entry.name))
    return sorted(found)


def test_a_broken_pool_is_closed_at_once_and_its_other_workers_are_ended():
    """One worker killed while the other is in a long task (a sleep here, a HiGHS run of hours in
    life) that ignores SIGTERM: close() returned only when that task ended."""
    pool = engines.Processes(2)
    closer = threading.Thread(target=pool.close, daemon=True)
    futures = [pool.submit(time.sleep, 120) for _ in range(2)]
    workers = list(pool.pool._processes)   # after the submits: a spawned pool starts them one by one
    try:
        assert len(workers) == 2
        time.sleep(0.5)   # both workers are inside their sleep
        os.kill(workers[0], signal.SIGKILL)
        for future in futures:
            with pytest.raises(BrokenProcessPool):
                future.result(timeout=CRASH_ANSWER_SECONDS)
        start = time.monotonic()
        closer.start()
        closer.join(CRASH_ANSWER_SECONDS)
        assert not closer.is_alive(), "close() waits for a worker that ignores SIGTERM"
        assert time.monotonic() - start < 3.0
        assert not [pid for pid in workers if pid in _children(os.getpid())]   # ended and reaped
        assert pool.crashed()
    finally:
        for pid in workers:
            if pid in _children(os.getpid()):
                os.kill(pid, signal.SIGKILL)
        if closer.is_alive():
            closer.join(CRASH_ANSWER_SECONDS)


def test_a_pool_that_ends_normally_is_not_taken_for_a_crashed_one():
    pool = engines.Processes(2)
    workers = list(pool.pool._processes)
    assert pool.submit(abs, -3).result(timeout=60) == 3
    assert not pool.crashed()
    pool.close()
    assert not pool.crashed()   # a worker that took its shutdown sentinel ends with exit code 0
    assert not [pid for pid in workers if pid in _children(os.getpid())]


def test_a_worker_killed_mid_run_is_exit_1_in_one_line_then_the_run_resumes(data_dir, tmp_path):
    """The other worker is stopped (SIGSTOP) before one is killed, so that it cannot end on its
    own as it would between two quick puzzles: it stands for a worker inside one long puzzle, or
    stuck writing a result nobody reads any more, as the reported run's was."""
    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    records = records * max(1, -(-600 // len(records)))   # a few seconds of work: still running at the kill
    path = tmp_path / "in.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    options = ["--workers", "2", "--chunk-size", "4", "--solver", "highs", "--no-propagate", "--progress", "none"]
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "batch", str(path), str(out), *options],
                            cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(parts(out)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = _children(proc.pid)
        if proc.poll() is not None:
            pytest.fail(f"batch ended before a worker could be killed ({proc.returncode}): "
                        f"{proc.stderr.read().decode()[-2000:]}")
        assert len(workers) == 2, workers
        os.kill(workers[1], signal.SIGSTOP)
        os.kill(workers[0], signal.SIGKILL)
        start = time.monotonic()
        _, err = proc.communicate(timeout=CRASH_ANSWER_SECONDS)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = err.decode()
    assert proc.returncode == 1, text
    assert text.count("\n") == 1 and text.startswith("error: batch: a worker failed (BrokenProcessPool: "), text
    assert text.rstrip().endswith("rerun the same command to resume"), text
    assert took < 5.0, took
    with pytest.raises(ProcessLookupError):   # no worker of the run's process group is left
        os.killpg(proc.pid, 0)
    kept = len(read(out))
    rerun = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(path), str(out), *options],
                           cwd=PROJECT, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert "complete" in rerun.stderr and f"{kept:,} already done" in rerun.stderr, rerun.stderr
    df = read(out)
    assert df["index"].tolist() == list(range(len(records)))   # every record once, none lost
    answers = refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv")
    assert df["solution"].tolist() == [answers[p] for p in records]
