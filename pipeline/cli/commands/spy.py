"""The ``spy`` subcommand."""
from __future__ import annotations

import argparse

from pipeline.cli.args import add_model_args, add_puzzle_args, model_from_args, puzzle_from_args
from pipeline.core.build import build_model
from pipeline.tools.draw import figure_format, load_matplotlib, said_to, write_figure
from pipeline.tools.spy import compare_convention, spy_figure


def cmd_spy(args: argparse.Namespace) -> int:
    figure_format(args.to)   # a name of no picture format is the error, even where matplotlib is missing
    load_matplotlib("spy")  # the missing extra is named before any work is done
    puzzle = puzzle_from_args(args)
    models = [model_from_args(args, puzzle)]
    if args.compare is not None:   # '' names nothing: refused, not skipped
        scheme, order, clues = compare_convention(args.compare, args.scheme, args.order, args.clues)
        models.append(build_model(puzzle, scheme, order, clues))
    fig = spy_figure(models)
    print(f"wrote {write_figure(fig, args.to)}", file=said_to(args.to))
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``spy``."""
    p = subparsers.add_parser("spy", help="picture of the sparsity of [A; B] with labelled row families")
    add_puzzle_args(p)
    add_model_args(p)
    p.add_argument("--compare", metavar="SPEC",
                   help="a second convention side by side: the first with the named parts changed, "
                        "e.g. C (order), block (scheme), block/C, reduce (clue encoding)")
    p.add_argument("--to", required=True, metavar="FILE", help="output .png or .svg (or .pdf)")
    p.set_defaults(func=cmd_spy)
