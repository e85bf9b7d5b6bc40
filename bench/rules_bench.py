"""Benchmark of puzzles with rules beyond units (issue 15): a killer 9x9 (cages only, no givens)
and a samurai (five 9x9 grids), and more published variants, solved in process. Runnable alone::

    python bench/rules_bench.py            # every puzzle, 5 repeats (1 when a run takes over 5 s)
    python bench/rules_bench.py --quick    # 1 repeat

For each puzzle and engine: the model's size (rows of Aeq and Aineq), the median wall time of
``solve`` (build included) and of ``count`` up to 2 (the uniqueness check), and whether the grid
verifies. Engines: HiGHS (``pipeline.solvers.highs``) and, when registered, the SAT engine
(``get_solver("sat")``) and CP-SAT: an engine that does not honour the rule rows yet (its grid
breaks a rule, or it refuses the model) is printed with a note and timed no further.

Prints a table and writes ``<results-dir>/rules-<time>.json`` and ``rules-latest.json``
(``--results-dir`` defaults to ``bench/results``).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import results_dir, write_result  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.errors import PipelineError  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402
from pipeline.solvers import SOLVERS, get_solver  # noqa: E402

PUBLISHED = ROOT / "tests" / "data" / "published" / "variants.jsonl"
#: (name, source): example documents, then published puzzles by name from tests/data/published.
PUZZLES = [
    ("killer 9x9 (cages only)", ROOT / "examples" / "killer.json"),
    ("samurai (5 grids, 120 givens)", ROOT / "examples" / "samurai.json"),
    ("miracle (knight+king+nonconsecutive)", ROOT / "examples" / "miracle.json"),
    ("thermo/kropki", ROOT / "examples" / "kropki.json"),
]
MORE_PUBLISHED = ["White Room  - killer sudoku", "Anti-consectutive, hard", "Windoku"]
ENGINES = ("highs", "sat", "cpsat")
#: Seconds an engine gets per solve and per count (HiGHS takes minutes on some published
#: variants: without a limit `make bench` did not finish); a hit is printed as time_limit.
TIME_LIMIT = 60.0
#: A run slower than this is not repeated: at that length one run is a measurement.
REPEAT_UNDER = 5.0


def _puzzles():
    for name, path in PUZZLES:
        if path.exists():
            yield name, parse_puzzle(str(path))
    if PUBLISHED.exists():
        wanted = set(MORE_PUBLISHED)
        for line in PUBLISHED.read_text().splitlines():
            entry = json.loads(line)
            if entry["name"] in wanted:
                yield f"published: {entry['name'].strip()}", parse_puzzle(entry["document"])


def _median_time(fn, repeats: int, puzzle) -> tuple[float, object]:
    """Median seconds of ``fn(p)`` over ``repeats``, each on a copy of ``puzzle`` made anew before
    the clock starts: a puzzle keeps what was built from its rules (its shape cache), and a repeat
    on the same object would time the cache."""
    times, out = [], None
    for _ in range(repeats):
        fresh = dataclasses.replace(puzzle)
        start = time.perf_counter()
        out = fn(fresh)
        times.append(time.perf_counter() - start)
        if times[-1] > REPEAT_UNDER:
            break
    return statistics.median(times), out


def bench_engine(engine: str, puzzle, repeats: int) -> dict:
    solver = get_solver(engine, check_available=False)
    reason = solver.available()
    if reason:
        return {"note": f"not available: {reason[:60]}"}
    row: dict = {}
    try:
        seconds, result = _median_time(lambda p: solver.solve(build_model(p), time_limit=TIME_LIMIT), repeats, puzzle)
    except PipelineError as e:
        return {"note": f"refused: {str(e)[:80]}"}
    verdict = verify_grid(result.grid, puzzle) if result.grid is not None else None
    row.update(solve_s=seconds, status=result.status, verified=bool(verdict and verdict.ok))
    if not row["verified"]:
        row["note"] = ("does not honour the rule rows yet: " + verdict.message[:60]) if verdict else result.status
        return row
    if solver.count is not None:
        seconds, counted = _median_time(lambda p: solver.count(build_model(p), 2, time_limit=TIME_LIMIT), repeats, puzzle)
        row.update(count2_s=seconds, solutions=counted.count, count_status=counted.status)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one repeat per measurement")
    parser.add_argument("--results-dir", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    results = results_dir(parser, args.results_dir)
    repeats = 1 if args.quick else 5
    rows = []
    header = f"{'puzzle':42s} {'Aeq':>6s} {'Aineq':>6s} {'engine':6s} {'solve s':>9s} {'count<=2 s':>10s}  note"
    print(header)
    print("-" * len(header))
    for name, puzzle in _puzzles():
        model = build_model(puzzle)
        for engine in ENGINES:
            if engine not in SOLVERS:
                continue
            result = bench_engine(engine, puzzle, repeats)
            rows.append({"puzzle": name, "engine": engine, "rows_eq": model.n_rows, "rows_ineq": model.n_ineq,
                         "columns": model.n_cols, **result})
            solve_s = f"{result['solve_s']:9.3f}" if "solve_s" in result else f"{'-':>9s}"
            count_s = f"{result['count2_s']:10.3f}" if "count2_s" in result else f"{'-':>10s}"
            note = result.get("note") or f"{result.get('solutions')} solution(s), verified"
            if result.get("count_status") not in (None, "complete", "limit"):
                note += f"; count stopped by {result['count_status']} (a lower bound)"
            print(f"{name[:42]:42s} {model.n_rows:6d} {model.n_ineq:6d} {engine:6s} {solve_s} {count_s}  {note}",
                  flush=True)
    out = {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "python": platform.python_version(),
           "machine": platform.machine(), "repeats": repeats, "rows": rows}
    text = json.dumps(out, indent=1)
    write_result(results / f"rules-{time.strftime('%Y%m%d-%H%M%S')}.json", text)
    write_result(results / "rules-latest.json", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
