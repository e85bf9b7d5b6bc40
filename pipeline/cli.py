"""Command line: ``python -m pipeline`` / ``sudoku-pipeline``.

Exit codes: 0 success, 1 a well-formed question with a negative answer (no solution, grid
invalid), 2 bad input (one line on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import select
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

from formats.cnf import AMO_ENCODINGS, DEFAULT_AMO
from formats.csv import DENSE_LIMIT

from .batch.text import one_line
from .batch import BATCH_SOLVERS, DEFAULT_HIGHS_OPTIONS, ENGINES, INPUT_FORMATS, PROGRESS_MODES, BatchConfig, run_config
from .build import build_model
from .cliargs import (add_limit_args, add_model_args, add_puzzle_args, check_ranges, model_from_args, print_grid,
                      puzzle_from_args)
from .errors import NoSolutionReported, PipelineError
from .export import export_model
from .importer import import_solution
from .puzzle import grid_to_string, parse_grid, parse_puzzle
from .rate import human_steps
from .solvers import SOLVERS, get_solver
from .solvers.sat import DEFAULT_BACKEND, sat_backends
from .verify import RESIDUAL_TOL, grid_violations, verify_grid

PROG = "sudoku-pipeline"

# Modules that each add one subcommand: ``add_command(subparsers)`` registers its parser and sets
# ``func``. Adding a command is one module plus one entry here.
COMMAND_MODULES: tuple[str, ...] = (
    "pipeline.draw", "pipeline.spy", "pipeline.report",
    "pipeline.generate", "pipeline.rate", "pipeline.explain",
)


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


def _time_limit_words(args) -> str:
    """How solve and count say a time-limit stop (the float as given: ``time limit of 5.0 s``)."""
    return f"time limit of {args.time_limit} s reached" if args.time_limit is not None else "time limit reached"


def cmd_solve(args) -> int:
    puzzle = puzzle_from_args(args)
    solver = get_solver(args.solver)
    # the SAT engine proves uniqueness on the solver that found the answer (its learnt clauses)
    check = {"check_unique": True} if solver.name == "sat" and not args.no_unique_check else {}
    r = solver.solve(model_from_args(args, puzzle), **_engine_options(args), **check)
    grid, status = r.grid, r.status
    if grid is None:
        reason = _NO_SOLUTION_WORDS.get(status) or (_time_limit_words(args) if status == "time_limit" else status)
        print(f"no solution: {reason}" + (f" ({r.message})" if r.message and status not in ("infeasible", "time_limit") else ""),
              file=sys.stderr)
        return 1
    verdict = verify_grid(grid, puzzle)
    if not verdict:
        print(f"solver answer does not verify: {verdict.message}", file=sys.stderr)
        return 1
    unique = None if args.no_unique_check else r.unique if check else _uniqueness(args, puzzle)
    if unique is False:
        print("note: the puzzle has more than one solution; this is one of them "
              "(python -m pipeline count PUZZLE --list shows others)", file=sys.stderr)
    steps = human_steps(puzzle, args.format) if args.steps else None  # --steps (pipeline/rate.py)
    if steps is not None and args.format != "json":
        print(steps)
    print_grid(grid, puzzle, args.format, {"status": status, "solver": args.solver, "seconds": round(r.seconds, 6),
                                            "nodes": r.nodes, "verified": True, "unique": unique,
                                            **(steps if steps is not None and args.format == "json" else {})})
    return 0


def cmd_count(args) -> int:
    """The number always, with a word beside it; exit codes as ``solve``'s: 0 when a solution
    was found, 1 when none was (the puzzle has none, or a stop came first: then, as ``solve``
    says it, ``no solution: ...`` on stderr)."""
    solver = get_solver(args.solver or default_count_solver(), need="count")
    if args.limit < 1:
        raise PipelineError(f"count: --limit must be at least 1, found {args.limit}")
    options = _engine_options(args)
    options.pop("workdir")
    result = solver.count(model_from_args(args), args.limit, **options)
    count, status = result.count, result.status
    complete = status == "complete"
    stop = _time_limit_words(args) if status == "time_limit" else status
    if complete:
        word = {0: "no solution", 1: "unique"}.get(count, "solutions")
    elif status == "limit":
        word = f"at least: stopped at --limit {args.limit}"
    else:
        word = f"at least: {stop}"
    if args.format == "json":
        print(json.dumps({"count": count, "complete": complete, "status": status, "word": word, "solver": solver.name,
                          "unique": (count == 1) if complete or count > 1 else None,
                          "seconds": round(result.seconds, 6), "time_limit": args.time_limit,
                          **({"solutions": [grid_to_string(g) for g in result.grids]} if args.list else {})}))
    else:
        print(f"{count} ({word})")
        if args.list:
            for g in result.grids:
                print(grid_to_string(g))
    if count == 0:
        if not complete:
            print(f"no solution: {stop} (count stopped before any solution)", file=sys.stderr)
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
        print(f"  (dense Aeq.csv skipped: {model.n_rows * model.n_cols:,} entries > {DENSE_LIMIT:,}; "
              "--dense always writes it)")
    hint = None if args.quiet else matlab_hint(model, out, written)
    if hint:
        print(hint)
    return 0


def _matlab_string(path: Path) -> str:
    """A MATLAB/Octave character-vector literal of ``path`` (quotes doubled)."""
    return "'" + str(path).replace("'", "''") + "'"


def matlab_hint(model, out: Path, written: dict) -> str | None:
    """How to solve the export in MATLAB/Octave and import the answer: every path it names is
    one the export wrote or the printed MATLAB lines write (``OUT/sudoku.csv``, ``OUT/x.csv``).
    None when the export holds neither the CSVs nor the MATLAB files."""
    if "csv" not in written and "matlab" not in written:
        return None
    n = model.convention.n
    q = _matlab_string
    answer = out / "sudoku.csv"
    lines = ["", "In MATLAB (or GNU Octave):"]
    if "matlab" in written:
        lines.append(f"  run({q(out / 'solve_sudoku.m')})   % intlinprog (glpk in Octave); writes {answer}")
    if "csv" in written:
        if "matlab" in written:
            lines.append("  % or by hand, from the CSVs:")
        lines += [
            f"  Aeq = spconvert(load({q(out / 'Aeq_ijv.csv')}));  beq = load({q(out / 'beq.csv')});",
            f"  lb = load({q(out / 'lb.csv')});  ub = load({q(out / 'ub.csv')});  f = load({q(out / 'f.csv')});",
            "  x = intlinprog(f, 1:numel(f), [], [], Aeq, beq, lb, ub);",
        ]
        conv = model.convention
        if conv.scheme == "ijk" and conv.order == "F" and not model.is_reduced:
            lines += [f"  X = reshape(round(x), {n}, {n}, {n});  S = sum(X .* reshape(1:{n}, 1, 1, {n}), 3);",
                      f"  writematrix(S, {q(answer)})"]
        else:
            # other conventions need a permute/expansion to make a grid; the vector itself imports
            answer = out / "x.csv" if "matlab" not in written else answer
            lines.append(f"  writematrix(round(x), {q(out / 'x.csv')})   % the solver's vector, "
                         f"in this export's {conv.scheme}/{conv.order} columns")
    manifest = out / "manifest.json"
    lines.append(f"Then: python -m pipeline import {shlex.quote(str(answer))} --manifest {shlex.quote(str(manifest))}")
    return "\n".join(lines)


def cmd_import(args) -> int:
    """Exit 0 for a verified answer; 1 for a solver's negative answer (infeasible, a time-limit
    or other stop without a solution: as ``solve``) or an answer that does not verify."""
    try:
        result = import_solution(args.file, args.manifest)
    except NoSolutionReported as e:
        print(f"no solution: {e}", file=sys.stderr)
        return 1
    puzzle = result.manifest.puzzle
    print_grid(result.grid, puzzle, args.format, {"format": result.format, "verified": result.verdict.ok,
                                                   "message": result.verdict.message, "residual": result.residual})
    if not result.verdict:
        print(f"invalid: {result.verdict.message}", file=sys.stderr)
        return 1
    if result.residual > RESIDUAL_TOL:
        print(f"invalid: residual |Aeq x - beq| = {result.residual:g}", file=sys.stderr)
        return 1
    if args.format == "grid":
        print(f"ok: {result.verdict.message} (read as {result.format})", file=sys.stderr)
    return 0


def cmd_verify(args) -> int:
    """Check GRID against the rules (and PUZZLE's clues when given); report every violation."""
    if args.puzzle_opt is not None:
        puzzle = puzzle_from_args(args, args.puzzle_opt)
        grid = parse_grid(args.grid, box=args.box, size=puzzle.n)
    else:  # the rules alone: the grid's own shape, no clues
        grid = parse_grid(args.grid, box=args.box, size=args.size)
        puzzle = parse_puzzle(np.zeros(grid.shape, dtype=np.int64), box=args.box, variant=args.variant,
                              regions=args.regions, size=grid.shape[0])
    verdict = verify_grid(grid, puzzle)   # the first broken rule's message, or the valid one
    violations = [] if verdict else grid_violations(grid, puzzle)   # empty exactly when verdict.ok
    if verdict and args.puzzle_opt is None:
        message = f"valid {puzzle.variant} {puzzle.n}x{puzzle.n} grid (rules only: no --puzzle, no clues checked)"
    else:
        message = verdict.message
    if args.format == "json":
        print(json.dumps({"ok": verdict.ok, "message": message, "checked_clues": args.puzzle_opt is not None,
                          "variant": puzzle.variant, "n": puzzle.n, "violations": violations}))
    elif verdict:
        print(f"ok: {message}")
    else:
        for violation in violations:
            print(f"invalid: {violation['message']}")
    return 0 if verdict else 1


# ---------------------------------------------------------------------------------------------
# batch (owned with pipeline/batch/: the parser builds a BatchConfig, which validates every option)
# ---------------------------------------------------------------------------------------------
def _highs_option(text: str):
    """``KEY=VALUE`` for a HiGHS option: VALUE as bool, int, float or string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    low = value.lower()
    if low in ("true", "false", "on", "off") and key != "presolve" and key != "parallel":
        return key, low in ("true", "on")
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def _status_list(text: str) -> tuple[str, ...]:
    """``time_limit,error`` -> ``("time_limit", "error")`` (checked by BatchConfig)."""
    return tuple(s.strip() for s in text.split(",") if s.strip())


def _add_batch_command(sub) -> None:
    """The ``batch`` subcommand: its arguments and :func:`_run_batch_command`."""
    p = sub.add_parser("batch", help="solve a collection of puzzles into Parquet (resumable, parallel)")
    p.add_argument("input", help="puzzles: a text file (one per line), a CSV/TSV or a Parquet file "
                                 "(column 'puzzle', optional 'regions' and 'variant')")
    p.add_argument("output", help="output directory of Parquet parts (read it with pandas.read_parquet(OUT)); "
                                  "rerun with the same OUT to resume")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes, 1 to 256 (default: all cores; 1 solves in this process)")
    p.add_argument("--engine", choices=ENGINES, default="processes",
                   help="processes (this machine) or dask (a cluster; LocalCluster without --scheduler) "
                        "(default processes)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler address, e.g. tcp://host:8786 (implies --engine dask)")
    p.add_argument("--chunk-size", type=int, default=None, metavar="N",
                   help="puzzles per task and per part file (default: adaptive, about 1 s of work per chunk)")
    p.add_argument("--count", type=int, default=0, metavar="K",
                   help="also count solutions up to K (column n_solutions; K means K or more; default 0: no count)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="solver time limit per puzzle (default: none)")
    p.add_argument("--solver", choices=BATCH_SOLVERS, default="highs",
                   help="highs (one instance per shape, bounds per puzzle), sat (one incremental SAT solver per "
                        "shape, clues as assumptions) or cpsat (default highs)")
    p.add_argument("--sat-backend", metavar="NAME", help=f"python-sat solver for --solver sat "
                                                         f"(default {DEFAULT_BACKEND})")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding for --solver sat (default auto)")
    p.add_argument("--box", metavar="HxW", help="box shape of the records (default: the squarest for N)")
    p.add_argument("--variant", help="variant of records without a 'variant' column (default classic)")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                   help="how to read INPUT (default auto: by file name)")
    p.add_argument("--no-propagate", dest="propagate", action="store_false",
                   help="hand the solver the clues only (no naked/hidden singles first)")
    p.add_argument("--highs-option", action="append", type=_highs_option, default=[], metavar="KEY=VALUE",
                   help="a HiGHS option for every solve (repeatable); defaults: "
                        + ", ".join(f"{k}={v}" for k, v in DEFAULT_HIGHS_OPTIONS.items()))
    p.add_argument("--limit", type=int, default=None, metavar="N", help="stop after N new puzzles (resume later)")
    p.add_argument("--overwrite", action="store_true", help="delete OUT's previous batch results first")
    p.add_argument("--retry", type=_status_list, default=(), metavar="STATUSES",
                   help="solve again the rows of an existing OUT with these statuses, e.g. time_limit,error "
                        "(other options, such as a longer --time-limit, may differ from the first run; default: none)")
    p.add_argument("--progress", choices=PROGRESS_MODES, default="auto",
                   help="progress bar (terminal, needs tqdm), log lines, or nothing (default: auto)")
    p.add_argument("--log-interval", type=float, default=10.0, metavar="SECONDS",
                   help="seconds between progress log lines (default 10)")
    p.set_defaults(func=_run_batch_command)


def _run_batch_command(args: argparse.Namespace) -> int:
    """Run ``batch``. Exit codes: 0 done (or stopped by --limit), 2 unusable input, output or
    options (naming the path or option), 1 a worker failed, 130 interrupted (rerun to resume)."""
    config = BatchConfig(args.input, args.output, workers=args.workers, engine=args.engine,
                         scheduler=args.scheduler, chunk_size=args.chunk_size, count=args.count,
                         time_limit=args.time_limit, propagate=args.propagate, box=args.box,
                         variant=args.variant, input_format=args.input_format, limit=args.limit,
                         overwrite=args.overwrite, progress=args.progress, log_interval=args.log_interval,
                         highs_options=dict(args.highs_option), solver=args.solver,
                         sat_backend=args.sat_backend, amo=args.amo, retry=args.retry)
    try:
        summary = run_config(config)
    except (PipelineError, OSError, KeyboardInterrupt):
        raise   # main(): one line, exit 2 (130 for a Ctrl-C before the run's own handler)
    except Exception as e:  # a crashed worker (BrokenProcessPool, lost Dask worker): parts so far are kept
        text = one_line(e)
        print(f"error: batch: a worker failed ({type(e).__name__}: {text}); "
              f"rerun the same command to resume", file=sys.stderr)
        return 1
    counts = ", ".join(f"{k} {v:,}" for k, v in summary.status_counts.items()) or "nothing new"
    state = ("complete" if summary.complete and not summary.interrupted else
             "interrupted; rerun the same command to resume" if summary.interrupted else
             "partial; rerun the same command to continue")
    retried = f" ({summary.retried:,} retried)" if summary.retried else ""
    print(f"batch: {summary.solved_now:,} processed{retried} in {summary.elapsed:.1f}s "
          f"({summary.puzzles_per_second:,.1f} puzzles/s; {100 * summary.overhead_fraction:.1f}% of worker time "
          f"outside {summary.solver_call}); {summary.already_done:,} already done; {counts}; {state}: "
          f"{summary.output}", file=sys.stderr)
    return 130 if summary.interrupted else 0


# ---------------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------------
def _add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sat-backend", choices=sat_backends() or None, metavar="NAME",
                   help=f"python-sat solver for --solver sat (default {DEFAULT_BACKEND}): " + ", ".join(sat_backends()))
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding of the SAT/CNF rows (default auto: pairwise up to 16x16, "
                        "else ladder)")


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
    p.add_argument("--steps", action="store_true",
                   help="also print the human steps and rating (as in rate; JSON keys steps, rating)")
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
                   help=f"dense Aeq.csv: auto writes it while it has at most {DENSE_LIMIT:,} entries (every "
                        "16x16 model; a 25x25 one has over 39 million), always forces it (default auto)")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding in model.cnf (default auto: pairwise up to 16x16, else ladder)")
    p.add_argument("--quiet", action="store_true", help="do not print the MATLAB instructions")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="read a solver's solution file, print the grid, verify it")
    p.add_argument("file", metavar="FILE", help="solution file (format detected by content)")
    p.add_argument("--manifest", metavar="M", help="manifest.json of the export (default: beside FILE)")
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check a completed grid against the rules (and a puzzle's clues); "
                                      "list every violation")
    p.add_argument("grid", metavar="GRID", help="completed grid (any puzzle form: line, grid file, CSV, '-')")
    p.add_argument("--puzzle", dest="puzzle_opt", metavar="PUZZLE",
                   help="the puzzle it should solve, whose clues are checked too (default: none, the rules alone)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: 'ok: ...' or one 'invalid: ...' line per violation; json: one object (default text)")
    add_puzzle_args(p, positional=False)
    p.set_defaults(func=cmd_verify)

    _add_batch_command(sub)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_command(sub)
    return parser


#: Exit status after the reader of standard output went away (``| head``): what a shell reports
#: for a tool killed by SIGPIPE, as ``cat`` or ``yes`` are.
SIGPIPE_EXIT = 128 + getattr(signal, "SIGPIPE", 13)


def _stdout_reader_gone() -> bool:
    """Did the reader of standard output go away? Then point stdout at /dev/null, so that the
    interpreter's last flush does not complain about the pipe either."""
    gone = False
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        gone = True
    except (OSError, ValueError):
        pass
    if not gone:
        try:  # the print that failed may have emptied the buffer: ask the pipe itself
            poll = select.poll()
            poll.register(sys.stdout.fileno(), select.POLLOUT)
            gone = any(events & select.POLLERR for _, events in poll.poll(0))
        except (OSError, ValueError, AttributeError):
            return False
    if gone:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
    return gone


#: Seconds a Ctrl-C may take to reach Python code (which then ends with one line and exit 130)
#: before the watchdog ends the process itself: Python handles a signal only between bytecodes,
#: and an engine running in C (one long HiGHS solve) would otherwise keep the user waiting.
INTERRUPT_GRACE = 2.0
_interrupt = {"watched": False, "reported": False}


def _watch_for_ctrl_c() -> None:
    """Start the Ctrl-C watchdog once per process (main thread only): a daemon thread reads the
    signal numbers Python's C-level handler writes to its wakeup fd (even while the main thread
    is inside a solver that released the GIL); after SIGINT it waits :data:`INTERRUPT_GRACE`
    and, unless ``main`` has reported the interrupt by then, says ``interrupted`` and exits 130."""
    if _interrupt["watched"] or threading.current_thread() is not threading.main_thread():
        return
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError, AttributeError):
        return
    _interrupt["watched"] = True

    def watch() -> None:
        while True:
            try:
                numbers = os.read(read_end, 64)
            except OSError:
                return
            if not numbers:
                return
            if signal.SIGINT in numbers:
                time.sleep(INTERRUPT_GRACE)
                if not _interrupt["reported"]:
                    os.write(2, b"interrupted\n")
                    os._exit(130)

    threading.Thread(target=watch, name="ctrl-c-watchdog", daemon=True).start()


