"""The ``solve`` subcommand."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from pipeline.cli.args import (NO_SOLUTION_WORDS, add_engine_args, add_limit_args, add_model_args, add_puzzle_args,
                               add_solver_args, command_words, engine_options, model_from_args, model_nonzeros,
                               note_unused_options, print_grid, puzzle_from_args, resolve_solver, say_handed_on,
                               time_limit_words)
from pipeline.core.build import build_model
from pipeline.core.rulerows import rule_build_nonzeros
from pipeline.core.extracells import extra_digits, extra_lines
from pipeline.core.puzzle import Puzzle
from pipeline.core.symmetry import clue_digits
from pipeline.core.stops import TOO_LONG_TO_START, Deadline
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, Solver, SolveResult
from pipeline.solvers.auto import AUTO
from pipeline.solvers.extra_cells import extra_cells_for
from pipeline.solvers.relabel import relabelled_second, relabelling_settles


def _uniqueness(args, puzzle, deadline: Deadline, engine: Solver, answer: SolveResult) -> bool | None:
    """Is the puzzle's solution unique? One more engine call counting to 2: by ``engine`` when
    the user named it and it counts this model here, else by auto's counting engine (``--verbose``
    says which and why). None when that call stops on the time limit. The call's seconds go
    into ``answer``'s (``seconds`` and ``proof_seconds``)."""
    deadline.check_build(model_nonzeros(puzzle), f"the {puzzle.n}x{puzzle.n} model to count", rule_build_nonzeros(puzzle))
    model = build_model(puzzle, "ijk", "C", "bounds")
    named = getattr(args, "solver", None) not in (None, AUTO)
    problem = None if not named else ("it cannot count" if not engine.counts or not engine.in_process
                                      else engine.problem_with(model))
    if named and problem is None:
        solver = engine
        if args.verbose:
            print(f"solver: the uniqueness check counts to 2 with {engine.name}", file=sys.stderr)
    else:
        solver = resolve_solver(args, "count", model, need="count", auto=True)
        if named and args.verbose:
            print(f"solver: the uniqueness check uses {solver.name} ({engine.name}: {problem})", file=sys.stderr)
    assert solver.count is not None   # need="count" refused one without
    result = solver.count(model, 2, **engine_options(args, solver, "count", deadline=deadline))
    answer.proof_seconds = result.seconds
    answer.seconds += result.seconds
    return result.unique


def _say_where_files_went(args, name: str, kept: Path | None) -> None:
    """A --workdir that already held files got the engine's files in a fresh subdirectory: say where."""
    if kept is not None and args.workdir is not None and Path(kept) != Path(args.workdir):
        print(f"note: {args.workdir} already holds files; {name}'s files are in {kept}", file=sys.stderr)


def cmd_solve(args: argparse.Namespace) -> int:
    """``--time-limit`` bounds the whole command (:class:`~pipeline.core.stops.Deadline`): build,
    solve, uniqueness, verify. Stopped before an answer: ``no solution: time limit ...``, exit 1;
    stopped in the uniqueness check: the answer, its uniqueness unknown."""
    deadline = Deadline(args.time_limit, lambda reason: _no_solution(args, "time_limit", reason))
    return deadline.run(lambda d: _solve(args, d))


def _no_solution(args: argparse.Namespace, status: str, message: str | None = None) -> int:
    reason = NO_SOLUTION_WORDS.get(status) or (time_limit_words(args, message) if status == "time_limit" else status)
    said = f"{reason}" + (f" ({message})" if message else "")
    if getattr(args, "format", None) == "json":   # a script reading stdout gets an object, as count's
        print(json.dumps({"grid": None, "line": None, "status": status, "message": said}))
    print(f"no solution: {said}", file=sys.stderr)
    return 1


