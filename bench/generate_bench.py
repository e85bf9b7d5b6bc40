"""Benchmarks of the puzzle tools (issue 9): generation times per shape, MaxSAT methods of
``explain``, rating distributions. Runnable alone::

    python bench/generate_bench.py            # full run (a few minutes on 2 cores)
    python bench/generate_bench.py --quick    # seconds-long smoke run (smaller counts)

1. Generation, one puzzle per seed ``0..K-1`` in one process (engines cached per shape, as in
   ``generate -n``): median and worst wall time of ``next(generate(...))`` for
   9x9 ``--minimal`` (target median <= 50 ms), 16x16 unique (<= 2 s), 25x25 unique (<= 30 s),
   25x25 ``--minimal`` (no target: singles first, then a proof per clue left, about 20-40 s, some
   seeds minutes; full run only) and
   9x9 jigsaw with new regions (<= 200 ms), plus 9x9 X and 7x7 Latin.
   Large grids (issue 34), full run only: one puzzle per shape of 36x36, 49x49 and 64x64
   (``generate --size N --seed N``: the mixed-pattern full grid, then removal by singles, not
   ``--minimal``), its time and clues, then ``pipeline.solve`` of it with the uniqueness proof
   (``auto``), best of 3: engine, seconds, and whether the answer is generate's solution.
2. ``explain``'s fewest removals on the tdoku no-solution puzzles and on puzzles made infeasible
   by changing one clue of a generated puzzle: RC2 (python-sat) against HiGHS, same answers size.
4. Rules beyond units (issue 15): one puzzle per seed of 9x9 anti-knight, non-consecutive,
   windoku and killer (cages and givens), median and worst seconds; and killer with cages only
   (9x9, 6x6): how often the cages alone end unique (no given added), seconds and rounds.
3. Rating distributions (label, hardest technique, guesses) over ``sets/9x9_norvig_top95.txt``
   and a 1,000-puzzle sample (every 24th line) of ``dev/9x9_sudoku17.txt``.

Prints tables and writes ``<results-dir>/generate-<time>.json`` and ``generate-latest.json``
(``--results-dir`` defaults to ``bench/results``).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import results_dir, write_result  # noqa: E402
from pipeline.core.errors import PuzzleError  # noqa: E402
from pipeline.tools.explain import fewest_removals  # noqa: E402
from pipeline.tools.generate import count_up_to, generate  # noqa: E402
from pipeline.core.puzzle import Puzzle, parse_puzzle  # noqa: E402
from pipeline.tools.rate import rate  # noqa: E402

DATA = Path(os.environ.get("SUDOKU_BENCH_DATA") or ROOT.parent / "shared" / "data")
SHAPES = [  # name, generate() keywords, puzzles (full, quick), target median seconds
    ("9x9 minimal", dict(size=9, minimal=True), (200, 20), 0.050),
    ("16x16 unique", dict(size=16), (20, 3), 2.0),
    ("25x25 unique", dict(size=25), (5, 1), 30.0),
    # not in --quick: seed 0 alone took 487 s (5.5 CPU minutes) of an 8.5-minute "smoke run"
    ("25x25 minimal", dict(size=25, minimal=True), (3, 0), None),
    ("9x9 jigsaw (new regions)", dict(size=9, variant="jigsaw"), (100, 10), 0.200),
    ("9x9 X minimal", dict(size=9, variant="x", minimal=True), (50, 5), None),
    ("7x7 latin minimal", dict(size=7, variant="latin", minimal=True), (50, 5), None),
]
#: issue 34's large grids: generate --size N --seed N, then solved with the proof (full run only)
LARGE_SIDES = (36, 49, 64)
SUDOKU17_SAMPLE = 1000
RULE_SHAPES = [  # name, generate() keywords, puzzles (full, quick)
    ("9x9 anti-knight", dict(size=9, rules=[{"rule": "antiknight"}]), (20, 2)),
    ("9x9 non-consecutive", dict(size=9, rules=[{"rule": "nonconsecutive"}]), (20, 2)),
    ("9x9 windoku", dict(size=9, rules=[{"rule": "windoku"}]), (20, 2)),
    ("9x9 killer with givens", dict(size=9, killer=True), (20, 2)),
    ("9x9 killer cages only", dict(size=9, cages_only=True), (30, 3)),
    ("6x6 killer cages only", dict(size=6, cages_only=True), (30, 3)),
]


def bench_rules(quick: bool) -> list[dict]:
    rows = []
    for name, kw, (k_full, k_quick) in RULE_SHAPES:
        k = k_quick if quick else k_full
        times, rounds, no_givens = [], [], 0
        for seed in range(k):
            start = time.perf_counter()
            g = next(generate(seed=seed, **kw))
            times.append(time.perf_counter() - start)
            if g.killer is not None:
                rounds.append(g.killer["rounds"])
                no_givens += g.killer["givens"] == 0
        row = {"shape": name, "puzzles": k, "median_s": float(np.median(times)), "worst_s": float(max(times))}
        if rounds:
            row.update(unique_without_givens=no_givens, median_rounds=float(np.median(rounds)),
                       worst_rounds=int(max(rounds)))
        rows.append(row)
        print(f"{name:28s} n={k:4d}  median {row['median_s']:7.2f} s  worst {row['worst_s']:7.2f} s"
              + (f"  no givens {no_givens}/{k}  rounds median {row['median_rounds']:g} worst {row['worst_rounds']}"
                 if rounds else ""), flush=True)
    return rows


def bench_generation(quick: bool) -> list[dict]:
    rows = []
    for name, kw, (k_full, k_quick), target in SHAPES:
        k = k_quick if quick else k_full
        if not k:
            print(f"{name:28s} left out of --quick (minutes a puzzle; the full run has it)", flush=True)
            continue
        times, clues = [], []
        for seed in range(k):
            start = time.perf_counter()
            g = next(generate(seed=seed, **kw))
            times.append(time.perf_counter() - start)
            clues.append(g.puzzle.n_clues)
            if seed < 3:  # spot check with a separate count
                assert count_up_to(g.puzzle, 2) == 1
        row = {"shape": name, "puzzles": k, "median_s": float(np.median(times)), "worst_s": float(max(times)),
               "mean_clues": float(np.mean(clues)), "target_median_s": target}
        row["meets_target"] = None if target is None else row["median_s"] <= target
        rows.append(row)
        print(f"{name:28s} n={k:4d}  median {row['median_s'] * 1e3:9.1f} ms  worst {row['worst_s'] * 1e3:9.1f} ms"
              f"  clues {row['mean_clues']:6.1f}" + ("" if target is None else
                                                     f"  target {target * 1e3:g} ms: {'met' if row['meets_target'] else 'MISSED'}"),
              flush=True)
    return rows


def bench_large() -> list[dict]:
    """Issue 34's large grids: generate's puzzle of each side in :data:`LARGE_SIDES`, solved with the proof."""
    import pipeline

    rows = []
    for n in LARGE_SIDES:
        start = time.perf_counter()
        g = next(generate(size=n, seed=n))
        made = time.perf_counter() - start
        solves = []
        for _ in range(3):
            start = time.perf_counter()
            result = pipeline.solve(g.puzzle)
            solves.append(time.perf_counter() - start)
        row = {"shape": f"{n}x{n}", "seed": n, "generate_s": made, "clues": int(g.puzzle.n_clues),
               "solve_best_s": min(solves), "solve_worst_s": max(solves), "solver": result.solver,
               "unique": result.unique, "matches": bool((result.grid == g.solution).all())}
        rows.append(row)
        print(f"{row['shape']:6s} generate {made:6.1f} s, {row['clues']:5d} clues; solve with the proof "
              f"{row['solve_best_s']:.3f} s (worst of 3 {row['solve_worst_s']:.3f} s, {row['solver']}, "
              f"unique {row['unique']}, generate's solution {row['matches']})", flush=True)
    return rows


def _infeasible_by_one_change(p: Puzzle, rng) -> Puzzle | None:
    for cell in rng.permutation(np.flatnonzero(p.grid)):
        for d in rng.permutation(p.n) + 1:
            grid = np.array(p.grid)
            grid.flat[cell] = d
            try:
                q = Puzzle(grid, p.h, p.w, p.variant, p.regions)
            except PuzzleError:
                continue
            if count_up_to(q, 1) == 0:
                return q
    return None


def bench_maxsat(quick: bool) -> dict:
    puzzles = []
    tdoku = DATA / "sets" / "9x9_tdoku_test_counts.csv"
    if tdoku.exists():
        with open(tdoku) as f:
            for row in csv.DictReader(f):
                if row["n_solutions"] == "0":
                    try:
                        puzzles.append(("tdoku", parse_puzzle(row["puzzle"])))
                    except PuzzleError:
                        pass  # a rule broken directly: explain names it, no MaxSAT needed
    rng = np.random.default_rng(0)
    for g in generate(size=9, seed=1, count=5 if quick else 30):
        q = _infeasible_by_one_change(g.puzzle, rng)
        if q is not None:
            puzzles.append(("one change", q))
    out = {}
    for method in ("rc2", "highs"):
        fewest_removals(puzzles[0][1], method)  # warm-up (imports, engine)
        times, sizes = [], []
        for _, p in puzzles:
            start = time.perf_counter()
            sizes.append(len(fewest_removals(p, method)))
            times.append(time.perf_counter() - start)
        out[method] = {"puzzles": len(puzzles), "median_s": float(np.median(times)), "worst_s": float(max(times)),
                       "total_s": float(sum(times)), "sizes": sizes}
        print(f"fewest removals {method:5s}: {len(puzzles)} infeasible puzzles, median "
              f"{out[method]['median_s'] * 1e3:.1f} ms, worst {out[method]['worst_s'] * 1e3:.1f} ms", flush=True)
    out["same_optimum"] = out["rc2"]["sizes"] == out["highs"]["sizes"]
    print(f"same optimum sizes: {out['same_optimum']}")
    return out


def rating_distribution(lines: list[str], name: str) -> dict:
    labels, hardest, guesses, times = Counter(), Counter(), [], []
    for text in lines:
        start = time.perf_counter()
        r = rate(parse_puzzle(text))
        times.append(time.perf_counter() - start)
        labels[r.label] += 1
        hardest[r.hardest] += 1
        guesses.append(r.guesses)
    out = {"set": name, "puzzles": len(lines), "labels": dict(labels), "hardest": dict(hardest),
           "guesses_median": float(np.median(guesses)), "guesses_max": int(max(guesses)),
           "puzzles_with_guesses": int(np.count_nonzero(guesses)),
           "rate_median_s": float(np.median(times)), "rate_worst_s": float(max(times))}
    print(f"{name}: {len(lines)} puzzles; labels {dict(labels)}; hardest {dict(hardest)}; "
          f"guesses median {out['guesses_median']:g} max {out['guesses_max']}; "
          f"rate median {out['rate_median_s'] * 1e3:.1f} ms worst {out['rate_worst_s'] * 1e3:.1f} ms", flush=True)
    return out


def bench_ratings(quick: bool) -> list[dict]:
    rows = []
    top95 = DATA / "sets" / "9x9_norvig_top95.txt"
    if top95.exists():
        lines = top95.read_text().split()
        rows.append(rating_distribution(lines[:10] if quick else lines, "9x9_norvig_top95"))
    else:
        print(f"skipped: {top95} not found")
    s17 = DATA / "dev" / "9x9_sudoku17.txt"
    if s17.exists():
        lines = [x for x in s17.read_text().split() if x and not x.startswith("#")]
        step = max(1, len(lines) // SUDOKU17_SAMPLE)
        sample = lines[::step][:SUDOKU17_SAMPLE]
        rows.append(rating_distribution(sample[:20] if quick else sample,
                                        f"9x9_sudoku17 (every {step}th of {len(lines)})"))
    else:
        print(f"skipped: {s17} not found")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    ap.add_argument("--only", choices=("generate", "maxsat", "rate", "rules"), help="run one section")
    ap.add_argument("--results-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    out_dir = results_dir(ap, args.results_dir)
    result = {"machine": platform.platform(), "python": platform.python_version(), "quick": args.quick,
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.only in (None, "generate"):
        result["generation"] = bench_generation(args.quick)
        if not args.quick:
            result["large"] = bench_large()
    if args.only in (None, "maxsat"):
        result["maxsat"] = bench_maxsat(args.quick)
    if args.only in (None, "rules"):
        result["rules"] = bench_rules(args.quick)
    if args.only in (None, "rate"):
        result["ratings"] = bench_ratings(args.quick)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    text = json.dumps(result, indent=1)
    write_result(out_dir / f"generate-{stamp}.json", text)
    write_result(out_dir / "generate-latest.json", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
