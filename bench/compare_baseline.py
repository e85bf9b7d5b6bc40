"""Writer times of today's tree against the baseline code (issue 7: "make bench is not slower").

    python bench/compare_baseline.py                       # baseline /work/baseline, about 7 minutes
    python bench/compare_baseline.py --baseline DIR --rounds 7 --json out.json
    python bench/compare_baseline.py --quick               # 9x9 and 25x25 only, 2 rounds

Both trees define the packages ``pipeline`` and ``formats``, so they cannot share a process:
every measurement is a fresh interpreter with ``PYTHONPATH`` set to one tree, which builds one
model (not timed) and times each writer (``formats.format_for(name).write(model, path)``, the
same call in both trees). Rounds alternate the trees (baseline, today, baseline, today, ...) so
that load from other processes on the machine falls on both alike. Small models repeat each
write several times inside the child (``INNER``) and keep the median. The table shows the median
over rounds per tree and ``ratio = today / baseline`` (below 1: today is faster). Rounds per model:
``ROUNDS`` (5, 5 and 3 for the 100x100, whose MATLAB writer takes over a minute), or ``--rounds``.

Models: the seed puzzle (9x9), the first 25x25 puzzle of ``tests/data/sets/25x25_gecode.txt``
and the empty 100x100 grid with 10x10 boxes (10^6 columns, 4 * 10^6 nonzeros), each in ijk/F
with clue rows. A 100x100 child peaks at about 0.65 GB (measured with ``/usr/bin/time``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = Path("/work/baseline")
SEED = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"
WRITERS = {"mps": "model.mps", "lp": "model.lp", "csv": "model_ijv.csv", "parquet": "model.parquet",
           "matlab": "model.mat"}
# inner repetitions per child: small models write in milliseconds, so one write is mostly noise
INNER = {"9x9": 9, "25x25": 5, "100x100": 1}
ROUNDS = {"9x9": 5, "25x25": 5, "100x100": 3}
CHILD_TIMEOUT = 300.0  # seconds for one child (the 100x100 writes take a few seconds each)


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8") as f:
        return next(line.strip() for line in f if line.strip() and not line.startswith("#"))


def models() -> dict[str, dict]:
    """Model name -> what a child needs to build it (a puzzle string, or an empty grid size)."""
    return {"9x9": {"text": SEED},
            "25x25": {"text": _first_line(ROOT / "tests" / "data" / "sets" / "25x25_gecode.txt"), "box": "5x5"},
            "100x100": {"empty": 10}}


# ---------------------------------------------------------------------------------------------
# the child: one tree, one model, every writer
# ---------------------------------------------------------------------------------------------
def child(spec: dict) -> dict:
    """Build the model of ``spec`` with the tree on ``PYTHONPATH`` and time each writer."""
    import numpy as np

    import formats
    from pipeline import build_model, parse_puzzle
    from pipeline.core.puzzle import Puzzle

    tree = Path(formats.__file__).resolve().parents[1]
    if tree != Path(spec["tree"]).resolve():
        raise SystemExit(f"child imported {tree}, expected {spec['tree']}")
    if "empty" in spec:
        b = spec["empty"]
        puzzle = Puzzle(np.zeros((b * b, b * b), dtype=np.int64), b, b)
    else:
        puzzle = parse_puzzle(spec["text"], box=spec.get("box"))
    model = build_model(puzzle)
    _ = model.Aeq, model.row_labels, model.col_names  # cached on the model: not part of a writer's time
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="compare-baseline-") as tmp:
        for name in spec["writers"]:
            write = formats.format_for(name, need="write").write
            path = Path(tmp) / WRITERS[name]
            times = []
            for _ in range(spec["inner"]):
                t0 = time.perf_counter()
                write(model, path)
                times.append(time.perf_counter() - t0)
                for p in Path(tmp).iterdir():
                    p.unlink()
            seconds[name] = statistics.median(times)
    return {"seconds": seconds, "rows": model.n_rows, "columns": model.n_cols, "nonzeros": model.nnz}


# ---------------------------------------------------------------------------------------------
# the parent: alternate the trees
# ---------------------------------------------------------------------------------------------
def run_child(tree: Path, spec: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                           json.dumps({**spec, "tree": str(tree)})],
                          cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"child for {tree} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def compare(baseline: Path, rounds: int | None, names: list[str], writers: list[str]) -> dict:
    """Alternate the two trees over ``rounds`` rounds per model (default :data:`ROUNDS`)."""
    trees = {"baseline": baseline.resolve(), "today": ROOT}
    specs = models()
    runs: dict[str, dict[str, dict[str, list[float]]]] = {}
    shapes = {}
    for name in names:
        spec = {**specs[name], "writers": writers, "inner": INNER[name]}
        runs[name] = {tree: {w: [] for w in writers} for tree in trees}
        model_rounds = rounds or ROUNDS[name]
        for k in range(model_rounds):
            order = list(trees) if k % 2 == 0 else list(trees)[::-1]  # alternate which tree goes first
            for tree in order:
                out = run_child(trees[tree], spec)
                shapes[name] = {key: out[key] for key in ("rows", "columns", "nonzeros")}
                for w, s in out["seconds"].items():
                    runs[name][tree][w].append(s)
            print(f"  {name}: round {k + 1}/{model_rounds} done", file=sys.stderr, flush=True)
    table = []
    for name in names:
        for w in writers:
            base = statistics.median(runs[name]["baseline"][w])
            today = statistics.median(runs[name]["today"][w])
            table.append({"model": name, "writer": w, "rounds": len(runs[name]["today"][w]),
                          "baseline_s": base, "today_s": today,
                          "ratio": today / base if base else float("nan"), **shapes[name]})
    return {"baseline": str(trees["baseline"]), "today": str(ROOT), "inner": INNER,
            "python": sys.version.split()[0], "rows": table, "samples": runs}


def print_table(result: dict) -> None:
    print("median seconds over alternating rounds (a fresh process per round and tree); ratio = today / baseline")
    print(f"{'model':<9} {'writer':<8} {'rounds':>6} {'baseline s':>11} {'today s':>11} {'ratio':>7}")
    for row in result["rows"]:
        print(f"{row['model']:<9} {row['writer']:<8} {row['rounds']:>6} {row['baseline_s']:>11.4f} "
              f"{row['today_s']:>11.4f} {row['ratio']:>7.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, default=DEFAULT_BASELINE, help="the baseline tree (default %(default)s)")
    parser.add_argument("--rounds", type=int, help="rounds per tree for every model (default 5, 5, 3)")
    parser.add_argument("--models", default="9x9,25x25,100x100", help="comma list of 9x9, 25x25, 100x100")
    parser.add_argument("--writers", default=",".join(WRITERS), help="comma list of " + ", ".join(WRITERS))
    parser.add_argument("--quick", action="store_true", help="9x9 and 25x25, 2 rounds")
    parser.add_argument("--json", type=Path, help="also write the result (with every sample) here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    if not (args.baseline / "formats" / "__init__.py").is_file():
        print(f"error: baseline tree {args.baseline} has no formats package", file=sys.stderr)
        return 2
    names = ["9x9", "25x25"] if args.quick else [m for m in args.models.split(",") if m]
    rounds = 2 if args.quick else args.rounds
    writers = [w for w in args.writers.split(",") if w]
    unknown = sorted(set(names) - set(INNER)) + sorted(set(writers) - set(WRITERS))
    if unknown:
        print(f"error: unknown model or writer: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if rounds is not None and rounds < 1:
        print(f"error: --rounds must be at least 1, found {rounds}", file=sys.stderr)
        return 2
    result = compare(args.baseline, rounds, names, writers)
    print_table(result)
    if args.json:
        sys.path.insert(0, str(ROOT))   # today's tree, in the parent alone: a child imports its own tree
        from bench.measure import write_result

        write_result(args.json, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
