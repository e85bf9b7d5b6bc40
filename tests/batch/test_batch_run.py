"""Batch runs end to end (pipeline.batch.run): order, statuses, answers against the data sets'
references, resumability after a limit and after a real kill, counting, CSV/Parquet input, the
Dask engine, the output guards.

Answers are checked against the shared ``*.ref.csv`` files (computed by other solvers) and with
the independent oracle of ``conftest.py``, never against the batch's own output alone.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from batch_helpers import MIXED, WRONG_LENGTH, check_expected, lines, parts, read, refs, serving_port

from oracles import PROJECT, grid_of, is_valid_solution
from pipeline.batch import DEFAULT_HIGHS_OPTIONS, LOCK, MANIFEST, SUCCESS, run_batch
from pipeline.core import stops
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid


def test_batch_order_status_and_answers(full_run, sample):
    out, summary, df = full_run
    _, records, expected = sample
    check_expected(df, records, expected)
    assert summary.complete and not summary.interrupted
    assert summary.status_counts == {"error": 2, "infeasible": 1, "optimal": len(records) - 3}
    assert (out / SUCCESS).exists()
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["status"] == "complete" and manifest["records"] == len(records)
    assert df["n_solutions"].isna().all()  # no --count
    solved = df["status"] == "optimal"
    assert (df.loc[solved, "seconds"] > 0).all()
    assert (df["wall_seconds"] >= df["seconds"]).all()
    assert (df["nodes"] >= 0).all()
    assert set(df["variant"]) == {"classic"}


def test_parts_are_contiguous_and_named_by_first_index(full_run):
    out, summary, _ = full_run
    written_parts = parts(out)
    assert summary.parts_written == len(written_parts) == 5  # 37 records in parts of 8
    for path in written_parts:
        index = pq.read_table(path, columns=["index"]).column("index").to_pylist()
        assert index == list(range(index[0], index[0] + len(index)))
        assert path.name == f"part-{index[0]:010d}.parquet"
    assert not list(out.glob(".*"))  # no temporary files left behind


def test_resume_after_limit(sample, full_run, tmp_path):
    path, records, expected = sample
    out = tmp_path / "out"
    first = run_batch(path, out, workers=1, chunk_size=4, limit=10, progress="none")
    assert not first.complete and first.solved_now == 10
    assert not (out / SUCCESS).exists()
    assert read(out)["index"].tolist() == list(range(10))
    second = run_batch(path, out, workers=2, chunk_size=5, progress="none")
    assert second.complete and second.already_done == 10 and second.solved_now == len(records) - 10
    df = read(out)
    check_expected(df, records, expected)
    reference = full_run[2]
    assert df[["status", "solution", "error"]].equals(reference[["status", "solution", "error"]])
    again = run_batch(path, out, workers=2, progress="none")  # nothing left to do
    assert again.complete and again.solved_now == 0 and len(read(out)) == len(records)


def _start_cli(path: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # HiGHS by name (the reruns name it too; both defaults are auto): slow enough per puzzle
    # for the signal to land mid-run
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline", "batch", str(path), str(out), "--workers", "2", "--chunk-size", "1",
         "--progress", "none", "--solver", "highs", *extra],
        cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _wait_for_parts(proc: subprocess.Popen, out: Path, n: int, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while len(parts(out)) < n:
        if proc.poll() is not None:
            pytest.fail(f"batch exited early ({proc.returncode}): {proc.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("batch wrote no parts in time")
        time.sleep(0.05)


def test_resume_after_kill(data_dir, tmp_path):
    """SIGKILL the whole process group mid-run; the rerun loses nothing and duplicates nothing."""
    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    path = tmp_path / "top95.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    proc = _start_cli(path, out)
    _wait_for_parts(proc, out, 3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed_with = len(parts(out))
    assert 3 <= killed_with < len(records), "the batch finished before it could be killed"
    assert not (out / SUCCESS).exists()
    summary = run_batch(path, out, workers=2, solver="highs", progress="none")   # the CLI run's engine
    assert summary.complete and summary.already_done == killed_with
    assert summary.already_done + summary.solved_now == len(records)
    df = read(out)
    assert df["index"].tolist() == list(range(len(records)))
    answers = refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv")
    assert (df["status"] == "optimal").all()
    assert df["solution"].tolist() == [answers[p] for p in records]
    assert not list(out.glob(".part-*"))


def test_sigterm_stops_cleanly(data_dir, tmp_path):
    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    path = tmp_path / "top95.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    proc = _start_cli(path, out)
    _wait_for_parts(proc, out, 2)
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # 130, or ended by the SIGINT itself (as a shell reports a Ctrl-C'd tool): either way one line, no traceback
    assert proc.returncode in (130, -signal.SIGINT), err.decode()
    assert "rerun the same command to resume" in err.decode()
    assert json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    written = read(out)
    assert written["index"].is_unique and len(written) < len(records)


def test_count_column(data_dir, tmp_path):
    tdoku = pd.read_csv(data_dir / "sets" / "9x9_tdoku_test_counts.csv", dtype={"puzzle": str})
    several = tdoku[tdoku["n_solutions"] >= 2].head(3)
    none = tdoku[tdoku["n_solutions"] == 0].head(1)
    unique = lines(data_dir / "sets" / "9x9_gecode.txt")[:2]
    records = several["puzzle"].tolist() + none["puzzle"].tolist() + unique
    path = tmp_path / "count.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    run_batch(path, out, workers=1, count=2, progress="none")
    df = read(out)
    assert df["n_solutions"].tolist() == [2, 2, 2, 0, 1, 1]
    assert df["status"].tolist() == ["optimal"] * 3 + ["infeasible"] + ["optimal"] * 2
    for row in df[df["status"] == "optimal"].itertuples():
        assert is_valid_solution(grid_of(row.solution), 3, 3, clues=grid_of(row.puzzle))
    with pytest.raises(PipelineError, match=r"other solve options \(_batch\.json: count 2 there, 3 now\); use "
                                            r"--overwrite or another output directory$"):
        run_batch(path, out, workers=1, count=3, progress="none")
    summary = run_batch(path, out, workers=1, count=3, overwrite=True, progress="none")
    assert summary.complete and read(out)["n_solutions"].tolist() == [3, 3, 3, 0, 1, 1]


def test_csv_input_with_regions_and_variants(data_dir, tmp_path):
    jigsaw = pd.read_csv(data_dir / "sets" / "jigsaw.csv", dtype=str)
    picked = pd.concat([jigsaw[jigsaw["variant"] == v].head(4) for v in ("jigsaw", "jigsaw_x")])
    path = tmp_path / "jigsaw.csv"
    picked.to_csv(path, index=False)
    out = tmp_path / "out"
    run_batch(path, out, workers=2, chunk_size=3, progress="none")
    df = read(out)
    ref = pd.read_csv(data_dir / "sets" / "jigsaw.ref.csv", dtype=str)
    expected = dict(zip(zip(ref["puzzle"], ref["regions"]), ref["solution"]))
    assert df["puzzle"].tolist() == picked["puzzle"].tolist()
    assert df["variant"].tolist() == picked["variant"].tolist()
    assert (df["status"] == "optimal").all()
    for row, regions in zip(df.itertuples(), picked["regions"]):
        ref_solution = expected[(row.puzzle, regions)]
        puzzle = parse_puzzle(row.puzzle, regions=regions, variant=row.variant)
        assert verify_grid(grid_of(row.solution), puzzle).ok
        assert row.solution == ref_solution


def test_parquet_input(data_dir, tmp_path):
    nine = lines(data_dir / "sets" / "9x9_x.txt")[:3]
    sixteen = lines(data_dir / "sets" / "16x16_x.txt")[:1]
    classic = lines(data_dir / "sets" / "9x9_gecode.txt")[:2]
    frame = pd.DataFrame({"puzzle": nine + sixteen + classic, "variant": ["x"] * 4 + [None, ""],
                          "id": range(6)})
    path = tmp_path / "input.parquet"
    frame.to_parquet(path)
    out = tmp_path / "out"
    run_batch(path, out, workers=1, progress="none")
    df = read(out)
    answers = refs(data_dir / "sets" / "9x9_x.ref.csv", data_dir / "sets" / "16x16_x.ref.csv",
                 data_dir / "sets" / "9x9_gecode.ref.csv")
    assert df["variant"].tolist() == ["x"] * 4 + ["classic"] * 2
    assert (df["status"] == "optimal").all()
    assert df["solution"].tolist() == [answers[p] for p in frame["puzzle"]]


def test_dask_local_cluster(sample, full_run, tmp_path):
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    path, records, expected = sample
    out = tmp_path / "dask"
    # in a child process: a LocalCluster leaves threads and state behind in its process, which
    # would change how later tests in this pytest worker start their process pools
    scratch = tmp_path / "tmpdir"   # the run's temporary directory: empty again once it is over
    scratch.mkdir()
    proc = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(path), str(out), "--engine", "dask",
                           "--workers", "2", "--chunk-size", "8", "--progress", "none", "--solver", "highs"],
                          cwd=PROJECT, env=dict(os.environ, PYTHONPATH=str(PROJECT), TMPDIR=str(scratch)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "complete" in proc.stderr, proc.stderr
    assert list(scratch.iterdir()) == []    # no dask-scratch-space left behind
    df = read(out)
    check_expected(df, records, expected)
    # the same part layout as the process engine, so either can resume the other's output
    assert [p.name for p in parts(out)] == [p.name for p in parts(full_run[0])]
    again = run_batch(path, out, workers=2, solver="highs", progress="none")
    assert again.complete and again.solved_now == 0


def test_output_directory_guards(sample, full_run, tmp_path):
    path, _, _ = sample
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(PipelineError, match="not empty and not a batch output"):
        run_batch(path, foreign, workers=1, progress="none")
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]  # nothing of ours left in it
    other = tmp_path / "other.txt"
    other.write_text(path.read_text().replace(WRONG_LENGTH, "54321"))
    with pytest.raises(PipelineError, match="other input records"):
        run_batch(other, full_run[0], workers=1, progress="none")


def test_one_run_at_a_time_per_output(sample, tmp_path):
    """A second run on the same OUT is refused while the first holds the lock."""
    import fcntl

    path, _, _ = sample
    out = tmp_path / "out"
    out.mkdir()
    with open(out / LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(PipelineError, match="another batch is writing"):
            run_batch(path, out, workers=1, progress="none")
    assert run_batch(path, out, workers=1, limit=3, progress="none").solved_now == 3


def test_highs_options_are_checked_and_recorded(sample, tmp_path):
    path, _, _ = sample
    with pytest.raises(PipelineError, match="HiGHS refuses option"):
        run_batch(path, tmp_path / "bad", highs_options={"no_such_option": 1}, progress="none")
    out = tmp_path / "ok"
    run_batch(path, out, workers=1, limit=2, highs_options={"mip_heuristic_effort": 0.2}, progress="none")
    assert json.loads((out / MANIFEST).read_text())["options"]["highs_options"] == {
        **DEFAULT_HIGHS_OPTIONS, "mip_heuristic_effort": 0.2}
    with pytest.raises(PipelineError, match=r"other solve options \(_batch\.json: highs_options\.mip_heuristic_"
                                            r"effort 0\.2 there, absent now; solver \"highs\" there, \"dfs\" now\)"):
        run_batch(path, out, workers=1, progress="none")  # resuming with other HiGHS options


def test_count_matches_tdoku_exact_counts(data_dir, tmp_path):
    """--count K against tdoku's exact counts (3 to 847 solutions): min(count, K) exactly.
    The no-good re-solves are re-checked without HiGHS presolve, which undercounts otherwise."""
    tdoku = pd.read_csv(data_dir / "sets" / "9x9_tdoku_test_counts.csv", dtype={"puzzle": str})
    several = tdoku[tdoku["n_solutions"] >= 2]
    path = tmp_path / "several.csv"
    several.to_csv(path, index=False)
    out = tmp_path / "out"
    run_batch(path, out, workers=2, count=15, progress="none")
    df = read(out)
    assert df["n_solutions"].tolist() == np.minimum(several["n_solutions"], 15).tolist()
    assert df["error"].isna().all()




# ---------------------------------------------------------------------------------------------
# scheduling, Ctrl-C, --retry
# ---------------------------------------------------------------------------------------------
def test_chunk_planner_adapts_and_spreads_the_tail():
    from pipeline.batch.run import MAX_ADAPTIVE_CHUNK, ChunkPlanner

    planner = ChunkPlanner([np.arange(0, 100_000)], workers=2, first=16)
    first = planner.next()
    assert first.tolist() == list(range(16))
    planner.observe(16, 16 * 0.001)                 # 1 ms per puzzle: chunks of about 1 s
    assert planner.next().size == MAX_ADAPTIVE_CHUNK
    planner.observe(16, 16 * 10.0)                  # hard puzzles: one at a time
    assert planner.next().size == 1
    hard = ChunkPlanner([np.arange(18)], workers=2, first=16)
    sizes = [c.size for c in hard.chunks()]
    assert sum(sizes) == 18 and max(sizes) <= 5     # 18 big puzzles on 2 workers: no 16 + 2 split
    chunks = list(ChunkPlanner([np.arange(3), np.arange(5, 7)], fixed=2).chunks())
    assert [c.tolist() for c in chunks] == [[0, 1], [2], [5, 6]]   # never across a gap


#: Enough hard puzzles (HiGHS, no propagation: about 300/s here) that a signal sent within a
#: second lands mid-run.
MIN_INTERRUPTED_RECORDS = 2000


def test_ctrl_c_in_process_keeps_the_finished_puzzles_of_the_chunk(data_dir, tmp_path):
    import threading

    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    records = records * -(-MIN_INTERRUPTED_RECORDS // len(records))   # hard enough to be mid-run at the signal
    path = tmp_path / "top95.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    done = threading.Event()

    def interrupt() -> None:
        # the signal once the run has started (its manifest written), not at a fixed time: on a loaded
        # machine reading the input took past 0.8 s, and a Ctrl-C before the run is Python's own
        # KeyboardInterrupt, which took the test worker down
        while not (out / MANIFEST).exists() and not done.wait(0.01):
            pass
        if not done.wait(0.1):
            os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=interrupt, daemon=True)
    timer.start()
    try:
        summary = run_batch(path, out, workers=1, chunk_size=len(records), propagate=False, progress="none")
    finally:
        done.set()
        timer.join()
    if summary.complete and not summary.interrupted:
        pytest.skip("the batch finished before the signal")
    assert summary.interrupted and 0 < summary.solved_now < len(records)
    written = read(out)
    assert len(written) == summary.solved_now and written["index"].is_unique
    assert json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    again = run_batch(path, out, workers=1, propagate=False, progress="none")
    assert again.complete and again.already_done == summary.solved_now
    answers = refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv")
    assert read(out)["solution"].tolist() == [answers[p] for p in records]


def test_sigint_to_the_process_group_keeps_finished_rows(data_dir, tmp_path):
    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    records = records * -(-MIN_INTERRUPTED_RECORDS // len(records))   # hard enough to be mid-run at the signal
    path = tmp_path / "top95.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    proc = _start_cli(path, out, "--chunk-size", "60", "--no-propagate")
    deadline = time.monotonic() + 60
    while not (out / MANIFEST).exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)   # the workers have started on their chunks
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode == 0:
        pytest.skip("the batch finished before the signal")
    # 130, or ended by the SIGINT itself (as a shell reports a Ctrl-C'd tool): either way one line, no traceback
    assert proc.returncode in (130, -signal.SIGINT), err.decode()
    assert "Traceback" not in err.decode()
    written = read(out) if parts(out) else pd.DataFrame({"index": []})
    assert written["index"].is_unique
    summary = run_batch(path, out, workers=2, propagate=False, solver="highs", progress="none")
    assert summary.complete and summary.already_done == len(written)


def test_retry_redoes_only_the_rows_with_those_statuses(data_dir, tmp_path):
    records = lines(data_dir / "sets" / "9x9_norvig_top95.txt")[:24]
    path = tmp_path / "in.txt"
    path.write_text("\n".join(records + ["12345"]) + "\n")
    out = tmp_path / "out"
    run_batch(path, out, workers=1, chunk_size=8, time_limit=1e-3, propagate=False, progress="none")
    before = read(out)
    names = [p.name for p in parts(out)]
    limited = before["status"] == "time_limit"
    if not limited.any():
        pytest.skip("no puzzle hit the 1 ms time limit on this machine")
    summary = run_batch(path, out, workers=2, retry=("time_limit",), progress="none")
    assert summary.retried == int(limited.sum()) and summary.solved_now == summary.retried
    after = read(out)
    assert [p.name for p in parts(out)] == names                     # rows replaced in their parts
    assert after["index"].tolist() == before["index"].tolist()
    assert (after.loc[limited, "status"] == "optimal").all()
    answers = refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv")
    assert after.loc[limited, "solution"].tolist() == [answers[p] for p in after.loc[limited, "puzzle"]]
    kept = ~limited
    assert after.loc[kept, ["status", "solution", "seconds"]].equals(before.loc[kept, ["status", "solution", "seconds"]])
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["retries"][-1]["rows"] == summary.retried
    # which rows these options made (an outside check: nothing said so), as runs of indices
    ranges = manifest["retries"][-1]["index_ranges"]
    assert [i for first, last in ranges for i in range(first, last + 1)] == before.loc[limited, "index"].tolist()
    assert all(later[0] > earlier[1] + 1 for earlier, later in zip(ranges, ranges[1:]))
    assert manifest["options"]["time_limit"] == 1e-3                # the first run's options stay
    with pytest.raises(PipelineError, match="--retry needs an existing batch output"):
        run_batch(path, tmp_path / "fresh", retry=("error",), progress="none")


def test_retry_time_limit_takes_counts_the_limit_stopped_after_some_solutions(tmp_path):
    """Such a count is status optimal with a lower bound in its error: --retry time_limit skipped
    it (an outside probe)."""
    pytest.importorskip("numba", reason="the dfs engine counts the empty 16x16 fast enough")
    path = tmp_path / "in.txt"
    path.write_text("." * 256 + "\n")
    out = tmp_path / "out"
    run_batch(path, out, workers=1, count=10**6, time_limit=0.2, solver="dfs", progress="none")
    before = read(out)
    assert before["status"].tolist() == ["optimal"] and before["error"][0].startswith("count: stopped by time_limit")
    summary = run_batch(path, out, workers=1, count=10**6, time_limit=0.2, solver="dfs", retry=("time_limit",),
                        progress="none")
    assert summary.retried == 1
    after = read(out)
    assert after["status"].tolist() == ["optimal"] and after["n_solutions"][0] > 1


def test_an_interrupted_retry_leaves_no_success_marker(tmp_path, monkeypatch, request):
    """An outside check: a ``--retry`` run stopped by Ctrl-C left the ``_SUCCESS`` of the complete
    run before it beside a ``_batch.json`` saying "interrupted" (every record had a row, so the
    run counted as complete). The marker goes before work starts and comes back at a clean end."""
    import pipeline.batch.run as run_module

    request.addfinalizer(stops.begin)   # as main() does before its next command: the signals' stop is over
    src = tmp_path / "in.txt"
    src.write_text("\n".join([MIXED[3], WRONG_LENGTH, MIXED[3]]) + "\n")
    out = tmp_path / "out"
    assert run_batch(src, out, workers=1, progress="none").complete and (out / SUCCESS).exists()
    solve, seen = run_module.solve_records, []

    def ctrl_c(task, payload):   # a real SIGINT to this process while the retried row is solved
        seen.append((out / SUCCESS).exists())
        os.kill(os.getpid(), signal.SIGINT)
        raise KeyboardInterrupt   # what the second signal of an impatient user does: nothing written

    with monkeypatch.context() as patch:
        patch.setattr(run_module, "solve_records", ctrl_c)
        summary = run_batch(src, out, workers=1, retry=("error",), progress="none")
    assert seen == [False]                       # gone before the work started
    assert summary.interrupted and not summary.complete and summary.retried == 0   # solved again: none (1 planned)
    assert json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    entry = json.loads((out / MANIFEST).read_text())["retries"][-1]   # what it solved again: nothing
    assert (entry["rows"], entry["planned_rows"], entry["index_ranges"]) == (0, 1, [])
    assert not (out / SUCCESS).exists()

    def ctrl_c_then_solve(task, payload):   # the signal alone: the worker stops, its chunk comes back
        os.kill(os.getpid(), signal.SIGINT)
        return solve(task, payload)

    with monkeypatch.context() as patch:
        patch.setattr(run_module, "solve_records", ctrl_c_then_solve)
        summary = run_batch(src, out, workers=1, retry=("error",), progress="none")
    assert summary.interrupted and json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    assert not (out / SUCCESS).exists()
    again = run_batch(src, out, workers=1, retry=("error",), progress="none")
    assert again.complete and not again.interrupted and again.retried == 1
    assert json.loads((out / MANIFEST).read_text())["status"] == "complete" and (out / SUCCESS).exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]   # written atomically: no temporary left


def test_counts_read_back_as_integers_beside_error_rows(tmp_path):
    """An outside check: with an error row (no count) among counted ones, pandas read
    ``n_solutions`` back as float64 (``1.0``). It is a nullable ``Int64`` column; the other
    integer columns (``index``, ``nodes``) are never missing and stay ``int64``."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join([*MIXED, WRONG_LENGTH]) + "\n")
    for count, want in ((2, [1, 2, 0, 1, None]), (0, [None] * 5)):
        out = tmp_path / f"count-{count}"
        # one row per part: the error row's part holds no count at all, the others no missing one
        run_batch(src, out, workers=1, chunk_size=1, count=count, progress="none")
        for df in (read(out), pd.read_parquet(parts(out)[-1]), pq.read_table(out).to_pandas()):
            assert str(df["n_solutions"].dtype) == "Int64"
            assert str(df["index"].dtype) == "int64" and str(df["nodes"].dtype) == "int64"
            assert str(df["seconds"].dtype) == "float64"
        df = read(out)
        assert [None if pd.isna(v) else v for v in df["n_solutions"]] == want
        assert df["status"].tolist() == ["optimal", "optimal", "infeasible", "optimal", "error"]
        csv = df[["index", "n_solutions"]].to_csv(index=False).splitlines()
        assert csv == ["index,n_solutions", *(f"{k},{'' if n is None else n}" for k, n in enumerate(want))]


