"""The ``explain`` subcommand."""
from __future__ import annotations

import argparse
import json
import sys

from pipeline.cli.args import (add_puzzle_args, add_solver_args, add_time_limit_arg, one_row_source, resolve_solver,
                               stopped_by_time_limit)
from pipeline.core.clauses_pb import EncodingTooLarge
from pipeline.core.errors import SeveralPuzzles
from pipeline.core.stops import Deadline
from pipeline.tools.explain import COUNTING_ENGINES, DEFAULT_CAP, DEFAULT_MAXSAT, MAXSAT_METHODS, explain
from pipeline.tools.explain_rules import RULE_METHOD

#: the engines explain can be told to count with (its conflict search uses the SAT engine's API)
ENGINES = tuple(name for name in COUNTING_ENGINES if name != "auto")


def cmd_explain(args: argparse.Namespace) -> int:
    """Explain; ``--time-limit`` bounds the whole command (:class:`~pipeline.core.stops.Deadline`)."""
    deadline = Deadline(args.time_limit, lambda reason: stopped_by_time_limit(args, "explain", reason))
    return deadline.run(lambda d: _explain(args, d))


def _explain(args: argparse.Namespace, deadline: Deadline) -> int:
    resolve_solver(args, "count", among=ENGINES)  # says which engine counts, or why none can here
    solver = getattr(args, "solver", None) or "auto"
    if getattr(args, "verbose", False) and solver == "auto":   # the first count is auto's, for the puzzle's model
        print("solver: explain's first count goes to auto's pick for the puzzle (dfsrules for most rule puzzles "
              "where numba is installed); the conflicts and the clues to add use sat", file=sys.stderr)
    kw = dict(box=args.box, variant=args.variant, regions=args.regions, size=args.size, rules=args.rules)
    source = args.puzzle
    try:
        try:
            e = explain(source, cap=args.cap, maxsat=args.maxsat or DEFAULT_MAXSAT, solver=solver, **kw)
        except SeveralPuzzles as refused:   # a table of one record: its row's text, which may break a rule
            source, options = one_row_source(args, refused)
            kw.update({key: value for key, value in options.items() if key in kw})
            e = explain(source, cap=args.cap, maxsat=args.maxsat or DEFAULT_MAXSAT, solver=solver, **kw)
    except EncodingTooLarge as err:   # explain has no --amo, and its conflicts need the SAT engine
        raise err.memory_advice_only() from None
    deadline.finish()
    if args.maxsat and e.maxsat == RULE_METHOD:   # named, but clues and rules go through one SAT method
        print(f"note: --maxsat {args.maxsat} is for one grid without rules; with rules or a layout the fewest "
              f"removals of clues and rules are proved by {RULE_METHOD} (SAT with a totalizer)", file=sys.stderr)
    print(json.dumps(e.to_dict()) if args.format == "json" else e.text())
    return 1 if e.status in ("invalid", "infeasible") else 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("explain", help="why no solution / how solutions differ / unique with rating")
    add_puzzle_args(p)
    p.add_argument("--cap", type=int, default=DEFAULT_CAP, help=f"count solutions up to this many (default {DEFAULT_CAP})")
    p.add_argument("--maxsat", choices=MAXSAT_METHODS, default=None,
                   help=f"method proving the fewest removals optimal (default {DEFAULT_MAXSAT}, by measurement)")
    add_solver_args(p, list(ENGINES), "counting engine (explain counts and finds conflicts with the SAT "
                    "engine's assumptions)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form (default text)")
    add_time_limit_arg(p, "explanation")
    p.set_defaults(func=cmd_explain, option_names={"cap": "--cap"})   # explain()'s keywords, as typed
