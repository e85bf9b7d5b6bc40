"""One SAT/PB measurement of issue 8, run in a fresh process by ``bench/sat_bench.py``.

    python bench/sat_measure.py '{"kind": "batch", "input": "x.txt", "solver": "sat", "workers": 1}'
    python bench/sat_measure.py '{"kind": "count"}'
    python bench/sat_measure.py '{"kind": "gecode25", "amo": "seqcounter", "propagate": false}'
    python bench/sat_measure.py '{"kind": "writer", "format": "cnf", "amo": "pairwise", "n": 10}'

prints one JSON object on stdout. Kinds:

* ``batch``: :func:`pipeline.batch.run_batch` (the public API of ``python -m pipeline batch``) on a
  puzzle file into a temporary directory, deleted afterwards: wall puzzles/s and puzzles per CPU
  second of the whole process (the machine is shared: CPU time is the load-independent rate).
  Every row counts as ``optimal`` only after batch's own verification.
* ``count``: ``python -m pipeline count`` run in process (``pipeline.cli.main``) on the empty 4x4
  (``--limit 1000``: all 288) and the empty 9x9 (``--limit 10000``), end to end (parse, build,
  SAT engine, printing to a discarded stream).
* ``gecode25``: every puzzle of ``25x25_gecode.txt`` through the ``sat`` registry entry (what
  ``solve --solver sat --no-unique-check`` calls: parse, build, solve, verify), per-puzzle wall
  and CPU seconds, with an at-most-one encoding and optionally naked/hidden singles first.
* ``writer``: the empty grid with ``n x n`` boxes (``N = n^2``, ``N^3`` variables) written by our
  ``cnf`` (each ``amo``), ``opb`` or ``mps`` writer into a temporary directory (deleted): seconds,
  bytes and the process's peak RSS during the write (VmHWM after a reset, see bench/measure.py).

The parent (bench/sat_bench.py) runs each measurement under ``RLIMIT_AS`` so that no encoding
can take the machine's memory.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import peak_mb, reset_peak  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # worker processes (workers > 1)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def batch(spec: dict) -> dict:
    from pipeline.batch import run_batch

    work = Path(tempfile.mkdtemp(prefix="sat-bench-batch-", dir=spec.get("tmp")))
    try:
        cpu0 = _cpu()
        s = run_batch(spec["input"], work / "out", workers=spec.get("workers", 1), solver=spec.get("solver", "highs"),
                      count=spec.get("count", 0), propagate=spec.get("propagate", True), amo=spec.get("amo"),
                      sat_backend=spec.get("backend"), progress="none")
        cpu = _cpu() - cpu0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    optimal = s.status_counts.get("optimal", 0)
    return {**spec, "puzzles": s.solved_now, "seconds": s.elapsed, "puzzles_per_s": s.puzzles_per_second,
            "cpu_seconds": cpu, "puzzles_per_cpu_s": s.solved_now / cpu if cpu > 0 else None,
            "solver_seconds": s.run_seconds, "status_counts": s.status_counts, "all_verified": optimal == s.solved_now,
            "loadavg": s.loadavg}


def count(spec: dict) -> dict:
    from pipeline.cli.main import main

    rows = []
    for label, args, expected in (("count empty 4x4", ["." * 16, "--box", "2x2", "--limit", "1000"], 288),
                                  ("10,000 solutions of the empty 9x9", ["." * 81, "--limit", "10000"], 10_000)):
        out = io.StringIO()
        start, cpu0 = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["count", *args, "--format", "json"])
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
        found = json.loads(out.getvalue()).get("count") if code == 0 else None
        rows.append({"task": label, "exit": code, "count": found, "expected": expected, "seconds": seconds,
                     "cpu_seconds": cpu})
    return {**spec, "rows": rows}


def _singles_first(puzzle):
    """The puzzle with the cells that naked/hidden singles decide filled in (batch's propagation)."""
    from pipeline.batch import propagate
    from pipeline.core.puzzle import Puzzle

    cand, dead = propagate(puzzle.grid.reshape(1, -1), puzzle)
    single = cand[0].sum(axis=1) == 1
    grid = puzzle.grid.ravel().copy()
    grid[single] = cand[0][single].argmax(axis=1) + 1
    return Puzzle(grid.reshape(puzzle.grid.shape), puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)


def gecode25(spec: dict) -> dict:
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers import get_solver
    from pipeline.core.verify import verify_grid

    solver = get_solver("sat")
    lines = [s.strip() for s in Path(spec["input"]).read_text().splitlines() if s.strip()][:spec.get("limit")]
    rows = []
    for k, text in enumerate(lines):
        start, cpu0 = time.perf_counter(), time.process_time()
        puzzle = parse_puzzle(text)
        given = _singles_first(puzzle) if spec.get("propagate") else puzzle
        model = build_model(given)  # the solve command's defaults (ijk, F, rows)
        result = solver.solve(model, amo=spec.get("amo", "auto"), sat_backend=spec.get("backend"),
                              time_limit=spec.get("time_limit"))
        ok = result.grid is not None and bool(verify_grid(result.grid, puzzle))
        rows.append({"puzzle": k, "status": result.status, "verified": ok, "seconds": time.perf_counter() - start,
                     "cpu_seconds": time.process_time() - cpu0,
                     "clues": int((puzzle.grid > 0).sum()), "after_singles": int((given.grid > 0).sum())})
    times = [r["seconds"] for r in rows]
    cpus = [r["cpu_seconds"] for r in rows]
    return {**spec, "rows": rows, "solved": sum(r["verified"] for r in rows), "total": sum(times),
            "slowest": max(times), "median": float(np.median(times)), "slowest_cpu": max(cpus),
            "total_cpu": sum(cpus)}


def writer(spec: dict) -> dict:
    from formats import format_for
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import Puzzle

    n = spec["n"]
    size = n * n
    model = build_model(Puzzle(np.zeros((size, size), dtype=np.int64), n, n))
    _ = model.Aeq  # built before the clock starts
    fmt = spec["format"]
    options = {"amo": spec["amo"]} if fmt == "cnf" else {}
    work = Path(tempfile.mkdtemp(prefix="sat-bench-writer-", dir=spec.get("tmp")))
    try:
        path = work / f"model.{fmt}"
        scope = reset_peak()
        start, cpu0 = time.perf_counter(), time.process_time()
        format_for(fmt, need="write").write(model, path, **options)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
        peak = peak_mb()
        size_bytes = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(1 << 16).decode(errors="replace")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = next((line for line in head.splitlines() if line.startswith(("p cnf", "* #variable="))), None)
    return {**spec, "N": size, "variables": size ** 3, "seconds": seconds, "cpu_seconds": cpu, "bytes": size_bytes,
            "peak_rss_mb": peak, "peak_scope": scope, "header": header}


KINDS = {"batch": batch, "count": count, "gecode25": gecode25, "writer": writer}


if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(json.dumps(KINDS[spec["kind"]](spec)), flush=True)
