"""Batch throughput with 1 and 2 (or more) workers on one input, in alternating rounds.

    python bench/batch_throughput.py ../shared/data/dev/9x9_sudoku17.txt --workers 1,2 --rounds 2
    python bench/batch_throughput.py ../shared/data/dev/9x9_forum_hardest_1905_11plus.txt --sample 1000
    python bench/batch_throughput.py ../shared/data/dev/9x9_sudoku17.txt --sample 2000 --workers 1 \
        --baseline /work/baseline --rounds 3        # this tree vs another checkout, same sample, same run

Per run: puzzles/s (wall), the share of worker time outside ``Highs.run()``, and CPU accounting
(workers' CPU seconds, this process's CPU seconds, CPU efficiency = workers' CPU / (elapsed x
workers), load average, CPU pressure). On a machine shared with other work the wall-clock ratio
between 1 and 2 workers measures the other load as much as the batch, so the report also gives
the CPU-normalised ratio: puzzles per worker-CPU-second x workers, relative to 1 worker — what
the wall ratio would be with the workers alone on their cores. Rounds alternate the worker
counts so that slow drifts in the load hit both alike.

With ``--baseline DIR`` every measurement runs in a fresh Python process (start-up included, as a
user runs it), alternating this tree and the checkout in DIR (``PYTHONPATH=DIR``), and the table
gives each code's rate and the ratio this/baseline measured in the same rounds.

Writes ``bench/results/batch_throughput-<set>-<time>.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import write_result  # noqa: E402
from pipeline.batch import run_batch  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def cpu_pressure() -> float | None:
    """Linux PSI: % of the last 10 s in which some task waited for a CPU (None if unavailable)."""
    try:
        with open("/proc/pressure/cpu") as f:
            return float(f.readline().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return None


def measure(path: Path, workers: int, work: Path, chunk_size: int | None) -> dict:
    """One full batch of ``path`` into a fresh directory."""
    out = work / f"out-{workers}"
    shutil.rmtree(out, ignore_errors=True)
    pressure = cpu_pressure()
    s = run_batch(path, out, workers=workers, chunk_size=chunk_size, progress="none")
    return {
        "workers": workers, "puzzles": s.solved_now, "seconds": s.elapsed,
        "puzzles_per_s": s.puzzles_per_second, "overhead_fraction": s.overhead_fraction,
        "run_seconds": s.run_seconds, "worker_seconds": s.worker_seconds,
        "cpu_workers": s.cpu_workers, "cpu_client": s.cpu_client, "cpu_efficiency": s.cpu_efficiency,
        "puzzles_per_cpu_s": s.solved_now / s.cpu_workers if s.cpu_workers else None,
        "loadavg": s.loadavg, "cpu_pressure_before": pressure, "cpu_pressure_after": cpu_pressure(),
        "status_counts": s.status_counts,
    }


def summarise(runs: list[dict], worker_counts: list[int]) -> list[dict]:
    base = [r for r in runs if r["workers"] == worker_counts[0]]
    base_rate = statistics.fmean(r["puzzles_per_s"] for r in base)
    base_cpu = statistics.fmean(r["puzzles_per_cpu_s"] for r in base) * worker_counts[0]
    rows = []
    for w in worker_counts:
        rs = [r for r in runs if r["workers"] == w]
        rate = statistics.fmean(r["puzzles_per_s"] for r in rs)
        cpu_rate = statistics.fmean(r["puzzles_per_cpu_s"] for r in rs) * w
        rows.append({
            "workers": w, "rounds": len(rs), "puzzles_per_s": rate, "best_puzzles_per_s": max(r["puzzles_per_s"] for r in rs),
            "wall_ratio": rate / base_rate, "cpu_normalised_ratio": cpu_rate / base_cpu,
            "puzzles_per_cpu_s_per_worker": cpu_rate / w,
            "overhead_fraction": statistics.fmean(r["overhead_fraction"] for r in rs),
            "cpu_efficiency": statistics.fmean(r["cpu_efficiency"] for r in rs),
            "client_cpu_share": statistics.fmean(r["cpu_client"] / max(r["cpu_workers"], 1e-9) for r in rs),
            "mean_run_ms": 1e3 * statistics.fmean(r["run_seconds"] / max(r["puzzles"], 1) for r in rs),
        })
    return rows


_CHILD = """
import json, sys, time
start = time.monotonic()
from pipeline.batch import run_batch
path, out, workers, chunk, solver = sys.argv[1:6]
extra = {} if solver == "highs" else {"solver": solver}
s = run_batch(path, out, workers=int(workers), chunk_size=int(chunk) if chunk != "none" else None,
              progress="none", **extra)
