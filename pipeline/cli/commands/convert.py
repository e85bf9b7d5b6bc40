"""The ``convert`` subcommand: a puzzle from any input form to a JSON document, an f-puzzles link or an ISS string."""
from __future__ import annotations

import argparse
import sys

from formats.files import atomic_open
from pipeline.cli.args import add_puzzle_args, puzzle_from_args
from pipeline.core.convert import PUZZLE_FORMATS, format_for_target, text_fields, unwritten_fields, write_puzzle


def cmd_convert(args: argparse.Namespace) -> int:
    """Write the puzzle in the target's format (``--to -``: standard output, ``--format`` needed)."""
    fmt = "json" if args.to == "-" and args.format is None else format_for_target(args.to, args.format)
    puzzle = puzzle_from_args(args)
    fields = text_fields(args.puzzle)
    text = write_puzzle(puzzle, fmt, fields=fields)
    unwritten = unwritten_fields(fields, fmt)
    if unwritten:   # free text the target has no place for: said, not dropped without a word
        print(f"note: convert: {PUZZLE_FORMATS[fmt][0]} has no place for the puzzle's {', '.join(unwritten)}: "
              "not written", file=sys.stderr)
    if args.to == "-":
        sys.stdout.write(text)
        return 0
    with atomic_open(args.to, "w") as f:
        f.write(text)
    print(f"wrote {args.to} ({fmt})", file=sys.stderr)
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``convert``."""
    p = subparsers.add_parser("convert", help="write a puzzle as a JSON document, an f-puzzles link or an ISS string")
    add_puzzle_args(p)
    p.add_argument("--to", required=True, metavar="FILE",
                   help="output file, its format from the extension (" + ", ".join(
                       f"{' '.join(exts)}: {name}" for name, (_, exts) in PUZZLE_FORMATS.items())
                   + "; .gz after any: gzip-compressed); '-' writes to standard output (JSON unless --format)")
    p.add_argument("--format", choices=tuple(PUZZLE_FORMATS), default=None,
                   help="the output format, whatever the extension: " + "; ".join(
                       f"{name}: {what}" for name, (what, _) in PUZZLE_FORMATS.items()))
    p.set_defaults(func=cmd_convert)