def test_ctrl_c_in_process_keeps_every_chunk_finished_before_it(tmp_path, monkeypatch):
    # one worker solves a chunk inside submit: a Ctrl-C in the fourth chunk keeps the first three
    # (with two chunks in flight, the third waited for the fourth and was lost with it)
    import pipeline.batch.run as run_module

    calls = {"n": 0}
    solve = run_module.solve_records

    def interrupted_third(task, payload):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return solve(task, payload)

    monkeypatch.setattr(run_module, "solve_records", interrupted_third)
    records = ["4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"] * 5
    path = tmp_path / "in.txt"
    path.write_text("\n".join(records) + "\n")
    summary = run_batch(path, tmp_path / "out", workers=1, chunk_size=1, solver="sat", progress="none",
                        stream=open(os.devnull, "w"))
    assert summary.interrupted
    assert sorted(read(tmp_path / "out")["index"]) == [0, 1, 2]


def test_a_run_refused_before_any_result_leaves_the_output_as_it_was(tmp_path, monkeypatch):
    """An outside probe: ``--engine dask`` without dask (or a scheduler that does not answer) was
    refused after the manifest was written, so OUT kept a ``_batch.json`` and the next run, with
    other options, was refused for it ('holds results for other solve options'); ``--retry`` into
    a new directory left it behind, empty."""
    from pipeline.batch import run as batch_run

    def refuse(*args, **kwargs):
        raise PipelineError("batch: --engine dask needs dask[distributed] (the dask extra)")

    source = PROJECT / "examples" / "puzzles.csv"
    out = tmp_path / "r8"
    with monkeypatch.context() as patch:
        patch.setattr(batch_run, "make_engine", refuse)
        with pytest.raises(PipelineError, match="needs dask"):
            run_batch(source, out, solver="highs", progress="none")
        assert not out.exists()
        out.mkdir()   # a directory the user made stays, as empty as it was
        with pytest.raises(PipelineError, match="needs dask"):
            run_batch(source, out, solver="highs", progress="none")
        assert list(out.iterdir()) == []
    with pytest.raises(PipelineError, match="--retry needs an existing batch output"):
        run_batch(source, tmp_path / "r10", retry=("error",), progress="none")
    assert not (tmp_path / "r10").exists()
    run_batch(source, out, solver="sat", progress="none")      # other options than the refused run's
    assert (out / MANIFEST).exists() and (out / SUCCESS).exists()


