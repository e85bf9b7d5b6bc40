"""Benchmarks (``make bench``; ``make bench-quick`` for a seconds-long smoke run).

1. Writers on the empty grid with ``n x n`` boxes (N = n^2: N^3 columns, 4 N^3 nonzeros), n = 8,
   10, 12: our formats (``formats.format_for(name).write`` for mps, lp, parquet, csv triplets and
   matlab's ``model.mat``), highspy's ``passModel`` + ``writeModel`` (.mps, .lp) and pyarrow's
   bare CSV and Parquet writers of the COO triplets. Each measurement runs in a fresh process, so
   its peak RSS is its own. ``x highspy`` is the time relative to highspy's writer of the same
   format measured in this run (HiGHS writes no Parquet, CSV or .mat: those compare with its MPS
   writer); the ``.mat`` writer is also set against our own MPS writer of the same run (issue 21:
   target within 2x at N = 100).
2. Model build (``build_model``) against the bare NumPy triplet construction
   (``np.ravel_multi_index`` of the same (row, column) pairs); target: within 2x.
3. ``--batch``: batch throughput, 1 vs 2 workers, on samples of the shared data sets.
4. SAT (issue 8; ``--no-sat`` leaves it out): bench/sat_bench.py, the SAT engine's batch
   throughput against HiGHS, ``count``, the 25x25 set, and the CNF/OPB writers beside MPS.
5. The default engine (issue 18; ``--no-auto`` leaves it out): bench/auto_bench.py, the 18
   minimal 25x25 with ``auto``, ``highs`` and ``sat`` (backends, singles first or not) side by
   side, the hardest-9x9 batch per engine and 1 vs 2 workers, one 9x9 ``solve`` process against
   ``python -c pass``.
6. Export at scale (issue 34; ``--export-all n``, 0 leaves it out): every format of the empty
   grid with 10x10 boxes (the 100x100), each format alone and all into one directory, wall and
   CPU seconds; target: build + all within 6 s.
7. Rule puzzles (issue 34; ``--no-dfsrules`` leaves it out, ``--quick`` too unless
   ``--dfsrules``): bench/dfsrules_bench.py, the ``dfsrules`` engine against ``sat`` on 530
   generated 9x9 of 53 rule families (``auto``'s engine for the five dfsrules refuses; per record,
   batch with the uniqueness proof and one worker against two, ``solve`` processes), ISS beside
   them when ``ISS_DIR`` names a checkout.

Prints one table per section and writes ``<results-dir>/bench-<time>.json`` (``bench-<time>-quick.json``
with ``--quick``; ``--results-dir`` defaults to ``bench/results``) and ``latest.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import auto_bench, dfsrules_bench, sat_bench  # noqa: E402
from bench.measure import OUR_WRITERS, results_dir, run_script, write_result  # noqa: E402

# the shared sets; SUDOKU_BENCH_DATA names another copy of that layout (the tests pass tests/data)
DATA = Path(os.environ.get("SUDOKU_BENCH_DATA") or ROOT.parent / "shared" / "data")
OTHER_WRITERS = ["highspy-mps", "highspy-lp", "pyarrow-csv", "pyarrow-parquet"]
REFERENCE = {"mps": "highspy-mps", "lp": "highspy-lp", "parquet": "highspy-mps", "parquet-coo": "highspy-mps",
             "csv": "highspy-mps", "matlab": "highspy-mps",
             "highspy-mps": "highspy-mps", "highspy-lp": "highspy-lp",
             "pyarrow-csv": "highspy-mps", "pyarrow-parquet": "highspy-mps"}
BARE = {"parquet": "pyarrow-parquet", "parquet-coo": "pyarrow-parquet", "csv": "pyarrow-csv"}
# the .mat writer against our MPS writer in the same run (issue 21 section 6)
MAT_VS_MPS_TARGET = 2.0
BATCH_SETS = {
    "sudoku17": ("dev/9x9_sudoku17.txt", 2000, 40),
    "hardest": ("dev/9x9_forum_hardest_1905_11plus.txt", 100, 6),
}


IN_PROCESS = False  # --quick: measure in this process (interpreter start-ups would dominate)


def run_child(spec: dict, timeout: float) -> dict:
    """One measurement in a fresh interpreter (see bench/measure.py), or here with IN_PROCESS."""
    if IN_PROCESS:
        from bench.measure import measure

        try:
            return measure(spec)
        except Exception as e:  # reported like a failed child
            return {**spec, "error": f"{type(e).__name__}: {e}"}
    return run_script("measure.py", spec, timeout)


def registered_writers() -> dict[str, str | None]:
    """Our writers: None when registered with a writer, else why it is skipped."""
    import formats

    status = {}
    for name in OUR_WRITERS:
        fmt = formats.FORMATS.get(name.split("-")[0])  # parquet-coo: a part of the parquet format
        status[name] = None if fmt is not None and fmt.write is not None else "not registered yet"
    return status


def bench_writers(sizes, writers, repeat, timeout, keep_dir: Path | None, check: bool, log) -> list[dict]:
    rows = []
    work = Path(tempfile.mkdtemp(prefix="sudoku-bench-"))
    try:
        for n in sizes:
            for writer in writers:
                directory = (keep_dir or work) / f"{writer}-n{n}"
                log(f"  writer {writer:16s} n={n} ...")
                result = run_child({"kind": "writer", "writer": writer, "n": n, "dir": str(directory),
                                    "repeat": repeat, "check": check, "keep": keep_dir is not None}, timeout)
                rows.append(result)
            by_writer = {r["writer"]: r for r in rows if r.get("n") == n and "seconds" in r}
            for r in rows:
                if r.get("n") != n or "seconds" not in r:
                    continue
                ref = by_writer.get(REFERENCE[r["writer"]])
                r["reference"] = REFERENCE[r["writer"]]
                r["x_highspy"] = r["seconds"] / ref["seconds"] if ref else None
                bare = by_writer.get(BARE.get(r["writer"], ""))
                r["x_pyarrow"] = r["seconds"] / bare["seconds"] if bare else None
                r["mb"] = r["bytes"] / 1e6
                r["mb_per_s"] = r["mb"] / r["seconds"] if r["seconds"] > 0 else None
                if r["writer"] == "matlab" and "mps" in by_writer:
                    r["x_mps"] = r["seconds"] / by_writer["mps"]["seconds"]
                    r["within_2x_mps"] = r["x_mps"] <= MAT_VS_MPS_TARGET
    finally:   # the scratch directory goes either way (with keep_dir it stays empty)
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return rows


#: Issue 34: every format of an empty 100x100 (box 10x10) exported in at most this many seconds.
EXPORT_ALL_TARGET = 6.0


def bench_export_all(n: int, repeat: int, log) -> dict:
    """Every format of the empty grid with ``n x n`` boxes (issue 34: n = 10, 6 s): the model is
    built once, then ``export_model`` writes each format alone (with its manifest and SHA-256s),
    all of them in one process (``all-1``) and all of them as ``export`` does by default (``all``:
    side by side in forked processes on a large model, :mod:`formats.forked`); best of
    ``repeat``, wall and CPU seconds (the children's included). The per-format rows add up to
    more than ``all-1``: each writes and hashes its own manifest."""
    import resource
    import shutil

    from bench.measure import empty_puzzle
    from formats.directory import export_model, resolve_formats
    from pipeline.core.build import build_model

    def cpu_seconds() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    started, cpu = time.perf_counter(), time.process_time()
    model = build_model(empty_puzzle(n))
    build = {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu}
    runs = [(fmt.name, fmt.name, 1) for fmt in resolve_formats("all")] + [("all-1", "all", 1), ("all", "all", None)]
    rows: dict[str, dict] = {}
    work = Path(tempfile.mkdtemp(prefix="sudoku-bench-export-"))
    try:
        for label, formats, workers in runs:
            log(f"  export {label:8s} n={n} ...")
            best: dict = {}
            for _ in range(max(repeat, 1)):
                out = work / label
                started, cpu = time.perf_counter(), cpu_seconds()
                export_model(model, out, formats, workers=workers)
                row = {"seconds": time.perf_counter() - started, "cpu_seconds": cpu_seconds() - cpu,
                       "mb": sum(p.stat().st_size for p in out.iterdir()) / 1e6}
                shutil.rmtree(out)
                if not best or row["seconds"] < best["seconds"]:
                    best = row
            rows[label] = best
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = build["seconds"] + rows["all"]["seconds"]
    return {"n": n, "N": n * n, "target_seconds": EXPORT_ALL_TARGET, "build": build, "formats": rows,
            "build_plus_all_seconds": total, "within_target": total <= EXPORT_ALL_TARGET}


def bench_build(sizes, repeat, timeout, log) -> list[dict]:
    rows = []
    for n in sizes:
        log(f"  build n={n} ...")
        ours = run_child({"kind": "build", "n": n, "repeat": repeat}, timeout)
        bare = run_child({"kind": "bare", "n": n, "repeat": repeat}, timeout)
        row = {"n": n, "N": n * n, "build": ours, "bare": bare}
        if "seconds" in ours and "seconds" in bare:
            row["ratio"] = ours["seconds"] / bare["seconds"]
            row["within_2x"] = row["ratio"] <= 2.0
        rows.append(row)
    return rows


def bench_batch(quick: bool, sample: int | None, log) -> list[dict]:
    """1 vs 2 workers on the first puzzles of each data set (see bench/batch_throughput.py)."""
    from bench.batch_throughput import measure, summarise

    rows = []
    work = Path(tempfile.mkdtemp(prefix="sudoku-bench-batch-"))
    try:
        for name, (rel, full, small) in BATCH_SETS.items():
            path = DATA / rel
            if not path.exists():
                rows.append({"set": name, "skipped": f"{path} not found"})
                continue
            k = small if quick else (sample or full)
            lines = [s for s in path.read_text().splitlines() if s.strip()][:k]
            src = work / f"{name}.txt"
            src.write_text("\n".join(lines) + "\n")
            runs = []
            for workers in (1, 2):
                log(f"  batch {name} ({len(lines)} puzzles) with {workers} worker(s) ...")
                runs.append(measure(src, workers, work, None))
            table = summarise(runs, [1, 2])
            rows.append({"set": name, "input": str(path), "puzzles": len(lines), "runs": runs,
                         "workers_1": table[0], "workers_2": table[1],
                         "speedup": table[1]["wall_ratio"], "cpu_normalised_speedup": table[1]["cpu_normalised_ratio"]})
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return rows


def _fmt(value, spec: str, width: int) -> str:
    return f"{value:{width}{spec}}" if isinstance(value, (int, float)) and value is not None else f"{'-':>{width}}"


def print_tables(result: dict, out=sys.stdout) -> None:
    w = result["writers"]
    print("\nWriters (empty grid, box n x n; fresh process per measurement)", file=out)
    print(f"{'writer':16s} {'n':>3s} {'N':>4s} {'nnz':>11s} {'seconds':>9s} {'MB':>9s} {'MB/s':>8s} "
          f"{'peak RSS MB':>11s} {'x highspy':>9s} {'vs':>12s} {'x pyarrow':>9s} {'check':>6s}", file=out)
    for r in w:
        if "error" in r:
            print(f"{r.get('writer', '?'):16s} {r['n']:3d}  ERROR {r['error']}", file=out)
            continue
        print(f"{r['writer']:16s} {r['n']:3d} {r['N']:4d} {r['nnz']:11,d} {_fmt(r['seconds'], '.3f', 9)} "
              f"{_fmt(r['mb'], '.1f', 9)} {_fmt(r['mb_per_s'], '.1f', 8)} {_fmt(r['peak_rss_mb'], '.0f', 11)} "
              f"{_fmt(r.get('x_highspy'), '.2f', 9)} {r.get('reference', ''):>12s} {_fmt(r.get('x_pyarrow'), '.2f', 9)} "
              f"{r.get('check', '-')[:6]:>6s}", file=out)
    for note in result["notes"]:
        print(f"note: {note}", file=out)
    mat = [r for r in w if r.get("x_mps") is not None]
    if mat:
        print(f"\nMATLAB .mat vs our MPS writer, same run (target: within {MAT_VS_MPS_TARGET:g}x)", file=out)
        print(f"{'n':>3s} {'N':>4s} {'.mat s':>9s} {'MPS s':>9s} {'ratio':>6s} {'.mat MB':>8s} {'.mat RSS':>8s}", file=out)
        for r in mat:
            mps = next(x for x in w if x.get("writer") == "mps" and x.get("n") == r["n"])
            print(f"{r['n']:3d} {r['N']:4d} {r['seconds']:9.3f} {mps['seconds']:9.3f} {r['x_mps']:6.2f} "
                  f"{r['mb']:8.1f} {r['peak_rss_mb']:8.0f}", file=out)
    export = result.get("export_all")
    if export:
        print(f"\nAll formats of an empty {export['N']}x{export['N']} (issue 34 target: build + all within "
              f"{export['target_seconds']:g} s; each format alone, all in one process, all as export writes them)", file=out)
        print(f"{'format':10s} {'seconds':>9s} {'cpu s':>9s} {'MB':>9s}", file=out)
        for name, r in [("build", {**export["build"], "mb": None}), *export["formats"].items()]:
            print(f"{name:10s} {_fmt(r['seconds'], '.3f', 9)} {_fmt(r['cpu_seconds'], '.3f', 9)} "
                  f"{_fmt(r['mb'], '.1f', 9)}", file=out)
        print(f"build + all: {export['build_plus_all_seconds']:.2f} s "
              f"({'within' if export['within_target'] else 'over'} {export['target_seconds']:g} s)", file=out)
    print("\nBuild A (build_model) vs bare NumPy triplets (target: within 2x)", file=out)
    print(f"{'n':>3s} {'N':>4s} {'nnz':>11s} {'build s':>9s} {'bare s':>9s} {'ratio':>6s} {'build RSS':>9s} {'bare RSS':>9s}",
          file=out)
    for r in result["build"]:
        b, bare = r["build"], r["bare"]
        if "error" in b or "error" in bare:
            print(f"{r['n']:3d}  ERROR {b.get('error') or bare.get('error')}", file=out)
            continue
        print(f"{r['n']:3d} {r['N']:4d} {b['nnz']:11,d} {b['seconds']:9.3f} {bare['seconds']:9.3f} {r['ratio']:6.2f} "
              f"{b['peak_rss_mb']:9.0f} {bare['peak_rss_mb']:9.0f}", file=out)
    if result.get("batch"):
        print("\nBatch throughput (puzzles/s; overhead = worker time outside Highs.run(); cpu-norm = the ratio "
              "with each worker alone on a core)", file=out)
        print(f"{'set':10s} {'puzzles':>7s} {'1 worker':>9s} {'2 workers':>9s} {'speedup':>7s} {'cpu-norm':>8s} "
              f"{'overhead 1w':>11s} {'overhead 2w':>11s} {'cpu eff 1w/2w':>13s}", file=out)
        for r in result["batch"]:
            if "skipped" in r:
                print(f"{r['set']:10s} skipped: {r['skipped']}", file=out)
                continue
            one, two = r["workers_1"], r["workers_2"]
            print(f"{r['set']:10s} {r['puzzles']:7d} {one['puzzles_per_s']:9.1f} {two['puzzles_per_s']:9.1f} "
                  f"{r['speedup']:7.2f} {r['cpu_normalised_speedup']:8.2f} {100 * one['overhead_fraction']:10.1f}% "
                  f"{100 * two['overhead_fraction']:10.1f}% {one['cpu_efficiency']:6.2f}/{two['cpu_efficiency']:.2f}",
                  file=out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny models (n = 3, 4), checks on, for CI")
    parser.add_argument("--sizes", help="comma-separated box sizes n (default 8,10,12; --quick 3,4)")
    parser.add_argument("--writers", help="comma-separated writers (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="timed repetitions per measurement (best kept)")
    parser.add_argument("--check", action=argparse.BooleanOptionalAction, default=None,
                        help="read every written file back and compare (default: on with --quick)")
    parser.add_argument("--batch", action="store_true", help="also measure batch throughput, 1 vs 2 workers")
    parser.add_argument("--export-all", type=int, metavar="n", default=None,
                        help="box size n of the all-formats export (issue 34; default 10, --quick 3; 0 leaves it out)")
    parser.add_argument("--sat", action=argparse.BooleanOptionalAction, default=True,
                        help="the SAT section (bench/sat_bench.py; default on)")
    parser.add_argument("--auto", action=argparse.BooleanOptionalAction, default=True,
                        help="the default-engine section (bench/auto_bench.py; default on)")
    parser.add_argument("--dfsrules", action=argparse.BooleanOptionalAction, default=None,
                        help="the rule-puzzle section (bench/dfsrules_bench.py; default on, off with --quick)")
    parser.add_argument("--batch-sample", type=int, help="puzzles per data set for --batch (default 2000 / 100)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per measurement")
    parser.add_argument("--results-dir", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--keep-files", metavar="DIR", help="keep the written files under DIR (for inspection/tests)")
    parser.add_argument("--fresh-process", action=argparse.BooleanOptionalAction, default=None,
                        help="one fresh process per measurement, for clean peak RSS (default: on; off with --quick)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    global IN_PROCESS
    IN_PROCESS = not (args.fresh_process if args.fresh_process is not None else not args.quick)

    def log(message):
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    try:
        sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([3, 4] if args.quick else [8, 10, 12])
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: comma-separated box sizes n, e.g. 8,10,12")
    results = results_dir(parser, args.results_dir)
    check = args.quick if args.check is None else args.check
    wanted = args.writers.split(",") if args.writers else list(OUR_WRITERS) + OTHER_WRITERS
    unknown = [w for w in wanted if w not in OUR_WRITERS and w not in OTHER_WRITERS]
    if unknown:
        parser.error(f"unknown writers: {', '.join(unknown)}")
    notes = []
    skipped = registered_writers()
    writers = []
    for w in wanted:
        if skipped.get(w):
            notes.append(f"writer {w} skipped: {skipped[w]}")
        else:
            writers.append(w)
    started = time.time()
    log(f"bench: sizes {sizes}, writers {', '.join(writers)}")
    result = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "quick": args.quick,
        "fresh_process": not IN_PROCESS,
        "host": {"cpu_count": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                 "numpy": np.__version__, **_versions()},
        "sizes": sizes,
        "models": [{"n": n, "N": n * n, "columns": (n * n) ** 3, "rows": 4 * (n * n) ** 2, "nonzeros": 4 * (n * n) ** 3}
                   for n in sizes],
        "notes": notes,
        "writers": bench_writers(sizes, writers, args.repeat, args.timeout,
                                 Path(args.keep_files) if args.keep_files else None, check, log),
        "build": bench_build(sizes, max(args.repeat, 3 if args.quick else 1), args.timeout, log),
        "batch": bench_batch(args.quick, args.batch_sample, log) if args.batch else [],
    }
    export_n = args.export_all if args.export_all is not None else (3 if args.quick else 10)
    if export_n:
        result["export_all"] = bench_export_all(export_n, args.repeat, log)
    if args.sat:
        work = Path(tempfile.mkdtemp(prefix="sudoku-bench-sat-"))
        try:
            result["sat"] = sat_bench.run(DATA, work, args.quick, log)
        finally:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    if args.auto:
        work = Path(tempfile.mkdtemp(prefix="sudoku-bench-auto-"))
        try:
            result["auto"] = auto_bench.run(DATA, work, args.quick, log)
        finally:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    wanted = args.dfsrules if args.dfsrules is not None else not args.quick
    if wanted and dfsrules_bench.get_solver("dfsrules").available() is None:
        result["dfsrules"] = dfsrules_bench.run(args.quick)
    result["seconds"] = time.time() - started
    print_tables(result)
    if result.get("sat"):
        sat_bench.print_tables(result["sat"])
    if result.get("auto"):
        auto_bench.print_tables(result["auto"])
    if result.get("dfsrules"):
        dfsrules_bench.print_tables(result["dfsrules"])
        dfsrules_bench.print_family_table(result["dfsrules"])
        dfsrules_bench.print_workers(result["dfsrules"])
    results.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = results / f"bench-{stamp}{'-quick' if args.quick else ''}.json"
    text = json.dumps(result, indent=2, default=_json_default)
    write_result(path, text)
    write_result(results / "latest.json", text)
    log(f"bench: wrote {path} and latest.json ({result['seconds']:.0f}s)")
    failed = [r for r in result["writers"] if "error" in r or str(r.get("check", "ok")) != "ok"]
    if result.get("sat"):
        problems = sat_bench.failures(result["sat"])
        failed += problems
        for problem in problems:
            log(f"bench: sat: {problem}")
    if result.get("auto"):
        for problem in auto_bench.failures(result["auto"]):   # targets missed: reported, not a failed run
            log(f"bench: auto: {problem}")
    if result.get("dfsrules"):
        for problem in dfsrules_bench.failures(result["dfsrules"]):   # targets missed: reported
            log(f"bench: dfsrules: {problem}")
    return 1 if failed else 0


def _versions() -> dict:
    out = {}
    for name in ("highspy", "pyarrow", "scipy", "pandas"):
        try:
            from importlib.metadata import version

            out[name] = version(name)
        except Exception:
            out[name] = None
    return out


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


if __name__ == "__main__":
    sys.exit(main())
