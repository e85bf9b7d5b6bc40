"""Batch throughput with 1 and 2 (or more) workers on one input, in alternating rounds.

    python bench/batch_throughput.py ../shared/data/dev/9x9_sudoku17.txt --workers 1,2 --rounds 2
    python bench/batch_throughput.py ../shared/data/dev/9x9_forum_hardest_1905_11plus.txt --sample 1000

Per run: puzzles/s (wall), the share of worker time outside ``Highs.run()``, and CPU accounting
(workers' CPU seconds, this process's CPU seconds, CPU efficiency = workers' CPU / (elapsed x
workers), load average, CPU pressure). On a machine shared with other work the wall-clock ratio
between 1 and 2 workers measures the other load as much as the batch, so the report also gives
the CPU-normalised ratio: puzzles per worker-CPU-second x workers, relative to 1 worker — what
the wall ratio would be with the workers alone on their cores. Rounds alternate the worker
counts so that slow drifts in the load hit both alike.

Writes ``bench/results/batch_throughput-<set>-<time>.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="puzzle file (one per line)")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds (default 1)")
    parser.add_argument("--sample", type=int, help="use the first N puzzles only")
    parser.add_argument("--chunk-size", type=int, default=None)
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    work = Path(tempfile.mkdtemp(prefix="sudoku-throughput-"))
    try:
        path = Path(args.input)
        if args.sample:
            lines = [s for s in path.read_text().splitlines() if s.strip()][:args.sample]
            path = work / f"{Path(args.input).stem}-first{len(lines)}.txt"
            path.write_text("\n".join(lines) + "\n")
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
    out.write_text(json.dumps({"input": args.input, "sample": args.sample, "rounds": args.rounds,
                               "cpu_count": os.cpu_count(), "runs": runs, "table": table}, indent=2))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
