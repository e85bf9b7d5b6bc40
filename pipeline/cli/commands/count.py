"""The ``count`` subcommand."""
from __future__ import annotations

import argparse
import json
import sys
import time

from pipeline.cli.args import (add_engine_args, add_limit_args, add_model_args, add_puzzle_args, add_solver_args,
                               engine_options, grid_line, note_unused_options, model_from_args, resolve_solver, say_handed_on,
                               time_limit_words)
from pipeline.core.errors import PipelineError
from pipeline.core.limits import MAX_BYTES_ENV, grids_allowed, memory_limit
from pipeline.core.puzzle import Puzzle
from pipeline.core.textin import size_text
from pipeline.core.symmetry import clue_digits
from pipeline.core.stops import Deadline
from pipeline.solvers import SOLVERS, CountResult
from pipeline.solvers.auto import AUTO
from pipeline.solvers.relabel import count_by_relabelling, relabelling_settles


def cmd_count(args: argparse.Namespace) -> int:
    """The number always, with a word beside it; exit codes as ``solve``'s: 0 when a solution
    was found, 1 when none was (the puzzle has none, or a stop came first: then, as ``solve``
    says it, ``no solution: ...`` on stderr). ``--time-limit`` bounds the whole command
    (:class:`~pipeline.core.stops.Deadline`)."""
    if args.limit < 1:
        raise PipelineError(f"count: --limit must be at least 1, found {args.limit}")
    used = {"solver": args.solver}   # the engine auto picks, once it has (the JSON names it)
    # the watchdog's answer when the engine itself does not stop in time: the seconds it ran
    deadline = Deadline(args.time_limit, lambda reason: _report(
        args, CountResult(0, [], "time_limit", time.monotonic() - deadline.started), used["solver"], reason))
    return deadline.run(lambda d: _count(args, d, used))


def _count(args: argparse.Namespace, deadline: Deadline, used: dict) -> int:
    model = model_from_args(args, deadline=deadline)
    # --list prints the grids once counted, all held until then: as many as the memory allowed holds
    keep = min(args.limit, grids_allowed(int(model.puzzle.grid.size))) if args.list else 1
    result = None
    if args.solver in (None, AUTO) and args.limit >= 2 and relabelling_settles(model):
        # clues that leave k digits unused: one solution, relabelled, is k! of them
        solver = resolve_solver(args, "solve", model)
        used["solver"] = solver.name
        result = count_by_relabelling(solver.solve, solver.name, model, args.limit, deadline.remaining(), keep)
        if result is not None and args.verbose and result.grids:
            print(f"solver: the clues use {clue_digits(model.puzzle)} of "
                  f"{model.puzzle.n} digits: the solution {solver.name} found, with the unused digits "
                  "permuted, gives the others", file=sys.stderr)
    if result is None:
        solver = resolve_solver(args, "count", model, need="count")
        note_unused_options(args, solver, "count")
        used["solver"] = solver.name
        assert solver.count is not None   # get_solver(need="count") refused one without
        result = solver.count(model, args.limit, **engine_options(args, solver, "count", deadline=deadline, keep=keep))
    say_handed_on(args, solver.name, result)
    deadline.finish()
    return _report(args, result, result.solver or solver.name, puzzle=model.puzzle)


def _report(args: argparse.Namespace, result: CountResult, solver: str | None, reason: str | None = None,
            puzzle: Puzzle | None = None) -> int:
    """Print the count (text or JSON); ``reason``: why it stopped before counting; the grids
    listed in ``puzzle``'s values, as ``solve`` prints them."""
    count, status = result.count, result.status
    complete = status == "complete"
    stop = time_limit_words(args, reason or result.message) if status == "time_limit" else status
    if complete:
        word = {0: "no solution", 1: "unique"}.get(count, "solutions")
    elif status == "limit":
        word = f"at least: stopped at --limit {args.limit}"
    elif status == "memory_limit":   # each solution the SAT engine found stays with it as a clause
        word = (f"at least: stopped at the memory allowed ({MAX_BYTES_ENV}), which holds a clause for each "
                f"solution found")
    else:   # a count refused before it started has no "at least" to say
        word = stop if stop.startswith("not started") else f"at least: {stop}"
    if args.format == "json":
        print(json.dumps({"count": count, "complete": complete, "status": status, "word": word, "solver": solver,
                          "unique": (count == 1) if complete or count > 1 else None,
                          "seconds": round(result.seconds, 6), "time_limit": args.time_limit,
                          **({"solutions": [grid_line(g, puzzle) for g in result.grids]} if args.list else {})}))
    else:
        print(f"{count} ({word})")
        if args.list:
            for g in result.grids:
                print(grid_line(g, puzzle))
    if args.list and puzzle is not None and puzzle.extra:
        _note_repeated_grids(result, puzzle)
    if args.list and len(result.grids) < min(count, args.limit):   # the memory allowed held no more
        print(f"note: count --list: printed the first {len(result.grids):,} of the {count:,} grids counted: "
              f"the {size_text(memory_limit())} allowed holds no more (set {MAX_BYTES_ENV} to allow more)",
              file=sys.stderr)
    if count == 0:
        if not complete:
            why = reason or result.message or "count stopped before any solution"
            print(f"no solution: {stop} ({why})", file=sys.stderr)
        return 1
    return 0


def _note_repeated_grids(result: CountResult, puzzle: Puzzle) -> None:
    """A note on stderr when a listed grid repeats: the solutions differ in the extra cells only,
    which tell answers apart (as ISS counts its ``Var`` cells) but are not listed."""
    repeats = len(result.grids) - len({g.tobytes() for g in result.grids})
    if repeats:
        names = ", ".join(group.name for group in puzzle.extra)
        print(f"note: {repeats} of the grids listed repeat: solutions are told apart by the extra cells "
              f"({names}) too, which --list does not print", file=sys.stderr)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``count``."""
    p = subparsers.add_parser("count", help="count solutions up to a limit (SAT blocking clauses, or no-good cuts in HiGHS)")
    add_puzzle_args(p)
    add_model_args(p, clues_default="reduce")  # fewest columns: the fastest re-solves
    p.add_argument("--limit", type=int, default=2, metavar="K", help="stop after K solutions (default 2)")
    add_limit_args(p, "time limit in seconds for the whole command (build and count)")
    add_solver_args(p, [name for name, sv in SOLVERS.items() if sv.counts], "counting engine")
    add_engine_args(p)
    p.add_argument("--list", action="store_true", help="print the solutions found (one line each), up to --limit")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form (default text)")
    p.set_defaults(func=cmd_count)
