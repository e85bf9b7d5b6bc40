"""Which formulation and HiGHS options make one puzzle solve fastest? (issue "Scale")

Every configuration solves the same random sample; configurations run round-robin per puzzle
(in a rotating order) so that load from other processes on a shared machine hits them alike.
Reported per configuration: mean and median time inside ``Highs.run()``, mean time per puzzle
including model building and bound changes, B&B nodes, CPU seconds of this process (less
disturbed than wall time when other processes share the cores), and the ratios of the means to
the reference configuration (``bounds`` with the default HiGHS options, no propagation).

    python bench/highs_tuning.py ../shared/data/dev/9x9_forum_hardest_1905_11plus.txt --sample 200
    python bench/highs_tuning.py ../shared/data/dev/9x9_sudoku17.txt --sample 500 --only base,prop

Writes ``bench/results/highs_tuning-<set>-<time>.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import write_result  # noqa: E402
from pipeline.batch import ShapeSolver, SolveOptions, parse_record, propagate  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.puzzle import Puzzle  # noqa: E402
from pipeline.solvers.highs import highs_for, run_highs  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402

RESULTS = ROOT / "bench" / "results"
THREADS = 1


# Each configuration: how clues reach HiGHS, whether singles are propagated first, HiGHS options,
# an optional objective and an optional MIP start (hint).
CONFIGS: dict[str, dict] = {
    "base":            dict(encoding="bounds"),
    "base_seed1":      dict(encoding="bounds", options={"random_seed": 1}),   # noise reference
    "base_seed2":      dict(encoding="bounds", options={"random_seed": 2}),   # noise reference
    "fresh_instance":  dict(encoding="bounds", fresh=True),
    "rows":            dict(encoding="rows"),
    "reduce":          dict(encoding="reduce"),
    "prop":            dict(encoding="bounds", prop=True),
    "prop_reduce":     dict(encoding="reduce", prop=True),
    "prop_presolve_off": dict(encoding="bounds", prop=True, options={"presolve": "off"}),
    "prop_heur0":      dict(encoding="bounds", prop=True, options={"mip_heuristic_effort": 0.0}),
    "prop_heur0.3":    dict(encoding="bounds", prop=True, options={"mip_heuristic_effort": 0.3}),
    "prop_heur1":      dict(encoding="bounds", prop=True, options={"mip_heuristic_effort": 1.0}),
    "prop_nosym":      dict(encoding="bounds", prop=True, options={"mip_detect_symmetry": False}),
    "prop_norestart":  dict(encoding="bounds", prop=True, options={"mip_allow_restart": False}),
    "prop_nofj":       dict(encoding="bounds", prop=True, options={"mip_heuristic_run_feasibility_jump": False}),
    "prop_norins_rens": dict(encoding="bounds", prop=True,
                             options={"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}),
    "prop_norins":     dict(encoding="bounds", prop=True, options={"mip_heuristic_run_rins": False}),
    "prop_norens":     dict(encoding="bounds", prop=True, options={"mip_heuristic_run_rens": False}),
    "prop_reduce_norins_rens": dict(encoding="reduce", prop=True,
                                    options={"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}),
    "prop_primal":     dict(encoding="bounds", prop=True, options={"simplex_strategy": 4}),
    "prop_randcost":   dict(encoding="bounds", prop=True, objective="random"),
    "prop_digitcost":  dict(encoding="bounds", prop=True, objective="digit"),
    "prop_hint":       dict(encoding="bounds", prop=True, hint=True),
}


def objective_for(kind: str | None, n: int, rng: np.random.Generator):
    """Costs over all N^3 columns (ijk/F): random in [0, 1), or the digit value d."""
    if kind is None:
        return None
    if kind == "random":
        return rng.random(n ** 3)
    # ijk/F position i + N*j + N^2*k: k = position // N^2 is the 0-based digit
    return (np.arange(n ** 3) // n ** 2).astype(float)


class Runner:
    """One configuration: builds what it needs once, then solves puzzles one at a time."""

    def __init__(self, name: str, spec: dict, template: Puzzle, rng):
        self.name, self.spec = name, spec
        self.options = dict(spec.get("options", {}))
        self.threads = spec.get("threads", THREADS)
        self.objective = objective_for(spec.get("objective"), template.n, rng)
        self.solver = None
        if spec["encoding"] == "bounds" and not spec.get("fresh"):
            self.solver = ShapeSolver(template, SolveOptions(highs_options=self.options))
            if self.threads != 1:
                self.solver.highs.setOptionValue("threads", int(self.threads))
            if self.objective is not None:
                n_vars = self.objective.size
                self.solver.highs.changeColsCost(n_vars, np.arange(n_vars, dtype=np.int32), self.objective)

    def solve(self, puzzle: Puzzle, cand) -> dict:
        """Solve one puzzle; time inside run(), whole time, nodes, CPU seconds, verified."""
        start, cpu = time.perf_counter(), time.process_time()
        spec = self.spec
        if self.solver is not None:
            clues = puzzle.grid.ravel()[None, :]
            lb, ub = self.solver.bounds(clues, None if cand is None else cand[None])
            self.solver.set_bounds(lb[0], ub[0])
            h = self.solver.highs
            if spec.get("hint") and cand is not None:
                # a partial MIP start: the propagated placements (HiGHS completes the rest)
                cols = np.flatnonzero(lb[0]).astype(np.int32)
                h.setSolution(cols.size, cols, np.ones(cols.size))
            result = run_highs(h, self.solver.model)
        else:
            grid = puzzle.grid
            if cand is not None:
                # singles become clues, so ``reduce`` drops every variable they decide
                single = cand.sum(axis=1) == 1
                grid = np.where(single, cand.argmax(axis=1) + 1, 0).reshape(puzzle.n, puzzle.n)
                grid = np.where(puzzle.grid > 0, puzzle.grid, grid)
            filled = Puzzle(grid, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)
            model = build_model(filled, clues=spec["encoding"], objective=self.objective)
            h = highs_for(model, threads=self.threads, options=self.options)
            result = run_highs(h, model)
            if model.n_cols == 0:  # singles decided every cell: HiGHS reports an empty model
                result.status, result.grid = "optimal", model.puzzle.grid
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        ok = result.solved and verify_grid(result.grid, puzzle).ok
        return {"run": result.seconds, "wall": wall, "cpu": cpu, "nodes": result.nodes, "ok": bool(ok)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="a puzzle file, one puzzle per line")
    parser.add_argument("--sample", type=int, default=200, help="puzzles drawn at random (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="comma-separated configuration names (default: all)")
    parser.add_argument("--threads", type=int, default=1,
                        help="HiGHS threads for every configuration (HiGHS fixes its thread pool once "
                             "per process, so compare thread counts in separate runs)")
    parser.add_argument("--list", action="store_true", help="list the configurations and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, spec in CONFIGS.items():
            print(f"{name:20s} {spec}")
        return 0
    global THREADS
    THREADS = args.threads
    names = args.only.split(",") if args.only else list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"unknown configurations: {', '.join(unknown)}")
    lines = [s.strip() for s in Path(args.input).read_text().splitlines() if s.strip()]
    rng = np.random.default_rng(args.seed)
    picked = rng.choice(len(lines), size=min(args.sample, len(lines)), replace=False)
    puzzles = [parse_record(lines[i]) for i in picked]
    template = Puzzle(np.zeros_like(puzzles[0].grid), puzzles[0].h, puzzles[0].w)
    cand, _ = propagate(np.stack([p.grid.ravel() for p in puzzles]), template)
    runners = [Runner(name, CONFIGS[name], template, rng) for name in names]
    results = {name: [] for name in names}
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    out = RESULTS / f"highs_tuning-{Path(args.input).stem}-{stamp}.json"
    started = time.perf_counter()
    for i, puzzle in enumerate(puzzles):
        order = runners[i % len(runners):] + runners[:i % len(runners)]
        for runner in order:
            c = cand[i] if runner.spec.get("prop") else None
            results[runner.name].append(runner.solve(puzzle, c))
        if (i + 1) % 10 == 0 or i + 1 == len(puzzles):
            print(f"  {i + 1}/{len(puzzles)} puzzles, {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
            # saved as it goes: a long run stopped early still leaves its numbers
            table = summarise(results, names)
            write_result(out, json.dumps({"input": args.input, "sample": len(puzzles), "done": i + 1,
                                          "seed": args.seed, "cpu_count": os.cpu_count(), "threads": THREADS,
                                          "reference": table[0]["reference"], "table": table}, indent=2))
    table = summarise(results, names)
    print(f"\n{Path(args.input).name}: {len(puzzles)} puzzles (seed {args.seed}), reference '{table[0]['reference']}'")
    print(f"{'config':20s} {'solved':>6s} {'run ms':>9s} {'median':>8s} {'wall ms':>9s} {'cpu ms':>9s} "
          f"{'nodes':>7s} {'wall/base':>9s} {'cpu/base':>8s}")
    for row in table:
        print(f"{row['config']:20s} {row['solved']:6d} {row['run_mean_ms']:9.2f} {row['run_median_ms']:8.2f} "
              f"{row['wall_mean_ms']:9.2f} {row['cpu_mean_ms']:9.2f} {row['nodes_mean']:7.1f} "
              f"{row['ratio_to_base']:9.2f} {row['cpu_ratio_to_base']:8.2f}")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


def summarise(results: dict[str, list], names: list[str]) -> list[dict]:
    """One row per configuration: means, medians and ratios to the reference configuration."""
    reference = "base" if "base" in results else names[0]
    ref_mean = statistics.fmean(r["wall"] for r in results[reference])
    ref_cpu = statistics.fmean(r["cpu"] for r in results[reference])
    table = []
    for name in names:
        rs = results[name]
        row = {
            "config": name,
            "reference": reference,
            "spec": CONFIGS[name],
            "puzzles": len(rs),
            "solved": sum(r["ok"] for r in rs),
            "run_mean_ms": 1e3 * statistics.fmean(r["run"] for r in rs),
            "run_median_ms": 1e3 * statistics.median(r["run"] for r in rs),
            "wall_mean_ms": 1e3 * statistics.fmean(r["wall"] for r in rs),
            "cpu_mean_ms": 1e3 * statistics.fmean(r["cpu"] for r in rs),
            "nodes_mean": statistics.fmean(r["nodes"] for r in rs),
        }
        row["ratio_to_base"] = row["wall_mean_ms"] / (1e3 * ref_mean)
        row["cpu_ratio_to_base"] = row["cpu_mean_ms"] / (1e3 * ref_cpu)
        table.append(row)
    return table


if __name__ == "__main__":
    sys.exit(main())
