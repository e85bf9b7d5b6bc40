"""The ``rate`` subcommand."""
from __future__ import annotations

import argparse
import json
import sys

from pipeline.cli.args import add_puzzle_args, add_time_limit_arg, puzzle_from_args, stopped_by_time_limit
from pipeline.core.stops import Deadline
from pipeline.tools.rate import rate


def cmd_rate(args: argparse.Namespace) -> int:
    """Rate; ``--time-limit`` bounds the whole command (:class:`~pipeline.core.stops.Deadline`)."""
    deadline = Deadline(args.time_limit, lambda reason: stopped_by_time_limit(args, "rate", reason))
    return deadline.run(lambda d: _rate(args, d))


def _rate(args: argparse.Namespace, deadline: Deadline) -> int:
    rating = rate(puzzle_from_args(args))
    deadline.finish()
    if args.format == "json":
        print(json.dumps(rating.to_dict(brief=not args.steps)))
    else:
        if args.steps:
            for s in rating.steps:
                print(s.text())
        print(rating.text())
    if not rating.solved:
        print("no solution: the puzzle has none, so no rating", file=sys.stderr)   # stdout has the label
        return 1
    if rating.unique is False:
        print("note: the puzzle has more than one solution; the rating is of the way to one of them",
              file=sys.stderr)
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("rate", help="rate a puzzle by the human techniques it needs")
    add_puzzle_args(p)
    p.add_argument("--steps", action="store_true", help="print every step")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form (default text)")
    add_time_limit_arg(p, "rating (its solve included)")
    p.set_defaults(func=cmd_rate)
