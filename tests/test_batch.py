"""Batch solving (pipeline.batch): order, statuses, answers against the data sets' references,
resumability after a limit and after a real kill, counting, CSV/Parquet input, the Dask engine.

Answers are checked against the shared ``*.ref.csv`` files (computed by other solvers) and with
the independent oracle of ``conftest.py``, never against the batch's own output alone.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import PROJECT, grid_of, is_valid_solution, shuffled_sudoku
from pipeline import batch
from pipeline.batch import MANIFEST, SUCCESS, run_batch
from pipeline.errors import PipelineError, PuzzleError
from pipeline.puzzle import Puzzle, parse_puzzle
from pipeline.verify import verify_grid

WRONG_LENGTH = "12345"
DUPLICATE = "11" + "." * 79  # two 1s in row 1: well-formed characters, invalid puzzle


def _lines(path: Path) -> list[str]:
    return [s.strip() for s in path.read_text().splitlines() if s.strip()]


def _refs(*paths: Path) -> dict[str, str]:
    out = {}
    for path in paths:
        ref = pd.read_csv(path, dtype=str, keep_default_na=False)
        out.update(zip(ref["puzzle"], ref["solution"]))
    return out


def _read(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out)


def _parts(out: Path) -> list[Path]:
    return sorted(out.glob("part-*.parquet"))


@pytest.fixture(scope="module")
def sample(data_dir, tmp_path_factory):
    """30 Norvig top-95 puzzles with two malformed lines, a puzzle without solution (tdoku count
    0) and a 16x16 mixed in; the expected status, solution and error of every record."""
    top95 = _lines(data_dir / "sets" / "9x9_norvig_top95.txt")[:30]
    tdoku = pd.read_csv(data_dir / "sets" / "9x9_tdoku_test_counts.csv", dtype={"puzzle": str})
    no_solution = tdoku.loc[tdoku["n_solutions"] == 0, "puzzle"].iloc[0]
    sixteen = _lines(data_dir / "sets" / "16x16_classic.txt")[0]
    records = top95[:10] + [WRONG_LENGTH] + top95[10:20] + [no_solution] + top95[20:25] + [sixteen] \
        + [DUPLICATE] + top95[25:]
    refs = _refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv", data_dir / "sets" / "16x16_classic.ref.csv")
    expected = []
    for text in records:
        if text in (WRONG_LENGTH, DUPLICATE):
            with pytest.raises(PuzzleError) as err:
                parse_puzzle(text)
            expected.append(("error", None, str(err.value)))
        elif text == no_solution:
            expected.append(("infeasible", None, None))
        else:
            expected.append(("optimal", refs[text], None))
    path = tmp_path_factory.mktemp("batch-in") / "sample.txt"
    path.write_text("\n".join(records) + "\n")
    return path, records, expected


@pytest.fixture(scope="module")
def full_run(sample, tmp_path_factory):
    """The sample solved once with 2 worker processes, 8 puzzles per part."""
    path, _, _ = sample
    out = tmp_path_factory.mktemp("batch-out") / "full"
    summary = run_batch(path, out, workers=2, chunk_size=8, progress="none")
    return out, summary, _read(out)


def _check_expected(df: pd.DataFrame, records, expected) -> None:
    assert df["index"].tolist() == list(range(len(records)))
    assert df["puzzle"].tolist() == records
    for row, (status, solution, error) in zip(df.itertuples(), expected):
        assert row.status == status, (row.index, row.error)
        if status == "optimal":
            assert row.solution == solution
            assert pd.isna(row.error)
            n = int(round(len(row.puzzle) ** 0.5))
            h = int(round(n ** 0.5))
            assert is_valid_solution(grid_of(row.solution), h, n // h, clues=grid_of(row.puzzle))
        else:
            assert pd.isna(row.solution)
            assert row.error == error if error is not None else pd.isna(row.error)


def test_batch_order_status_and_answers(full_run, sample):
    out, summary, df = full_run
    _, records, expected = sample
    _check_expected(df, records, expected)
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
    parts = _parts(out)
    assert summary.parts_written == len(parts) == 5  # 37 records in parts of 8
    for path in parts:
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
    assert _read(out)["index"].tolist() == list(range(10))
    second = run_batch(path, out, workers=2, chunk_size=5, progress="none")
    assert second.complete and second.already_done == 10 and second.solved_now == len(records) - 10
    df = _read(out)
    _check_expected(df, records, expected)
    reference = full_run[2]
    assert df[["status", "solution", "error"]].equals(reference[["status", "solution", "error"]])
    again = run_batch(path, out, workers=2, progress="none")  # nothing left to do
    assert again.complete and again.solved_now == 0 and len(_read(out)) == len(records)


def _start_cli(path: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline", "batch", str(path), str(out), "--workers", "2", "--chunk-size", "1",
         "--progress", "none", *extra],
        cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _wait_for_parts(proc: subprocess.Popen, out: Path, n: int, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while len(_parts(out)) < n:
        if proc.poll() is not None:
            pytest.fail(f"batch exited early ({proc.returncode}): {proc.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("batch wrote no parts in time")
        time.sleep(0.05)


def test_resume_after_kill(data_dir, tmp_path):
    """SIGKILL the whole process group mid-run; the rerun loses nothing and duplicates nothing."""
    records = _lines(data_dir / "sets" / "9x9_norvig_top95.txt")
    path = tmp_path / "top95.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    proc = _start_cli(path, out)
    _wait_for_parts(proc, out, 3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed_with = len(_parts(out))
    assert 3 <= killed_with < len(records), "the batch finished before it could be killed"
    assert not (out / SUCCESS).exists()
    summary = run_batch(path, out, workers=2, progress="none")
    assert summary.complete and summary.already_done == killed_with
    assert summary.already_done + summary.solved_now == len(records)
    df = _read(out)
    assert df["index"].tolist() == list(range(len(records)))
    refs = _refs(data_dir / "sets" / "9x9_norvig_top95.ref.csv")
    assert (df["status"] == "optimal").all()
    assert df["solution"].tolist() == [refs[p] for p in records]
    assert not list(out.glob(".part-*"))


def test_sigterm_stops_cleanly(data_dir, tmp_path):
    records = _lines(data_dir / "sets" / "9x9_norvig_top95.txt")
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
    assert proc.returncode == 130, err.decode()
    assert "rerun the same command to resume" in err.decode()
    assert json.loads((out / MANIFEST).read_text())["status"] == "interrupted"
    written = _read(out)
    assert written["index"].is_unique and len(written) < len(records)


def test_count_column(data_dir, tmp_path):
    tdoku = pd.read_csv(data_dir / "sets" / "9x9_tdoku_test_counts.csv", dtype={"puzzle": str})
    several = tdoku[tdoku["n_solutions"] >= 2].head(3)
    none = tdoku[tdoku["n_solutions"] == 0].head(1)
    unique = _lines(data_dir / "sets" / "9x9_gecode.txt")[:2]
    records = several["puzzle"].tolist() + none["puzzle"].tolist() + unique
    path = tmp_path / "count.txt"
    path.write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    run_batch(path, out, workers=1, count=2, progress="none")
    df = _read(out)
    assert df["n_solutions"].tolist() == [2, 2, 2, 0, 1, 1]
    assert df["status"].tolist() == ["optimal"] * 3 + ["infeasible"] + ["optimal"] * 2
    for row in df[df["status"] == "optimal"].itertuples():
        assert is_valid_solution(grid_of(row.solution), 3, 3, clues=grid_of(row.puzzle))
    with pytest.raises(PipelineError, match="other solve options"):
        run_batch(path, out, workers=1, count=3, progress="none")
    summary = run_batch(path, out, workers=1, count=3, overwrite=True, progress="none")
    assert summary.complete and _read(out)["n_solutions"].tolist() == [3, 3, 3, 0, 1, 1]


def test_csv_input_with_regions_and_variants(data_dir, tmp_path):
    jigsaw = pd.read_csv(data_dir / "sets" / "jigsaw.csv", dtype=str)
    picked = pd.concat([jigsaw[jigsaw["variant"] == v].head(4) for v in ("jigsaw", "jigsaw_x")])
    path = tmp_path / "jigsaw.csv"
    picked.to_csv(path, index=False)
    out = tmp_path / "out"
    run_batch(path, out, workers=2, chunk_size=3, progress="none")
    df = _read(out)
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
    nine = _lines(data_dir / "sets" / "9x9_x.txt")[:3]
    sixteen = _lines(data_dir / "sets" / "16x16_x.txt")[:1]
    classic = _lines(data_dir / "sets" / "9x9_gecode.txt")[:2]
    frame = pd.DataFrame({"puzzle": nine + sixteen + classic, "variant": ["x"] * 4 + [None, ""],
                          "id": range(6)})
    path = tmp_path / "input.parquet"
    frame.to_parquet(path)
    out = tmp_path / "out"
    run_batch(path, out, workers=1, progress="none")
    df = _read(out)
    refs = _refs(data_dir / "sets" / "9x9_x.ref.csv", data_dir / "sets" / "16x16_x.ref.csv",
                 data_dir / "sets" / "9x9_gecode.ref.csv")
    assert df["variant"].tolist() == ["x"] * 4 + ["classic"] * 2
    assert (df["status"] == "optimal").all()
    assert df["solution"].tolist() == [refs[p] for p in frame["puzzle"]]


def test_dask_local_cluster(sample, full_run, tmp_path):
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"SKIP: dask.distributed is not importable ({e})")
        pytest.skip(f"dask.distributed is not importable ({e})")
    path, records, expected = sample
    out = tmp_path / "dask"
    summary = run_batch(path, out, engine="dask", workers=2, chunk_size=8, progress="none")
    assert summary.complete
    df = _read(out)
    _check_expected(df, records, expected)
    # the same part layout as the process engine, so either can resume the other's output
    assert [p.name for p in _parts(out)] == [p.name for p in _parts(full_run[0])]
    again = run_batch(path, out, workers=2, progress="none")
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


def test_cli_errors_and_log_lines(sample, tmp_path, capsys):
    assert batch.main([str(tmp_path / "missing.txt"), str(tmp_path / "out")]) == 2
    assert "no such input file" in capsys.readouterr().err
    path, records, _ = sample
    code = batch.main([str(path), str(tmp_path / "out"), "--workers", "1", "--chunk-size", "10",
                       "--progress", "log", "--log-interval", "0"])
    assert code == 0
    err = capsys.readouterr().err
    assert f"batch: {len(records)}/{len(records)} (100.0%)" in err
    assert "puzzles/s" in err and "complete" in err


# ---------------------------------------------------------------------------------------------
# the vectorised helpers agree with the definitions
# ---------------------------------------------------------------------------------------------
SHAPES = [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]


@settings(max_examples=40, deadline=None)
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**32 - 1), density=st.floats(0.1, 0.9))
def test_propagation_keeps_every_solution(shape, seed, density):
    h, w = shape
    rng = np.random.default_rng(seed)
    solutions = np.stack([shuffled_sudoku(h, w, rng).ravel() for _ in range(4)])
    clues = np.where(rng.random(solutions.shape) < density, solutions, 0)
    template = Puzzle(np.zeros((h * w, h * w), dtype=int), h, w)
    cand, dead = batch.propagate(clues, template)
    assert not dead.any()
    cells = np.arange(solutions.shape[1])
    for p in range(len(solutions)):
        assert cand[p, cells, solutions[p] - 1].all()  # the solution's digit is never removed
        decided = cand[p].sum(axis=1) == 1
        assert (cand[p].argmax(axis=1)[decided] + 1 == solutions[p][decided]).all()


@settings(max_examples=60, deadline=None)
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**32 - 1), damage=st.sampled_from(["none", "swap", "set"]))
def test_verify_solutions_agrees_with_verify_grid(shape, seed, damage):
    h, w = shape
    n = h * w
    rng = np.random.default_rng(seed)
    grid = shuffled_sudoku(h, w, rng)
    clues = np.where(rng.random(grid.shape) < 0.3, grid, 0)
    candidate = grid.copy()
    if damage == "swap":
        (r1, c1), (r2, c2) = rng.integers(0, n, (2, 2))
        candidate[r1, c1], candidate[r2, c2] = candidate[r2, c2], candidate[r1, c1]
    elif damage == "set":
        r, c = rng.integers(0, n, 2)
        candidate[r, c] = rng.integers(0, n + 1)
    puzzle = Puzzle(clues, h, w)
    template = Puzzle(np.zeros_like(clues), h, w)
    ok = batch.verify_solutions(candidate.ravel()[None], clues.ravel()[None], template)[0]
    assert ok == verify_grid(candidate, puzzle).ok


def test_clue_conflicts_match_the_parser():
    template = Puzzle(np.zeros((9, 9), dtype=int), 3, 3)
    texts = [DUPLICATE, "1" + "." * 8 + "1" + "." * 71, "1" + "." * 9 + "1" + "." * 70, "." * 81]
    grids, ok = batch._fast_grids(texts, 9)
    assert ok.all()
    conflicts = batch.clue_conflicts(grids, template)
    for text, conflict in zip(texts, conflicts):
        try:
            parse_puzzle(text)
            assert not conflict
        except PuzzleError:
            assert conflict


def test_decode_flags_fractional_and_ambiguous_vectors():
    template = Puzzle(np.zeros((4, 4), dtype=int), 2, 2)
    solver = batch.ShapeSolver(template, batch.SolveOptions())
    grid = shuffled_sudoku(2, 2, np.random.default_rng(1))
    good = np.zeros(solver.n_vars)
    good[solver.pos[np.arange(16), grid.ravel() - 1]] = 1.0
    fractional = good.copy()
    fractional[solver.pos[0, 0]] = 0.5
    two_digits = good.copy()
    two_digits[solver.pos[5, grid.ravel()[5] % 4]] = 1.0  # cell (2, 2) also gets a second digit
    grids, why = solver.decode(np.stack([good, fractional, two_digits]))
    assert np.array_equal(grids[0], grid.ravel()) and why[0] is None
    assert why[1].startswith("x is not integral")
    assert why[2] == "decode: cell (2, 2) holds 2 digits"


def test_one_run_at_a_time_per_output(sample, tmp_path):
    """A second run on the same OUT is refused while the first holds the lock."""
    import fcntl

    path, _, _ = sample
    out = tmp_path / "out"
    out.mkdir()
    with open(out / batch.LOCK, "a") as handle:
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
        **batch.DEFAULT_HIGHS_OPTIONS, "mip_heuristic_effort": 0.2}
    with pytest.raises(PipelineError, match="other solve options"):
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
    df = _read(out)
    assert df["n_solutions"].tolist() == np.minimum(several["n_solutions"], 15).tolist()
    assert df["error"].isna().all()


# ---------------------------------------------------------------------------------------------
# other engines: the SAT engine (one incremental solver per shape) and CP-SAT
# ---------------------------------------------------------------------------------------------
_MIXED = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",   # norvig top95 #1
    "8.........95.......67.........472968...913245...856137....9.716...6.8492......583",  # 3 solutions
    "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4.",  # no solution
    "..4.3...1.2.....",                                                                    # 4x4, unique
]


@pytest.mark.parametrize("solver", ["sat", "cpsat"])
@pytest.mark.parametrize("propagate", [True, False])
def test_batch_other_engines_solve_and_count(tmp_path, solver, propagate):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(_MIXED) + "\n")
    summary = run_batch(src, tmp_path / "out", workers=1, count=2, solver=solver, propagate=propagate,
                        progress="none", stream=open(os.devnull, "w"))
    assert summary.solved_now == len(_MIXED)
    df = pd.read_parquet(tmp_path / "out").sort_values("index")
    assert list(df["status"]) == ["optimal", "optimal", "infeasible", "optimal"]
    assert list(df["n_solutions"]) == [1, 2, 0, 1]
    for text, solution in zip(df["puzzle"][df["solution"].notna()], df["solution"].dropna()):
        assert verify_grid(parse_puzzle(solution).grid, parse_puzzle(text))


def test_batch_sat_matches_highs_on_unique_puzzles(tmp_path):
    lines = [line for line in (PROJECT / "tests" / "data" / "sets" / "9x9_norvig_top95.txt").read_text().split()
             if line][:40] if (PROJECT / "tests" / "data").exists() else _MIXED[:1]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    out = {}
    for solver in ("sat", "highs"):
        run_batch(src, tmp_path / solver, workers=1, solver=solver, progress="none", stream=open(os.devnull, "w"))
        out[solver] = pd.read_parquet(tmp_path / solver).sort_values("index")["solution"].tolist()
    assert out["sat"] == out["highs"] and all(out["sat"])   # unique puzzles: the same grids


def test_batch_refuses_unknown_engine_options(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text(_MIXED[0] + "\n")
    with pytest.raises(PipelineError, match=r"--solver must be one of highs, sat, cpsat, found 'glpk'"):
        run_batch(src, tmp_path / "o1", solver="glpk")
    with pytest.raises(PipelineError, match=r"unknown --sat-backend 'nope'"):
        run_batch(src, tmp_path / "o2", solver="sat", sat_backend="nope")