def test_a_ctrl_c_while_the_engine_starts_ends_the_run_as_one_in_the_loop(tmp_path, monkeypatch):
    """The fresh-clone run on a loaded machine: a Ctrl-C 2 s after the manifest, while a one-worker
    run was still starting its engine, escaped as a bare KeyboardInterrupt ("interrupted", no
    resume hint). It now ends the run as an interrupted one, which the same command runs again; as
    nothing was written, the directory it made goes (it was left holding the manifest and the lock)."""
    src, out = _stopped_before_the_first_part(tmp_path, monkeypatch)   # asserts the summary says interrupted
    assert not out.exists()
    again = run_batch(src, out, workers=1, progress="none")
    assert again.complete and again.solved_now == 3


def test_overwrite_with_a_scheduler_that_does_not_answer_deletes_nothing(tmp_path):
    """An outside probe: ``--overwrite --scheduler ADDRESS`` with nothing listening there deleted
    every part and ``_SUCCESS`` first, then failed to connect. The cluster is now reached before
    the parts it would replace go; the refusal is one line naming the address."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    out = tmp_path / "out"
    assert run_batch(src, out, workers=1, progress="none").complete
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK}
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    proc = subprocess.run([sys.executable, "-m", "pipeline", "batch", str(src), str(out), "--overwrite",
                           "--scheduler", f"tcp://127.0.0.1:{port}", "--progress", "none"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: batch: the Dask scheduler at tcp://127.0.0.1:{port} did not answer")
    assert proc.stderr.rstrip().endswith("nothing was solved") and proc.stderr.count("\n") == 1
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK} == before


def test_a_run_that_fails_says_so_in_its_record_and_a_failed_retry_lists_what_it_solved(tmp_path, monkeypatch):
    """An outside probe: a worker killed during ``--retry`` (or a full disk) ended the run with
    one line, but ``_batch.json`` still said ``running``, had no ``last_run``, and its retry entry
    claimed all 6,000 planned rows where 668 were solved. The record now says ``failed``, why, and
    the rows the retry did solve (``planned_rows`` beside them); the rerun finishes."""
    import pipeline.batch.run as run_module
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 6)
    out = tmp_path / "out"
    assert run_batch(src, out, workers=1, chunk_size=1, progress="none", solver="sat").complete
    writes = {"n": 0}
    real = run_module._write_result

    def full_disk_on_the_third(*args, **kwargs):
        writes["n"] += 1
        if writes["n"] == 3:
            raise PipelineError("batch: cannot write 'part': no space left on the device")
        return real(*args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "_write_result", full_disk_on_the_third)
        with pytest.raises(PipelineError, match="no space left"):
            run_batch(src, out, workers=1, chunk_size=1, progress="none", retry=("optimal",), solver="sat")
    record = json.loads((out / MANIFEST).read_text())
    assert record["status"] == "failed" and not (out / SUCCESS).exists()
    assert record["last_run"]["error"] == "PipelineError: batch: cannot write 'part': no space left on the device"
    assert record["last_run"]["retried"] == 2
    (entry,) = record["retries"]
    assert entry["rows"] == 2 and entry["planned_rows"] == 6 and entry["index_ranges"] == [[0, 1]]
    again = run_batch(src, out, workers=1, chunk_size=1, progress="none", solver="sat")
    assert again.complete and json.loads((out / MANIFEST).read_text())["status"] == "complete"


def test_an_engine_that_does_not_start_on_a_resumed_output_leaves_it_resumable(tmp_path, monkeypatch):
    """The engine's start failing after ``_batch.json`` said ``running`` left it saying so."""
    import pipeline.batch.run as run_module
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 4)
    out = tmp_path / "out"
    run_batch(src, out, workers=1, limit=2, progress="none")

    def refuse(*args, **kwargs):
        raise PipelineError("batch: the Dask scheduler at tcp://x:1 did not answer")
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "make_engine", refuse)
        with pytest.raises(PipelineError, match="did not answer"):
            run_batch(src, out, workers=1, progress="none")
    assert json.loads((out / MANIFEST).read_text())["status"] == "failed"
    assert run_batch(src, out, workers=1, progress="none").complete


