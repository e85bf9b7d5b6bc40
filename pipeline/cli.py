"""Command line: ``python -m pipeline`` / ``sudoku-pipeline``.

Exit codes: 0 success, 1 a well-formed question with a negative answer (no solution, grid
invalid), 2 bad input (one line on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .build import CLUE_ENCODINGS, build_model
from .conventions import ORDERS, SCHEMES
from .errors import PipelineError
from .puzzle import DEFAULT_PUZZLE, VARIANTS, format_grid, grid_to_string, parse_grid, parse_puzzle
from .verify import verify_grid

PROG = "sudoku-pipeline"


def check_ranges(args) -> None:
    """Refuse non-positive numeric options (HiGHS would ignore a bad time limit silently)."""
    # (--limit is checked by count_solutions itself, for API callers too)
    for option, minimum, strict in (("time_limit", 0, True), ("threads", 1, False), ("size", 1, False)):
        value = getattr(args, option, None)
        if value is not None and (value <= minimum if strict else value < minimum):
            flag = "--" + option.replace("_", "-")
            bound = f"greater than {minimum}" if strict else f"at least {minimum}"
            raise PipelineError(f"{flag}: must be {bound}, found {value:g}")


# ---------------------------------------------------------------------------------------------
# shared options
# ---------------------------------------------------------------------------------------------
def _add_puzzle_args(p: argparse.ArgumentParser, *, positional: bool = True, name: str = "puzzle") -> None:
    if positional:
        p.add_argument(name, metavar="PUZZLE", nargs="?", default=DEFAULT_PUZZLE,
                       help="81-char string ('.' or '0' empty), grid text/CSV file, N-by-3 row,col,digit CSV, "
                            "or '-' for stdin (default: the built-in seed puzzle, 23 clues)")
    p.add_argument("--box", metavar="HxW", help="box shape (default: sqrt(N)xsqrt(N), else the most square h<=w)")
    p.add_argument("--variant", choices=VARIANTS, help="puzzle family (default: classic, or jigsaw with --regions)")
    p.add_argument("--regions", metavar="IDS", help="jigsaw regions: one id per cell, row-major (string or file)")
    p.add_argument("--size", type=int, metavar="N", help="grid side for N-by-3 clue lists (default 9, or from --box)")


def _add_model_args(p: argparse.ArgumentParser, *, order_default: str = "F", clues_default: str = "rows") -> None:
    p.add_argument("--scheme", choices=SCHEMES, default="ijk", help="variable indexing (default ijk)")
    p.add_argument("--order", choices=ORDERS, default=order_default,
                   help=f"memory order: F (MATLAB, first index fastest) or C (NumPy) (default {order_default})")
    p.add_argument("--clues", choices=CLUE_ENCODINGS, default=clues_default,
                   help=f"clue encoding: rows ([A;B]), bounds (lb=1) or reduce (presolved) (default {clues_default})")


def _puzzle(args, source=None):
    return parse_puzzle(args.puzzle if source is None else source, box=args.box, variant=args.variant,
                        regions=args.regions, size=args.size)


def _model(args, puzzle=None):
    return build_model(puzzle or _puzzle(args), args.scheme, args.order, args.clues)


def _print_grid(grid, puzzle, fmt: str, extra: dict | None = None) -> None:
    if fmt == "line":
        print(grid_to_string(grid))
    elif fmt == "json":
        print(json.dumps({"grid": np.asarray(grid).tolist(), "line": grid_to_string(grid), **(extra or {})}))
    else:
        print(format_grid(grid, puzzle.h if puzzle.has_boxes else None, puzzle.w if puzzle.has_boxes else None))


# ---------------------------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------------------------
def cmd_solve(args) -> int:
    puzzle = _puzzle(args)
    if args.solver != "highs":
        from .interop import solve_external

        result = solve_external(puzzle, args.solver, scheme=args.scheme, order=args.order, clues=args.clues,
                                time_limit=args.time_limit, workdir=args.workdir)
        grid, status, seconds, nodes = result.grid, result.status, result.seconds, None
    else:
        from .solve import solve

        r = solve(_model(args, puzzle), time_limit=args.time_limit, threads=args.threads)
        grid, status, seconds, nodes = r.grid, r.status, r.seconds, r.nodes
        if r.message:
            status = f"{status} ({r.message})"
    if grid is None:
        reason = {"infeasible": "the puzzle has no solution (infeasible)",
                  "time_limit": f"time limit of {args.time_limit} s reached"}.get(status, status)
        print(f"no solution: {reason}", file=sys.stderr)
        return 1
    verdict = verify_grid(grid, puzzle)
    if not verdict:
        print(f"solver answer does not verify: {verdict.message}", file=sys.stderr)
        return 1
    _print_grid(grid, puzzle, args.format, {"status": status, "solver": args.solver, "seconds": round(seconds, 6),
                                            "nodes": nodes, "verified": True})
    return 0


def cmd_count(args) -> int:
    from .solve import count_solutions

    count, _, status = count_solutions(_model(args), args.limit, time_limit=args.time_limit, threads=args.threads)
    if status not in ("complete", "limit"):
        print(f"count stopped: {status} after {count} solution(s)", file=sys.stderr)
        return 1
    if status == "complete":
        print({0: "none", 1: "unique"}.get(count, str(count)))
    else:
        print(count)
        print(f"(stopped at --limit {args.limit}: there may be more)", file=sys.stderr)
    return 0


def cmd_build(args) -> int:
    model = _model(args)
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

    model = _model(args)
    written = export_model(model, args.to, args.formats, mps_style=args.mps_style, dense=args.dense)
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
    _print_grid(result.grid, puzzle, args.format, {"format": result.format, "verified": result.verdict.ok,
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
    puzzle = _puzzle(args, args.puzzle_opt)
    grid = parse_grid(args.grid, box=args.box, size=puzzle.n)
    verdict = verify_grid(grid, puzzle)
    print(("ok: " if verdict else "invalid: ") + verdict.message)
    return 0 if verdict else 1


# ---------------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as for every bad input
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Sudoku-family puzzles as sparse 0-1 integer programs: build, export, "
                                            "solve (HiGHS), import solver answers, verify.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("solve", help="solve a puzzle and print the verified grid")
    _add_puzzle_args(p)
    _add_model_args(p)
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    p.add_argument("--time-limit", type=float, metavar="S", help="solver time limit in seconds")
    p.add_argument("--threads", type=int, metavar="K", help="HiGHS threads")
    p.add_argument("--solver", choices=("highs", "scip", "cbc", "glpk", "octave"), default="highs",
                   help="highs (in process) or an external solver run through the exported files")
    p.add_argument("--workdir", metavar="DIR", help="keep the external solver's files here (default: a temp dir)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("count", help="count solutions up to a limit (no-good cuts on one HiGHS model)")
    _add_puzzle_args(p)
    _add_model_args(p, clues_default="reduce")  # fewest columns: the fastest re-solves
    p.add_argument("--limit", type=int, default=2, metavar="K", help="stop after K solutions (default 2)")
    p.add_argument("--time-limit", type=float, metavar="S", help="overall time limit in seconds")
    p.add_argument("--threads", type=int, metavar="K", help="HiGHS threads")
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("build", help="print the model's shape: rows, columns, nonzeros, rows per family")
    _add_puzzle_args(p)
    _add_model_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("export", help="write the model files and manifest.json into a directory")
    _add_puzzle_args(p)
    _add_model_args(p)
    p.add_argument("--to", required=True, metavar="DIR", help="output directory (created)")
    p.add_argument("--formats", default="all", metavar="LIST",
                   help="comma-separated: csv,mps,lp,parquet,mat (default all)")
    p.add_argument("--mps-style", choices=("free", "fixed", "both"), default="free", help="MPS flavour (default free)")
    p.add_argument("--dense", choices=("auto", "always", "never"), default="auto",
                   help="dense Aeq.csv: auto skips matrices over 50M entries (default auto)")
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
    _add_puzzle_args(p, positional=False)
    p.set_defaults(func=cmd_verify)

    try:
        from . import batch
    except ImportError:
        batch = None
    if batch is not None:
        p = sub.add_parser("batch", help="solve a collection of puzzles into Parquet (resumable, parallel)")
        batch.add_batch_arguments(p)
        p.set_defaults(func=batch.run_batch_command)
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
