"""The ``generate`` subcommand."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator

from formats.files import atomic_open
from pipeline.core import stops
from pipeline.core.errors import PuzzleError
from pipeline.core.variants import VARIANTS, get_variant
from pipeline.tools.generate import (FORMATS, SHORTFALL_TRIES, SYMMETRIES, Generated, generate, iter_formatted,
                                     new_seed, resolve_shape)
from pipeline.tools.rate import DIFFICULTIES


def cmd_generate(args: argparse.Namespace) -> int:
    """Each puzzle is written as soon as it is made (whole lines only), so that a Ctrl-C or
    SIGTERM loses none of the puzzles already made: to stdout, flushed puzzle by puzzle; with
    ``--to FILE``, into a temporary file beside FILE that is renamed onto FILE at the end, and
    also after an interrupt (FILE then holds every puzzle finished before it; exit 130). An
    error leaves FILE as it was."""
    variant = args.variant or "classic"
    resolve_shape(args.size, args.box, variant)  # bad options fail before a seed is printed
    seed = args.seed
    if seed is None:
        seed = new_seed()
        print(f"seed: {seed}", file=sys.stderr)
    if args.format == "line" and get_variant(variant).regions:
        raise PuzzleError(f"format: {variant} puzzles carry regions; use --format csv or json")
    results = generate(size=args.size, box=args.box, variant=variant, count=args.n, seed=seed,
                       symmetry=args.symmetry, clues=args.target_clues, minimal=args.minimal,
                       difficulty=args.difficulty, transform=args.transform, full=args.full)
    if not args.to:
        for text in iter_formatted(_noting_shortfalls(results, args), args.format):
            with stops.deferred():   # the whole puzzle or none of it
                sys.stdout.write(text)
                sys.stdout.flush()
        return 0
    written, interrupted = 0, False
    with stops.deferred(now=False) as commit:
        with atomic_open(args.to, "w") as f:
            try:
                for text in iter_formatted(_noting_shortfalls(results, args), args.format):
                    with stops.deferred():
                        f.write(text)
                        written += 1
            except KeyboardInterrupt:   # keep what is made: FILE gets the puzzles finished so far
                interrupted = True
            commit.hold()   # no signal between here and the end of the rename
    if interrupted:
        raise KeyboardInterrupt
    print(f"wrote {written} puzzle{'s' if written != 1 else ''} ({args.format}) to {args.to}", file=sys.stderr)
    return 0


def _noting_shortfalls(results: Iterable[Generated], args: argparse.Namespace) -> Iterator[Generated]:
    """The puzzles, each followed on stderr by what it did not reach (``--clues``, ``--minimal``)."""
    for g in results:
        yield g
        if args.target_clues is not None and g.puzzle.n_clues > args.target_clues:
            print(f"puzzle {g.index}: reached {g.puzzle.n_clues} clues, not the {args.target_clues} asked "
                  f"(no further clue removable; fewest of {SHORTFALL_TRIES} grids)", file=sys.stderr)
        if args.minimal and g.minimal is False:
            print(f"puzzle {g.index}: not minimal: no {args.symmetry}-symmetric pattern in {SHORTFALL_TRIES} "
                  "grids was minimal clue by clue (no symmetric orbit is removable)", file=sys.stderr)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("generate", help="generate puzzles with exactly one solution")
    p.add_argument("--box", metavar="HxW", help="box shape (default sqrt(N)xsqrt(N), else most square)")
    p.add_argument("--size", type=int, metavar="N", help="grid side (default 9, or from --box)")
    p.add_argument("--variant", choices=list(VARIANTS), help="puzzle family (default classic)")
    p.add_argument("-n", type=int, default=1, metavar="COUNT", help="how many puzzles (default 1)")
    p.add_argument("--seed", type=int, help="reproducible run (default: chosen and printed on stderr)")
    p.add_argument("--symmetry", choices=SYMMETRIES, default="none", help="symmetry of the clue pattern (default none)")
    p.add_argument("--clues", dest="target_clues", type=int, metavar="K",
                   help="aim for K clues (stderr says when more remain)")
    p.add_argument("--minimal", action="store_true", help="prove no clue is removable without losing uniqueness")
    p.add_argument("--difficulty", choices=("any",) + DIFFICULTIES, default="any",
                   help="rating label to aim for (pipeline rate; default any)")
    p.add_argument("--transform", action="store_true",
                   help="apply the seed-004 transformations to the full grid (classic, latin)")
    p.add_argument("--full", action="store_true", help="print full grids (no clue removed)")
    p.add_argument("--format", choices=FORMATS, default="line",
                   help="line (one puzzle per line), grid, json (lines) or csv (batch input with regions, variant); default line")
    # --to as in export, draw, spy and report; --out was generate's own name and stays an alias
    p.add_argument("--to", "--out", dest="to", metavar="FILE",
                   help="write here instead of stdout: into a temporary file renamed onto FILE at the end, also "
                        "after Ctrl-C (then with the puzzles made so far) (--out is an alias of --to)")
    p.set_defaults(func=cmd_generate)
