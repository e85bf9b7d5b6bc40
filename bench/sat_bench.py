"""Issue 8's targets (SAT engine, CNF/OPB writers), a section of ``make bench`` (bench/run.py).

Every measurement runs in a fresh interpreter (``bench/sat_measure.py``) under ``RLIMIT_AS``
(:data:`MEMORY_LIMIT`) with a timeout, writing into temporary directories it deletes, so no
encoding or engine can take the machine's memory or disk. Sections:

1. Batch, solve + verify (``run_batch``, the API of ``python -m pipeline batch``): the SAT engine
   on 9x9 forum-hardest and 17-clue samples with one worker (targets 800 and 5,000 puzzles/s),
   with ``--count 2`` (target: half of that), with two workers, and both engines on a (smaller)
   common sample for the SAT/HiGHS ratio. Rates are given per wall second and per CPU second of
   the whole run (the machine is shared; CPU seconds do not depend on the other load).
2. ``count`` end to end in process: the empty 4x4 (288, < 0.5 s) and 10,000 grids of the empty
   9x9 (< 5 s).
3. 25x25: the 18 puzzles of ``25x25_gecode.txt`` through the ``sat`` registry entry, per at-most-one
   encoding, with and without naked/hidden singles first (target: each within 10 s), and the
   default configuration through ``python -m pipeline solve --solver sat`` end to end, one
   process per puzzle (with the command's default uniqueness check).
4. Writers on the empty grid with ``n x n`` boxes (100x100 for ``n = 10``: ``10^6`` variables):
   CNF in every at-most-one encoding, OPB and MPS: seconds, file size, peak RSS.

``--quick`` shrinks every section to seconds (small samples, a 16x16 set instead of the 25x25,
``n = 3`` writers).
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script (python bench/sat_bench.py)
    sys.path.insert(0, str(ROOT))

from bench.measure import child_env, results_dir, run_script, write_result  # noqa: E402

#: address-space cap of every measurement process (the 100x100 writers peak near 0.35 GB RSS)
MEMORY_LIMIT = 4 * 1024**3
CHILD_TIMEOUT = 600.0

HARDEST = "dev/9x9_forum_hardest_1905_11plus.txt"
SUDOKU17 = "dev/9x9_sudoku17.txt"
#: set -> (file, SAT sample, common SAT/HiGHS sample, wall target puzzles/s); --quick: QUICK_SAMPLES
BATCH_SETS = {"forum-hardest": (HARDEST, 2000, 200, 800.0), "17-clue": (SUDOKU17, 10000, 2000, 5000.0)}
QUICK_SAMPLES = {"forum-hardest": (20, 10), "17-clue": (50, 50)}
GECODE25 = "sets/25x25_gecode.txt"
QUICK_GECODE = "sets/16x16_classic.txt"
GECODE_CONFIGS = [("seqcounter", False), ("pairwise", False), ("ladder", False), ("seqcounter", True)]
QUICK_GECODE_CONFIGS = [("auto", False), ("auto", True)]
CNF_ENCODINGS = ("pairwise", "seqcounter", "ladder", "bitwise", "cardnetwrk", "sortnetwrk", "totalizer")
PER_PUZZLE_TARGET = 10.0


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_measure(spec: dict, timeout: float = CHILD_TIMEOUT) -> dict:
    """One ``bench/sat_measure.py`` measurement in a memory-capped child; errors as ``error``."""
    return run_script("sat_measure.py", spec, timeout, preexec_fn=_limit_memory)


def _sample(path: Path, k: int, work: Path) -> Path:
    lines = [s for s in path.read_text().splitlines() if s.strip()][:k]
    out = work / f"{path.stem}-first{len(lines)}.txt"
    out.write_text("\n".join(lines) + "\n")
    return out


def bench_batch(data: Path, work: Path, quick: bool, log) -> list[dict]:
    rows = []
    for name, (rel, big, common, target) in BATCH_SETS.items():
        path = data / rel
        if not path.exists():
            rows.append({"set": name, "skipped": f"{path} not found"})
            continue
        big, common = QUICK_SAMPLES[name] if quick else (big, common)
        sample, small = _sample(path, big, work), _sample(path, common, work)
        runs = [("sat", 1, 0, sample, target), ("sat", 1, 2, sample, target / 2), ("sat", 2, 0, sample, None),
                ("sat", 1, 0, small, None), ("highs", 1, 0, small, None)]
        for solver, workers, count, src, goal in runs:
            log(f"  batch {name} {solver} workers={workers} count={count} ({src.name}) ...")
            r = run_measure({"kind": "batch", "set": name, "input": str(src), "solver": solver, "workers": workers,
                             "count": count, "tmp": str(work)})
            r["target"] = goal
            rows.append(r)
    return rows


def bench_gecode(data: Path, quick: bool, log) -> dict:
    path = data / (QUICK_GECODE if quick else GECODE25)
    if not path.exists():
        return {"skipped": f"{path} not found"}
    configs = []
    for amo, propagate in (QUICK_GECODE_CONFIGS if quick else GECODE_CONFIGS):
        log(f"  {path.name}: amo={amo} singles first={propagate} ...")
        configs.append(run_measure({"kind": "gecode25", "input": str(path), "amo": amo, "propagate": propagate,
                                    "limit": 2 if quick else None}))
    cli = [] if quick else bench_gecode_cli(path, log)
    return {"input": str(path), "configs": configs, "cli": cli}


def bench_gecode_cli(path: Path, log) -> list[dict]:
    """``python -m pipeline solve P --solver sat`` per puzzle, end to end (interpreter included)."""
    rows = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [s.strip() for s in path.read_text().splitlines() if s.strip()]
    log(f"  {path.name}: solve --solver sat through the CLI, {len(lines)} processes ...")
    for k, text in enumerate(lines):
        cmd = [sys.executable, "-m", "pipeline", "solve", text, "--solver", "sat", "--format", "json"]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=child_env(), cwd=ROOT,
                                  preexec_fn=_limit_memory)
        except subprocess.TimeoutExpired:
            rows.append({"puzzle": k, "error": "timed out after 120s"})
            continue
        seconds = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = json.loads(proc.stdout) if proc.returncode == 0 else {}
        rows.append({"puzzle": k, "exit": proc.returncode, "seconds": seconds, "verified": out.get("verified"),
                     "unique": out.get("unique"), "solver_seconds": out.get("seconds"),
                     "children_cpu_total": usage.ru_utime + usage.ru_stime})
    prev = before.ru_utime + before.ru_stime
    for r in rows:  # CPU of each process from the running total of reaped children
        total = r.pop("children_cpu_total", None)
        if total is not None:
            r["cpu_seconds"] = total - prev
            prev = total
    return rows


def bench_writers(n: int, work: Path, log) -> list[dict]:
    rows = []
    for fmt, amo in [("mps", None), ("opb", None)] + [("cnf", a) for a in CNF_ENCODINGS]:
        log(f"  writer {fmt} {amo or ''} n={n} ...")
        spec = {"kind": "writer", "format": fmt, "n": n, "tmp": str(work)}
        if amo:
            spec["amo"] = amo
        rows.append(run_measure(spec))
    mps = next((r for r in rows if r["format"] == "mps" and "seconds" in r), None)
    for r in rows:
        if mps and "seconds" in r:
            r["x_mps_seconds"] = r["seconds"] / mps["seconds"]
            r["x_mps_bytes"] = r["bytes"] / mps["bytes"]
    return rows


def run(data: Path, work: Path, quick: bool, log) -> dict:
    """All four sections; the result goes under ``"sat"`` in bench/run.py's JSON."""
    started = time.time()
    log("sat: batch ...")
    result = {"memory_limit_bytes": MEMORY_LIMIT, "batch": bench_batch(data, work, quick, log)}
    log("sat: count ...")
    result["count"] = run_measure({"kind": "count"})
    log("sat: 25x25 ...")
    result["gecode"] = bench_gecode(data, quick, log)
    log("sat: writers ...")
    result["writers"] = bench_writers(3 if quick else 10, work, log)
    result["seconds"] = time.time() - started
    return result