@pytest.fixture
def silent_port():
    """A TCP port that takes connections and never answers (a dashboard or HTTP port to Dask).
    Its thread ends with the test: a thread left alive keeps formats.forked from forking in
    every later test of this pytest worker."""
    with serving_port(lambda conn: True) as port:
        yield port


def test_a_scheduler_address_that_never_speaks_dask_is_refused_and_ctrl_c_ends_the_wait(tmp_path, silent_port):
    """An outside probe: ``--scheduler`` at the dashboard's port (or any HTTP server) waited for
    good, and a signal did not end it. The client now waits Dask's connect timeout and a margin,
    says so in one line, and a SIGTERM meanwhile ends the run as an interrupted one (exit 130)."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    command = [sys.executable, "-m", "pipeline", "batch", str(src), str(tmp_path / "out"),
               "--scheduler", f"tcp://127.0.0.1:{silent_port}", "--progress", "none"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"error: batch: the Dask scheduler at tcp://127.0.0.1:{silent_port} did not answer (no "
                           "answer as a Dask scheduler in 6 s: is it the scheduler's port, not its dashboard's?); "
                           "nothing was solved\n")
    assert not (tmp_path / "out").exists()
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "60s"
    running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not (tmp_path / "out" / MANIFEST).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)   # into the wait for the scheduler
    running.send_signal(signal.SIGTERM)
    out, err = running.communicate(timeout=30)
    assert running.returncode == 130, err
    assert "interrupted; rerun the same command to resume" in out + err


def _stopped_before_the_first_part(tmp_path, monkeypatch, **options):
    """A run of three records interrupted while its engine starts: ``_batch.json`` and no part."""
    import pipeline.batch.run as run_module
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 3)
    out = tmp_path / "out"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "make_engine", interrupted)
        summary = run_batch(src, out, workers=1, progress="none", **options)
    assert summary.interrupted and summary.solved_now == 0
    return src, out


def test_an_output_without_parts_takes_a_run_with_other_options(tmp_path, monkeypatch):
    """A run stopped before its first part left ``_batch.json`` alone; a run with other options
    was then refused as one that would mix results, where there were none."""
    src, out = _stopped_before_the_first_part(tmp_path, monkeypatch, solver="sat")
    summary = run_batch(src, out, workers=1, progress="none", solver="highs")
    assert summary.complete and json.loads((out / MANIFEST).read_text())["options"]["solver"] == "highs"
    with pytest.raises(PipelineError, match="holds results for other solve options"):   # now it holds some
        run_batch(src, out, workers=1, progress="none", solver="sat")


def test_the_dask_clients_log_is_quiet_only_while_the_run_holds_a_client(silent_port):
    """A scheduler that went away mid-run printed distributed.client's 30-line reconnection
    traceback before the run's one line; the run quiets that log while it holds its client, and
    gives it back as it was, also when the scheduler is never reached. In a child process: a
    client that never connects leaves threads behind, and a thread keeps formats.forked from forking."""
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    script = f"""
import logging, dask, distributed
from pipeline.batch.engines import Dask
from pipeline.core.errors import PipelineError
log = logging.getLogger("distributed.client")
before = log.level
with dask.config.set({{"distributed.comm.timeouts.connect": "1s"}}):
    try:
        Dask(1, "tcp://127.0.0.1:{silent_port}")
        raise SystemExit("connected to a silent port")
    except PipelineError as e:
        assert "did not answer" in str(e), e