import resource
own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"puzzles": s.solved_now, "seconds": s.elapsed, "process_seconds": time.monotonic() - start,
                  "cpu_run": s.cpu_workers + s.cpu_client,
                  "cpu_process": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
                  "status_counts": s.status_counts}))
"""


def measure_process(code_dir: Path, path: Path, workers: int, work: Path, chunk_size: int | None,
                    solver: str = "highs") -> dict:
    """One full batch in a fresh ``python`` with ``PYTHONPATH=code_dir``: puzzles/s over the run
    (``seconds``) and over the whole process (``process_seconds``: imports and start-up too)."""
    out = work / f"out-{code_dir.name}-{workers}"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(code_dir))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(out), str(workers),
                           str(chunk_size or "none"), solver], env=env, cwd=code_dir, capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"batch in {code_dir} failed: {done.stderr[-2000:]}")
    r = json.loads(done.stdout.strip().splitlines()[-1])
    shutil.rmtree(out, ignore_errors=True)
    r.update(code=str(code_dir), workers=workers, puzzles_per_s=r["puzzles"] / r["seconds"],
             process_puzzles_per_s=r["puzzles"] / r["process_seconds"],
             puzzles_per_cpu_s=r["puzzles"] / r["cpu_process"])
    return r


def compare(path: Path, baseline: Path, counts: list[int], rounds: int, work: Path, chunk_size: int | None,
            solver: str) -> list[dict]:
    """This tree vs ``baseline``, alternating within each round; per worker count the mean rates and
    the ratios this/baseline (of the run and of the whole process)."""
    runs = []
    codes = [ROOT, baseline]
    for rnd in range(rounds):
        for w in counts:
            for code in (codes if rnd % 2 == 0 else codes[::-1]):
                r = measure_process(code, path, w, work, chunk_size, solver)
                runs.append(r)
                print(f"  round {rnd + 1} workers {w} {'this' if code == ROOT else 'baseline'}: "
                      f"{r['puzzles_per_s']:.1f} puzzles/s ({r['process_puzzles_per_s']:.1f} with start-up; "
                      f"{r['puzzles_per_cpu_s']:.1f} per CPU second)",
                      file=sys.stderr, flush=True)
    table = []
    for w in counts:
        this = [r for r in runs if r["workers"] == w and r["code"] == str(ROOT)]
        base = [r for r in runs if r["workers"] == w and r["code"] == str(baseline)]
        row = {"workers": w, "rounds": rounds}
        for name, rs in (("this", this), ("baseline", base)):
            row[f"{name}_puzzles_per_s"] = statistics.fmean(r["puzzles_per_s"] for r in rs)
            row[f"{name}_process_puzzles_per_s"] = statistics.fmean(r["process_puzzles_per_s"] for r in rs)
            # CPU seconds of the whole process and its workers (imports and start-up included):
            # what a shared machine's load does not change
            row[f"{name}_puzzles_per_cpu_s"] = statistics.fmean(r["puzzles_per_cpu_s"] for r in rs)
        row["cpu_ratio"] = row["this_puzzles_per_cpu_s"] / row["baseline_puzzles_per_cpu_s"]
        row["ratio"] = row["this_puzzles_per_s"] / row["baseline_puzzles_per_s"]
        row["process_ratio"] = row["this_process_puzzles_per_s"] / row["baseline_process_puzzles_per_s"]
        table.append(row)
    for row in table:   # scaling over worker counts, each code against itself
        for name in ("this", "baseline"):
            row[f"{name}_scaling"] = row[f"{name}_puzzles_per_s"] / table[0][f"{name}_puzzles_per_s"]
    return runs, table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="puzzle file (one per line)")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds (default 1)")
    parser.add_argument("--sample", type=int, help="use the first N puzzles only")
    parser.add_argument("--chunk-size", type=int, default=None)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also run the checkout in DIR (PYTHONPATH=DIR), alternating, each in a fresh process")
    parser.add_argument("--solver", default="highs", help="batch engine (default highs)")
    parser.add_argument("--concat", nargs="*", default=[], metavar="FILE",
                        help="more puzzle files whose first --sample lines join the sample")
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    work = Path(tempfile.mkdtemp(prefix="sudoku-throughput-"))
    try:
        path = Path(args.input)
        if args.sample or args.concat:
            lines = []
            for source in [path, *map(Path, args.concat)]:
                lines += [s for s in source.read_text().splitlines() if s.strip()][:args.sample]
            path = work / f"{Path(args.input).stem}-first{len(lines)}.txt"
            path.write_text("\n".join(lines) + "\n")
        if args.baseline:
            runs, table = compare(path, args.baseline.resolve(), counts, args.rounds, work, args.chunk_size,
                                  args.solver)
            print(f"\n{path.name}: {runs[0]['puzzles']} puzzles, {args.rounds} round(s), solver {args.solver}")
            print(f"{'workers':>7s} {'this/s':>9s} {'base/s':>9s} {'ratio':>6s} {'this+start/s':>12s} "
                  f"{'base+start/s':>12s} {'ratio':>6s} {'this x':>7s} {'base x':>7s} {'this/cpu-s':>10s} "
                  f"{'base/cpu-s':>10s} {'ratio':>6s}")
            for row in table:
                print(f"{row['workers']:7d} {row['this_puzzles_per_s']:9.1f} {row['baseline_puzzles_per_s']:9.1f} "
                      f"{row['ratio']:6.2f} {row['this_process_puzzles_per_s']:12.1f} "
                      f"{row['baseline_process_puzzles_per_s']:12.1f} {row['process_ratio']:6.2f} "
                      f"{row['this_scaling']:7.2f} {row['baseline_scaling']:7.2f} "
                      f"{row['this_puzzles_per_cpu_s']:10.1f} {row['baseline_puzzles_per_cpu_s']:10.1f} "
                      f"{row['cpu_ratio']:6.2f}")
            RESULTS.mkdir(parents=True, exist_ok=True)
            out = RESULTS / f"batch_vs_baseline-{Path(args.input).stem}-{time.strftime('%Y%m%dT%H%M%S')}.json"
            write_result(out, json.dumps({"input": args.input, "concat": args.concat, "sample": args.sample,
                                          "baseline": str(args.baseline), "solver": args.solver, "runs": runs,
                                          "table": table}, indent=2))
            print(f"wrote {out.relative_to(ROOT)}")
            return 0
        runs = []
        for rnd in range(args.rounds):
            for w in (counts if rnd % 2 == 0 else counts[::-1]):
                r = measure(path, w, work, args.chunk_size)
                runs.append(r)
                print(f"  round {rnd + 1} workers {w}: {r['puzzles_per_s']:.1f} puzzles/s, overhead "
                      f"{100 * r['overhead_fraction']:.1f}%, cpu efficiency {r['cpu_efficiency']:.2f}, "
                      f"load {r['loadavg'][0]:.1f}->{r['loadavg'][1]:.1f}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = summarise(runs, counts)
    print(f"\n{Path(args.input).name}: {runs[0]['puzzles']} puzzles, {args.rounds} round(s), {os.cpu_count()} CPUs")
    print(f"{'workers':>7s} {'puzzles/s':>10s} {'best':>8s} {'wall x':>7s} {'cpu-norm x':>10s} {'/cpu-s/worker':>13s} "
          f"{'overhead':>8s} {'cpu eff':>7s} {'client cpu':>10s} {'run ms':>7s}")
    for row in table:
        print(f"{row['workers']:7d} {row['puzzles_per_s']:10.1f} {row['best_puzzles_per_s']:8.1f} {row['wall_ratio']:7.2f} "
              f"{row['cpu_normalised_ratio']:10.2f} {row['puzzles_per_cpu_s_per_worker']:13.1f} "
              f"{100 * row['overhead_fraction']:7.1f}% {row['cpu_efficiency']:7.2f} {100 * row['client_cpu_share']:9.1f}% "
              f"{row['mean_run_ms']:7.2f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"batch_throughput-{Path(args.input).stem}-{time.strftime('%Y%m%dT%H%M%S')}.json"
    write_result(out, json.dumps({"input": args.input, "sample": args.sample, "rounds": args.rounds,
                                  "cpu_count": os.cpu_count(), "runs": runs, "table": table}, indent=2))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