def _f(value, spec: str = ".1f", width: int = 9) -> str:
    return f"{value:{width}{spec}}" if isinstance(value, (int, float)) and not isinstance(value, bool) else f"{'-':>{width}}"


def _met(value, target, above: bool = True) -> str:
    if target is None or not isinstance(value, (int, float)):
        return ""
    return "yes" if (value >= target if above else value <= target) else "NO"


def print_tables(sat: dict, out=sys.stdout) -> None:
    print("\nSAT batch, solve + verify (run_batch; rates per wall second and per CPU second of the run)", file=out)
    print(f"{'set':14s} {'engine':6s} {'wrk':>3s} {'count':>5s} {'puzzles':>7s} {'wall s':>8s} {'puzzles/s':>9s} "
          f"{'/cpu-s':>9s} {'target':>7s} {'met wall/cpu':>12s} {'verified':>8s}", file=out)
    by = {}
    for r in sat["batch"]:
        if "skipped" in r:
            print(f"{r['set']:14s} skipped: {r['skipped']}", file=out)
            continue
        if "error" in r:
            print(f"{r['set']:14s} {r['solver']:6s} ERROR {r['error']}", file=out)
            continue
        by[(r["set"], r["solver"], r["workers"], r["count"], r["puzzles"])] = r
        met = f"{_met(r['puzzles_per_s'], r['target'])}/{_met(r['puzzles_per_cpu_s'], r['target'])}" if r["target"] else ""
        print(f"{r['set']:14s} {r['solver']:6s} {r['workers']:3d} {r['count']:5d} {r['puzzles']:7d} {r['seconds']:8.2f} "
              f"{r['puzzles_per_s']:9.1f} {_f(r['puzzles_per_cpu_s'])} {_f(r['target'], '.0f', 7)} {met:>12s} "
              f"{'yes' if r['all_verified'] else 'NO':>8s}", file=out)
    sets = sorted({k[0] for k in by})
    for name in sets:
        runs = {k[1:]: v for k, v in by.items() if k[0] == name}
        sat1 = [v for k, v in runs.items() if k[:3] == ("sat", 1, 0)]
        big = max(sat1, key=lambda v: v["puzzles"]) if sat1 else None
        small = min(sat1, key=lambda v: v["puzzles"]) if sat1 else None
        highs = next((v for k, v in runs.items() if k[0] == "highs"), None)
        count2 = next((v for k, v in runs.items() if k[:3] == ("sat", 1, 2)), None)
        two = next((v for k, v in runs.items() if k[:3] == ("sat", 2, 0)), None)
        parts = []
        if highs and small and small["puzzles"] == highs["puzzles"]:
            parts.append(f"SAT/HiGHS on {highs['puzzles']} puzzles {small['puzzles_per_s'] / highs['puzzles_per_s']:.1f}x "
                         f"wall, {small['puzzles_per_cpu_s'] / highs['puzzles_per_cpu_s']:.1f}x cpu")
        if big and count2:
            parts.append(f"count 2 / solve {count2['puzzles_per_s'] / big['puzzles_per_s']:.2f} wall, "
                         f"{count2['puzzles_per_cpu_s'] / big['puzzles_per_cpu_s']:.2f} cpu")
        if big and two:
            parts.append(f"2 / 1 workers {two['puzzles_per_s'] / big['puzzles_per_s']:.2f} wall")
        print(f"  {name}: " + "; ".join(parts), file=out)

    print("\ncount, end to end in process (python -m pipeline count via pipeline.cli.main)", file=out)
    c = sat["count"]
    if "error" in c:
        print(f"  ERROR {c['error']}", file=out)
    else:
        for r, target in zip(c.get("rows", []), (0.5, 5.0)):
            print(f"  {r['task']:36s} count {r['count']!s:>6s} (expected {r['expected']}) {r['seconds']:7.3f} s wall "
                  f"{r['cpu_seconds']:7.3f} s cpu  target < {target} s: wall {_met(r['seconds'], target, False)}, "
                  f"cpu {_met(r['cpu_seconds'], target, False)}", file=out)

    g = sat["gecode"]
    print(f"\n{Path(g.get('input', '25x25')).name}: solve through the sat registry entry "
          f"(parse, build, solve, verify; target each <= {PER_PUZZLE_TARGET:.0f} s)", file=out)
    if "skipped" in g:
        print(f"  skipped: {g['skipped']}", file=out)
    else:
        print(f"  {'amo':11s} {'singles':>7s} {'solved':>7s} {'slowest s':>9s} {'median s':>8s} {'total s':>8s} "
              f"{'slowest cpu':>11s} {'total cpu':>9s}", file=out)
        for r in g["configs"]:
            if "error" in r:
                print(f"  {r['amo']:11s} {r['propagate']!s:>7s} ERROR {r['error']}", file=out)
                continue
            print(f"  {r['amo']:11s} {r['propagate']!s:>7s} {r['solved']:3d}/{len(r['rows']):<3d} {r['slowest']:9.2f} "
                  f"{r['median']:8.2f} {r['total']:8.1f} {r['slowest_cpu']:11.2f} {r['total_cpu']:9.1f}", file=out)
        for r in g["configs"]:
            if "rows" in r:
                print(f"  per puzzle, amo={r['amo']} singles={r['propagate']} (wall/cpu s): "
                      + " ".join(f"{x['seconds']:.2f}/{x['cpu_seconds']:.2f}" for x in r["rows"]), file=out)
        if g.get("cli"):
            ok = sum(r.get("exit") == 0 and bool(r.get("verified")) for r in g["cli"])
            secs = [r["seconds"] for r in g["cli"] if "seconds" in r]
            print(f"  python -m pipeline solve --solver sat (one process each, uniqueness check on): {ok}/{len(g['cli'])} "
                  f"exit 0 and verified, slowest {max(secs):.2f} s wall; per puzzle (wall/cpu s): "
                  + " ".join(f"{r.get('seconds', float('nan')):.2f}/{r.get('cpu_seconds') or float('nan'):.2f}"
                             for r in g["cli"]), file=out)

    print("\nWriters, empty grid (fresh process each; peak RSS during the write)", file=out)
    print(f"  {'format':6s} {'amo':11s} {'N':>4s} {'variables':>10s} {'seconds':>8s} {'cpu s':>8s} {'MB':>9s} {'peak RSS MB':>11s} "
          f"{'x MPS time':>10s} {'x MPS size':>10s}", file=out)
    for r in sat["writers"]:
        if "error" in r:
            print(f"  {r['format']:6s} {r.get('amo') or '':11s} ERROR {r['error']}", file=out)
            continue
        print(f"  {r['format']:6s} {r.get('amo') or '':11s} {r['N']:4d} {r['variables']:10,d} {r['seconds']:8.2f} {_f(r.get('cpu_seconds'), '.2f', 8)} "
              f"{r['bytes'] / 1e6:9.1f} {r['peak_rss_mb']:11.0f} {_f(r.get('x_mps_seconds'), '.2f', 10)} "
              f"{_f(r.get('x_mps_bytes'), '.2f', 10)}", file=out)


