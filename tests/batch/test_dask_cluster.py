"""``batch --scheduler`` against a real Dask cluster: a ``dask scheduler`` and two ``dask worker``
processes started from the command line on loopback, as a user with a cluster would (not a
LocalCluster inside the test process). The batch itself runs as ``python -m pipeline batch`` in
a child process, so nothing of the pipeline is imported in the client's address space by the
test. Each row is checked against the reference solutions of the data set and against the
independent rule oracle of ``conftest.py``.

The cluster is torn down in a ``finally`` whatever happens: each process is started in its own
session and its process group gets SIGTERM, then SIGKILL after a timeout. Skips with a printed
reason when dask's CLI or ``distributed`` is missing.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from oracles import PROJECT, grid_of, is_valid_solution

START_TIMEOUT = 90.0  # seconds for the scheduler and both workers to come up
BATCH_TIMEOUT = 300.0
STOP_TIMEOUT = 15.0
N_WORKERS = 2
SAMPLE_17 = 24  # puzzles of the 17-clue set
SAMPLE_HARDEST = 8  # puzzles of the forum-hardest set


def _skip(reason: str):
    print(f"SKIP: {reason}")
    pytest.skip(reason)


def _dask_cli() -> str | None:
    """The ``dask`` command beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "dask"
    return str(beside) if beside.exists() else shutil.which("dask")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group (a worker's nanny and its child), SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STOP_TIMEOUT)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextlib.contextmanager
def _running_cluster(base: Path, workers: int, scheduler_preload: Path | None = None,
                     worker_preload: Path | None = None):
    """The address of a scheduler with ``workers`` single-threaded workers on 127.0.0.1, each
    process started as a user would from the command line (``--preload``: a module each runs
    first); all torn down on the way out."""
    dask = _dask_cli()
    if dask is None:
        _skip("the dask command line (dask[distributed]) is not installed")
    try:
        from distributed import Client
    except ImportError as e:
        _skip(f"dask.distributed is not importable ({e})")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    # the workers unpickle tasks by module name: they import this checkout's pipeline
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               DASK_TEMPORARY_DIRECTORY=str(base))   # the scheduler's scratch too (else $TMPDIR's, left behind)

    def preload(path: Path | None) -> list[str]:
        return ["--preload", str(path)] if path else []
    commands = [("scheduler", [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
                               *preload(scheduler_preload)])]
    commands += [(f"worker{k}", [dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                 "--nworkers", "1", "--no-dashboard", "--local-directory", str(base / f"w{k}"),
                                 "--name", f"sudoku-test-worker-{k}", *preload(worker_preload)])
                 for k in range(workers)]
    procs: list[tuple[str, subprocess.Popen, Path]] = []
    try:
        for name, cmd in commands:
            log = base / f"{name}.log"
            with open(log, "wb") as f:
                procs.append((name, subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=base,
                                                     start_new_session=True), log))
            if name == "scheduler":
                _wait_for_port(port, procs[0][1], log)
        with Client(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT)
            assert len(client.scheduler_info()["workers"]) == workers
    except Exception as e:
        logs = "\n".join(f"--- {name} ---\n{_tail(log)}" for name, _, log in procs)
        for _, proc, _ in reversed(procs):
            _stop(proc)
        raise AssertionError(f"dask cluster failed ({type(e).__name__}: {e})\n{logs}") from e
    try:
        yield address
    finally:
        for _, proc, _ in reversed(procs):  # workers first, then the scheduler
            _stop(proc)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The address of a scheduler with two single-threaded workers, all on 127.0.0.1."""
    with _running_cluster(tmp_path_factory.mktemp("dask-cluster"), N_WORKERS) as address:
        yield address


def _wait_for_port(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dask scheduler exited with {proc.returncode}:\n{_tail(log)}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"dask scheduler did not listen on port {port} within {START_TIMEOUT:.0f}s")


@pytest.fixture(scope="module")
def puzzles(data_dir, tmp_path_factory):
    """A text file of 17-clue and forum-hardest puzzles (all unique) and their reference solutions."""
    records, refs = [], {}
    for stem, k in (("9x9_sudoku17", SAMPLE_17), ("9x9_forum_hardest_1905_11plus", SAMPLE_HARDEST)):
        # the large dev sets have references for a sample only: take the puzzles from it
        ref = pd.read_csv(data_dir / "dev" / f"{stem}.ref.csv", dtype=str, keep_default_na=False).head(k)
        assert (ref["n_solutions_capped"] == "1").all()
        records += ref["puzzle"].tolist()
        refs.update(zip(ref["puzzle"], ref["solution"]))
    path = tmp_path_factory.mktemp("dask-input") / "sample.txt"
    path.write_text("\n".join(records) + "\n")
    return path, records, refs


def _batch(path: Path, out: Path, address: str, *options: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "pipeline", "batch", str(path), str(out), "--scheduler", address,
           "--chunk-size", "4", "--progress", "none", *options]
    return subprocess.run(cmd, cwd=PROJECT, env=env, capture_output=True, text=True, timeout=BATCH_TIMEOUT)


def _workers_that_loaded(address: str, module: str) -> int:
    """How many workers of the cluster have ``module`` imported (they ran batch tasks)."""
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT) as client:
        loaded = client.run(lambda: module in sys.modules)
    return sum(bool(v) for v in loaded.values())


@pytest.mark.parametrize("solver, count", [("sat", 0), ("highs", 0), ("sat", 2)])
def test_batch_on_a_dask_cluster(cluster, puzzles, tmp_path, solver, count):
    path, records, refs = puzzles
    out = tmp_path / "out"
    options = ["--solver", solver] + (["--count", str(count)] if count else [])
    proc = _batch(path, out, cluster, *options)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "_SUCCESS").exists()
    df = pd.read_parquet(out)
    assert df["index"].tolist() == list(range(len(records)))
    assert df["puzzle"].tolist() == records
    assert (df["status"] == "optimal").all(), df.loc[df["status"] != "optimal", ["index", "status", "error"]]
    for row in df.itertuples():
        assert row.solution == refs[row.puzzle], row.index
        assert is_valid_solution(grid_of(row.solution), 3, 3, clues=grid_of(row.puzzle)), row.index
    if count:
        assert (df["n_solutions"] == 1).all()  # every puzzle of both sets is unique
    # the work ran in the cluster's workers, not in the client
    assert _workers_that_loaded(cluster, "pipeline.batch") >= 1
    if solver == "sat":
        assert _workers_that_loaded(cluster, "pysat.solvers") >= 1


#: A ``--preload`` module that makes its process unable to import the project, as a scheduler
#: or worker installed without it is (the test's processes share this checkout otherwise).
WITHOUT_PROJECT = """\
import sys


