"""The ``generate`` subcommand.

Each puzzle is written as soon as it is made (whole lines only), so that a Ctrl-C or SIGTERM
loses none of the puzzles already made: to stdout, flushed puzzle by puzzle; with ``--to FILE``,
into a temporary file beside FILE that is renamed onto FILE at the end, and also after an
interrupt (FILE then holds every puzzle finished before it; exit 130). An error leaves FILE as it was,
and so does a run that finishes no puzzle (a time limit before the first).

Exit codes: 0 every puzzle asked for was made; 1 ``--time-limit`` ran out first (the finished
puzzles are written, stderr says how many); 2 bad input.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator

from formats.files import atomic_open
from pipeline.cli.args import add_solver_args, resolve_solver, rule_entry
from pipeline.core import stops
from pipeline.core.errors import PuzzleError
from pipeline.core.options import Bound, float_option
from pipeline.core.progress import LOG_SECONDS, PROGRESS_MODES, Progress
from pipeline.core.rules import RULES
from pipeline.core.variants import VARIANTS
from pipeline.tools.generate.output import grid_refusal
from pipeline.tools.generate.removal import removal_by_singles
from pipeline.tools.generate.samplers import SAMPLERS
from pipeline.tools.generate import (FORMATS, SEED_BOUND, SHORTFALL_TRIES, SYMMETRIES, DifficultyNotReached, Generated, generate,
                                     iter_formatted, new_seed, resolve_shape)
from pipeline.tools.rate import DIFFICULTIES

#: the engines generate can prove uniqueness with (its counting is the SAT engine's incremental API)
ENGINES = ("sat",)


#: Seconds before a progress bar shows on a terminal: a quick run draws none.
BAR_DELAY = 2.0


def _puzzles(args: argparse.Namespace, variant: str, seed: int, meters: list[Progress]) -> Iterator[Generated]:
    """:func:`generate` with the command's options, checked now (a bad one fails before the seed is
    printed); its progress goes to the meter :func:`_made_with_progress` puts in ``meters``."""
    def report(index: int, step: str, done: int, total: int) -> None:
        meters[0].detail(f"puzzle {index + 1}: {step} {done:,}/{total:,}")

    return generate(size=args.size, box=args.box, variant=variant, count=args.n, seed=seed,
                    symmetry=args.symmetry, clues=args.target_clues, minimal=args.minimal,
                    difficulty=args.difficulty, transform=args.transform, full=args.full,
                    time_limit=args.time_limit, progress=None if args.progress == "none" else report,
                    rules=args.rules, killer=args.killer, cages_only=args.cages_only, rule_count=args.rule_count,
                    rules_where="--rule")


def _made_with_progress(args: argparse.Namespace, puzzles: Iterator[Generated], meters: list[Progress],
                        made: list[Generated]) -> Iterator[Generated]:
    """The puzzles as each is made (also appended to ``made``), under ``--time-limit``, while the
    meter (``--progress``) shows how far the run and the current puzzle are."""
    meter = Progress(args.n, 0, args.progress, args.log_interval, sys.stderr, label="generate", delay=BAR_DELAY)
    meters.append(meter)
    try:
        for g in puzzles:
            made.append(g)
            meter.update(["made"])
            yield g
    except DifficultyNotReached as e:   # the stream ends; the finished puzzles are kept (as at a time limit)
        args.not_reached = str(e)
    finally:
        meter.close()


def _time_limit_reached(args: argparse.Namespace, made: list[Generated]) -> bool:
    """Say so when --time-limit (or a difficulty no try reached) ended the run before -n puzzles
    were made."""
    if len(made) >= args.n:
        return False
    why = getattr(args, "not_reached", None)
    if why is None:   # the answer is given below: what the stopped puzzle built is not freed (main)
        stops.ended_at_own_deadline()
        why = f"time limit of {args.time_limit} s reached"
    print(f"generate: {why}: {len(made)} of {args.n} puzzle{'s' if args.n != 1 else ''} finished", file=sys.stderr)
    return True


def _saying_the_seed(puzzles: Iterator[Generated], seed: int) -> Iterator[Generated]:
    """``puzzles``, with ``seed: S`` on stderr before the first one, or when the run ends without
    one (a time limit, Ctrl-C), so that it can be made again; not when bad input ends it (an
    option only the first puzzle checks, ``--rule entropic`` on a 4x4): that is one error line."""
    said = False
    try:
        for puzzle in puzzles:
            if not said:
                print(f"seed: {seed}", file=sys.stderr)
                said = True
            yield puzzle
    except PuzzleError:
        said = True
        raise
    finally:
        if not said:
            print(f"seed: {seed}", file=sys.stderr)


#: ``--to FILE``'s extension -> the format written when ``--format`` is not given
FORMAT_OF_SUFFIX = {".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json"}


def _format_for(args: argparse.Namespace) -> str:
    """``--format`` as given, else the one ``--to FILE``'s extension names (``.csv``: csv with its
    header, as batch reads it; ``.json``/``.jsonl``: JSON lines), else line; a ``.gz`` after it is
    the compression, not the format (batch reads ``p.csv.gz`` as CSV)."""
    if args.format is not None:
        return args.format
    name = args.to.lower() if args.to and args.to != "-" else ""
    suffix = os.path.splitext(name.removesuffix(".gz"))[1]
    return FORMAT_OF_SUFFIX.get(suffix, "line")


def cmd_generate(args: argparse.Namespace) -> int:
    if args.to == "":   # an unset shell variable: the puzzles went to stdout, exit 0, as if no --to were given
        raise PuzzleError("--to: empty path; name a file ('-' for standard output)")
    args.format = _format_for(args)
    variant = args.variant or "classic"
    resolve_shape(args.size, args.box, variant)  # bad options fail before a seed is printed
    # every variant: a grid refused after the first puzzle came after the "seed: N" line (two lines)
    why = grid_refusal(variant) if args.format == "grid" else None
    if why:
        raise PuzzleError(why)
    resolve_solver(args, "count", among=ENGINES)  # uniqueness proofs: says which engine, or why none


    Bound(0.0, what="a finite number of seconds").apply("--log-interval", args.log_interval, "", PuzzleError)
    # before any puzzle is made or --to FILE opened (generate() checks it only at the first puzzle)
    given_seed = SEED_BOUND.apply("--seed", args.seed, "", PuzzleError)
    seed = new_seed() if given_seed is None else given_seed
    if args.format == "grid" and (args.rules or args.killer or args.cages_only):
        raise PuzzleError("format: a grid cannot carry rules; use --format line (puzzle documents), json or csv")
    meters: list[Progress] = []
    puzzles = _puzzles(args, variant, seed, meters)   # every option checked: an error is the only line
    if given_seed is None:
        puzzles = _saying_the_seed(puzzles, seed)
    made: list[Generated] = []
    results = _noting_shortfalls(_made_with_progress(args, puzzles, meters, made), args)
    if not args.to or args.to == "-":   # "-": standard output, as export's and convert's --to -
        for text in iter_formatted(results, args.format):
            with stops.deferred():   # the whole puzzle or none of it
                sys.stdout.write(text)
                sys.stdout.flush()
        return 1 if _time_limit_reached(args, made) else 0
    written, interrupted = 0, False
    try:
        with stops.deferred(now=False) as commit:
            with atomic_open(args.to, "w") as f:
                try:
                    for text in iter_formatted(results, args.format):
                        with stops.deferred():
                            f.write(text)
                            written += 1
                except KeyboardInterrupt:   # keep what is made: FILE gets the puzzles finished so far
                    interrupted = True
                except Exception as e:   # the same Ctrl-C, wrapped by a class's creation
                    if not stops.wrapped_interrupt(e):
                        raise
                    interrupted = True
                if not written:   # nothing to keep: an earlier FILE is not replaced by an empty one
                    raise _NothingMade
                commit.hold()   # no signal between here and the end of the rename
    except _NothingMade:
        pass
    if interrupted:
        raise KeyboardInterrupt
    stopped = _time_limit_reached(args, made)
    if written:
        print(f"wrote {written} puzzle{'s' if written != 1 else ''} ({args.format}) to {args.to}", file=sys.stderr)
    else:
        print(f"no puzzle made: {args.to} was not written", file=sys.stderr)
    return 1 if stopped else 0


class _NothingMade(Exception):
    """Raised inside ``atomic_open`` to drop its temporary file when no puzzle was finished."""


def _noting_shortfalls(results: Iterable[Generated], args: argparse.Namespace) -> Iterator[Generated]:
    """The puzzles, each followed on stderr by what it did not reach (``--clues``, ``--minimal``)."""
    for g in results:
        yield g
        number = g.index + 1   # as the progress lines count puzzles
        if args.target_clues is not None and g.puzzle.n_clues > args.target_clues and g.stopped_at_target:
            print(f"puzzle {number}: {g.puzzle.n_clues} clues, not the {args.target_clues} asked: the {args.symmetry} "
                  f"pattern removes clues in groups, and another group would go below it", file=sys.stderr)
        elif args.target_clues is not None and g.puzzle.n_clues > args.target_clues:
            # above 16x16 without --minimal removal stops where singles stop, not where uniqueness does
            why = ("no further clue removable while singles solve the puzzle; --minimal removes more"
                   if removal_by_singles(g.puzzle.n, args.minimal, bool(g.puzzle.rules)) else "no further clue removable")
            print(f"puzzle {number}: reached {g.puzzle.n_clues} clues, not the {args.target_clues} asked "
                  f"({why}; fewest of {SHORTFALL_TRIES} grids)", file=sys.stderr)
        if args.minimal and g.minimal is False:
            if g.stopped_at_target:
                print(f"puzzle {number}: not minimal: removal stopped at {g.puzzle.n_clues} clues (--clues "
                      f"{args.target_clues})", file=sys.stderr)
            else:
                print(f"puzzle {number}: not minimal: no {args.symmetry}-symmetric pattern in {SHORTFALL_TRIES} "
                      "grids was minimal clue by clue (no symmetric orbit is removable)", file=sys.stderr)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("generate", help="generate puzzles with exactly one solution")
    p.add_argument("--box", metavar="HxW", help="box shape (default sqrt(N)xsqrt(N), else most square)")
    p.add_argument("--size", type=int, metavar="N", help="grid side (default 9, or from --box)")
    p.add_argument("--variant", choices=list(VARIANTS), help="puzzle family (default classic)")
    p.add_argument("-n", type=int, default=1, metavar="COUNT", help="how many puzzles (default 1)")
    p.add_argument("--seed", type=int, help="reproducible run, an integer from 0 to 2**63 - 1 (default: chosen "
                   "and printed on stderr)")
    p.add_argument("--symmetry", choices=SYMMETRIES, default="none", help="symmetry of the clue pattern (default none)")
    p.add_argument("--clues", dest="target_clues", type=int, metavar="K",
                   help="aim for K clues (stderr says when more remain)")
    p.add_argument("--minimal", action="store_true", help="prove no clue is removable without losing uniqueness (puzzles of units only; "
                        "refused with --rule, --killer or --cages-only, whose removal pass tries every clue anyway "
                        "and whose 'minimal' field says whether every check was decided)")
    p.add_argument("--difficulty", choices=("any",) + DIFFICULTIES, default="any",
                   help="rating label to aim for (pipeline rate; default any)")
    p.add_argument("--transform", action="store_true",
                   help="apply the seed-004 transformations to the full grid (classic, latin)")
    p.add_argument("--full", action="store_true", help="print full grids (no clue removed)")
    p.add_argument("--rule", dest="rules", action="append", type=rule_entry, metavar="KIND",
                   help="a rule the puzzles obey, repeatable: one its name alone gives (" + ", ".join(
                       kind for kind in RULES.bare_kinds() if kind not in SAMPLERS) + ") or a "
                   "family whose instances are drawn from the grid (" + ", ".join(SAMPLERS) + "); line output "
                   "is then one puzzle document per line (as for jigsaw regions)")
    p.add_argument("--rule-count", type=int, metavar="K",
                   help="instances drawn of each --rule family with cells (default: per family, about 2N/3 lines "
                        "on an N x N grid; strict Kropki / XV mark every pair)")
    p.add_argument("--killer", action="store_true", help="killer cages with their sums, then clues removed")
    p.add_argument("--cages-only", action="store_true",
                   help="killer with no givens: cages refined until they alone make the solution unique")
    add_solver_args(p, list(ENGINES), "engine that proves uniqueness (generate counts with the SAT engine's "
                    "assumptions and blocking clauses)")
    p.add_argument("--format", choices=FORMATS,
                   help="line (one puzzle per line), grid, json (lines) or csv (batch input with regions, variant); "
                        "default: from --to FILE's extension (.csv, .json, .jsonl), else line")
    # --to as in export, draw, spy and report; --out was generate's own name and stays an alias
    p.add_argument("--to", "--out", dest="to", metavar="FILE",
                   help="write here instead of stdout ('-': stdout): into a temporary file renamed onto FILE at the end, also "
                        "after Ctrl-C (then with the puzzles made so far); missing directories above it are created "
                        "(--out is an alias of --to)")
    p.add_argument("--time-limit", type=float_option, metavar="S",
                   help="seconds for the whole run, finite and > 0 (default: none); when it runs out the finished "
                        "puzzles are written, stderr says how many, and the exit code is 1")
    p.add_argument("--progress", choices=PROGRESS_MODES, default="auto",
                   help="progress bar (terminal, needs tqdm; after 2 s), log lines on stderr (the first after "
                        "--log-interval: a quick run prints none), or nothing (default: auto)")
    p.add_argument("--log-interval", type=float_option, default=LOG_SECONDS, metavar="SECONDS",
                   help=f"seconds between progress log lines (default {LOG_SECONDS:g})")
    # generate()'s keywords as typed here (its errors name the keyword)
    p.set_defaults(func=cmd_generate, checks_size=True, option_names={"count": "-n", "clues": "--clues", "size": "--size", "box": "--box",
                                                                 "rules": "--rule", "rule_count": "--rule-count",
                                                                 "seed": "--seed", "time_limit": "--time-limit"})
