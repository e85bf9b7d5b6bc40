"""The ``draw`` subcommand."""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time

import numpy as np

from formats.files import atomic_open

from pipeline.cli.args import add_puzzle_args, puzzle_from_args
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError
from pipeline.core.options import float_option
from pipeline.core.parse import COMPACT_DIGITS
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.textin import read_stdin
from pipeline.core.svg import GRID_LAYERS, MAX_INCHES, MIN_INCHES, candidate_layer, grid_svg, shade_layer
from pipeline.solvers import get_solver
from pipeline.tools.draw import (_puzzle_text, candidates, draw_grid, figure_format, highlight_mask, input_symbols,
                                 load_matplotlib, read_grid, said_to, symbol_table, write_figure)


#: SVG's pixels per inch (CSS), for the core renderer's cell size
CSS_PIXELS_PER_INCH = 96


def _svg_without_matplotlib(args: argparse.Namespace) -> bool:
    """An SVG needs no matplotlib: the core install draws it with the notebook's renderer (the
    same glyphs, shading and pencil marks); PNG and PDF need the plot extra."""
    return figure_format(args.to) == "svg" and importlib.util.find_spec("matplotlib") is None


def _core_svg(puzzle, grid, args: argparse.Namespace, symbols: str) -> str:
    """The core renderer's SVG with ``--highlight`` shading under the lines and ``--candidates``
    marks over everything (as ``draw_grid`` paints them), digits as ``symbols`` says."""
    layers = list(GRID_LAYERS)
    if args.highlight:
        mask = highlight_mask(args.highlight, puzzle, grid, args.box) & puzzle.present.reshape(puzzle.rows, puzzle.cols)
        at = next(k for k, layer in enumerate(layers) if layer.name == "rules-under")
        layers.insert(at, shade_layer(mask))
    if args.candidates:
        clue = puzzle.grid
        layers.append(candidate_layer(candidates(puzzle, clue if grid is None else np.where(clue != 0, clue, grid))))
    cell = None if args.inches is None else args.inches * CSS_PIXELS_PER_INCH / max(puzzle.rows, puzzle.cols)
    return grid_svg(puzzle, grid, cell=cell, layers=layers, names=symbol_table(puzzle.n, symbols))


def _symbols(asked: str, source, puzzle) -> str:
    """``--symbols``: ``auto`` follows the input (letters for the compact one-character form)."""
    if asked == "letters" and puzzle.values is not None:   # it was ignored without a word
        raise PipelineError(f"--symbols letters: a puzzle with a value set draws its values "
                            f"({puzzle.values[0]}..{puzzle.values[-1]}), not letters")
    if asked == "letters" and puzzle.n > len(COMPACT_DIGITS):   # it drew numbers without a word
        raise PipelineError(f"--symbols letters: a {puzzle.n}x{puzzle.n} grid has {puzzle.n} digits; the letters "
                            f"spell digits up to {len(COMPACT_DIGITS)} (A-Z for 10-35): draw it with numbers")
    if asked != "auto":
        return asked
    return input_symbols(_puzzle_text(source) if isinstance(source, str) else "", puzzle.n)


def _solution(puzzle, time_limit: float | None):
    """The puzzle's solution grid by the engine ``auto`` picks (HiGHS alone ran past two minutes
    on a 25x25), or None after saying on stderr that there is none: a negative answer, exit 1, as
    ``solve`` gives it (nothing is drawn)."""
    started = time.perf_counter()
    model = build_model(puzzle)
    # as solve holds it: rows that would outlast the limit are not built, and what the build
    # took comes off the engine's time (a 2 s limit ran 10.8 s)
    too_long = rule_rows_outlast(model, time_limit)
    left = None if time_limit is None else max(time_limit - (time.perf_counter() - started), 1e-3)
    result = None if too_long else get_solver("auto").solve(model, time_limit=left, check_unique=True)
    if result is None or result.grid is None:
        why = (f"not started: the time limit of {time_limit:g} s is too short ({too_long})" if result is None else
               f"time limit of {time_limit:g} s reached" if result.status == "time_limit"
               else f"the puzzle has no solution ({result.status})")
        print(f"no solution: {why}; nothing drawn", file=sys.stderr)
    elif result.unique is False:   # as solve says it: the picture shows one of several
        print("note: the puzzle has more than one solution; this draws one of them", file=sys.stderr)
    return None if result is None else result.grid


