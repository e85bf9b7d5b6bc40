"""Issue 18's proof, a section of ``make bench`` (bench/run.py): the default engine and every engine's speed.

Side by side, in one run (the machine is shared: same-run ratios are what to compare):

1. ``25x25``: the 18 minimal 25x25 of ``sets/25x25_gecode.txt``, one fresh process per
   configuration solving all 18 in process through the registry (parse, build, solve, verify):
   ``auto`` (what ``solve``'s default picks for the uniqueness question, with the proof),
   ``highs`` (presolve singles, no uniqueness proof: HiGHS alone; target 10 s each), ``sat``
   (uniqueness proof included; target 3 s each) per backend (CaDiCaL 1.5.3, 1.9.5, 3.0.0) and
   with/without singles first. Kissat (pysat's ``kissat404``) is left out: pysat runs it
   non-incrementally (no assumptions, one ``solve`` per solver), so it cannot prove uniqueness on
   the solver that found the answer, nor serve batch's shared engine. Slowest and median per configuration.
2. ``batch``: the hardest 9x9 (forum-hardest) through :func:`pipeline.batch.run_batch` per engine,
   one worker (target 2,000/s with the fastest), and 1 vs 2 workers on 6,000 records (target 1.8x).
3. ``startup``: ``python -m pipeline solve`` of one 9x9 as a whole process against ``python -c
   pass`` (best of 5 each, alternated; target 0.2 s), and of a killer through ``--solver sat`` (the
   engine ``auto`` hands a hard killer to; no target).
4. ``count``: ``python -m pipeline count`` as a whole process per engine of the count row (best of
   3, alternated): large counts of sparse 9x9 and counts to 2 of a hardest 9x9, a minimal 16x16
   and a minimal 25x25 (the evidence for ``dfs``'s place and size bound in auto's count row).

``python bench/auto_bench.py '{"kind": ...}'`` is one measurement (a child); ``run`` the section.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import child_env, installed_env, run_script  # noqa: E402

GECODE25 = "sets/25x25_gecode.txt"
QUICK_GECODE = "sets/16x16_classic.txt"
HARDEST = "sets/9x9_forum_hardest_1106.txt"
#: name -> (solver, options, prove uniqueness)
GECODE_CONFIGS = {
    "auto": ("auto", {}, True),
    "highs": ("highs", {"presolve": "singles"}, False),
    "sat": ("sat", {}, True),
    "sat cadical153": ("sat", {"sat_backend": "cadical153"}, True),
    "sat cadical195": ("sat", {"sat_backend": "cadical195"}, True),
    "sat cadical300": ("sat", {"sat_backend": "cadical300"}, True),
    "sat no singles": ("sat", {"presolve": "none"}, True),
}
QUICK_CONFIGS = ("auto", "highs", "sat")
TARGETS = {"highs": 10.0, "sat": 3.0, "auto": 3.0}
BATCH_ENGINES = ("dfs", "sat", "highs", "cpsat")
#: puzzles per engine (the slower ones get fewer: HiGHS takes ~0.2 s and CP-SAT ~0.1 s per hardest 9x9)
BATCH_SAMPLES = {"dfs": 6000, "sat": 2000, "highs": 200, "cpsat": 100}
QUICK_BATCH = {"dfs": 60, "sat": 60, "highs": 10, "cpsat": 10}
BATCH_TARGET, SPEEDUP_TARGET, STARTUP_TARGET = 2000.0, 1.8, 0.2
ONE_9X9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
#: a minimal 16x16 (``generate --size 16 --minimal --seed 7 --symmetry rot180``, the first one)
MINIMAL_16X16 = ("..B9.......D.C.G...C.298..E..F..2..D3.E..BC47....E.F...B5..A12..34........8...G....25.3F.9...."
                 "DC..97.EGD.......5......6.F5.B..2..8..D.12.E......5.......B43.D8..DF....C.92.56....C...6........"
                 "13..21F..4G...E.A....4C32..D.8G..F..E..D..765.3...G.C.E.......B1..")
#: name -> (puzzle, count options); the 25x25 is line 16 of the gecode set (read at run time)
COUNT_CASES = {
    "empty 9x9, limit 10,000": ("." * 81, ["--limit", "10000"]),
    "9x9 of 8 clues, limit 100,000": ("52...6.........7.13..." + "." * 59, ["--limit", "100000"]),
    "hardest 9x9, to 2": (ONE_9X9, []),
    "minimal 16x16, to 2": (MINIMAL_16X16, []),
    "minimal 25x25, to 2": ("", []),
}
COUNT_ENGINES = ("dfs", "sat")
COUNT_TIME_LIMIT = 60.0


# -- children --------------------------------------------------------------------------------
def gecode(spec: dict) -> dict:
    """Every puzzle of ``spec['input']`` through the registry entry (``auto``: the pick)."""
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.core.verify import verify_grid
    from pipeline.solvers import get_solver
    from pipeline.solvers.auto import pick_solver

    lines = [s.strip() for s in Path(spec["input"]).read_text().splitlines() if s.strip()][:spec.get("limit")]
    rows = []
    for k, text in enumerate(lines):
        start, cpu = time.perf_counter(), time.process_time()
        puzzle = parse_puzzle(text)
        model = build_model(puzzle)
        name = spec["solver"]
        if name == "auto":
            name = pick_solver("unique" if spec["unique"] else "solve", model).name
        solver = get_solver(name)
        check = {"check_unique": True} if spec["unique"] and solver.proves_unique else {}
        # HiGHS gets a time limit (minutes without presolve); pysat cannot interrupt Kissat, and the
        # SAT configurations finish (the child's timeout bounds them)
        limit = {"time_limit": spec["time_limit"]} if name == "highs" and spec.get("time_limit") else {}
        r = solver.solve(model, **limit, **spec["options"], **check)
        ok = r.grid is not None and bool(verify_grid(r.grid, puzzle))
        rows.append({"puzzle": k, "engine": name, "status": r.status, "verified": bool(ok), "unique": r.unique,
                     "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu})
    return {**spec, "puzzles": rows}


def batch(spec: dict) -> dict:
    from pipeline.batch import run_batch
    from pipeline.solvers.auto import pick_solver

    solver = pick_solver("batch").name if spec["solver"] == "auto" else spec["solver"]   # as the CLI resolves it
    work = Path(tempfile.mkdtemp(prefix="auto-bench-batch-"))
    try:
        start = time.perf_counter()
        summary = run_batch(spec["input"], work / "out", workers=spec["workers"], solver=solver, progress="none")
        wall = time.perf_counter() - start
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return {**spec, "puzzles": summary.solved_now, "optimal": summary.status_counts.get("optimal", 0),
            "seconds": wall, "puzzles_per_s": summary.solved_now / wall, "solver_used": summary.solver,
            "cpu": summary.cpu_client + summary.cpu_workers,
            "puzzles_per_cpu_s": summary.solved_now / max(summary.cpu_client + summary.cpu_workers, 1e-9)}


# -- the section -----------------------------------------------------------------------------
def _sample(path: Path, k: int, work: Path) -> Path:
    lines = [s for s in path.read_text().splitlines() if s.strip()]
    lines = (lines * (k // max(len(lines), 1) + 1))[:k]   # repeated when the set is smaller than k
    out = work / f"{path.stem}-{k}.txt"
    out.write_text("\n".join(lines) + "\n")
    return out


def _stats(row: dict) -> dict:
    times = [p["seconds"] for p in row.get("puzzles", [])]
    if not times:
        return row
    cpu = [p["cpu"] for p in row["puzzles"]]
    bad = [p["puzzle"] for p in row["puzzles"] if not p["verified"]]
    return {**row, "slowest": max(times), "median": statistics.median(times), "slowest_cpu": max(cpu),
            "median_cpu": statistics.median(cpu), "unverified": bad,
            "engines": sorted({p["engine"] for p in row["puzzles"]})}


def startup(repeat: int = 5) -> dict:
    """Best-of-``repeat`` wall seconds of ``python -c pass`` and ``python -m pipeline solve`` (alternated)."""
    env = installed_env()
    cmds = {"python -c pass": [sys.executable, "-c", "pass"],
            "pipeline solve 9x9": [sys.executable, "-m", "pipeline", "solve", ONE_9X9, "--format", "line"],
            # a rule puzzle through the SAT engine (where auto hands a hard killer): rows, clauses, proof
            "pipeline solve killer, sat": [sys.executable, "-m", "pipeline", "solve", str(ROOT / "examples" / "killer.json"),
                                           "--solver", "sat", "--format", "line"]}
    best = dict.fromkeys(cmds, float("inf"))
    for _ in range(repeat + 1):   # the first round warms the bytecode cache
        for name, cmd in cmds.items():
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, check=True)
            best[name] = min(best[name], time.perf_counter() - start)
    solve = best["pipeline solve 9x9"]
    return {"seconds": best, "over_python": solve - best["python -c pass"], "target": STARTUP_TARGET,
            "met": solve <= STARTUP_TARGET}


def count_processes(data: Path, repeat: int = 3, quick: bool = False) -> list[dict]:
    """Best-of-``repeat`` wall seconds of a whole ``count`` process per case and engine
    (alternated); ``quick``: the counts to 2 of the 9x9 and the 16x16 only."""
    env = installed_env()
    gecode = [s.strip() for s in (data / GECODE25).read_text().splitlines() if s.strip()]
    rows = []
    for case, (puzzle, options) in COUNT_CASES.items():
        if quick and ("25x25" in case or options):
            continue
        puzzle = puzzle or gecode[15]
        best: dict[str, dict] = {}
        for _ in range(1 if "25x25" in case else repeat):   # dfs takes its whole time limit on a 25x25
            for engine in COUNT_ENGINES:
                cmd = [sys.executable, "-m", "pipeline", "count", puzzle, *options, "--solver", engine,
                       "--time-limit", str(COUNT_TIME_LIMIT), "--format", "json"]
                start = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
                seconds = time.perf_counter() - start
                try:
                    result = json.loads(proc.stdout)
                    status = {"count": result["count"], "status": result.get("status", "")}
                except (ValueError, KeyError, TypeError):
                    status = {"count": None, "status": f"exit {proc.returncode}: {proc.stderr.strip()[-200:]}"}
                if engine not in best or seconds < best[engine]["seconds"]:
                    best[engine] = {"seconds": seconds, **status}
        rows.append({"case": case, "engines": best})
    return rows


def warm_dfs_kernel() -> str:
    """Compile the dfs kernel into its cache first (a machine's first run), so no measurement
    below includes that once-per-machine cost; returns how it loads (machine code or numba)."""
    code = ("from pipeline.solvers import dfs\n"
            "problem = dfs._import_problem()\n"
            "print(problem or ('machine code' if dfs.kernel().native else 'numba functions'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), cwd=ROOT)
    return proc.stdout.strip() or f"exit {proc.returncode}"


def run(data: Path, work: Path, quick: bool, log) -> dict:
    """The whole section (``quick``: a 16x16 set, small samples)."""
    log(f"  auto: dfs kernel ready ({warm_dfs_kernel()}) ...")
    path = data / (QUICK_GECODE if quick else GECODE25)
    gecode_rows = []
    if not path.exists():   # a clone without ../shared/data: said once, as the other sections do
        log(f"  auto: skipped the {path.name} rows: {path} not found (SUDOKU_BENCH_DATA names another copy)")
    for name in (QUICK_CONFIGS if quick else GECODE_CONFIGS) if path.exists() else ():
        solver, options, unique = GECODE_CONFIGS[name]
        log(f"  auto: {path.name} with {name} ...")
        spec = {"kind": "gecode", "config": name, "input": str(path), "solver": solver, "options": options,
                "unique": unique, "limit": 3 if quick else None, "time_limit": 120.0}
        gecode_rows.append(_stats(run_script("auto_bench.py", spec, 3600.0)))
    hardest = data / HARDEST
    batch_rows = []
    skipped = {}
    if not hardest.exists():
        skipped["batch"] = f"{hardest} not found (SUDOKU_BENCH_DATA names another copy)"
        log(f"  auto: skipped the batch rows: {skipped['batch']}")
    else:
        for engine in BATCH_ENGINES:
            src = _sample(hardest, (QUICK_BATCH if quick else BATCH_SAMPLES)[engine], work)
            log(f"  auto: batch hardest 9x9 with {engine}, one worker ...")
            batch_rows.append(run_script("auto_bench.py", {"kind": "batch", "input": str(src), "solver": engine,
                                                           "workers": 1}, 1800.0))
        big = _sample(hardest, 60 if quick else 6000, work)
        for workers in (1, 2):   # what batch's default (auto) runs
            log(f"  auto: batch 6,000 hardest 9x9 with auto, {workers} worker(s) ...")
            batch_rows.append(run_script("auto_bench.py", {"kind": "batch", "input": str(big), "solver": "auto",
                                                           "workers": workers, "scaling": True}, 1800.0))
    log("  auto: start-up ...")
    started = startup(2 if quick else 5)
    log("  auto: count processes per engine ...")
    counts = count_processes(data, 1 if quick else 3, quick) if (data / GECODE25).exists() else []
    if not (data / GECODE25).exists():
        skipped["count"] = f"{data / GECODE25} not found (SUDOKU_BENCH_DATA names another copy)"
    return {"gecode": gecode_rows, "batch": batch_rows, "startup": started, "count": counts, "skipped": skipped}


def failures(result: dict) -> list[str]:
    """Missed targets, in words (they are reported, the bench still writes its JSON)."""
    out = []
    for row in result["gecode"]:
        target = TARGETS.get(row["config"].split()[0] if row["config"] != "auto" else "auto")
        if "error" in row:
            out.append(f"25x25 {row['config']}: {row['error']}")
        elif row.get("unverified"):
            out.append(f"25x25 {row['config']}: unverified {row['unverified']}")
        elif target and row["slowest"] > target:
            out.append(f"25x25 {row['config']}: slowest {row['slowest']:.1f}s > {target:.0f}s")
    return out


def print_tables(result: dict, out=sys.stdout) -> None:
    if result["gecode"]:
        name = Path(result["gecode"][0].get("input", "?")).name
        print(f"\nissue 18: {name}, one process per configuration (wall and CPU seconds per puzzle)", file=out)
        print(f"{'configuration':18s} {'engine':8s} {'slowest':>8s} {'median':>8s} {'slow cpu':>8s} {'med cpu':>8s} "
              f"{'target':>7s}", file=out)
    else:
        print("\nissue 18: the gecode rows skipped (their data set was not found)", file=out)
    for r in result["gecode"]:
        if "error" in r:
            print(f"{r['config']:18s} error: {r['error']}", file=out)
            continue
        target = TARGETS.get(r["config"].split()[0])
        print(f"{r['config']:18s} {','.join(r['engines']):8s} {r['slowest']:7.2f}s {r['median']:7.2f}s "
              f"{r['slowest_cpu']:7.2f}s {r['median_cpu']:7.2f}s "
              f"{'' if target is None else f'{target:.0f}s':>7s}" + (f"  unverified {r['unverified']}"
                                                                     if r["unverified"] else ""), file=out)
    print("\nissue 18: hardest 9x9 batch (puzzles/s, wall; verified)", file=out)
    if not result["batch"] and result.get("skipped", {}).get("batch"):   # not an empty table
        print(f"  skipped: {result['skipped']['batch']}", file=out)
    for r in result["batch"]:
        if "error" in r:
            print(f"{r['solver']:6s} workers={r['workers']} error: {r['error']}", file=out)
            continue
        print(f"{r.get('solver_used') or r['solver']:6s} workers={r['workers']} {r['puzzles']:6d} puzzles {r['puzzles_per_s']:9.0f}/s "
              f"({r['puzzles_per_cpu_s']:.0f} per CPU s; {r['optimal']} optimal)", file=out)
    scaling = [r for r in result["batch"] if r.get("scaling") and "puzzles_per_s" in r]
    if len(scaling) == 2:
        print(f"2 workers / 1 worker on {scaling[0]['puzzles']} records: "
              f"{scaling[1]['puzzles_per_s'] / scaling[0]['puzzles_per_s']:.2f}x (target {SPEEDUP_TARGET}x)", file=out)
    s = result["startup"]
    print(f"\nissue 18: start-up  python -c pass {s['seconds']['python -c pass']:.3f}s, pipeline solve 9x9 "
          f"{s['seconds']['pipeline solve 9x9']:.3f}s (+{s['over_python']:.3f}s; target {STARTUP_TARGET}s)"
          + (f"; a killer through sat {s['seconds']['pipeline solve killer, sat']:.3f}s"
             if "pipeline solve killer, sat" in s["seconds"] else ""), file=out)
    if not result.get("count") and result.get("skipped", {}).get("count"):
        print(f"\nissue 18: count, one process: skipped: {result['skipped']['count']}", file=out)
    if result.get("count"):
        print("\nissue 18: count, one process (best wall seconds; count and status)", file=out)
        print(f"{'case':32s} " + " ".join(f"{e:>24s}" for e in COUNT_ENGINES), file=out)
        for r in result["count"]:
            cells = [r["engines"].get(e, {}) for e in COUNT_ENGINES]
            print(f"{r['case']:32s} " + " ".join(f"{c.get('seconds', float('nan')):6.2f}s {c.get('count')!s:>7s} "
                                                 f"{str(c.get('status'))[:9]:9s}" for c in cells), file=out)


if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    print(json.dumps({"gecode": gecode, "batch": batch}[spec["kind"]](spec)))
