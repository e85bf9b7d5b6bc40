"""The ``rate`` subcommand."""
from __future__ import annotations

import argparse
import json
import sys

from pipeline.cli.args import add_puzzle_args, puzzle_from_args
from pipeline.tools.rate import rate


def cmd_rate(args: argparse.Namespace) -> int:
    rating = rate(puzzle_from_args(args))
    if args.format == "json":
        print(json.dumps(rating.to_dict(brief=not args.steps)))
    else:
        if args.steps:
            for s in rating.steps:
                print(s.text())
        print(rating.text())
    if not rating.solved:
        print("no solution", file=sys.stderr)
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
    p.set_defaults(func=cmd_rate)