class WithoutProject:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "pipeline":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, WithoutProject())
"""

#: A ``--preload`` module that makes its process import another version of the project.
OTHER_VERSION = """\
import pipeline.core.version

pipeline.core.version.__version__ = "0.0.1"
"""


@pytest.mark.parametrize("where, text, who", [
    ("scheduler", WITHOUT_PROJECT, "the Dask scheduler at {address} cannot import this project "
                                   "(ModuleNotFoundError: No module named 'pipeline')"),
    ("worker", WITHOUT_PROJECT, "the Dask worker at {worker} (of the scheduler at {address}) cannot import this project "
                                "(ModuleNotFoundError: No module named 'pipeline')"),
    ("worker", OTHER_VERSION, "the Dask worker at {worker} (of the scheduler at {address}) imports sudoku-pipeline 0.0.1, "
                              "not this client's {version}"),
])
def test_a_cluster_without_this_project_is_refused_before_anything_is_sent(tmp_path, puzzles, where, text, who):
    """A helper's probe: workers that could not import the project failed the first chunk with
    "a worker failed (RuntimeError: Error during deserialization of the task graph. This
    frequently); rerun the same command to resume": cut mid-sentence, exit 1, wrong advice."""
    from distributed import Client

    from pipeline.core.version import __version__

    preload = tmp_path / "preload_sudoku_test.py"
    preload.write_text(text)
    chosen = {"scheduler_preload": preload} if where == "scheduler" else {"worker_preload": preload}
    with _running_cluster(tmp_path, 1, **chosen) as address:
        with Client(address, timeout=START_TIMEOUT) as client:
            worker = next(iter(client.scheduler_info()["workers"]))
        proc = _batch(puzzles[0], tmp_path / "out", address)
    expected = who.format(address=address, worker=worker, version=__version__)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"error: batch: {expected}: install sudoku-pipeline {__version__} (this client's) in the "
                           "environment of the scheduler and of every worker; nothing was solved\n")
    assert not (tmp_path / "out").exists()


def test_ids_reach_every_row_on_a_dask_cluster_and_across_a_resume(cluster, puzzles, tmp_path):
    """A CSV's ``id`` column is each row's ``id`` (an error row's too) when the chunks are solved
    by the cluster's workers, and a resume into the same OUT keeps the rows written and their ids."""
    _, records, refs = puzzles
    taken = records[:6] + ["12345"] + records[6:9]
    path = tmp_path / "named.csv"
    path.write_text("id,puzzle\n" + "".join(f"p{k},{p}\n" for k, p in enumerate(taken)))
    out = tmp_path / "out"
    first = _batch(path, out, cluster, "--limit", "4")
    assert first.returncode == 0, first.stderr[-3000:]
    assert not (out / "_SUCCESS").exists()
    second = _batch(path, out, cluster)
    assert second.returncode == 0, second.stderr[-3000:]
    assert json.loads((out / "_batch.json").read_text())["last_run"]["already_done"] == 4
    df = pd.read_parquet(out)
    assert df["index"].tolist() == list(range(len(taken)))
    assert df["id"].tolist() == [f"p{k}" for k in range(len(taken))]
    assert df["status"].tolist() == ["optimal"] * 6 + ["error"] + ["optimal"] * 3
    assert _workers_that_loaded(cluster, "pipeline.batch") >= 1