def cmd_draw(args: argparse.Namespace) -> int:
    figure_format(args.to)   # a name of no picture format is the error, even where matplotlib is missing
    if args.inches is not None and not (math.isfinite(args.inches) and MIN_INCHES <= args.inches <= MAX_INCHES):
        raise PipelineError(f"--inches: must be from {MIN_INCHES:g} to {MAX_INCHES:g}, got {args.inches:g}")
    core = _svg_without_matplotlib(args)
    if not core:
        load_matplotlib("draw")  # the missing extra is named before any work is done
    # standard input is read once here, so that its text also tells numbers from letters
    source = read_stdin() if args.puzzle == "-" else args.puzzle
    puzzle = puzzle_from_args(args, source)
    symbols = _symbols(args.symbols, source, puzzle)
    grid = None
    if args.grid:
        reading: list = []   # a 1-G puzzle whose answer is in 0-F: drawn in 0-F, as its answer
        grid = read_grid(args.grid, puzzle, args.box, reading=reading)
        if reading:
            puzzle = reading[0]
            symbols = _symbols(args.symbols, source, puzzle)
    elif args.solution:
        grid = _solution(puzzle, args.time_limit)
        if grid is None:
            return 1
    if core:
        svg = _core_svg(puzzle, grid, args, symbols)
        with atomic_open(args.to, "w") as out:
            out.write(svg)
        print(f"wrote {args.to} (the core install's SVG; the plot extra draws PNG and PDF too)", file=said_to(args.to))
        return 0
    mask = highlight_mask(args.highlight, puzzle, grid, args.box) if args.highlight else None
    fig = draw_grid(puzzle, grid, show_candidates=args.candidates, highlight=mask, symbols=symbols, inches=args.inches)
    print(f"wrote {write_figure(fig, args.to)}", file=said_to(args.to))
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``draw``."""
    p = subparsers.add_parser("draw", help="draw a puzzle (and a solution) to SVG/PNG/PDF")
    add_puzzle_args(p)
    source = p.add_mutually_exclusive_group()
    source.add_argument("--solution", action="store_true",
                        help="solve (the engine --solver auto picks) and draw the filled-in digits")
    source.add_argument("--grid", metavar="FILE", help="draw this (possibly wrong) filled-in grid")
    p.add_argument("--candidates", action="store_true",
                   help="pencil-mark candidates on empty cells: the digits no filled cell sees through a unit, "
                        "a cage or a knight/king move, of the right parity on even/odd cells (cage sums, "
                        "thermometers, dots and signs are not propagated)")
    p.add_argument("--highlight", action="append", metavar="SPEC",
                   help="cells to shade: 'r1c2,r3c4', 'violations' (rule breaks and changed clues of --grid), "
                        "'conflicts:r1c1=5 r2c2=7' (explain's conflicting clues, pasted), 'diff:GRIDFILE' "
                        "(cells where it differs from --grid/--solution); repeatable")
    p.add_argument("--symbols", choices=("auto", "numbers", "letters"), default="auto",
                   help="digits above 9 as numbers or letters A..Z (grids up to 35x35); default auto: as the input spells them "
                        "(letters for the compact one-character-per-cell form)")
    p.add_argument("--to", required=True, metavar="FILE", help="output .svg, .png or .pdf")
    p.add_argument("--time-limit", type=float_option, metavar="S",
                   help="seconds for --solution's solve, finite and > 0 (default: none)")
    p.add_argument("--inches", type=float_option, metavar="N",
                   help=f"the picture's longer side in inches, {MIN_INCHES:g} to {MAX_INCHES:g} (default: grows with the "
                        "grid up to 12; PNGs are drawn at 110 dpi): a larger one keeps the pencil marks of a "
                        "25x25 or larger readable")
    p.set_defaults(func=cmd_draw)
