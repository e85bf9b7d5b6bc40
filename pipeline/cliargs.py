"""What every subcommand shares: puzzle and model options, range checks, grid printing.

Subcommand modules (``pipeline/cli.py`` and the modules listed in its ``COMMAND_MODULES``) use
these so that every command spells ``--box``, ``--scheme`` or ``--format`` the same way.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from .build import CLUE_ENCODINGS, build_model
from .conventions import ORDERS, SCHEMES
from .errors import PipelineError
from .puzzle import DEFAULT_PUZZLE, VARIANTS, format_grid, grid_to_string, parse_puzzle


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
def add_puzzle_args(p: argparse.ArgumentParser, *, positional: bool = True, name: str = "puzzle") -> None:
    if positional:
        p.add_argument(name, metavar="PUZZLE", nargs="?", default=DEFAULT_PUZZLE,
                       help="81-char string ('.' or '0' empty), grid text/CSV file, N-by-3 row,col,digit CSV, "
                            "or '-' for stdin (default: the built-in seed puzzle, 23 clues)")
    p.add_argument("--box", metavar="HxW", help="box shape (default: sqrt(N)xsqrt(N), else the most square h<=w)")
    p.add_argument("--variant", choices=VARIANTS, help="puzzle family (default: classic, or jigsaw with --regions)")
    p.add_argument("--regions", metavar="IDS", help="jigsaw regions: one id per cell, row-major (string or file)")
    p.add_argument("--size", type=int, metavar="N", help="grid side for N-by-3 clue lists (default 9, or from --box)")


def add_model_args(p: argparse.ArgumentParser, *, order_default: str = "F", clues_default: str = "rows") -> None:
    p.add_argument("--scheme", choices=SCHEMES, default="ijk", help="variable indexing (default ijk)")
    p.add_argument("--order", choices=ORDERS, default=order_default,
                   help=f"memory order: F (MATLAB, first index fastest) or C (NumPy) (default {order_default})")
    p.add_argument("--clues", choices=CLUE_ENCODINGS, default=clues_default,
                   help=f"clue encoding: rows ([A;B]), bounds (lb=1) or reduce (presolved) (default {clues_default})")


def puzzle_from_args(args, source=None):
    return parse_puzzle(args.puzzle if source is None else source, box=args.box, variant=args.variant,
                        regions=args.regions, size=args.size)


def model_from_args(args, puzzle=None):
    return build_model(puzzle or puzzle_from_args(args), args.scheme, args.order, args.clues)


def print_grid(grid, puzzle, fmt: str, extra: dict | None = None) -> None:
    if fmt == "line":
        print(grid_to_string(grid))
    elif fmt == "json":
        print(json.dumps({"grid": np.asarray(grid).tolist(), "line": grid_to_string(grid), **(extra or {})}))
    else:
        print(format_grid(grid, puzzle.h if puzzle.has_boxes else None, puzzle.w if puzzle.has_boxes else None))
