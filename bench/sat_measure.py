"""Measurements for issue 8 (SAT engine, CNF/OPB writers); prints one JSON line per measure.

    python bench/sat_measure.py count            # empty 4x4 count, 10,000 grids of the empty 9x9
    python bench/sat_measure.py gecode25 [amo] [propagate] [limit]
    python bench/sat_measure.py writer FORMAT [amo]   # empty 100x100; run one per process (peak RSS)
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.build import build_model  # noqa: E402 (after the sys.path insert)
from pipeline.puzzle import parse_puzzle  # noqa: E402 (after the sys.path insert)
from pipeline.verify import verify_grid  # noqa: E402 (after the sys.path insert)

SETS = ROOT.parent / "shared" / "data" / "sets"


def emit(**fields):
    print(json.dumps(fields), flush=True)


def count():
    from pipeline.solvers import sat

    start = time.perf_counter()
    result = sat.count(build_model(parse_puzzle("." * 16, box="2x2")), 1000)
    emit(task="count empty 4x4", count=result.count, status=result.status, seconds=round(time.perf_counter() - start, 4))
    start = time.perf_counter()
    result = sat.count(build_model(parse_puzzle("." * 81)), 10_000)
    emit(task="10,000 solutions of the empty 9x9", count=result.count, status=result.status,
         seconds=round(time.perf_counter() - start, 3))


def gecode25(amo="auto", propagate="no", limit="60"):
    from pipeline.solvers import sat

    lines = [line.strip() for line in (SETS / "25x25_gecode.txt").read_text().splitlines() if line.strip()]
    times = []
    for k, text in enumerate(lines):
        start = time.perf_counter()
        puzzle = parse_puzzle(text)
        if propagate == "yes":
            from pipeline.batch import propagate as run_propagation
            from pipeline.puzzle import Puzzle

            cand, _ = run_propagation(puzzle.grid.reshape(1, -1), puzzle)
            single = cand[0].sum(axis=1) == 1  # cells that singles decide become clues
            grid = puzzle.grid.ravel().copy()
            grid[single] = cand[0][single].argmax(axis=1) + 1
            puzzle = Puzzle(grid.reshape(puzzle.grid.shape), puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)
        model = build_model(puzzle)
        result = sat.solve(model, amo=amo, time_limit=float(limit))
        seconds = time.perf_counter() - start
        ok = result.status == "optimal" and bool(verify_grid(result.grid, parse_puzzle(text)))
        times.append(seconds)
        emit(task="25x25_gecode", puzzle=k, amo=amo, propagate=propagate, status=result.status, verified=ok,
             seconds=round(seconds, 3))
    emit(task="25x25_gecode summary", amo=amo, propagate=propagate, total=round(sum(times), 2),
         slowest=round(max(times), 2), median=round(float(np.median(times)), 3))


def writer(fmt, amo="auto"):
    from formats.base import write_model

    model = build_model(parse_puzzle(" ".join(["0"] * 10_000), box="10x10"))
    _ = model.Aeq  # build the model before timing the writer
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        path = Path(tmp) / f"m.{fmt}"
        start = time.perf_counter()
        options = {"amo": amo} if fmt == "cnf" else {}
        write_model(model, path, **options)
        seconds = time.perf_counter() - start
        size = path.stat().st_size
    emit(task="writer empty 100x100", format=fmt, amo=amo if fmt == "cnf" else None, seconds=round(seconds, 2),
         megabytes=round(size / 1e6, 1), peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


if __name__ == "__main__":
    {"count": count, "gecode25": gecode25, "writer": writer}[sys.argv[1]](*sys.argv[2:])