def _os_error_line(e: OSError) -> str:
    where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
    return f"error: {e.strerror or e}{where}"


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code.

    0 success; 1 a negative answer (no solution, a grid that does not verify); 2 bad input
    (one ``error: ...`` line on stderr); 130 after Ctrl-C (one line: ``interrupted``);
    :data:`SIGPIPE_EXIT` quietly when the reader of stdout went away (``... | head -1``).
    """
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        # the real command line only (tests pass argv and keep their own signal handling); batch
        # stops its workers itself on Ctrl-C and must not be cut short, and a watchdog thread
        # would also keep it from forking its workers
        if argv is None and args.func is not _run_batch_command:
            _watch_for_ctrl_c()
        check_ranges(args)
        code = args.func(args)
        sys.stdout.flush()  # a reader that went away shows here, not in the interpreter's exit
        return code
    except SystemExit as e:
        if _stdout_reader_gone() and not e.code:  # --help | head: quietly, as after any other output
            raise SystemExit(SIGPIPE_EXIT) from None
        raise
    except KeyboardInterrupt:
        _interrupt["reported"] = True
        _stdout_reader_gone()
        print("interrupted", file=sys.stderr)
        return 130
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError as e:
        if _stdout_reader_gone():
            return SIGPIPE_EXIT
        print(_os_error_line(e), file=sys.stderr)
        return 2
    except OSError as e:
        print(_os_error_line(e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
