"""The ``build`` subcommand."""
from __future__ import annotations

import argparse
import json

from pipeline.cli.args import add_model_args, add_puzzle_args, model_from_args


def cmd_build(args: argparse.Namespace) -> int:
    model = model_from_args(args)
    summary = model.summary()
    if args.json:
        print(json.dumps({**summary, "convention": model.convention.describe(), "clue_encoding": model.clue_encoding}))
        return 0
    conv = model.convention
    puzzle = model.puzzle   # its summary, and the boxes where the units have them (not a jigsaw's)
    boxes = f" (boxes {conv.h}x{conv.w})" if puzzle.has_boxes else ""
    print(f"puzzle     {puzzle.summary()}{boxes}")
    print(f"convention {conv.scheme}/{conv.order}, clues as {model.clue_encoding}")
    equal, at_most = model.row_bands()
    if at_most:   # the <= rows are a matrix of their own (Aineq): counted beside Aeq's, never in its rows
        print(f"rows       {summary['rows']} in Aeq (=), {summary['inequalities']} in Aineq (<=)")
    else:
        print(f"rows       {summary['rows']}")
    print(f"columns    {summary['columns']}" + (f" (of {summary['variables_total']})" if model.is_reduced else ""))
    print(f"nonzeros   {summary['nonzeros']}" + (f" in Aeq, {summary['inequality_nonzeros']} in Aineq" if at_most else ""))
    for band, sign in ((equal, "="), (at_most, "<=")):
        for family, count in band:
            print(f"  {family:<8} {count}" + (f" {sign}" if at_most else ""))
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``build``."""
    p = subparsers.add_parser("build", help="print the model's shape: rows, columns, nonzeros, rows per family")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_build)
