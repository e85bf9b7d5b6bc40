"""A Ctrl-C or SIGTERM while ``batch --engine dask`` starts its LocalCluster (seconds on a loaded
machine): the run ends as an interrupted one (``interrupted``, exit 130), OUT as it was before, no
worker process left.

The signal is sent while the client is certainly inside the cluster's start-up: each worker runs
a Dask preload module (``distributed.worker.preload``, Dask's own hook, set through the
environment) that says it has started and then waits for the test's word. A worker that has not
registered keeps the client's ``LocalCluster(...)`` waiting, so the signal lands in the start-up
however slow the machine is; the test then lets the workers go on.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oracles import PROJECT

#: seconds for the client to reach its workers' start-up, and then to end (generous bounds for a
#: loaded machine: the test waits for events, these only end a hung run)
START_TIMEOUT = 180.0
END_TIMEOUT = 180.0

#: the workers' preload: it marks the worker as started, then waits until the test says "go"
GATE = """\
import os
import time
from pathlib import Path

gate = Path(os.environ["SUDOKU_TEST_START_GATE"])
(gate / f"started-{os.getpid()}").touch()
while not (gate / "go").exists():
    time.sleep(0.01)
"""


def _group_gone(pgid: int) -> bool:
    """No process of the group ``pgid`` runs (a zombie does not: an orphan's waits for an init
    that may never reap it, as a container's first process may not)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        return False
    for stat in proc.glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()   # after "pid (name)": state, ppid, pgrp
            if int(fields[2]) == pgid and fields[0] != "Z":
                return False
    return True


@pytest.mark.parametrize("signum, to_group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c-to-the-group", "sigterm-to-the-client"])
def test_a_signal_while_the_local_cluster_starts_ends_the_run(tmp_path, signum, to_group):
    """SIGINT was ignored while the LocalCluster started, so a Ctrl-C then was lost: the run went
    on and ended complete with exit 0. It now ends as interrupted with exit 130."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    gate = tmp_path / "gate"
    gate.mkdir()
    preload = tmp_path / "sudoku_test_start_gate.py"
    preload.write_text(GATE)
    scratch = tmp_path / "tmpdir"   # the run's temporary directory: empty again once it is over
    scratch.mkdir()
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TMPDIR=str(scratch), SUDOKU_TEST_START_GATE=str(gate),
               DASK_DISTRIBUTED__WORKER__PRELOAD=f'["{preload}"]')
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "batch", str(src), str(out), "--engine", "dask",
                             "--workers", "2", "--progress", "none"],
                            cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not list(gate.glob("started-*")):
            if proc.poll() is not None:
                pytest.fail(f"batch exited before its workers started ({proc.returncode}): {proc.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail("no worker of the local cluster started in time")
            time.sleep(0.01)
        # a worker is in its start-up, not registered: the client is inside LocalCluster(...)
        if to_group:
            os.killpg(proc.pid, signum)   # a terminal's Ctrl-C reaches the whole process group
        else:
            proc.send_signal(signum)
        (gate / "go").touch()
        stdout, stderr = proc.communicate(timeout=END_TIMEOUT)
        # the workers are closed with the cluster; the ones killed with the client go just after it
        deadline = time.monotonic() + END_TIMEOUT
        while not _group_gone(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _group_gone(proc.pid)
    finally:
        (gate / "go").touch()
        if proc.poll() is None or not _group_gone(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout + stderr and "Traceback" not in stderr, stderr
    assert not out.exists()                  # OUT as before the run: nothing was solved
    assert left, "worker processes outlived the run"
    assert list(scratch.iterdir()) == []     # the cluster's scratch removed with it


def test_a_ctrl_c_while_overwrite_s_cluster_starts_leaves_no_output_directory(tmp_path, monkeypatch):
    """``--overwrite --engine dask`` starts its cluster before OUT is prepared; a Ctrl-C then ended
    the run (exit 130) but left the directory it made, holding only ``_batch.lock``."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    import pipeline.batch.run as run_module
    from pipeline.batch import run_batch

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    out = tmp_path / "out"
    monkeypatch.setattr(run_module, "make_engine", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_batch(src, out, engine="dask", workers=1, overwrite=True, progress="none")
    assert not out.exists()