def failures(sat: dict) -> list[str]:
    """Errors and wrong answers (not missed speed targets: those are reported, not failed)."""
    bad = [f"batch {r.get('set')} {r.get('solver')}: {r['error']}" for r in sat["batch"] if "error" in r]
    bad += [f"batch {r['set']} {r['solver']}: not all verified" for r in sat["batch"]
            if "all_verified" in r and not r["all_verified"]]
    c = sat["count"]
    bad += [f"count: {c['error']}"] if "error" in c else [f"count: {r['task']} gave {r['count']}" for r in c["rows"]
                                                          if r["count"] != r["expected"]]
    for r in sat["gecode"].get("configs", []):
        if "error" in r or r["solved"] != len(r["rows"]):
            bad.append(f"gecode amo={r['amo']}: {r.get('error') or 'not all solved'}")
    bad += [f"writer {r['format']} {r.get('amo')}: {r['error']}" for r in sat["writers"] if "error" in r]
    return bad


SECTIONS = ("batch", "count", "gecode", "writers")


def main(argv=None) -> int:
    """``python bench/sat_bench.py [--quick] [--only SECTION,...]``: this section of ``make bench``
    alone; prints the tables and writes ``<results-dir>/sat-<sections>-<time>[-quick].json``."""
    import argparse
    import shutil
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="seconds-long smoke run")
    parser.add_argument("--only", help=f"comma-separated sections ({', '.join(SECTIONS)}; default all)")
    parser.add_argument("--data", default=os.environ.get("SUDOKU_BENCH_DATA") or str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--results-dir", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    if only - set(SECTIONS):
        parser.error(f"unknown sections: {', '.join(sorted(only - set(SECTIONS)))}")
    results = results_dir(parser, args.results_dir)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    data, work = Path(args.data), Path(tempfile.mkdtemp(prefix="sudoku-bench-sat-"))
    started = time.time()
    try:
        result = {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "quick": args.quick, "cpu_count": os.cpu_count(),
                  "loadavg_start": os.getloadavg(), "memory_limit_bytes": MEMORY_LIMIT,
                  "batch": bench_batch(data, work, args.quick, log) if "batch" in only else [],
                  "count": run_measure({"kind": "count"}) if "count" in only else {"rows": []},
                  "gecode": bench_gecode(data, args.quick, log) if "gecode" in only else {"skipped": "not run"},
                  "writers": bench_writers(3 if args.quick else 10, work, log) if "writers" in only else []}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["loadavg_end"] = os.getloadavg()
    result["seconds"] = time.time() - started
    print_tables(result)
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"sat-{'-'.join(sorted(only))}-{time.strftime('%Y%m%dT%H%M%S')}{'-quick' if args.quick else ''}.json"
    write_result(path, json.dumps(result, indent=2))
    log(f"sat bench: wrote {path} ({result['seconds']:.0f}s)")
    return 1 if failures(result) else 0


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