assert log.level == before, (log.level, before)

class Answering:
    def __init__(self, address):
        self.address = address
    def nthreads(self):
        return {{"worker": 1}}
    def run_on_scheduler(self, function, *args):   # the project check, run here
        return function(*args)
    def run(self, function, *args, on_error="raise"):
        return {{"worker": function(*args)}}
    def close(self):
        pass
distributed.Client = Answering
engine = Dask(1, "tcp://127.0.0.1:1")
assert log.level == logging.CRITICAL and engine.workers == 1, log.level
engine.close()
assert log.level == before, (log.level, before)
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-2000:]


@pytest.mark.parametrize("text, kind", [("[]", "an array"), ("null", "null"), ('"x"', "a string"), ("7", "a number")])
def test_a_run_record_that_is_not_a_json_object_is_one_line(tmp_path, text, kind):
    """An outside probe: ``_batch.json`` holding ``[]`` made a resumed batch say "a worker failed
    (AttributeError ...); rerun the same command" (which never works) and report print a traceback."""
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n" * 2)
    out = tmp_path / "out"
    assert run_batch(src, out, workers=1, progress="none").complete
    (out / MANIFEST).write_text(text)
    with pytest.raises(PipelineError) as caught:
        run_batch(src, out, workers=1, progress="none")
    assert str(caught.value) == (f"batch: {out / MANIFEST} is not a batch run record (it holds {kind}, not a JSON "
                                 "object); remove it (then --overwrite starts over) or choose another directory")
    proc = subprocess.run([sys.executable, "-m", "pipeline", "report", str(out), "--to", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr == (f"error: report: {out / MANIFEST} is not a batch run record "
                                                    f"(it holds {kind}, not a JSON object)\n")


def test_a_bad_max_bytes_variable_is_the_runs_one_line_not_an_error_row_each(tmp_path, monkeypatch):
    """Every record was an error row naming the variable, in a run recorded complete (exit 0)."""
    monkeypatch.setenv("SUDOKU_PIPELINE_MAX_BYTES", "abc")
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n")
    with pytest.raises(PipelineError, match=r"^SUDOKU_PIPELINE_MAX_BYTES: must be a whole number of bytes "
                                            r"from 1 to 2\*\*63 - 1 \(e\.g\. 8000000000 or 8e9\), found 'abc'$"):
        run_batch(src, tmp_path / "out", workers=1, progress="none")
    assert not (tmp_path / "out").exists()


def test_ctrl_c_while_the_engine_starts_leaves_no_output_directory(tmp_path, monkeypatch):
    # Ctrl-C while a Dask scheduler was waited for left OUT holding only _batch.json and _batch.lock
    import pipeline.batch.run as run_module

    def interrupted_start(*args, **kwargs):
        raise KeyboardInterrupt
    src = tmp_path / "in.txt"
    src.write_text(MIXED[0] + "\n")
    monkeypatch.setattr(run_module, "make_engine", interrupted_start)
    out = tmp_path / "out"
    summary = run_batch(src, out, workers=1, progress="none")
    assert summary.interrupted and not out.exists()
    out.mkdir()   # a directory that was there stays, empty as it was
    assert run_batch(src, out, workers=1, progress="none").interrupted
    assert [p.name for p in out.iterdir()] == [LOCK]   # the lock alone, as after a refused start
    monkeypatch.undo()
    assert run_batch(src, out, workers=1, progress="none").complete
