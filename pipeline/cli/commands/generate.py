"""The ``generate`` subcommand."""
from __future__ import annotations

import argparse
import sys

from formats.files import atomic_open
from pipeline.cli.args import add_solver_args, resolve_solver
from pipeline.core.errors import PuzzleError
from pipeline.core.variants import VARIANTS, get_variant
from pipeline.tools.generate import (FORMATS, SHORTFALL_TRIES, SYMMETRIES, format_results, generate, new_seed,
                                     resolve_shape)
from pipeline.tools.rate import DIFFICULTIES

#: the engines generate can prove uniqueness with (its counting is the SAT engine's incremental API)
ENGINES = ("sat",)


def cmd_generate(args: argparse.Namespace) -> int:
    variant = args.variant or "classic"
    resolve_shape(args.size, args.box, variant)  # bad options fail before a seed is printed
    resolve_solver(args, "count", among=ENGINES)  # uniqueness proofs: says which engine, or why none
    seed = args.seed
    if seed is None:
        seed = new_seed()
        print(f"seed: {seed}", file=sys.stderr)
    if args.format == "line" and get_variant(variant).regions:
        raise PuzzleError(f"format: {variant} puzzles carry regions; use --format csv or json")
    results = list(generate(size=args.size, box=args.box, variant=variant, count=args.n, seed=seed,
                            symmetry=args.symmetry, clues=args.target_clues, minimal=args.minimal,
                            difficulty=args.difficulty, transform=args.transform, full=args.full))
    for g in results:
        if args.target_clues is not None and g.puzzle.n_clues > args.target_clues:
            print(f"puzzle {g.index}: reached {g.puzzle.n_clues} clues, not the {args.target_clues} asked "
                  f"(no further clue removable; fewest of {SHORTFALL_TRIES} grids)", file=sys.stderr)
        if args.minimal and g.minimal is False:
            print(f"puzzle {g.index}: not minimal: no {args.symmetry}-symmetric pattern in {SHORTFALL_TRIES} "
                  "grids was minimal clue by clue (no symmetric orbit is removable)", file=sys.stderr)
    text = format_results(results, args.format)
    if args.to:
        with atomic_open(args.to, "w") as f:
            f.write(text)
        print(f"wrote {len(results)} puzzle{'s' if len(results) != 1 else ''} ({args.format}) to {args.to}",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


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
    add_solver_args(p, list(ENGINES), "engine that proves uniqueness (generate counts with the SAT engine's "
                    "assumptions and blocking clauses)")
    p.add_argument("--format", choices=FORMATS, default="line",
                   help="line (one puzzle per line), grid, json (lines) or csv (batch input with regions, variant); default line")
    # --to as in export, draw, spy and report; --out was generate's own name and stays an alias
    p.add_argument("--to", "--out", dest="to", metavar="FILE",
                   help="write here (atomically) instead of stdout (--out is an alias of --to)")
    p.set_defaults(func=cmd_generate)
