"""Command line: ``python -m pipeline`` / ``sudoku-pipeline``.

Exit codes: 0 success, 1 a well-formed question with a negative answer (no solution, grid
invalid), 2 bad input (one line on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from formats.cnf import AMO_ENCODINGS, DEFAULT_AMO

from .build import build_model
from .cliargs import add_limit_args, add_model_args, add_puzzle_args, check_ranges, model_from_args, print_grid, puzzle_from_args
from .errors import PipelineError
from .puzzle import grid_to_string, parse_grid
from .solvers import SOLVERS, get_solver
from .solvers.sat import DEFAULT_BACKEND, sat_backends
from .verify import verify_grid

PROG = "sudoku-pipeline"

# Modules that each add one subcommand: ``add_command(subparsers)`` registers its parser and sets
# ``func``. Adding a command is one module plus one entry here.
COMMAND_MODULES: tuple[str, ...] = ("pipeline.draw", "pipeline.spy", "pipeline.report")


# ---------------------------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------------------------
def _engine_options(args) -> dict:
    """Options every registry engine accepts (each ignores what it does not use)."""
    return {"time_limit": args.time_limit, "threads": getattr(args, "threads", None),
            "workdir": getattr(args, "workdir", None), "sat_backend": getattr(args, "sat_backend", None),
            "amo": getattr(args, "amo", None) or DEFAULT_AMO}


def default_count_solver() -> str:
    """The SAT engine when python-sat is installed (blocking clauses: fast), else HiGHS."""
    return "sat" if SOLVERS["sat"].available() is None else "highs"


def _uniqueness(args, puzzle) -> bool | None:
    """Is the puzzle's solution unique? One more engine call (the counting engine, limit 2);
    None when that call stops on the time limit."""
    model = build_model(puzzle, "ijk", "C", "bounds")
    solver = get_solver(default_count_solver(), need="count")
    result = solver.count(model, 2, time_limit=args.time_limit)
    return None if result.status not in ("complete", "limit") else result.count == 1


_NO_SOLUTION_WORDS = {"infeasible": "the puzzle has no solution (infeasible)"}


def cmd_solve(args) -> int:
    puzzle = puzzle_from_args(args)
    solver = get_solver(args.solver)
    r = solver.solve(model_from_args(args, puzzle), **_engine_options(args))
    grid, status = r.grid, r.status
    if grid is None:
        reason = _NO_SOLUTION_WORDS.get(status) or (f"time limit of {args.time_limit} s reached"
                                                    if status == "time_limit" else status)
        print(f"no solution: {reason}" + (f" ({r.message})" if r.message and status not in ("infeasible", "time_limit") else ""),
              file=sys.stderr)
        return 1
    verdict = verify_grid(grid, puzzle)
    if not verdict:
        print(f"solver answer does not verify: {verdict.message}", file=sys.stderr)
        return 1
    unique = None if args.no_unique_check else _uniqueness(args, puzzle)
    if unique is False:
        print("note: the puzzle has more than one solution; this is one of them "
              "(python -m pipeline count PUZZLE --list shows others)", file=sys.stderr)
    print_grid(grid, puzzle, args.format, {"status": status, "solver": args.solver, "seconds": round(r.seconds, 6),
                                            "nodes": r.nodes, "verified": True, "unique": unique})
    return 0


def cmd_count(args) -> int:
    solver = get_solver(args.solver or default_count_solver(), need="count")
    if args.limit < 1:
        raise PipelineError(f"count: --limit must be at least 1, found {args.limit}")
    options = _engine_options(args)
    options.pop("workdir")
    result = solver.count(model_from_args(args), args.limit, **options)
    count, status = result.count, result.status
    complete = status == "complete"
    if complete:
        word = {0: "no solution", 1: "unique"}.get(count, "solutions")
    elif status == "limit":
        word = f"at least: stopped at --limit {args.limit}"
    else:
        word = f"at least: {'time limit reached' if status == 'time_limit' else status}"
    if args.format == "json":
        print(json.dumps({"count": count, "complete": complete, "status": status, "solver": solver.name,
                          "unique": (count == 1) if complete or count > 1 else None,
                          **({"solutions": [grid_to_string(g) for g in result.grids]} if args.list else {})}))
    else:
        print(f"{count} ({word})")
        if args.list:
            for g in result.grids:
                print(grid_to_string(g))
    if count == 0:
        if not complete:
            print(f"count stopped: {status} before any solution", file=sys.stderr)
        return 1
    return 0


def cmd_build(args) -> int:
    model = model_from_args(args)
    summary = model.summary()
    if args.json:
        print(json.dumps({**summary, "convention": model.convention.describe(), "clue_encoding": model.clue_encoding}))
        return 0
    conv = model.convention
    print(f"puzzle     {model.puzzle.variant} {conv.n}x{conv.n}, boxes {conv.h}x{conv.w}, {model.puzzle.n_clues} clues")
    print(f"convention {conv.scheme}/{conv.order}, clues as {model.clue_encoding}")
    print(f"rows       {summary['rows']}")
    print(f"columns    {summary['columns']}" + (f" (of {summary['variables_total']})" if model.is_reduced else ""))
    print(f"nonzeros   {summary['nonzeros']}")
    for family, count in summary["families"].items():
        print(f"  {family:<8} {count}")
    return 0


def cmd_export(args) -> int:
    from .export import export_model

    model = model_from_args(args)
    written = export_model(model, args.to, args.formats, mps_style=args.mps_style, dense=args.dense,
                           amo=args.amo or DEFAULT_AMO)
    out = Path(args.to)
    conv = model.convention
    print(f"exported {model.puzzle.variant} {conv.n}x{conv.n} ({model.n_rows} x {model.n_cols}, "
          f"{model.nnz} nonzeros) in {conv.scheme}/{conv.order}, clues as {model.clue_encoding}, to {out}/:")
    for fmt, paths in written.items():
        print(f"  {fmt:<9} " + " ".join(p.name for p in paths))
    if "csv" in written and args.dense == "auto" and not any(p.name == "Aeq.csv" for p in written["csv"]):
        from formats.csv import DENSE_LIMIT

        print(f"  (dense Aeq.csv skipped: {model.n_rows * model.n_cols:,} entries > {DENSE_LIMIT:,}; "
              "--dense always writes it)")
    if not args.quiet:
        print(_matlab_hint(model, out, written))
    return 0


def _matlab_hint(model, out: Path, written: dict) -> str:
    n = model.convention.n
    lines = ["", "In MATLAB:"]
    if "matlab" in written:
        lines.append(f"  run('{out}/solve_sudoku.m')   % solves with intlinprog (glpk in Octave), writes sudoku.csv")
    lines += [
        f"  Aeq = spconvert(load('{out}/Aeq_ijv.csv'));  beq = load('{out}/beq.csv');",
        f"  lb = load('{out}/lb.csv');  ub = load('{out}/ub.csv');  f = load('{out}/f.csv');",
        "  x = intlinprog(f, 1:numel(f), [], [], Aeq, beq, lb, ub);",
    ]
    conv = model.convention
    if conv.scheme == "ijk" and conv.order == "F" and not model.is_reduced:
        lines.append(f"  X = reshape(round(x), {n}, {n}, {n});  S = sum(X .* reshape(1:{n}, 1, 1, {n}), 3);")
    else:
        lines.append("  % decode x with solve_sudoku.m (this convention needs a permute/expansion)")
    lines += ["  writematrix(S, 'sudoku.csv')",
              f"Then: python -m pipeline import sudoku.csv --manifest {out}/manifest.json"]
    return "\n".join(lines)


def cmd_import(args) -> int:
    from .importer import import_solution

    result = import_solution(args.file, args.manifest)
    puzzle = result.manifest.puzzle
    print_grid(result.grid, puzzle, args.format, {"format": result.format, "verified": result.verdict.ok,
                                                   "message": result.verdict.message, "residual": result.residual})
    if not result.verdict:
        print(f"invalid: {result.verdict.message}", file=sys.stderr)
        return 1
    if result.residual > 1e-6:
        print(f"invalid: residual |Aeq x - beq| = {result.residual:g}", file=sys.stderr)
        return 1
    if args.format == "grid":
        print(f"ok: {result.verdict.message} (read as {result.format})", file=sys.stderr)
    return 0


def cmd_verify(args) -> int:
    puzzle = puzzle_from_args(args, args.puzzle_opt)
    grid = parse_grid(args.grid, box=args.box, size=puzzle.n)
    verdict = verify_grid(grid, puzzle)
    print(("ok: " if verdict else "invalid: ") + verdict.message)
    return 0 if verdict else 1


# ---------------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------------
def _add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sat-backend", choices=sat_backends(), metavar="NAME",
                   help=f"python-sat solver for --solver sat (default {DEFAULT_BACKEND}): " + ", ".join(sat_backends()))
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding of the SAT/CNF rows (default auto: pairwise up to 16x16, "
                        "else seqcounter)")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as for every bad input
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Sudoku-family puzzles as sparse 0-1 integer programs: build, export, "
                                            "solve (HiGHS), import solver answers, verify.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("solve", help="solve a puzzle and print the verified grid")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    add_limit_args(p, "solver time limit in seconds")
    p.add_argument("--solver", choices=list(SOLVERS), default="highs", metavar="NAME",
                   help="engine from the solver registry (default highs): " + ", ".join(SOLVERS))
    p.add_argument("--workdir", metavar="DIR", help="keep an external solver's files here (default: a temp dir)")
    _add_engine_args(p)
    p.add_argument("--unique", action="store_true",
                   help="check that the solution is unique (the default; kept for scripts that ask for it)")
    p.add_argument("--no-unique-check", action="store_true",
                   help="skip the extra engine call that tells whether the puzzle has other solutions")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("count", help="count solutions up to a limit (SAT blocking clauses, or no-good cuts in HiGHS)")
    add_puzzle_args(p)
    add_model_args(p, clues_default="reduce")  # fewest columns: the fastest re-solves
    p.add_argument("--limit", type=int, default=2, metavar="K", help="stop after K solutions (default 2)")
    add_limit_args(p, "overall time limit in seconds")
    p.add_argument("--solver", choices=[name for name, sv in SOLVERS.items() if sv.count is not None], metavar="NAME",
                   help="counting engine (default: sat when python-sat is installed, else highs)")
    _add_engine_args(p)
    p.add_argument("--list", action="store_true", help="print the solutions found (one line each), up to --limit")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form (default text)")
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("build", help="print the model's shape: rows, columns, nonzeros, rows per family")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("export", help="write the model files and manifest.json into a directory")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--to", required=True, metavar="DIR", help="output directory (created)")
    p.add_argument("--formats", default="all", metavar="LIST",
                   help="comma-separated: csv,mps,lp,parquet,mat (default all)")
    p.add_argument("--mps-style", choices=("free", "fixed", "both"), default="free", help="MPS flavour (default free)")
    p.add_argument("--dense", choices=("auto", "always", "never"), default="auto",
                   help="dense Aeq.csv: auto skips matrices over 50M entries (default auto)")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding in model.cnf (default auto: pairwise up to 16x16, else seqcounter)")
    p.add_argument("--quiet", action="store_true", help="do not print the MATLAB instructions")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="read a solver's solution file, print the grid, verify it")
    p.add_argument("file", metavar="FILE", help="solution file (format detected by content)")
    p.add_argument("--manifest", metavar="M", help="manifest.json of the export (default: beside FILE)")
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check a completed grid against the rules and the puzzle's clues")
    p.add_argument("grid", metavar="GRID", help="completed grid (any puzzle form)")
    p.add_argument("--puzzle", dest="puzzle_opt", required=True, metavar="PUZZLE", help="the puzzle it should solve")
    add_puzzle_args(p, positional=False)
    p.set_defaults(func=cmd_verify)

    try:
        from . import batch
    except ImportError:
        batch = None
    if batch is not None:
        p = sub.add_parser("batch", help="solve a collection of puzzles into Parquet (resumable, parallel)")
        batch.add_batch_arguments(p)
        p.set_defaults(func=batch.run_batch_command)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_ranges(args)
        return args.func(args)
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        print(f"error: {e.strerror or e}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
