"""The ``verify`` subcommand."""
from __future__ import annotations

import argparse
import json
import re

import numpy as np

from pipeline.cli.args import add_puzzle_args, puzzle_from_args
from pipeline.core.errors import PuzzleError
from pipeline.core.claimed import read_claimed_grid
from pipeline.core.hexadoku import Alphabet
from pipeline.core.puzzle import parse_grid, parse_puzzle, with_rules
from pipeline.core.variants import least_side
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers.extra_cells import judged_with_extra_cells


#: The errors of a GRID whose text was never read (a missing file, a directory, no text at all):
#: no puzzle reads it, so they carry no "--puzzle PUZZLE" hint.
_UNREAD = re.compile(r"grid: (no such file |cannot read |empty input|'.*' is (a|an) [^']*, not a puzzle file$)")


def cmd_verify(args: argparse.Namespace) -> int:
    """Check GRID against the rules (and PUZZLE's clues when given); report every violation."""
    extra_cells = None
    drawn: list = []   # the box shape the grid's lines draw (solve's grid, its JSON "box")
    if args.puzzle_opt is not None:
        puzzle = puzzle_from_args(args, args.puzzle_opt)
        # as solve prints it: in the puzzle's values, its extra cells after the grid ("S: 1 2 3")
        reading: list = []   # a 1-G puzzle whose answer is in 0-F: the puzzle in 0-F, to name its values
        grid, extra_cells = read_claimed_grid(args.grid, puzzle, box=args.box, reading=reading)
        puzzle = reading[0] if reading else puzzle
    else:  # the rules alone: the grid's own shape, no clues
        # a full 16x16 grid in 0-F ('0' once a row and a column, no 'G'): an answer has no empty cells
        alphabet = Alphabet(answer=True)
        try:
            # a grid below the variant's least side is refused by its size (below), not by a digit past it
            grid = parse_grid(args.grid, box=args.box, size=args.size, size_from=None if args.size is None else "--size",
                              drawn=drawn, least=least_side(args.variant, args.regions is not None), alphabet=alphabet)
        except PuzzleError as e:   # a rectangle or a value set reads only against its puzzle
            if args.size is not None or args.box is not None or _UNREAD.match(str(e)):
                raise   # a file that was never read has no shape for --puzzle to give
            raise PuzzleError(f"{e}; a grid of another shape or other values is read against its puzzle: "
                              f"--puzzle PUZZLE") from None
        # --rule applies here too: the rules alone are the variant's units and the named rules
        box = args.box if args.box is not None or not drawn or drawn[0] is None else drawn[0]
        puzzle = parse_puzzle(np.zeros(grid.shape, dtype=np.int64), box=box, variant=args.variant,
                              regions=args.regions, size=grid.shape[0], rules=None if alphabet else args.rules)
        if alphabet:   # its values 0..15, as solve reads the 0-F puzzle (a --rule's digits are values too)
            puzzle = with_rules(puzzle.grid, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions, puzzle.layout,
                                list(args.rules or []), "--rule", values=alphabet[0])
    verdict = verify_grid(grid, puzzle, extra_cells)   # the first broken rule's message, or the valid one
    violations = [] if verdict else grid_violations(grid, puzzle, extra_cells)   # empty exactly when verdict.ok
    if verdict and puzzle.extra and extra_cells is None:
        # the rules over extra cells hold only for some digits of them: find them, or say none do
        verdict, extra_cells = judged_with_extra_cells(grid, puzzle, verdict, extra_cells)
        violations = [] if verdict else [{"rule": "extra cells", "message": verdict.message}]
    if verdict and args.puzzle_opt is None:
        extra = f" with {', '.join(rule.kind for rule in puzzle.rules)}" if puzzle.rules else ""
        message = f"valid {puzzle.variant} {puzzle.rows}x{puzzle.cols} grid{extra} (rules only: no --puzzle, no clues checked)"
    else:
        message = verdict.message
    hint = ""
    if not verdict and args.box is None and not (drawn and drawn[0]):
        fits = _boxes_it_fits(grid, puzzle, args)
        if fits:
            hint = (f"the grid is valid with --box {' or --box '.join(fits)} (its boxes were taken as "
                    f"{puzzle.h}x{puzzle.w}, the default for {puzzle.n}x{puzzle.n})")
        elif _latin_square(grid, puzzle, args):
            hint = ("the grid is a valid Latin square (each digit once a row and a column): give --variant latin "
                    "if its puzzle has no boxes")
    if args.format == "json":
        print(json.dumps({"ok": verdict.ok, "message": message, "checked_clues": args.puzzle_opt is not None,
                          "variant": puzzle.variant, "n": puzzle.n, "violations": violations,
                          **({"hint": hint} if hint else {})}))
    elif verdict:
        print(f"ok: {message}")
    else:
        for violation in violations:
            print(f"invalid: {violation['message']}")
        if hint:
            print(f"hint: {hint}")
    return 0 if verdict else 1


def _boxes_it_fits(grid: np.ndarray, puzzle, args: argparse.Namespace) -> list[str]:
    """The other box shapes ``HxW`` of the grid's side under which it is valid: a line of 36
    digits says nothing of its boxes, and a 6x6 of 3x2 boxes read as the default 2x3 broke them."""
    n = puzzle.n
    if puzzle.regions is not None or puzzle.layout is not None or puzzle.variant == "latin" or grid.shape != (n, n):
        return []   # no boxes to have taken wrongly
    shapes = [(h, n // h) for h in range(2, n) if n % h == 0 and (h, n // h) != (puzzle.h, puzzle.w)]
    fits = []
    for h, w in shapes:
        try:
            other = _puzzle_read_with(args, grid, box=f"{h}x{w}")
        except PuzzleError:   # a puzzle that says its own boxes, or a shape its variant has not
            continue
        if verify_grid(grid, other):
            fits.append(f"{h}x{w}")
    return fits


def _puzzle_read_with(args: argparse.Namespace, grid: np.ndarray, **options: str):
    """The puzzle verify checks against (``--puzzle``'s, else the rules alone), read with other options."""
    if args.puzzle_opt is not None:   # its clues too: read again, as the command line would with these options
        return puzzle_from_args(argparse.Namespace(**{**vars(args), **options}), args.puzzle_opt)
    return parse_puzzle(np.zeros(grid.shape, dtype=np.int64), box=options.get("box"),
                        variant=options.get("variant", args.variant), size=grid.shape[0], rules=args.rules)


def _latin_square(grid: np.ndarray, puzzle, args: argparse.Namespace) -> bool:
    """Whether a grid that breaks its boxes holds as a Latin square (rows and columns only)."""
    if puzzle.variant != "classic" or puzzle.regions is not None or puzzle.layout is not None or puzzle.rules:
        return False
    try:
        return bool(verify_grid(grid, _puzzle_read_with(args, grid, variant="latin")))
    except PuzzleError:
        return False


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``verify``."""
    p = subparsers.add_parser("verify", help="check a completed grid against the rules (and a puzzle's clues); "
                                      "list every violation")
    p.add_argument("grid", metavar="GRID", help="completed grid (any puzzle form: line, grid file, CSV, '-')")
    p.add_argument("--puzzle", dest="puzzle_opt", metavar="PUZZLE",
                   help="the puzzle it should solve, whose clues are checked too (default: none, the rules alone)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: 'ok: ...' or one 'invalid: ...' line per violation; json: one object (default text)")
    add_puzzle_args(p, positional=False)
    p.set_defaults(func=cmd_verify)