def _solve(args: argparse.Namespace, deadline: Deadline) -> int:
    puzzle = puzzle_from_args(args)
    model = model_from_args(args, puzzle, deadline)
    # auto on a puzzle whose clues leave two digits unused: one solution, and those two swapped
    relabel = not args.no_unique_check and getattr(args, "solver", None) in (None, AUTO) and relabelling_settles(model)
    solver = resolve_solver(args, "solve" if args.no_unique_check or relabel else "unique", model)
    # an engine that proves uniqueness does so on the solver that found the answer (what it learnt)
    check = {"check_unique": True} if solver.proves_unique and not args.no_unique_check and not relabel else {}
    if args.no_unique_check or check or (solver.counts and solver.in_process):
        # otherwise another engine may count for the uniqueness check, with options of its own
        note_unused_options(args, solver, also=None if args.no_unique_check or check else solver)
    r = solver.solve(model, **engine_options(args, solver, deadline=deadline), **check)
    say_handed_on(args, solver.name, r)
    _say_where_files_went(args, solver.name, r.workdir)
    if r.grid is None:
        deadline.finish()
        # a time limit's own words are enough, unless the engine stopped before it started
        said = r.status == "infeasible" or r.status == "time_limit" and TOO_LONG_TO_START not in r.message
        return _no_solution(args, r.status, None if said else r.message)
    extra = extra_digits(model, r.x)   # the extra cells' digits (None: the puzzle has none)
    if puzzle.extra and extra is None and solver.solution_format == "grid":
        # a grid answer (Octave's sudoku.csv) says nothing of the extra cells: digits that go with it, as import finds
        extra, problem = extra_cells_for(r.grid, puzzle)
        if problem is not None:
            deadline.finish()
            print(f"solver answer does not verify: {problem}", file=sys.stderr)
            return 1
    if puzzle.extra and extra is None:
        deadline.finish()
        print(f"solver answer does not verify: {solver.name} gave no digits of the extra cells", file=sys.stderr)
        return 1
    verdict = verify_grid(r.grid, puzzle, extra)
    if not verdict:
        deadline.finish()
        print(f"solver answer does not verify: {verdict.message}", file=sys.stderr)
        return 1
    # the answer stands once the uniqueness check runs out of time: its uniqueness is then unknown
    deadline.expired = lambda reason: _answer(args, puzzle, r, None, r.solver or solver.name, extra)
    second = relabelled_second(puzzle, r.grid) if relabel else None
    if second is not None and args.verbose:
        swapped = np.unique(puzzle.shown(r.grid)[r.grid != second])   # in values, as the grid is printed
        print(f"solver: not unique: the clues use {clue_digits(puzzle)} of {puzzle.n} "
              f"digits; the answer with {' and '.join(map(str, swapped))} swapped is a second solution", file=sys.stderr)
    unique = (None if args.no_unique_check else False if second is not None else r.unique if check
              else _uniqueness(args, puzzle, deadline, solver, r))
    deadline.finish()
    return _answer(args, puzzle, r, unique, r.solver or solver.name, extra)


def _answer(args: argparse.Namespace, puzzle: Puzzle, r: SolveResult, unique: bool | None, engine: str,
            extra=None) -> int:
    """Print the verified answer (and the note when it is not the only one); ``engine`` is the
    engine used (what ``auto`` picked), for the JSON ``solver`` field; ``extra`` the digits of the
    extra cells (after the grid as ``S: 1 2 3`` lines, JSON ``extra``)."""
    if unique is False:
        print("note: the puzzle has more than one solution; this is one of them "
              f"({command_words()} count PUZZLE --list shows others)", file=sys.stderr)
    elif unique is None and not args.no_unique_check:   # the grid alone would look like a proved answer
        print("note: uniqueness not proved: the time limit ended the check (JSON \"unique\": null)", file=sys.stderr)
    steps = None
    if args.steps:   # the rater loads with --steps only: a plain solve starts without it (issue 18)
        from pipeline.tools.rate import human_steps

        steps = human_steps(puzzle, "json" if args.format == "json" else "text", r.grid, unique)
    if steps is not None and args.format != "json":
        print(steps)
    assert r.grid is not None
    shown = {} if extra is None else extra_lines(puzzle.extra, puzzle.value_of[extra - 1])
    print_grid(r.grid, puzzle, args.format, {"status": r.status, "solver": engine, "seconds": round(r.seconds, 6),
                                              "proof_seconds": None if r.proof_seconds is None
                                              else round(r.proof_seconds, 6),
                                              "nodes": r.nodes, "verified": True, "unique": unique,
                                              **({"extra": shown} if shown else {}),
                                              **({"workdir": str(r.workdir)} if r.workdir is not None else {}),
                                              **(steps if isinstance(steps, dict) else {})})
    if args.format != "json":
        for name, values in shown.items():
            print(f"{name}: {' '.join(map(str, values))}")
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``solve``."""
    p = subparsers.add_parser("solve", help="solve a puzzle and print the verified grid")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    add_limit_args(p, "time limit in seconds for the whole command (build, solve, uniqueness check, verify)")
    add_solver_args(p, list(SOLVERS), "engine from the solver registry")
    p.add_argument("--workdir", metavar="DIR",
                   help="keep an external solver's files in DIR when it is new or empty, else in a fresh "
                        "subdirectory DIR/SOLVER-K (stderr says which); a file already there is never replaced "
                        "(default: a temporary directory)")
    add_engine_args(p)
    uniqueness = p.add_mutually_exclusive_group()
    uniqueness.add_argument("--unique", action="store_true",
                            help="check that the solution is unique (the default; kept for scripts that ask for it)")
    uniqueness.add_argument("--no-unique-check", action="store_true",
                            help="skip the extra engine call that tells whether the puzzle has other solutions")
    p.add_argument("--steps", action="store_true",
                   help="also print the human steps and rating (as in rate; JSON keys steps, rating)")
    p.set_defaults(func=cmd_solve)
